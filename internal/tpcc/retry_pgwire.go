package tpcc

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
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
