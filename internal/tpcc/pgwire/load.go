package pgwire

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// OpenLoader connects the bulk path of a load: COPY FROM STDIN in the flavour's format, one
// connection per thread and one for the schema and meta steps.
func (f *Flavour) OpenLoader(ctx context.Context, o tpcc.LoadOptions, rows *atomic.Int64) (tpcc.BulkLoader, error) {
	cfg, err := pgxpool.ParseConfig(o.URL)
	if err != nil {
		return nil, fmt.Errorf("--url: %w", err)
	}
	cfg.MaxConns = int32(o.Threads + 1)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("--url: %w", err)
	}
	if err := ping(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &pgLoader{o: o, f: f, pool: pool, rows: rows}, nil
}

// pgLoader is a load's BulkLoader over the PostgreSQL protocol.
type pgLoader struct {
	o    tpcc.LoadOptions
	f    *Flavour
	pool *pgxpool.Pool
	rows *atomic.Int64
}

func (l *pgLoader) Close() { l.pool.Close() }

func (l *pgLoader) EnsureMeta(ctx context.Context, seed uint64, warehouses int) (tpcc.Meta, error) {
	return ensureMeta(ctx, l.pool, seed, warehouses)
}

func (l *pgLoader) WarehouseStates(ctx context.Context) (map[int]string, error) {
	return WarehouseStates(ctx, l.pool)
}

func (l *pgLoader) Finish(ctx context.Context) error {
	return l.f.finish(ctx, l.pool, l.o.Threads, l.o.Vacuum)
}

// schemaLockKey serializes schema creation and the finish step among concurrent PostgreSQL
// loaders (an Indexed Job's pods start together); CREATE TABLE IF NOT EXISTS alone can race.
const schemaLockKey = 0x7470_6363 // "tpcc"

func (l *pgLoader) CreateSchema(ctx context.Context) error {
	return l.f.withSchemaLock(ctx, l.pool, func(conn *pgxpool.Conn) error {
		for _, stmt := range l.f.SchemaDDL(l.o.Tables) {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("create schema: %w\n%s", err, stmt)
			}
		}
		if l.f.caps.UnloggedTables {
			return checkTablePersistence(ctx, conn, l.o.Tables)
		}
		return nil
	})
}

// withSchemaLock runs f on one connection holding the advisory lock where the flavour has one
// (advisoryLock). Without advisory locks, schema changes are transactional (CockroachDB): a
// concurrent duplicate is retried once.
func (fl *Flavour) withSchemaLock(ctx context.Context, pool *pgxpool.Pool, f func(*pgxpool.Conn) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Release()
	if fl.advisoryLock {
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", schemaLockKey); err != nil {
			return fmt.Errorf("take schema lock: %w", err)
		}
		defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", schemaLockKey) //nolint:errcheck
		return f(conn)
	}
	if err := f(conn); err != nil {
		return f(conn)
	}
	return nil
}

// loadItems loads the item table exactly once per database: the meta row, locked FOR UPDATE,
// serializes concurrent loaders, and items_loaded commits together with the rows.
func (l *pgLoader) LoadItems(ctx context.Context, gen *tpcc.Generator, _ tpcc.Meta) error {
	return pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		var loaded bool
		if err := tx.QueryRow(ctx, "SELECT items_loaded FROM "+tpcc.MetaTable+" WHERE id = 1 FOR UPDATE").Scan(&loaded); err != nil {
			return fmt.Errorf("lock %s: %w", tpcc.MetaTable, err)
		}
		if loaded {
			return nil
		}
		if _, err := tx.Exec(ctx, "DELETE FROM "+tpcc.ItemTable.Name); err != nil {
			return fmt.Errorf("clear item: %w", err)
		}
		if err := l.copyTable(ctx, tx.Conn().PgConn(), gen, tpcc.ItemTable, 0); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE "+tpcc.MetaTable+" SET items_loaded = true WHERE id = 1")
		return err
	})
}

// LoadWarehouse writes one warehouse's rows. With warehouseInOneTx (PostgreSQL) all tables and
// the done mark commit in one transaction: a killed load leaves nothing of the warehouse behind.
// Otherwise (CockroachDB, where a 100 MB transaction is not advisable) each table commits by
// itself between a "loading" and a "done" mark, and a warehouse found "loading" is deleted before
// it is loaded again.
func (l *pgLoader) LoadWarehouse(ctx context.Context, gen *tpcc.Generator, w int, partial bool) error {
	if l.f.warehouseInOneTx {
		return pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
			if partial {
				if err := deleteWarehouse(ctx, tx, w); err != nil {
					return err
				}
			}
			for _, t := range tpcc.WarehouseTables {
				if err := l.copyTable(ctx, tx.Conn().PgConn(), gen, t, w); err != nil {
					return err
				}
			}
			return markWarehouse(ctx, tx, w, tpcc.StateDone)
		})
	}
	if err := markWarehouse(ctx, l.pool, w, tpcc.StateLoading); err != nil {
		return err
	}
	if partial {
		if err := deleteWarehouse(ctx, l.pool, w); err != nil {
			return err
		}
	}
	conn, err := l.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	for _, t := range tpcc.WarehouseTables {
		if err := l.copyTable(ctx, conn.Conn().PgConn(), gen, t, w); err != nil {
			return err
		}
	}
	return markWarehouse(ctx, l.pool, w, tpcc.StateDone)
}

type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func markWarehouse(ctx context.Context, e execer, w int, state string) error {
	_, err := e.Exec(ctx, `INSERT INTO `+tpcc.WarehouseLoadTable+` (w_id, state) VALUES ($1, $2)
		ON CONFLICT (w_id) DO UPDATE SET state = excluded.state, updated_at = now()`, w, state)
	if err != nil {
		return fmt.Errorf("mark warehouse %s: %w", state, err)
	}
	return nil
}

func deleteWarehouse(ctx context.Context, e execer, w int) error {
	for _, t := range tpcc.WarehouseTables {
		if _, err := e.Exec(ctx, "DELETE FROM "+t.Name+" WHERE "+t.WarehouseColumn+" = $1", w); err != nil {
			return fmt.Errorf("clean partial warehouse in %s: %w", t.Name, err)
		}
	}
	return nil
}

// copyTable streams the generated rows of t for warehouse w through COPY FROM STDIN in the
// flavour's format: rows are encoded straight into the protocol buffer, with no per-row allocation.
func (l *pgLoader) copyTable(ctx context.Context, conn *pgconn.PgConn, gen *tpcc.Generator, t tpcc.Table, w int) error {
	src, err := gen.Source(t, w)
	if err != nil {
		return err
	}
	format := l.f.copyFormat
	r := NewCopyReaderFormat(src, gen.Now, format)
	r.counter = l.rows
	sql := CopyStatementFormat(t, format)
	if _, err := conn.CopyFrom(ctx, r, sql); err != nil {
		return fmt.Errorf("COPY %s: %w", t.Name, err)
	}
	return nil
}

// CopyStatementFormat is the COPY FROM STDIN statement of the generated columns of t in format.
func CopyStatementFormat(t tpcc.Table, format CopyFormat) string {
	return copyInto(t) + " FROM STDIN" + copyOptions(format)
}

func copyInto(t tpcc.Table) string {
	return "COPY " + t.Name + " (" + strings.Join(t.ColumnNames(), ", ") + ")"
}

func copyOptions(format CopyFormat) string {
	if format == CopyBinary {
		return " (FORMAT binary)"
	}
	return ""
}

func isUndefinedTable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42P01"
}

// ping fails fast, naming --url, when the database cannot be reached.
func ping(ctx context.Context, pool *pgxpool.Pool) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := pool.Ping(ctx); err != nil {
		return fmt.Errorf("--url: cannot reach the database: %w", err)
	}
	return nil
}
