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
		if err := Verify(ctx, conn, l, false); err != nil {
			t.Errorf("%s: %v", l, err)
		}
	}
	// The session's default is now SERIALIZABLE: a run asking for READ COMMITTED is refused.
	err = Verify(ctx, conn, isolation.ReadCommitted, false)
	if err == nil || !strings.Contains(err.Error(), `runs the transaction as "serializable"`) || !strings.Contains(err.Error(), "single-statement") {
		t.Errorf("Verify(ReadCommitted) on a serializable session = %v, want a refusal naming what the server ran", err)
	}
	if conn.PgConn().TxStatus() != 'I' {
		t.Errorf("Verify left a transaction open (status %c)", conn.PgConn().TxStatus())
	}
}
