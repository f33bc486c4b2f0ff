package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/shard"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/drivers"
)

var loadCommand = command{name: "load", summary: "create the schema and load warehouses (resumable, parallel by warehouse)", run: runLoad}

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("load", stderr)
	var t targetFlags
	t.register(fs)
	seed := fs.Uint64("seed", 0, "random seed of the data (default: the seed already recorded in the database, else a random one)")
	finish := fs.Bool("finish", false, "after this range, add the primary keys and indexes; needs all warehouses 1..N loaded "+
		"(default true when the range is 1..N)")
	vacuum := fs.Bool("vacuum", true, "in the finish, VACUUM each table after its ANALYZE, so autovacuum has no "+
		"freshly loaded table left to scan during the first measurements ("+enginesWith(func(c tpcc.Capabilities) bool { return c.VacuumAfterLoad })+"; ignored elsewhere)")
	interval := fs.Duration("progress-interval", 0, "progress line interval (default 500ms on a terminal, 5s otherwise)")
	copyFiles := fs.String("copy-files", "", "instead of loading, write the range as COPY files (the load's format) and SQL scripts to this directory "+
		"("+copyFilesEngines()+"; the ceiling in hack/bench-load.sh); needs --seed")
	tables := fs.String("tables", string(tpcc.TablesLogged), "create the tables logged or unlogged: unlogged tables write no WAL, "+
		"are not replicated and are emptied by crash recovery or lost in a failover ("+enginesWith(hasUnlogged)+" only)")
	shardIndex := fs.Int("shard", -1, "this process's index among --shards; its range is shard.Of(warehouses, shard, shards) (the loader Job's pods)")
	shards := fs.Int("shards", 0, "number of processes sharing the warehouses")
	settings := registerSettingsFlags(fs)
	var listen loadListenFlags
	listen.register(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	err := loadShardRange(fs, &t, *shardIndex, *shards)
	if err == nil {
		err = listen.check()
	}
	var d tpcc.Driver
	if err == nil {
		d, err = t.resolve()
	}
	var persistence tpcc.TablePersistence
	if err == nil {
		persistence, err = tpcc.ParseTablePersistence(*tables)
	}
	if err == nil && *copyFiles != "" && persistence != tpcc.TablesLogged {
		err = fmt.Errorf("--copy-files writes the schema of logged tables; --tables %s does not apply to it", persistence)
	}
	if err == nil && *copyFiles != "" && listen.listen != "" {
		err = errors.New("--copy-files loads nothing: --listen has no progress to serve with it")
	}
	if err == nil && *copyFiles != "" && !isSet(fs, "seed") {
		err = fmt.Errorf("--copy-files needs --seed (the files must match a load with the same seed)")
	}
	if err == nil {
		err = settings.check(d)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tpcc load: %v\n", err)
		return 2
	}
	if *copyFiles != "" {
		start := time.Now()
		dir, err := writeCopyFiles(ctx, d, *copyFiles, *seed, t)
		if err != nil {
			fmt.Fprintf(stderr, "tpcc load: --copy-files: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote COPY files of warehouses %d-%d to %s in %s (schema.sql, item.sql, w*.sql, finish.sql)\n",
			t.from, t.to, dir, time.Since(start).Round(time.Millisecond))
		return 0
	}
	if err := settings.apply(ctx, d, t.url); err != nil {
		fmt.Fprintf(stderr, "tpcc load: %v\n", err)
		return 1
	}
	opts := tpcc.LoadOptions{
		Driver: d, URL: t.url, Warehouses: t.warehouses, From: t.from, To: t.to, Threads: t.threads,
		Seed: *seed, SeedSet: isSet(fs, "seed"),
		Finish: *finish || (!isSet(fs, "finish") && t.from == 1 && t.to == t.warehouses),
		Vacuum: *vacuum, Tables: persistence,
	}
	if persistence == tpcc.TablesUnlogged && !d.Capabilities().UnloggedTables {
		// What tpcc.Load refuses, naming the engines that have unlogged tables.
		fmt.Fprintf(stderr, "tpcc load: --tables unlogged: engine %s has no unlogged tables (%s only)\n", d.Name(),
			tpcc.JoinNames(drivers.TitlesOf(drivers.With(hasUnlogged)), "and"))
		return 1
	}
	p := newProgressPrinter(stderr, isTerminal(stderr), *interval)
	opts.Progress = p.update
	stopServing, err := listen.serve(stderr, func() snapshot.LoadProgress { return loadProgressOf(p.last.Load(), t.from, t.to) })
	if err != nil {
		fmt.Fprintf(stderr, "tpcc load: %v\n", err)
		return 1
	}
	stopPrinter := p.start()
	start := time.Now()
	err = tpcc.Load(ctx, opts)
	stopPrinter()
	stopServing()
	if err != nil {
		fmt.Fprintf(stderr, "tpcc load: %v\n", err)
		return 1
	}
	last := p.last.Load()
	loaded := 0
	if last != nil {
		loaded = last.WarehousesDone - last.WarehousesSkipped
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "loaded warehouses %d-%d of %d: %d loaded, %d already done, %s, %.1f warehouses/min; phases: %s\n",
		t.from, t.to, t.warehouses, loaded, t.to-t.from+1-loaded, elapsed.Round(time.Millisecond),
		float64(loaded)/elapsed.Minutes(), p.phases())
	return 0
}

func hasUnlogged(c tpcc.Capabilities) bool { return c.UnloggedTables }

// enginesWith lists the --engine values whose capabilities satisfy has: "postgres".
func enginesWith(has func(tpcc.Capabilities) bool) string {
	return tpcc.JoinNames(drivers.NamesOf(drivers.With(has)), "and")
}

// copyFilesEngines lists the --engine values that write COPY files.
func copyFilesEngines() string {
	var names []string
	for _, d := range drivers.All() {
		if _, ok := d.(tpcc.CopyFilesWriter); ok {
			names = append(names, d.Name())
		}
	}
	return tpcc.JoinNames(names, "and")
}

// writeCopyFiles writes the range as files with the first driver that writes them: --engine's
// own, else the first that can (the files are a server-side load of that engine's format).
func writeCopyFiles(ctx context.Context, d tpcc.Driver, dir string, seed uint64, t targetFlags) (string, error) {
	w, ok := d.(tpcc.CopyFilesWriter)
	for _, other := range drivers.All() {
		if ok {
			break
		}
		w, ok = other.(tpcc.CopyFilesWriter)
	}
	if !ok {
		return "", fmt.Errorf("no engine writes COPY files")
	}
	return w.WriteCopyFiles(ctx, dir, seed, time.Now(), t.from, t.to, t.threads)
}

// loadShardRange turns --shard/--shards into --from/--to.
func loadShardRange(fs *flag.FlagSet, t *targetFlags, index, count int) error {
	sharded := isSet(fs, "shard") || isSet(fs, "shards")
	if !sharded {
		return nil
	}
	if isSet(fs, "from") || isSet(fs, "to") {
		return errors.New("--shard/--shards and --from/--to both set: give one way of choosing the range")
	}
	if !isSet(fs, "shard") || !isSet(fs, "shards") {
		return errors.New("--shard and --shards go together")
	}
	r, err := shard.Of(t.warehouses, index, count)
	if err != nil {
		return fmt.Errorf("--shard %d --shards %d: %w", index, count, err)
	}
	t.from, t.to = r.From, r.To
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressPrinter renders load progress: a live line rewritten in place on a terminal, plain lines
// every few seconds in a pod log.
type progressPrinter struct {
	w        io.Writer
	tty      bool
	interval time.Duration
	last     atomic.Pointer[tpcc.LoadProgress]

	mu         sync.Mutex
	phaseNames []string
	phaseStart []time.Duration // elapsed time at which each phase began
}

func newProgressPrinter(w io.Writer, tty bool, interval time.Duration) *progressPrinter {
	if interval == 0 {
		interval = 5 * time.Second
		if tty {
			interval = 500 * time.Millisecond
		}
	}
	return &progressPrinter{w: w, tty: tty, interval: interval}
}

func (p *progressPrinter) update(lp tpcc.LoadProgress) {
	p.last.Store(&lp)
	p.mu.Lock()
	if n := len(p.phaseNames); n == 0 || p.phaseNames[n-1] != lp.Phase {
		p.phaseNames = append(p.phaseNames, lp.Phase)
		p.phaseStart = append(p.phaseStart, lp.Elapsed)
	}
	p.mu.Unlock()
}

// phases renders how long each phase took, e.g. "schema 0.05s items 0.61s warehouses 8.1s finish 5.9s".
func (p *progressPrinter) phases() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var parts []string
	for i := 0; i+1 < len(p.phaseNames); i++ {
		d := p.phaseStart[i+1] - p.phaseStart[i]
		parts = append(parts, fmt.Sprintf("%s %.2fs", p.phaseNames[i], d.Seconds()))
	}
	return strings.Join(parts, " ")
}

func (p *progressPrinter) start() (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(p.interval)
		defer tick.Stop()
		var prevRows int64
		prevTime := time.Now()
		for {
			select {
			case <-done:
				// A final line, so even a load shorter than the interval leaves a record.
				if lp := p.last.Load(); lp != nil {
					rate := float64(lp.Rows) / max(lp.Elapsed.Seconds(), 1e-3)
					if p.tty {
						fmt.Fprintf(p.w, "\r\033[K%s (mean rate)\n", formatProgress(*lp, rate))
					} else {
						fmt.Fprintf(p.w, "%s (mean rate)\n", formatProgress(*lp, rate))
					}
				}
				return
			case now := <-tick.C:
				lp := p.last.Load()
				if lp == nil {
					continue
				}
				rate := float64(lp.Rows-prevRows) / now.Sub(prevTime).Seconds()
				prevRows, prevTime = lp.Rows, now
				line := formatProgress(*lp, rate)
				if p.tty {
					fmt.Fprintf(p.w, "\r\033[K%s", line)
				} else {
					fmt.Fprintln(p.w, line)
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// formatProgress renders one progress line; the ETA extrapolates from warehouses loaded so far.
func formatProgress(lp tpcc.LoadProgress, rowsPerSec float64) string {
	eta := "?"
	loaded := lp.WarehousesDone - lp.WarehousesSkipped
	if left := lp.WarehousesTotal - lp.WarehousesDone; left == 0 {
		eta = "0s"
	} else if loaded > 0 {
		eta = (lp.Elapsed / time.Duration(loaded) * time.Duration(left)).Round(time.Second).String()
	}
	return fmt.Sprintf("%-10s warehouses %d/%d (%d skipped)  %.0f rows/s  %d rows  elapsed %s  ETA %s",
		lp.Phase, lp.WarehousesDone, lp.WarehousesTotal, lp.WarehousesSkipped, rowsPerSec, lp.Rows,
		lp.Elapsed.Round(time.Second), eta)
}
