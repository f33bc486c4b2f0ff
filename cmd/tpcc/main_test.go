package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code = dispatch(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// Bad input exits non-zero with a message naming the flag, before any work (the URL of the
// valid-looking cases points at a closed port, so reaching the database would fail differently).
func TestBadInput(t *testing.T) {
	closed := "postgres://postgres@127.0.0.1:1/tpcc?sslmode=disable&connect_timeout=2"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "usage: tpcc"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown search strategy", []string{"search", "--engine", "postgres", "--url", closed, "--warehouses", "4", "--strategy", "binary"}, `--strategy must be guided or line, got "binary"`},
		{"probe longer than the step", []string{"search", "--engine", "postgres", "--url", closed, "--warehouses", "4", "--duration", "10s", "--probe-duration", "20s"}, "--probe-duration must be between 1s and --duration (10s), got 20s"},
		{"probe shorter than a New-Order cycle", []string{"search", "--engine", "postgres", "--url", closed, "--warehouses", "4", "--duration", "5m", "--probe-duration", "20s"}, "--probe-duration 20s is below 30s with --wait spec"},
		{"probe with the line search", []string{"search", "--engine", "postgres", "--url", closed, "--warehouses", "4", "--strategy", "line", "--probe-duration", "5s"}, "--probe-duration applies only to --strategy guided"},
		{"unknown engine", []string{"load", "--engine", "mysql", "--url", closed, "--warehouses", "1"}, `--engine: unknown engine "mysql"`},
		{"missing engine", []string{"load", "--url", closed, "--warehouses", "1"}, "--engine is required"},
		{"missing url", []string{"check", "--engine", "postgres", "--warehouses", "1"}, "--url is required"},
		{"zero warehouses", []string{"load", "--engine", "postgres", "--url", closed, "--warehouses", "0"}, "--warehouses must be >= 1, got 0"},
		{"from outside", []string{"load", "--engine", "postgres", "--url", closed, "--warehouses", "4", "--from", "5"}, "--from 5 outside 1..4"},
		{"to outside", []string{"load", "--engine", "postgres", "--url", closed, "--warehouses", "4", "--from", "2", "--to", "9"}, "--to 9 outside 2..4"},
		{"to before from", []string{"check", "--engine", "postgres", "--url", closed, "--warehouses", "4", "--from", "3", "--to", "2"}, "--to 2 outside 3..4"},
		{"zero threads", []string{"load", "--engine", "postgres", "--url", closed, "--warehouses", "1", "--threads", "0"}, "--threads must be >= 1"},
		{"stray argument", []string{"load", "--engine", "postgres", "--url", closed, "--warehouses", "1", "extra"}, `unexpected argument "extra"`},
		{"unreachable url", []string{"load", "--engine", "postgres", "--url", closed, "--warehouses", "1"}, "--url: cannot reach the database"},
		{"unreachable url (check)", []string{"check", "--engine", "cockroach", "--url", closed, "--warehouses", "1"}, "--url: cannot reach the database"},
		{"malformed url", []string{"load", "--engine", "postgres", "--url", "postgres://[::1", "--warehouses", "1"}, "--url"},
		{"unknown flag", []string{"check", "--wat"}, "flag provided but not defined: -wat"},
		{"unknown table persistence", []string{"load", "--engine", "postgres", "--url", closed, "--warehouses", "1", "--tables", "nowal"}, `--tables "nowal": want logged or unlogged`},
		{"unlogged tables on CockroachDB", []string{"load", "--engine", "cockroach", "--url", closed, "--warehouses", "1", "--tables", "unlogged"}, "--tables unlogged: engine cockroach has no unlogged tables (PostgreSQL only)"},
		{"unlogged tables on YDB", []string{"load", "--engine", "ydb", "--url", "grpc://127.0.0.1:1/local", "--warehouses", "1", "--tables", "unlogged"}, "--tables unlogged: engine ydb has no unlogged tables (PostgreSQL only)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			code, _, stderr := runCLI(t, tc.args...)
			if code == 0 {
				t.Fatalf("exit 0, want non-zero; stderr: %s", stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.want)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v: bad input must fail fast", d)
			}
		})
	}
}

func TestHelpExitsZero(t *testing.T) {
	if code, _, stderr := runCLI(t, "load", "-h"); code != 0 || !strings.Contains(stderr, "-warehouses") {
		t.Errorf("load -h: exit %d, stderr %q", code, stderr)
	}
}

// Against the local sync cluster: load, check (pass), check an unloaded range (refused).
func TestLoadAndCheckCommands(t *testing.T) {
	url := freshDatabase(t, pgtest.URL(t))
	code, stdout, stderr := runCLI(t, "load", "--engine", "postgres", "--url", url, "--warehouses", "2", "--from", "1", "--to", "1", "--threads", "2", "--seed", "3")
	if code != 0 || !strings.Contains(stdout, "loaded warehouses 1-1 of 2: 1 loaded") {
		t.Fatalf("load 1-1: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "warehouses") {
		t.Errorf("no progress lines on stderr: %q", stderr)
	}
	code, _, stderr = runCLI(t, "check", "--engine", "postgres", "--url", url, "--warehouses", "2")
	if code == 0 || !strings.Contains(stderr, "warehouses 2 are not loaded") {
		t.Errorf("check of 1..2 with 1 loaded: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "load", "--engine", "postgres", "--url", url, "--warehouses", "2", "--threads", "2")
	if code != 0 || !strings.Contains(stdout, "1 loaded, 1 already done") {
		t.Fatalf("load 1-2: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "check", "--engine", "postgres", "--url", url, "--warehouses", "2", "--load-time")
	if code != 0 || strings.Count(stdout, "PASS") != 14 {
		t.Errorf("check: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}

	// The dataset: the load's identity, and what rows were added or removed since.
	dsFile := filepath.Join(t.TempDir(), "dataset.json")
	readDataset := func(consistent bool) snapshot.Dataset {
		t.Helper()
		code, stdout, stderr := runCLI(t, "check", "--engine", "postgres", "--url", url, "--warehouses", "2", "--dataset-json", dsFile)
		if (code == 0) != consistent || !strings.Contains(stdout, "dataset: postgres, schema 1, 2 warehouses, seed 3") {
			t.Fatalf("check --dataset-json: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
		}
		body, err := os.ReadFile(dsFile)
		if err != nil {
			t.Fatal(err)
		}
		var ds snapshot.Dataset
		if err := json.Unmarshal(body, &ds); err != nil {
			t.Fatal(err)
		}
		return ds
	}
	ds := readDataset(true)
	summaryFile := filepath.Join(t.TempDir(), "summary.json")
	readSummary := func(consistent bool) snapshot.CheckSummary {
		t.Helper()
		code, stdout, stderr := runCLI(t, "check", "--engine", "postgres", "--url", url, "--warehouses", "2", "--summary-json", summaryFile)
		if (code == 0) != consistent {
			t.Fatalf("check --summary-json: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
		}
		body, err := os.ReadFile(summaryFile)
		if err != nil {
			t.Fatal(err)
		}
		var s snapshot.CheckSummary
		if err := json.Unmarshal(body, &s); err != nil {
			t.Fatal(err)
		}
		if s.Dataset == nil || s.Elapsed <= 0 || len(body) > 4096 {
			t.Fatalf("summary without its dataset or elapsed time, or longer than a termination message (%d bytes): %s", len(body), body)
		}
		return s
	}
	if s := readSummary(true); !s.Pass() || s.Conditions != 12 || s.Passed != 12 || s.Dataset.Growth()["orders"] != 0 {
		t.Errorf("summary of a consistent dataset: %+v", s)
	}
	if code, _, stderr := runCLI(t, "check", "--engine", "postgres", "--url", url, "--warehouses", "2", "--summary-json", dsFile, "--dataset-json", dsFile); code != 2 || !strings.Contains(stderr, "--summary-json and --dataset-json name the same file") {
		t.Errorf("one file for both: exit %d, stderr %s", code, stderr)
	}
	want := map[string]int64{"orders": 60000, "history": 60000, "new_order": 18000}
	for table, n := range want {
		if ds.Rows[table] != n || ds.Loaded[table] != n || ds.Growth()[table] != 0 {
			t.Errorf("%s: %d rows, %d loaded, growth %d; want %d and none", table, ds.Rows[table], ds.Loaded[table], ds.Growth()[table], n)
		}
	}
	for _, tc := range []struct {
		engine     string
		warehouses int
		want       string
	}{
		{"postgres", 2, ""},
		{"postgres", 4, "the database holds 2 loaded warehouses, the run asks for 4"},
		{"cockroach", 2, "the database holds a postgres dataset, the run is cockroach"},
	} {
		if m := ds.Mismatch(tc.engine, tc.warehouses); m != tc.want {
			t.Errorf("Mismatch(%s, %d) = %q, want %q", tc.engine, tc.warehouses, m, tc.want)
		}
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, q := range []string{"UPDATE tpcc_meta SET finished = false",
		"INSERT INTO history SELECT * FROM history LIMIT 5", "DELETE FROM new_order WHERE no_o_id = 2101 AND no_d_id = 1 AND no_w_id = 1"} {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Rows added and removed by hand break the consistency conditions (the check fails) but the
	// dataset is still reported, with its growth.
	ds = readDataset(false)
	if s := readSummary(false); s.Pass() || s.FirstFailure == nil || !strings.HasPrefix(s.FirstFailure.ID, "3.3.2.") || s.Passed >= s.Conditions || s.Dataset.Growth()["history"] != 5 {
		t.Errorf("summary of a broken dataset: %+v, first failure %+v", s, s.FirstFailure)
	}
	if g := ds.Growth(); g["history"] != 5 || g["new_order"] != -1 || g["orders"] != 0 {
		t.Errorf("growth %v, want history +5, new_order -1", g)
	}
	if m := ds.Mismatch("postgres", 2); m != "the load of the database never finished (its indexes are missing)" {
		t.Errorf("mismatch of an unfinished load: %q", m)
	}
}
