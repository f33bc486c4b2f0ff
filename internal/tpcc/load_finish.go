package tpcc

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Finish completes a load once every warehouse 1..warehouses is done: the late primary keys
// (PostgreSQL), the secondary indexes and fresh planner statistics. It is idempotent and safe to run
// from several loaders at once (PostgreSQL: under the schema advisory lock; CockroachDB:
// IF NOT EXISTS), so the last pod of an Indexed Job, or a final `tpcc load` over the whole range,
// can run it.
func Finish(ctx context.Context, pool *pgxpool.Pool, d Dialect, warehouses, threads int) error {
	states, err := WarehouseStates(ctx, pool)
	if err != nil {
		return err
	}
	if missing := MissingWarehouses(states, 1, warehouses); len(missing) > 0 {
		return fmt.Errorf("finish: warehouses %s of 1..%d are not loaded yet", FormatRanges(missing), warehouses)
	}
	return withSchemaLock(ctx, pool, d, func(conn *pgxpool.Conn) error {
		var finished bool
		if err := conn.QueryRow(ctx, "SELECT finished FROM "+MetaTable+" WHERE id = 1").Scan(&finished); err != nil {
			return fmt.Errorf("read %s: %w", MetaTable, err)
		}
		if finished {
			return nil
		}
		var stmts []finishStatement
		for _, pk := range PrimaryKeyDDL(d) {
			var exists bool
			if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = $1)", pk.Constraint).Scan(&exists); err != nil {
				return fmt.Errorf("look up %s: %w", pk.Constraint, err)
			}
			if !exists {
				stmts = append(stmts, finishStatement{table: pk.Table, sql: pk.SQL})
			}
		}
		for i, sql := range SecondaryIndexDDL(d) {
			stmts = append(stmts, finishStatement{table: SecondaryIndexes[i].Table, sql: sql})
		}
		if d == Postgres { // CockroachDB collects statistics by itself after bulk writes
			for _, t := range Tables {
				stmts = append(stmts, finishStatement{table: t.Name, sql: "ANALYZE " + t.Name})
			}
		}
		if err := execParallel(ctx, pool, orderFinish(stmts), threads); err != nil {
			return err
		}
		_, err := conn.Exec(ctx, "UPDATE "+MetaTable+" SET finished = true WHERE id = 1")
		return err
	})
}

type finishStatement struct{ table, sql string }

// finishTableWeight approximates each table's rows per warehouse, so the longest statements start
// first and the parallel finish is not left waiting on one big index build at the end.
var finishTableWeight = map[string]int{
	OrderLineTable.Name: 300_000, StockTable.Name: 100_000, CustomerTable.Name: 90_000, // customer rows are wide
	ItemTable.Name: 30_000, OrdersTable.Name: 30_000, HistoryTable.Name: 30_000, NewOrderTable.Name: 9_000,
}

// orderFinish sorts the statements by the weight of their table, heaviest first, keeping the
// given order (keys, then indexes, then ANALYZE) within a table.
func orderFinish(stmts []finishStatement) []string {
	sort.SliceStable(stmts, func(i, j int) bool { return finishTableWeight[stmts[i].table] > finishTableWeight[stmts[j].table] })
	out := make([]string, len(stmts))
	for i, s := range stmts {
		out[i] = s.sql
	}
	return out
}

// execParallel runs independent DDL statements on up to n connections (index builds of different
// tables proceed in parallel), returning the first error.
func execParallel(ctx context.Context, pool *pgxpool.Pool, stmts []string, n int) error {
	ch := make(chan string)
	errs := make(chan error, len(stmts))
	var wg sync.WaitGroup
	for i := 0; i < max(1, n); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range ch {
				if _, err := pool.Exec(ctx, s); err != nil {
					errs <- fmt.Errorf("finish: %w\n%s", err, s)
				}
			}
		}()
	}
	for _, s := range stmts {
		ch <- s
	}
	close(ch)
	wg.Wait()
	close(errs)
	return <-errs
}
