package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Against the local sync cluster: `tpcc load --listen` serves its progress while it loads 2
// warehouses — rows rising before the load ends, the warehouses done counted one by one, then the
// finish's statements (keys, indexes, ANALYZE, VACUUM, CHECKPOINT) done of total and running — to
// the token's holder only.
func TestLoadListenServesProgress(t *testing.T) {
	url := freshDatabase(t, pgtest.URL(t))
	const token = "load-progress-token-0123456789"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	base := "http://" + addr

	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := runCLI(t, "load", "--engine", "postgres", "--url", url, "--warehouses", "2", "--threads", "1", "--seed", "5",
			"--listen", addr, "--control-token-file", tokenFile)
		done <- result{code, stdout, stderr}
	}()

	var (
		readings []snapshot.LoadProgress
		refused  error
	)
	ctx := snapshot.WithToken(context.Background(), token)
	var res result
poll:
	for {
		select {
		case res = <-done:
			break poll
		case <-time.After(20 * time.Millisecond):
		}
		p, err := snapshot.FetchLoad(ctx, nil, base)
		if err != nil {
			continue // not serving yet, or already stopped
		}
		readings = append(readings, *p)
		if refused == nil {
			_, refused = snapshot.FetchLoad(context.Background(), nil, base)
		}
	}
	if res.code != 0 || !strings.Contains(res.stdout, "loaded warehouses 1-2 of 2: 2 loaded") {
		t.Fatalf("load: exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, "serving the load's progress on http://"+addr+snapshot.PathLoad) {
		t.Errorf("stderr does not say where the progress is served: %q", res.stderr)
	}
	if refused == nil || !strings.Contains(refused.Error(), "401") {
		t.Errorf("a request without the token: %v, want 401", refused)
	}
	if len(readings) == 0 {
		t.Fatal("no progress read while loading")
	}
	var midWarehouse, oneOfTwo, finishRunning bool
	finishDone := 0
	prev := int64(0)
	for _, p := range readings {
		if p.WarehouseFrom != 1 || p.WarehouseTo != 2 {
			t.Fatalf("range %d-%d, want 1-2", p.WarehouseFrom, p.WarehouseTo)
		}
		if p.Rows < prev {
			t.Errorf("rows went back from %d to %d", prev, p.Rows)
		}
		prev = p.Rows
		if p.Phase == "warehouses" && p.WarehousesDone == 0 && p.Rows > 100_000 {
			midWarehouse = true // rows of warehouse 1 landing before it is done
		}
		if p.WarehousesDone == 1 {
			oneOfTwo = true
		}
		if f := p.Finish; f != nil {
			if p.Phase != "finish" && p.Phase != "done" || f.Done < finishDone || f.Done > f.Total {
				t.Errorf("finish progress %+v in phase %s after %d done", *f, p.Phase, finishDone)
			}
			finishDone = f.Done
			finishRunning = finishRunning || len(f.Running) > 0 && f.Total > 20 // 9 ANALYZE and 9 VACUUM beside the keys and indexes
		}
	}
	if !finishRunning {
		t.Errorf("no reading of the finish with statements running: last %+v", readings[len(readings)-1])
	}
	if !midWarehouse || !oneOfTwo {
		t.Errorf("the readings show rows within the first warehouse: %v, one of two warehouses done: %v (%d readings, last %+v)",
			midWarehouse, oneOfTwo, len(readings), readings[len(readings)-1])
	}
}

// TestLoadListenNeedsToken: --listen beyond loopback without a token, and a token without
// --listen, are refused before any work, naming the flag.
func TestLoadListenNeedsToken(t *testing.T) {
	closed := "postgres://postgres@127.0.0.1:1/tpcc?sslmode=disable&connect_timeout=2"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", ":8080"}, "--control-token-file"},
		{[]string{"--control-token-file", "/nonexistent"}, "--control-token-file needs --listen"},
		{[]string{"--listen", "127.0.0.1:0", "--control-token-file", "/nonexistent"}, "--control-token-file /nonexistent"},
		{[]string{"--listen", "nocolon"}, "--listen \"nocolon\""},
	} {
		args := append([]string{"load", "--engine", "postgres", "--url", closed, "--warehouses", "1"}, tc.args...)
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}

// freeAddr is a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}
