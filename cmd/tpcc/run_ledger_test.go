package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
)

// TestCheckURLMultiHost: pgx's multi-host URLs, as a failover needs them, pass --url's check.
func TestCheckURLMultiHost(t *testing.T) {
	for _, u := range []string{
		"postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write",
		"postgresql://u:secret@10.0.0.1:5432,10.0.0.2:5432,10.0.0.3:5432/tpcc?sslmode=disable&target_session_attrs=read-write",
		"postgres://u@h1,h2/db?target_session_attrs=primary",
	} {
		if err := checkURL(pgwire.PostgresDriver(), u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
		if err := checkURL(pgwire.CockroachDriver(), u); err != nil {
			t.Errorf("cockroach %s: %v", u, err)
		}
	}
	if err := checkURL(pgwire.PostgresDriver(), "postgres://u:secret@/db?target_session_attrs=read-write"); err == nil ||
		!strings.Contains(err.Error(), "has no host") || strings.Contains(err.Error(), "secret") {
		t.Errorf("no host: %v", err)
	}
}

// TestRunLedgerCheckFailsOnALostCommit: a trigger silently drops the insert of one order of
// district 3 (its New-Order still commits and is acknowledged), so `tpcc run --ledger-check`
// exits 4 naming the district and its counts.
func TestRunLedgerCheckFailsOnALostCommit(t *testing.T) {
	u := loadedDatabase(t, 1)
	execSQL(t, u, `CREATE FUNCTION lose_one_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.o_w_id = 1 AND NEW.o_d_id = 3 AND NEW.o_id = 3003 THEN RETURN NULL; END IF;
  RETURN NEW;
END $$`)
	execSQL(t, u, `CREATE TRIGGER lose_one_order BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION lose_one_order()`)
	summary := filepath.Join(t.TempDir(), "summary.json")
	code, stdout, stderr := runTPCC(t, 2*time.Minute, "run", "--engine", "postgres", "--url", u, "--warehouses", "1",
		"--wait", "none", "--ramp-up", "1s", "--duration", "5s", "--ledger-check", "--summary-json", summary)
	t.Log(stderr)
	if code != exitLedgerFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitLedgerFailed, stdout, stderr)
	}
	want := regexp.MustCompile(`--ledger-check: ledger check failed in 1 of 10 districts: district w_id=1 d_id=3 lost acknowledged commits: ` +
		`acknowledged (\d+), unknown 0, d_next_o_id grew by (\d+), orders grew by (\d+)`)
	m := want.FindStringSubmatch(stderr)
	if m == nil || m[1] != m[2] || atoi(t, m[3]) != atoi(t, m[1])-1 {
		t.Fatalf("stderr does not name district 1/3 with one order missing: %s", stderr)
	}
	if !strings.Contains(stdout, "ledger check: FAIL") {
		t.Errorf("summary lacks the failed ledger line:\n%s", stdout)
	}
	doc := readSummary(t, summary)
	if doc.LedgerCheck == nil || doc.LedgerCheck.Verdict.Pass || len(doc.LedgerCheck.Verdict.Failed) != 1 ||
		doc.LedgerCheck.Verdict.Failed[0].DistrictID != 3 || len(doc.LedgerCheck.Baseline) != 10 || len(doc.LedgerCheck.After) != 10 {
		t.Fatalf("summary ledgerCheck %+v", doc.LedgerCheck)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
