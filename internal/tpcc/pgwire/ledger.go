package pgwire

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// postgresLedgerBegin opens the ledger's read on PostgreSQL: one REPEATABLE READ read-only
// transaction, so D_NEXT_O_ID and the order count come from the same snapshot.
const postgresLedgerBegin = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`

// postgresLedgerCounts joins every district of the range with its order count (an index-only
// count on the orders primary key (o_w_id, o_d_id, o_id)). CockroachDB accepts it as is (plain
// joins and aggregates).
const postgresLedgerCounts = `SELECT d.d_w_id, d.d_id, d.d_next_o_id, coalesce(o.n, 0)
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, count(*) AS n FROM orders WHERE o_w_id BETWEEN $1 AND $2 GROUP BY o_w_id, o_d_id) o
  ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
WHERE d.d_w_id BETWEEN $1 AND $2
ORDER BY d.d_w_id, d.d_id`

// readPgwireDistrictCounts runs the counts query inside the transaction begin opens.
func readPgwireDistrictCounts(ctx context.Context, url, begin, query string, from, to int) ([]tpcc.DistrictCounts, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("ledger: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, begin); err != nil {
		return nil, fmt.Errorf("ledger: begin: %w", err)
	}
	rows, err := conn.Query(ctx, query, from, to)
	if err != nil {
		return nil, fmt.Errorf("ledger: read districts: %w", err)
	}
	var out []tpcc.DistrictCounts
	for rows.Next() {
		var c tpcc.DistrictCounts
		if err := rows.Scan(&c.WarehouseID, &c.DistrictID, &c.NextOrderID, &c.Orders); err != nil {
			rows.Close()
			return nil, fmt.Errorf("ledger: read districts: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: read districts: %w", err)
	}
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
		return nil, fmt.Errorf("ledger: commit: %w", err)
	}
	return out, nil
}

// cockroachLedgerBegin opens the ledger's read on CockroachDB: its transactions are SERIALIZABLE,
// so one read-only transaction is one consistent snapshot.
const cockroachLedgerBegin = `BEGIN TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY`
