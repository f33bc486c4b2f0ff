package pgwire

// What the flavours send for a run's isolation level: the BEGIN of the read-write transactions,
// the session default that the single-statement reads run at, how Delivery takes the oldest new
// order, and the check that the server runs what was asked for. The statement texts are pure;
// Verify talks to a server.

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// Begin is the BEGIN of the read-write transactions at l.
func Begin(l isolation.Level) string { return "BEGIN ISOLATION LEVEL " + l.SQL() }

// SetDefault makes a session's implicit transactions (Order-Status and Stock-Level, one statement
// each) run at l too. It is sent once on every new connection.
func SetDefault(l isolation.Level) string {
	return "SET default_transaction_isolation = '" + l.Reported() + "'"
}

// ShowIsolation reads the level of the transaction it runs in.
const ShowIsolation = "SHOW transaction_isolation"

// DeliveryPick is the locking clause with which Delivery takes a district's oldest new order.
// Under READ COMMITTED it skips a row another delivery holds (SKIP LOCKED): two deliveries of one
// warehouse take consecutive orders instead of one waiting for the other and then finding its
// order gone. Under REPEATABLE READ and SERIALIZABLE a skipped row would be an order the snapshot
// still shows undelivered, an anomaly the engine does not see (SKIP LOCKED reads around the
// lock): the delivery waits for the row instead, and the loser of the race fails with a
// serialization failure and is retried.
func DeliveryPick(l isolation.Level) (clause string, skipLocked bool) {
	if l == isolation.ReadCommitted {
		return "FOR UPDATE SKIP LOCKED", true
	}
	return "FOR UPDATE", false
}

// Verify reads back the level a transaction begun with Begin(l) runs at, and the level of an
// implicit transaction (SetDefault), on conn: the server must run what was asked for. CockroachDB
// runs a level it has not enabled as SERIALIZABLE, with a notice only; a flavour's hint (may be
// nil) makes the error say how the engine is made to run the level (isolation.Check). Through a
// transaction-mode pooler (serverDefault) no SetDefault was sent: the implicit transactions run
// at the server's default_transaction_isolation, which must be l.
func Verify(ctx context.Context, conn *pgx.Conn, l isolation.Level, hint func(isolation.Level) string, serverDefault bool) error {
	var implicit, explicit string
	if err := conn.QueryRow(ctx, ShowIsolation).Scan(&implicit); err != nil {
		return fmt.Errorf("isolation: %s: %w", ShowIsolation, err)
	}
	if err := isolation.Check(l, implicit, hint); err != nil {
		if serverDefault {
			return fmt.Errorf("single-statement transactions: %w: through a transaction-mode pooler the server's default_transaction_isolation must be set to '%s' (postgresql.conf; a session's SET does not stick to a client)", err, l.Reported())
		}
		return fmt.Errorf("single-statement transactions: %w", err)
	}
	// The read-write transactions' own BEGIN, in one round trip as the executor sends it.
	b := &pgx.Batch{}
	b.Queue(Begin(l))
	b.Queue(ShowIsolation)
	b.Queue("COMMIT")
	br := conn.SendBatch(ctx, b)
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&explicit)
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("isolation: %s; %s: %w", Begin(l), ShowIsolation, err)
	}
	if err := isolation.Check(l, explicit, hint); err != nil {
		return fmt.Errorf("read-write transactions: %w", err)
	}
	return nil
}
