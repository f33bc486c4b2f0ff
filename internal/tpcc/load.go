package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// LoadOptions configures a load. Warehouses is the database's total; From..To the range this
// loader owns (the whole 1..Warehouses when both are 0).
type LoadOptions struct {
	Driver     Driver
	URL        string
	Warehouses int
	From, To   int
	Threads    int
	Seed       uint64
	SeedSet    bool // false: adopt the seed already recorded, or Seed for a new database
	// Finish adds the late primary keys and the secondary indexes once all warehouses are
	// loaded. It fails, naming the missing warehouses, if some are not.
	Finish bool
	// Vacuum makes the finish also VACUUM each table after analyzing it, where the driver can
	// (Capabilities.VacuumAfterLoad; ignored elsewhere). Otherwise an insert-triggered autovacuum
	// scans every freshly loaded table soon after the load, i.e. during the first measurements.
	Vacuum bool
	// Tables is the persistence of the tables the load creates (empty: logged). Unlogged needs
	// Capabilities.UnloggedTables; tables that already exist with the other persistence fail the
	// load.
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
	// Finish is the finish's statements, from its start on, as the driver reports them
	// (FinishTracker; nil before the finish).
	Finish *snapshot.FinishProgress
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
	return o.Tables.validateFor(o.Driver)
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
	l := &loadTracker{o: o, start: time.Now()}
	bl, err := o.Driver.OpenLoader(ctx, o, &l.rows)
	if err != nil {
		return err
	}
	defer bl.Close()
	return l.run(ctx, bl)
}

// BulkLoader is a driver's side of a load. Load runs its steps in order — schema, meta row, item
// table, then every warehouse of the range not yet done on LoadOptions.Threads workers, then the
// finish — and keeps the progress. A driver makes each step idempotent and safe beside loaders of
// other ranges of the same database (an Indexed Job's pods start together).
type BulkLoader interface {
	// CreateSchema creates the tables (Driver.SchemaDDL) unless they exist.
	CreateSchema(ctx context.Context) error
	// EnsureMeta records (seed, warehouses) unless a meta row exists, raises the recorded
	// warehouses to this load's, and returns the stored row, its constants validated: the first
	// loader's seed wins.
	EnsureMeta(ctx context.Context, seed uint64, warehouses int) (Meta, error)
	// LoadItems loads the item table once per database (m.ItemsLoaded tells whether it was).
	LoadItems(ctx context.Context, gen *Generator, m Meta) error
	// WarehouseStates is the load state of every warehouse with one.
	WarehouseStates(ctx context.Context) (map[int]string, error)
	// LoadWarehouse writes one warehouse's rows and marks it done; partial: it was found
	// StateLoading, and what a killed loader left of it must not be duplicated.
	LoadWarehouse(ctx context.Context, gen *Generator, w int, partial bool) error
	// Finish adds what comes after the bulk phase (late keys, secondary indexes, statistics) and
	// marks the load finished; every warehouse is loaded when it is called.
	Finish(ctx context.Context) error
	Close()
}

// SeedMismatch is the error of a load given a --seed other than the one the database was loaded
// with.
func SeedMismatch(given, stored uint64) error {
	return fmt.Errorf("--seed %d: this database was loaded with seed %d (drop it, or omit --seed)", given, stored)
}

func (l *loadTracker) run(ctx context.Context, bl BulkLoader) error {
	defer l.reportEvery()()
	l.setPhase("schema")
	if err := bl.CreateSchema(ctx); err != nil {
		return err
	}
	meta, err := bl.EnsureMeta(ctx, l.o.Seed, l.o.Warehouses)
	if err != nil {
		return err
	}
	if l.o.SeedSet && meta.Seed != l.o.Seed {
		return SeedMismatch(l.o.Seed, meta.Seed)
	}
	gen := &Generator{Seed: meta.Seed, Constants: meta.Constants, Now: l.o.Now}

	l.setPhase("items")
	if err := bl.LoadItems(ctx, gen, meta); err != nil {
		return err
	}
	states, err := bl.WarehouseStates(ctx)
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
	err = l.eachWarehouse(ctx, todo, func(ctx context.Context, w int) error {
		return bl.LoadWarehouse(ctx, gen, w, states[w] == StateLoading)
	})
	if err != nil {
		return err
	}
	if l.o.Finish {
		l.setPhase("finish")
		if err := l.finish(ctx, bl); err != nil {
			return err
		}
	}
	l.setPhase("done")
	return nil
}

// finish runs the driver's finish once every warehouse 1..Warehouses is done, and fails naming the
// missing ones otherwise.
func (l *loadTracker) finish(ctx context.Context, bl BulkLoader) error {
	states, err := bl.WarehouseStates(ctx)
	if err != nil {
		return err
	}
	if missing := MissingWarehouses(states, 1, l.o.Warehouses); len(missing) > 0 {
		return fmt.Errorf("finish: warehouses %s of 1..%d are not loaded yet", FormatRanges(missing), l.o.Warehouses)
	}
	t := &FinishTracker{}
	l.finishing.Store(t)
	return bl.Finish(WithFinishTracker(ctx, t))
}

// reportEvery reports the progress every ProgressEvery until the returned stop is called.
func (l *loadTracker) reportEvery() (stop func()) {
	if l.o.Progress == nil {
		return func() {}
	}
	every := l.o.ProgressEvery
	if every <= 0 {
		every = 500 * time.Millisecond
	}
	tick := time.NewTicker(every)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-tick.C:
				l.report()
			case <-done:
				return
			}
		}
	}()
	return func() { tick.Stop(); close(done) }
}

// loadTracker is the progress state of a load, reported through LoadOptions.Progress.
type loadTracker struct {
	o         LoadOptions
	start     time.Time
	rows      atomic.Int64
	done      atomic.Int64
	skipped   int
	phase     atomic.Value
	finishing atomic.Pointer[FinishTracker]
}

func (l *loadTracker) report() {
	if l.o.Progress == nil {
		return
	}
	phase, _ := l.phase.Load().(string)
	l.o.Progress(LoadProgress{
		Rows: l.rows.Load(), WarehousesDone: int(l.done.Load()), WarehousesTotal: l.o.To - l.o.From + 1,
		WarehousesSkipped: l.skipped, Elapsed: time.Since(l.start), Phase: phase, Finish: l.finishing.Load().Progress(),
	})
}

func (l *loadTracker) setPhase(p string) {
	l.phase.Store(p)
	l.report()
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
