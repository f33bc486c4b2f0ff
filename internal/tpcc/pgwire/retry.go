package pgwire

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// SQLSTATEs after which a transaction is rolled back and may simply run again.
const (
	sqlStateSerializationFailure = "40001" // PostgreSQL SERIALIZABLE/REPEATABLE READ; CockroachDB's "restart transaction"
	sqlStateDeadlockDetected     = "40P01" // PostgreSQL's deadlock detector chose this transaction
)

// IsRetryablePgWire reports whether err, from PostgreSQL or CockroachDB, means the whole
// transaction was rolled back and can be run again unchanged. Ambiguous outcomes (a connection
// lost during COMMIT, CockroachDB's 40003) are not: the transaction may have committed.
func IsRetryablePgWire(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return pgErr.Code == sqlStateSerializationFailure || pgErr.Code == sqlStateDeadlockDetected
}

// connectionLostError marks a failure of the connection (or of getting one) at a point where the
// transaction cannot have committed: the pool could not connect, nothing was sent, or the
// connection broke before COMMIT was sent. The whole transaction may run again on a new
// connection, within the same bounded retries as a serialization failure.
type connectionLostError struct{ err error }

func (e *connectionLostError) Error() string {
	return "connection lost before commit: " + e.err.Error()
}
func (e *connectionLostError) Unwrap() error { return e.err }

// isRetryableOrReconnect is the retry predicate of the pgwire executor: serialization failures,
// deadlocks, and connections lost where the transaction cannot have committed.
func isRetryableOrReconnect(err error) bool {
	var lost *connectionLostError
	var unknown *tpcc.CommitUnknownError
	if errors.As(err, &unknown) {
		return false
	}
	return errors.As(err, &lost) || IsRetryablePgWire(err)
}

// isConnectionFailure reports whether err means the connection, not the transaction, failed: no
// server error at all (network, closed connection, cancelled context), or a server error of the
// classes that end a session (08 connection exception, 57 operator intervention such as
// 57P01 admin shutdown, 58 system error, XX internal error), or CockroachDB's 40003
// statement_completion_unknown.
func isConnectionFailure(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return true
	}
	if pgErr.Code == "40003" {
		return true
	}
	switch pgErr.Code[:min(2, len(pgErr.Code))] {
	case "08", "57", "58", "XX":
		return true
	}
	return false
}

// classifyBeforeCommit wraps an error from before COMMIT was sent: a connection failure there is
// safe to retry (the server rolls the open transaction back when the session ends).
func classifyBeforeCommit(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || !isConnectionFailure(err) {
		return err
	}
	return &connectionLostError{err: err}
}

// classifyCommit wraps an error from the round trip that carries COMMIT: a connection failure
// (or the context ending) there leaves the outcome unknown.
func classifyCommit(err error) error {
	if err == nil || !isConnectionFailure(err) {
		return err
	}
	return &tpcc.CommitUnknownError{Err: err}
}
