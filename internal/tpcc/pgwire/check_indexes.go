package pgwire

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// ensureCheckIndexes creates the HISTORY indexes the check's conditions read by
// (tpcc.HistoryIndexes) where the dataset lacks them: a load finished before they were part of
// the schema. Without them every chunk would scan all of HISTORY. It looks them up first, so on a
// dataset that has them it takes no lock on the table (CREATE INDEX IF NOT EXISTS would, before
// finding the name taken).
// Without HISTORY it does nothing: the check then reports what is not loaded.
func ensureCheckIndexes(ctx context.Context, pool *pgxpool.Pool) error {
	var loaded bool
	if err := pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1)",
		tpcc.HistoryTable.Name).Scan(&loaded); err != nil {
		return fmt.Errorf("look up %s: %w", tpcc.HistoryTable.Name, err)
	}
	if !loaded {
		return nil
	}
	rows, err := pool.Query(ctx, "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1",
		tpcc.HistoryTable.Name)
	if err != nil {
		return fmt.Errorf("look up the indexes of %s: %w", tpcc.HistoryTable.Name, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("look up the indexes of %s: %w", tpcc.HistoryTable.Name, err)
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, ix := range tpcc.HistoryIndexes {
		if have[ix.Name] {
			continue
		}
		sql := indexDDL(ix)
		if _, err := pool.Exec(ctx, sql); err != nil {
			return fmt.Errorf("create the index the check reads %s by (the dataset was loaded without it): %w\n%s", ix.Table, err, sql)
		}
	}
	return nil
}
