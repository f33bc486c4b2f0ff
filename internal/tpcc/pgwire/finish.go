package pgwire

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// finish completes a load once every warehouse is done (the core's load checks): the late primary
// keys (keysAfterLoad), the secondary indexes and fresh planner statistics (analyzeAfterLoad),
// with vacuum also a VACUUM of every table once all of that is done (VacuumAfterLoad), then a
// CHECKPOINT (checkpointAfterLoad). It is idempotent and safe to run from several loaders at once
// (under the schema advisory lock, or with IF NOT EXISTS), so the last pod of an Indexed Job, or a
// final `tpcc load` over the whole range, can run it.
func (f *Flavour) finish(ctx context.Context, pool *pgxpool.Pool, threads int, vacuum bool) error {
	return f.withSchemaLock(ctx, pool, func(conn *pgxpool.Conn) error {
		var finished bool
		if err := conn.QueryRow(ctx, "SELECT finished FROM "+tpcc.MetaTable+" WHERE id = 1").Scan(&finished); err != nil {
			return fmt.Errorf("read %s: %w", tpcc.MetaTable, err)
		}
		if finished {
			return nil
		}
		var stmts []finishStatement
		for _, pk := range f.PrimaryKeyDDL() {
			var exists bool
			if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = $1)", pk.Constraint).Scan(&exists); err != nil {
				return fmt.Errorf("look up %s: %w", pk.Constraint, err)
			}
			if !exists {
				stmts = append(stmts, finishStatement{table: pk.Table, sql: pk.SQL})
			}
		}
		for i, sql := range SecondaryIndexDDL() {
			stmts = append(stmts, finishStatement{table: tpcc.SecondaryIndexes[i].Table, sql: sql})
		}
		if f.analyzeAfterLoad { // CockroachDB collects statistics by itself after bulk writes
			for _, t := range tpcc.Tables {
				stmts = append(stmts, finishStatement{table: t.Name, sql: "ANALYZE " + t.Name})
			}
		}
		tracker := tpcc.FinishTrackerFrom(ctx)
		tracker.Add(len(stmts))
		if f.caps.VacuumAfterLoad && vacuum {
			tracker.Add(len(tpcc.Tables))
		}
		if f.checkpointAfterLoad {
			tracker.Add(1)
		}
		if err := execChains(ctx, pool, finishChains(stmts), threads); err != nil {
			return err
		}
		if f.caps.VacuumAfterLoad && vacuum {
			if err := vacuumTables(ctx, pool, conn, threads); err != nil {
				return err
			}
		}
		if _, err := conn.Exec(ctx, "UPDATE "+tpcc.MetaTable+" SET finished = true WHERE id = 1"); err != nil {
			return err
		}
		if f.checkpointAfterLoad {
			return checkpoint(ctx, conn)
		}
		return nil
	})
}

// checkpoint ends a PostgreSQL load with a CHECKPOINT: the steps do not pay for flushing what the
// load wrote, and a standby restarted after the load (a resources switch, a failover) replays WAL
// only from here — a standby's shutdown makes its restart point at the last checkpoint it
// replayed, and without this one that is somewhere in the middle of the load (measured: 341 MB of
// WAL replayed in 95 s by a standby at 150m of CPU). CHECKPOINT needs superuser or, from
// PostgreSQL 15, the pg_checkpoint role (which the operator grants its user); without either the
// load ends without it.
func checkpoint(ctx context.Context, conn *pgxpool.Conn) error {
	defer tpcc.FinishTrackerFrom(ctx).Begin("CHECKPOINT")()
	_, err := conn.Exec(ctx, "CHECKPOINT")
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42501" { // insufficient_privilege
		return nil
	}
	if err != nil {
		return fmt.Errorf("finish: CHECKPOINT: %w", err)
	}
	return nil
}

type finishStatement struct{ table, sql string }

// finishTableWeight approximates each table's rows per warehouse, so the longest chains start
// first and the parallel finish is not left waiting on one big index build at the end.
var finishTableWeight = map[string]int{
	tpcc.OrderLineTable.Name: 300_000, tpcc.StockTable.Name: 100_000, tpcc.CustomerTable.Name: 90_000, // customer rows are wide
	tpcc.ItemTable.Name: 30_000, tpcc.OrdersTable.Name: 30_000, tpcc.HistoryTable.Name: 30_000, tpcc.NewOrderTable.Name: 9_000,
}

// finishChains groups the statements by table, keeping their given order (keys, then indexes,
// then ANALYZE) within a table, and orders the chains heaviest table first. A table's statements
// run one after another on one connection: ANALYZE or a second index on a table waits for the lock
// of the key being built on it, and would hold a connection idle that another table could use.
func finishChains(stmts []finishStatement) [][]string {
	var chains [][]string
	var tables []string
	at := map[string]int{}
	for _, s := range stmts {
		i, ok := at[s.table]
		if !ok {
			i = len(chains)
			at[s.table] = i
			chains = append(chains, nil)
			tables = append(tables, s.table)
		}
		chains[i] = append(chains[i], s.sql)
	}
	order := make([]int, len(chains))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return finishTableWeight[tables[order[a]]] > finishTableWeight[tables[order[b]]]
	})
	out := make([][]string, len(chains))
	for i, j := range order {
		out[i] = chains[j]
	}
	return out
}

// vacuumTables VACUUMs each table once every key, index and ANALYZE is done, so that each ends
// all-visible. A VACUUM marks a page all-visible only if its rows are older than every snapshot
// open in the database; an index build or an ANALYZE holds one whose horizon is the oldest
// transaction open anywhere on the server, so they must not run beside the VACUUMs (a transaction
// of another database, open through the finish, left tables without their visibility map —
// TestLoadWithVacuum). The VACUUMs run in parallel, heaviest table first, and each starts in a
// short transaction with a snapshot too, which can hold back a VACUUM starting at the same moment:
// the tables not all-visible after them get one more VACUUM, of all of them in one statement on
// one connection, which skips the pages already done.
func vacuumTables(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, threads int) error {
	var stmts []finishStatement
	names := make([]string, len(tpcc.Tables))
	for i, t := range tpcc.Tables {
		names[i] = t.Name
		stmts = append(stmts, finishStatement{table: t.Name, sql: "VACUUM " + t.Name})
	}
	if err := execChains(ctx, pool, finishChains(stmts), threads); err != nil {
		return err
	}
	rows, err := conn.Query(ctx, `SELECT c.relname FROM unnest($1::text[]) AS n JOIN pg_class c ON c.oid = to_regclass(n)
		WHERE c.relpages > 0 AND c.relallvisible < c.relpages`, names)
	if err != nil {
		return fmt.Errorf("finish: read the visibility maps' coverage: %w", err)
	}
	behind, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("finish: read the visibility maps' coverage: %w", err)
	}
	if len(behind) == 0 {
		return nil
	}
	sql := "VACUUM " + strings.Join(behind, ", ")
	defer tpcc.FinishTrackerFrom(ctx).Begin(sql)()
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("finish: %w\n%s", err, sql)
	}
	return nil
}

// execChains runs the chains on up to n connections, each chain's statements in order on one
// connection, and returns the first error. Each statement is reported to the finish's tracker of
// ctx (tpcc.FinishTrackerFrom) while it runs.
func execChains(ctx context.Context, pool *pgxpool.Pool, chains [][]string, n int) error {
	tracker := tpcc.FinishTrackerFrom(ctx)
	ch := make(chan []string)
	errs := make(chan error, len(chains))
	var wg sync.WaitGroup
	for i := 0; i < max(1, n); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for chain := range ch {
				for _, s := range chain {
					end := tracker.Begin(s)
					_, err := pool.Exec(ctx, s)
					end()
					if err != nil {
						errs <- fmt.Errorf("finish: %w\n%s", err, s)
						break
					}
				}
			}
		}()
	}
	for _, c := range chains {
		ch <- c
	}
	close(ch)
	wg.Wait()
	close(errs)
	return <-errs
}
