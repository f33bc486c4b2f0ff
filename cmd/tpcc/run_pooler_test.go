package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
)

// TestRunThroughTransactionPooler runs `tpcc run` for 5 s through a transaction-mode PgBouncer
// of 3 server connections with telemetry, the ledger check and a setting read back, and then
// checks the database directly.
func TestRunThroughTransactionPooler(t *testing.T) {
	server := pgtest.NewServer(t)
	u := pgtest.Database(t, server.URL(), "tpcc_cli")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := tpcc.Load(ctx, tpcc.LoadOptions{Driver: pgwire.PostgresDriver(), URL: u, Warehouses: 1, Threads: 2, Finish: true}); err != nil {
		t.Fatalf("load: %v", err)
	}
	pooler := pgtest.NewPgBouncer(t, u, "transaction", 3)
	out := filepath.Join(t.TempDir(), "summary.json")
	code, stdout, stderr := runTPCC(t, 3*time.Minute, "run", "--engine", "postgres", "--url", u, "--warehouses", "1",
		"--wait", "none", "--ramp-up", "1s", "--duration", "5s", "--connections", "8", "--interval", "1s",
		"--pooler-endpoint", pooler.Endpoint(), "--pooler-mode", "transaction",
		"--telemetry", "--ledger-check", "--show-setting", "default_transaction_isolation", "--summary-json", out)
	t.Log(stdout)
	if code != exitCompliant && code != exitInconclusive {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	doc := readSummary(t, out)
	if doc.Error != "" || doc.Summary.TotalCompleted == 0 || doc.Summary.ErrorPercent != 0 {
		t.Fatalf("through the pooler: error %q, %d transactions, %.3f%% errors; stderr %s",
			doc.Error, doc.Summary.TotalCompleted, doc.Summary.ErrorPercent, stderr)
	}
	if doc.LedgerCheck == nil || !doc.LedgerCheck.Verdict.Pass {
		t.Errorf("ledger check through the pooler: %+v", doc.LedgerCheck)
	}
	if s := doc.Snapshot.Server; s == nil || s.Settings["default_transaction_isolation"] != "read committed" {
		t.Errorf("settings read back through the pooler: %+v", s)
	}
	samples := 0
	for _, iv := range doc.Intervals.Items {
		if tel := iv.Telemetry; tel != nil {
			samples++
			if tel.Error != "" {
				t.Errorf("telemetry through the pooler: %s", tel.Error)
			}
		}
	}
	if samples == 0 {
		t.Error("no telemetry sample through the pooler")
	}
	code, stdout, stderr = runTPCC(t, 3*time.Minute, "check", "--engine", "postgres", "--url", u, "--warehouses", "1")
	if code != 0 {
		t.Fatalf("tpcc check after the run: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
