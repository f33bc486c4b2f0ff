package drivers

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	ydbsdk "github.com/ydb-platform/ydb-go-sdk/v3"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/tpcctest"
)

// The load, check and transaction paths against servers the user brings (make e2e-external):
// TPCC_E2E_COCKROACH_URL, a CockroachDB (postgres://user:pass@host:26257/db?sslmode=…), and
// TPCC_E2E_YDB_ENDPOINT, a YDB database (grpc[s]://host:port/database). Each test is skipped,
// saying so, when its variable is unset. Neither server can run on this project's machines:
// these tests have never run here.
//
// TPCC_E2E_WAREHOUSES (default 2) and TPCC_E2E_BURST (default 20s) size the run.

// TestExternalCockroach loads a fresh database on the CockroachDB cluster (created next to the
// URL's database and dropped afterwards), checks it, runs every transaction from 8 workers, and
// checks again.
func TestExternalCockroach(t *testing.T) {
	raw := externalVar(t, "TPCC_E2E_COCKROACH_URL", "CockroachDB")
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		t.Fatalf("TPCC_E2E_COCKROACH_URL is not a postgres:// URL with a host")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, raw)
	if err != nil {
		t.Fatalf("TPCC_E2E_COCKROACH_URL: cannot connect to %s: %s", u.Host, redactURL(err.Error(), u))
	}
	defer admin.Close(context.Background())
	var version string
	if err := admin.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	t.Logf("server: %s", version)
	if !strings.Contains(version, "CockroachDB") {
		t.Fatalf("TPCC_E2E_COCKROACH_URL names a server that is not CockroachDB: %s", version)
	}
	name := fmt.Sprintf("tpcc_e2e_%d", time.Now().UnixNano()%1_000_000_000)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if os.Getenv("TPCC_E2E_KEEP") == "1" {
			t.Logf("TPCC_E2E_KEEP=1: database %s kept", name)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" CASCADE"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	externalLoadCheckRun(t, mustLookup(t, "cockroach"), u.String())
}

// TestExternalYDB loads the YDB database of the endpoint (its TPC-C tables are dropped before
// and after: give it a database without other tables of these names), checks it, runs every
// transaction from 8 workers, and checks again.
func TestExternalYDB(t *testing.T) {
	endpoint := externalVar(t, "TPCC_E2E_YDB_ENDPOINT", "YDB")
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "grpc" && u.Scheme != "grpcs") || u.Host == "" || strings.Trim(u.Path, "/") == "" {
		t.Fatalf("TPCC_E2E_YDB_ENDPOINT is not grpc[s]://host:port/database")
	}
	d := mustLookup(t, "ydb")
	dropYDB := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		db, err := ydbsdk.Open(ctx, endpoint)
		if err != nil {
			t.Fatalf("TPCC_E2E_YDB_ENDPOINT: %v", err)
		}
		defer db.Close(context.Background()) //nolint:errcheck
		for _, s := range d.DropSchemaDDL() {
			if err := db.Query().Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	dropYDB()
	t.Cleanup(func() {
		if os.Getenv("TPCC_E2E_KEEP") != "1" {
			dropYDB()
		}
	})
	externalLoadCheckRun(t, d, endpoint)
}

func externalVar(t *testing.T, name, engine string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Skipf("%s skipped: %s is not set (make e2e-external with it set runs this against your server)", engine, name)
	}
	return v
}

// redactURL removes the URL's password from s (a driver error may quote the connection string).
func redactURL(s string, u *url.URL) string {
	if p, ok := u.User.Password(); ok && p != "" {
		s = strings.ReplaceAll(s, p, "***")
	}
	return s
}

func externalLoadCheckRun(t *testing.T, d tpcc.Driver, url string) {
	t.Helper()
	warehouses := 2
	if s := os.Getenv("TPCC_E2E_WAREHOUSES"); s != "" {
		if _, err := fmt.Sscan(s, &warehouses); err != nil || warehouses < 1 {
			t.Fatalf("TPCC_E2E_WAREHOUSES=%q: want a positive number", s)
		}
	}
	burst := 20 * time.Second
	if s := os.Getenv("TPCC_E2E_BURST"); s != "" {
		var err error
		if burst, err = time.ParseDuration(s); err != nil {
			t.Fatalf("TPCC_E2E_BURST=%q: %v", s, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	const seed = 20261123
	start := time.Now()
	if err := tpcc.Load(ctx, tpcc.LoadOptions{Driver: d, URL: url, Warehouses: warehouses, Threads: 2, Seed: seed, SeedSet: true, Finish: true, Vacuum: true}); err != nil {
		t.Fatalf("load %d warehouses: %v", warehouses, err)
	}
	t.Logf("%s: loaded %d warehouses in %v", d.Name(), warehouses, time.Since(start).Round(time.Millisecond))
	externalCheck(t, ctx, tpcc.CheckOptions{Driver: d, URL: url, Warehouses: warehouses, Threads: 2, LoadTime: true})

	const workers = 8
	e, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: d, URL: url, MaxConns: workers})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	c := tpcctest.RunBurst(t, e, tpcc.ConstantsForSeed(seed), warehouses, workers, burst)
	total := c.Total()
	t.Logf("%s: %d transactions in %v, %d retries, %d exhausted; new-order %d (rolled back %d, remote lines %d), payment %d (by name %d), order-status %d, delivery %d, stock-level %d",
		d.Name(), total, burst, c.Retries, c.Exhausted, c.NewOrders, c.Rollbacks, c.RemoteLines, c.Payments, c.PaymentsByName,
		c.OrderStatuses, c.Deliveries, c.StockLevels)
	for i, err := range c.Errors {
		if i < 5 {
			t.Errorf("transaction error: %v", err)
		}
	}
	if len(c.Errors) > 0 || total == 0 {
		t.Fatalf("%d transaction errors, %d transactions", len(c.Errors), total)
	}
	externalCheck(t, ctx, tpcc.CheckOptions{Driver: d, URL: url, Warehouses: warehouses, Threads: 2})
}

func externalCheck(t *testing.T, ctx context.Context, o tpcc.CheckOptions) {
	t.Helper()
	results, err := tpcc.Check(ctx, o)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	passed := 0
	for _, r := range results {
		switch {
		case r.Skipped:
		case r.Pass:
			passed++
		default:
			t.Errorf("check %s %s: %s", r.Condition.ID, r.Condition.Name, r.Detail)
		}
	}
	t.Logf("%s: check passed %d of %d conditions (load time %v)", o.Driver.Name(), passed, len(results), o.LoadTime)
}
