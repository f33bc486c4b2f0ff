package pgwire

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

func TestStatementTexts(t *testing.T) {
	for _, c := range []struct {
		l                 isolation.Level
		begin, set, pick  string
		skipsLockedOrders bool
	}{
		{isolation.ReadCommitted, "BEGIN ISOLATION LEVEL READ COMMITTED", "SET default_transaction_isolation = 'read committed'", "FOR UPDATE SKIP LOCKED", true},
		{isolation.RepeatableRead, "BEGIN ISOLATION LEVEL REPEATABLE READ", "SET default_transaction_isolation = 'repeatable read'", "FOR UPDATE", false},
		{isolation.Serializable, "BEGIN ISOLATION LEVEL SERIALIZABLE", "SET default_transaction_isolation = 'serializable'", "FOR UPDATE", false},
	} {
		pick, skip := DeliveryPick(c.l)
		if Begin(c.l) != c.begin || SetDefault(c.l) != c.set || pick != c.pick || skip != c.skipsLockedOrders {
			t.Errorf("%s: %q, %q, %q %v", c.l, Begin(c.l), SetDefault(c.l), pick, skip)
		}
	}
}

// On the real PostgreSQL server: a session set to each level runs both its implicit and its
// explicitly begun transactions at that level, and Verify says so; a session left at another
// default fails Verify, naming what the server ran.
func TestVerifyAgainstPostgres(t *testing.T) {
	url := pgtest.URL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, l := range isolation.Levels {
		if _, err := conn.Exec(ctx, SetDefault(l)); err != nil {
			t.Fatalf("%s: %v", SetDefault(l), err)
		}
		if err := Verify(ctx, conn, l, nil, false); err != nil {
			t.Errorf("%s: %v", l, err)
		}
	}
	// The session's default is now SERIALIZABLE: a run asking for READ COMMITTED is refused.
	err = Verify(ctx, conn, isolation.ReadCommitted, nil, false)
	if err == nil || !strings.Contains(err.Error(), `runs the transaction as "serializable"`) || !strings.Contains(err.Error(), "single-statement") {
		t.Errorf("Verify(ReadCommitted) on a serializable session = %v, want a refusal naming what the server ran", err)
	}
	if conn.PgConn().TxStatus() != 'I' {
		t.Errorf("Verify left a transaction open (status %c)", conn.PgConn().TxStatus())
	}
}

// The CockroachDB flavour's check of the level names the cluster setting that enables it;
// PostgreSQL, which never upgrades a level, names none.
func TestCheckNamesTheClusterSetting(t *testing.T) {
	cases := []struct {
		f        *Flavour
		want     isolation.Level
		reported string
		errHas   []string
	}{
		{Cockroach, isolation.Serializable, "serializable", nil},
		// CockroachDB without sql.txn.repeatable_read_isolation.enabled runs it as SERIALIZABLE.
		{Cockroach, isolation.RepeatableRead, "serializable", []string{"asked for REPEATABLE READ", `"serializable"`,
			"sql.txn.repeatable_read_isolation.enabled", "cockroach.clusterSettings"}},
		{Cockroach, isolation.ReadCommitted, "serializable", []string{"sql.txn.read_committed_isolation.enabled"}},
		{Postgres, isolation.ReadCommitted, "read committed", nil},
		// PostgreSQL never upgrades; an unexpected answer names no CockroachDB setting.
		{Postgres, isolation.Serializable, "read committed", []string{"asked for SERIALIZABLE", `"read committed"`}},
		{Postgres, isolation.RepeatableRead, "serializable", []string{"asked for REPEATABLE READ"}},
	}
	for _, c := range cases {
		err := isolation.Check(c.want, c.reported, c.f.isolationHint)
		if (err != nil) != (len(c.errHas) > 0) {
			t.Errorf("%s: Check(%s, %q) = %v", c.f, c.want, c.reported, err)
			continue
		}
		for _, s := range c.errHas {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: Check(%s, %q) = %v, want it to mention %q", c.f, c.want, c.reported, err, s)
			}
		}
		if err != nil && c.f != Cockroach && strings.Contains(err.Error(), "CLUSTER SETTING") {
			t.Errorf("Check(%s, %q) names a CockroachDB setting for %s: %v", c.want, c.reported, c.f, err)
		}
	}
}
