package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LoadOptions configures a load. Warehouses is the database's total; From..To the range this
// loader owns (the whole 1..Warehouses when both are 0).
type LoadOptions struct {
	Dialect    Dialect
	URL        string
	Warehouses int
	From, To   int
	Threads    int
	Seed       uint64
	SeedSet    bool // false: adopt the seed already recorded, or Seed for a new database
	// Finish adds the late primary keys and the secondary indexes once all warehouses are
	// loaded. It fails, naming the missing warehouses, if some are not.
	Finish bool
	// Vacuum makes the finish also VACUUM each table after analyzing it
	// (PostgreSQL; ignored elsewhere). Otherwise PostgreSQL's insert-triggered autovacuum scans
	// every freshly loaded table soon after the load, i.e. during the first measurements.
	Vacuum bool
	// Tables is the persistence of the tables the load creates (empty: logged). Unlogged is for
	// PostgreSQL only; tables that already exist with the other persistence fail the load.
	Tables        TablePersistence
	Progress      func(LoadProgress) // called at every phase change and every ProgressEvery; may be nil
	ProgressEvery time.Duration      // default 500ms
	Now           time.Time          // load time of the rows (zero: time.Now)
}

// LoadProgress is a snapshot of a running load.
type LoadProgress struct {
	Rows              int64 // rows written by this loader so far
	WarehousesDone    int   // of this loader's range, including those skipped as already loaded
	WarehousesTotal   int
	WarehousesSkipped int
	Elapsed           time.Duration
	Phase             string // schema, items, warehouses, finish, done
}

// Validate checks the options before any work, naming the flag of each problem.
func (o *LoadOptions) Validate() error {
	from, to, err := ValidateRange(o.Warehouses, o.From, o.To, o.Threads)
	if err != nil {
		return err
	}
	o.From, o.To = from, to
	if o.URL == "" {
		return errors.New("--url is required")
	}
	if o.Tables == "" {
		o.Tables = TablesLogged
	}
	if _, err := ParseTablePersistence(string(o.Tables)); err != nil {
		return err
	}
	return o.Tables.validateFor(o.Dialect)
}

// Load loads warehouses From..To (and the item table, once per database), resuming a killed load
// and skipping finished warehouses, then runs the finish step when Finish is set.
func Load(ctx context.Context, o LoadOptions) error {
	err := load(ctx, o)
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// Cancelled mid-COPY, the driver may report the connection it closed rather than the
		// cancellation: the cause is the cancellation, and callers tell it by errors.Is.
		return fmt.Errorf("load interrupted: %w (%v)", ctx.Err(), err)
	}
	return err
}

func load(ctx context.Context, o LoadOptions) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if !o.SeedSet && o.Seed == 0 {
		o.Seed = rand.Uint64() >> 1 // stored as bigint
	}
	if o.Dialect == YDB {
		return loadYDB(ctx, o)
	}
	if !o.Dialect.SpeaksPostgresWire() {
		return fmt.Errorf("--engine %q has no loader", o.Dialect)
	}
	cfg, err := pgxpool.ParseConfig(o.URL)
	if err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	cfg.MaxConns = int32(o.Threads + 1)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	defer pool.Close()
	if err := ping(ctx, pool); err != nil {
		return err
	}
	l := &pgLoader{loadTracker: loadTracker{o: o, start: time.Now()}, pool: pool}
	return l.run(ctx)
}

type pgLoader struct {
	loadTracker
	pool *pgxpool.Pool
}

// loadTracker is the progress state every engine's loader keeps and reports.
type loadTracker struct {
	o       LoadOptions
	start   time.Time
	rows    atomic.Int64
	done    atomic.Int64
	skipped int
	phase   atomic.Value
}

func (l *loadTracker) report() {
	if l.o.Progress == nil {
		return
	}
	phase, _ := l.phase.Load().(string)
	l.o.Progress(LoadProgress{
		Rows: l.rows.Load(), WarehousesDone: int(l.done.Load()), WarehousesTotal: l.o.To - l.o.From + 1,
		WarehousesSkipped: l.skipped, Elapsed: time.Since(l.start), Phase: phase,
	})
}

func (l *loadTracker) setPhase(p string) {
	l.phase.Store(p)
	l.report()
}

func (l *pgLoader) run(ctx context.Context) error {
	if l.o.Progress != nil {
		every := l.o.ProgressEvery
		if every <= 0 {
			every = 500 * time.Millisecond
		}
		tick := time.NewTicker(every)
		stop := make(chan struct{})
		defer func() { tick.Stop(); close(stop) }()
		go func() {
			for {
				select {
				case <-tick.C:
					l.report()
				case <-stop:
					return
				}
			}
		}()
	}
	l.setPhase("schema")
	if err := l.createSchema(ctx); err != nil {
		return err
	}
	meta, err := ensureMeta(ctx, l.pool, l.o.Seed, l.o.SeedSet, l.o.Warehouses)
	if err != nil {
		return err
	}
	gen := &Generator{Seed: meta.Seed, Constants: meta.Constants, Now: l.o.Now}

	l.setPhase("items")
	if err := l.loadItems(ctx, gen); err != nil {
		return err
	}

	states, err := WarehouseStates(ctx, l.pool)
	if err != nil {
		return err
	}
	var todo []int
	for w := l.o.From; w <= l.o.To; w++ {
		if states[w] == StateDone {
			l.skipped++
			l.done.Add(1)
			continue
		}
		todo = append(todo, w)
	}
	l.setPhase("warehouses")
	if err := l.loadWarehouses(ctx, gen, todo, states); err != nil {
		return err
	}
	if l.o.Finish {
		l.setPhase("finish")
		if err := Finish(ctx, l.pool, l.o.Dialect, l.o.Warehouses, l.o.Threads, l.o.Vacuum); err != nil {
			return err
		}
	}
	l.setPhase("done")
	return nil
}

// schemaLockKey serializes schema creation and the finish step among concurrent PostgreSQL
// loaders (an Indexed Job's pods start together); CREATE TABLE IF NOT EXISTS alone can race.
const schemaLockKey = 0x7470_6363 // "tpcc"

func (l *pgLoader) createSchema(ctx context.Context) error {
	return withSchemaLock(ctx, l.pool, l.o.Dialect, func(conn *pgxpool.Conn) error {
		for _, stmt := range CreateTableDDLFor(l.o.Dialect, l.o.Tables) {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("create schema: %w\n%s", err, stmt)
			}
		}
		if l.o.Dialect.HasUnloggedTables() {
			return checkTablePersistence(ctx, conn, l.o.Tables)
		}
		return nil
	})
}

// withSchemaLock runs f on one connection holding the PostgreSQL advisory lock. CockroachDB has no
// advisory locks; its schema changes are transactional, so a concurrent duplicate is retried once.
func withSchemaLock(ctx context.Context, pool *pgxpool.Pool, d Dialect, f func(*pgxpool.Conn) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Release()
	if d == Postgres {
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
func (l *pgLoader) loadItems(ctx context.Context, gen *Generator) error {
	return pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		var loaded bool
		if err := tx.QueryRow(ctx, "SELECT items_loaded FROM "+MetaTable+" WHERE id = 1 FOR UPDATE").Scan(&loaded); err != nil {
			return fmt.Errorf("lock %s: %w", MetaTable, err)
		}
		if loaded {
			return nil
		}
		if _, err := tx.Exec(ctx, "DELETE FROM "+ItemTable.Name); err != nil {
			return fmt.Errorf("clear item: %w", err)
		}
		if err := l.copyTable(ctx, tx.Conn().PgConn(), gen, ItemTable, 0); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE "+MetaTable+" SET items_loaded = true WHERE id = 1")
		return err
	})
}

func (l *pgLoader) loadWarehouses(ctx context.Context, gen *Generator, todo []int, states map[int]string) error {
	return l.eachWarehouse(ctx, todo, func(ctx context.Context, w int) error {
		return l.loadWarehouse(ctx, gen, w, states[w] == StateLoading)
	})
}

// eachWarehouse runs load for every warehouse of todo on o.Threads workers, counting each done
// warehouse in the progress. The first error cancels the rest and is returned, naming its
// warehouse.
func (l *loadTracker) eachWarehouse(ctx context.Context, todo []int, load func(ctx context.Context, w int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	for i := 0; i < l.o.Threads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range next {
				if err := load(ctx, w); err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("warehouse %d: %w", w, err); cancel(firstErr) })
					return
				}
				l.done.Add(1)
				l.report()
			}
		}()
	}
	for _, w := range todo {
		select {
		case next <- w:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// loadWarehouse writes one warehouse's rows. On PostgreSQL all tables and the done mark commit in
// one transaction: a killed load leaves nothing of the warehouse behind. On CockroachDB, where a
// 100 MB transaction is not advisable, each table commits by itself between a "loading" and a
// "done" mark, and a warehouse found "loading" is deleted before it is loaded again.
func (l *pgLoader) loadWarehouse(ctx context.Context, gen *Generator, w int, partial bool) error {
	if l.o.Dialect == Postgres {
		return pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
			if partial {
				if err := deleteWarehouse(ctx, tx, w); err != nil {
					return err
				}
			}
			for _, t := range WarehouseTables {
				if err := l.copyTable(ctx, tx.Conn().PgConn(), gen, t, w); err != nil {
					return err
				}
			}
			return markWarehouse(ctx, tx, w, StateDone)
		})
	}
	if err := markWarehouse(ctx, l.pool, w, StateLoading); err != nil {
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
	for _, t := range WarehouseTables {
		if err := l.copyTable(ctx, conn.Conn().PgConn(), gen, t, w); err != nil {
			return err
		}
	}
	return markWarehouse(ctx, l.pool, w, StateDone)
}

type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func markWarehouse(ctx context.Context, e execer, w int, state string) error {
	_, err := e.Exec(ctx, `INSERT INTO `+WarehouseLoadTable+` (w_id, state) VALUES ($1, $2)
		ON CONFLICT (w_id) DO UPDATE SET state = excluded.state, updated_at = now()`, w, state)
	if err != nil {
		return fmt.Errorf("mark warehouse %s: %w", state, err)
	}
	return nil
}

func deleteWarehouse(ctx context.Context, e execer, w int) error {
	for _, t := range WarehouseTables {
		if _, err := e.Exec(ctx, "DELETE FROM "+t.Name+" WHERE "+t.WarehouseColumn+" = $1", w); err != nil {
			return fmt.Errorf("clean partial warehouse in %s: %w", t.Name, err)
		}
	}
	return nil
}

// copyTable streams the generated rows of t for warehouse w through COPY FROM STDIN in the
// dialect's format: rows are encoded straight into the protocol buffer, with no per-row allocation.
func (l *pgLoader) copyTable(ctx context.Context, conn *pgconn.PgConn, gen *Generator, t Table, w int) error {
	src, err := gen.Source(t, w)
	if err != nil {
		return err
	}
	format := l.o.Dialect.CopyFormat()
	r := NewCopyReaderFormat(src, gen.Now, format)
	r.counter = &l.rows
	sql := CopyStatementFormat(t, format)
	if _, err := conn.CopyFrom(ctx, r, sql); err != nil {
		return fmt.Errorf("COPY %s: %w", t.Name, err)
	}
	return nil
}

// CopyStatementFormat is the COPY FROM STDIN statement of the generated columns of t in format.
func CopyStatementFormat(t Table, format CopyFormat) string {
	return copyInto(t) + " FROM STDIN" + copyOptions(format)
}

func copyInto(t Table) string {
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
