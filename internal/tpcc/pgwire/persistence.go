package pgwire

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// checkTablePersistence fails when tables the load would use already exist with the other
// persistence: CREATE TABLE IF NOT EXISTS keeps them as they are, and a load asked for unlogged
// tables would otherwise measure logged ones, or the reverse (PostgreSQL).
func checkTablePersistence(ctx context.Context, conn *pgxpool.Conn, p tpcc.TablePersistence) error {
	want, other := "p", tpcc.TablesUnlogged
	if p == tpcc.TablesUnlogged {
		want, other = "u", tpcc.TablesLogged
	}
	names := []string{tpcc.MetaTable, tpcc.WarehouseLoadTable}
	for _, t := range tpcc.Tables {
		names = append(names, t.Name)
	}
	rows, err := conn.Query(ctx, `SELECT relname FROM pg_class
		WHERE relname = ANY($1) AND relkind IN ('r', 'p') AND relpersistence <> $2 AND pg_table_is_visible(oid)
		ORDER BY relname`, names, want)
	if err != nil {
		return fmt.Errorf("read the tables' persistence: %w", err)
	}
	var mismatched []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("read the tables' persistence: %w", err)
		}
		mismatched = append(mismatched, name)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the tables' persistence: %w", err)
	}
	if len(mismatched) > 0 {
		return fmt.Errorf("--tables %s: the tables %s already exist %s; load into an empty database, or with --tables %s",
			p, strings.Join(mismatched, ", "), other, other)
	}
	return nil
}
