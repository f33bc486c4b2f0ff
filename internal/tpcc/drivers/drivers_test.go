package drivers

import (
	"context"
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

func mustLookup(t testing.TB, name string) tpcc.Driver {
	t.Helper()
	d, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLookup(t *testing.T) {
	if got := strings.Join(Names(), ","); got != "postgres,cockroach,ydb" {
		t.Fatalf("Names() = %s", got)
	}
	for _, n := range []string{"postgres", "Cockroach", "YDB"} {
		if d := mustLookup(t, n); !strings.EqualFold(d.Name(), n) {
			t.Errorf("Lookup(%q) = %s", n, d.Name())
		}
	}
	_, err := Lookup("mysql")
	if err == nil || err.Error() != `unknown engine "mysql": want one of postgres, cockroach, ydb` {
		t.Fatalf("Lookup(mysql): %v", err)
	}
}

func TestReadDistrictCountsEngines(t *testing.T) {
	pg, crdb, ydb := mustLookup(t, "postgres"), mustLookup(t, "cockroach"), mustLookup(t, "ydb")
	if !tpcc.LedgerSupported(pg) || !tpcc.LedgerSupported(crdb) || tpcc.LedgerSupported(ydb) {
		t.Fatal("LedgerSupported")
	}
	if _, err := tpcc.ReadDistrictCounts(context.Background(), ydb, "grpc://x:1/db", 1, 1); err == nil || !strings.Contains(err.Error(), "not implemented for engine ydb") {
		t.Fatalf("ydb: %v", err)
	}
}

func TestHelpTexts(t *testing.T) {
	if got, want := URLHelp(), "postgres://… (postgres, cockroach) or grpc(s)://host:port/database (ydb)"; got != want {
		t.Errorf("URLHelp() = %q, want %q", got, want)
	}
	if got, want := DefaultIsolationHelp(), "read committed with row locks on postgres, serializable on cockroach and ydb"; got != want {
		t.Errorf("DefaultIsolationHelp() = %q, want %q", got, want)
	}
}
