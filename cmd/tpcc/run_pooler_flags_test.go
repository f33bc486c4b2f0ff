package main

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
)

func TestRunPoolerFlagsBadInput(t *testing.T) {
	closed := "postgres://user:secret@127.0.0.1:1/tpcc?sslmode=disable&connect_timeout=2"
	base := []string{"run", "--engine", "postgres", "--url", closed, "--warehouses", "1"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"endpoint without mode", append(base, "--pooler-endpoint", "pooler:5432"), "--pooler-endpoint needs --pooler-mode"},
		{"mode without endpoint", append(base, "--pooler-mode", "transaction"), "--pooler-mode needs --pooler-endpoint"},
		{"unknown mode", append(base, "--pooler-endpoint", "pooler:5432", "--pooler-mode", "statement"), `--pooler-mode "statement" is not a pooler mode`},
		{"no port", append(base, "--pooler-endpoint", "pooler", "--pooler-mode", "transaction"), `--pooler-endpoint "pooler" is not HOST:PORT`},
		{"no host", append(base, "--pooler-endpoint", ":5432", "--pooler-mode", "transaction"), `--pooler-endpoint ":5432" has no host`},
		{"port not a number", append(base, "--pooler-endpoint", "pooler:pg", "--pooler-mode", "session"), `--pooler-endpoint "pooler:pg": port "pg" is not a number`},
		{"cockroach", []string{"run", "--engine", "cockroach", "--url", closed, "--warehouses", "1", "--pooler-endpoint", "pooler:5432", "--pooler-mode", "transaction"}, "--pooler-endpoint is not supported with --engine cockroach (postgres only)"},
		{"ydb", []string{"run", "--engine", "ydb", "--url", "grpc://127.0.0.1:1/local", "--warehouses", "1", "--pooler-endpoint", "pooler:5432", "--pooler-mode", "session"}, "--pooler-endpoint is not supported with --engine ydb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			code, _, stderr := runTPCC(t, 30*time.Second, tc.args...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitBadInput, tc.want)
			}
			if strings.Contains(stderr, "secret") {
				t.Fatalf("stderr shows the password: %q", stderr)
			}
			if time.Since(start) > time.Second {
				t.Fatalf("took %v: bad input must be rejected before connecting", time.Since(start))
			}
		})
	}
}

func TestRunPoolerURL(t *testing.T) {
	raw := "postgres://app:s3cret@cluster-rw:5432/tpcc?sslmode=require&application_name=tpcc"
	for _, tc := range []struct {
		mode, wantExec string
	}{{"transaction", "cache_describe"}, {"session", ""}} {
		f := runFlags{engine: "postgres", url: raw, poolerEndpoint: "pooler-rw:6432", poolerMode: tc.mode}
		got, mode, err := f.poolerURL(pgwire.PostgresDriver())
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatal(err)
		}
		pw, _ := u.User.Password()
		q := u.Query()
		if string(mode) != tc.mode || u.Host != "pooler-rw:6432" || u.User.Username() != "app" || pw != "s3cret" || u.Path != "/tpcc" ||
			q.Get("sslmode") != "require" || q.Get("application_name") != "tpcc" || q.Get("default_query_exec_mode") != tc.wantExec {
			t.Errorf("%s: %s (mode %q); want the pooler's host and --url's user, password, database and parameters, default_query_exec_mode %q", tc.mode, got, mode, tc.wantExec)
		}
	}
	f := runFlags{engine: "postgres", url: raw}
	if got, mode, err := f.poolerURL(pgwire.PostgresDriver()); err != nil || got != raw || mode != "" {
		t.Errorf("without a pooler: %s, %q, %v; want --url as is", got, mode, err)
	}
}
