package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// CheckOptions configures a consistency check over warehouses From..To (default 1..Warehouses).
type CheckOptions struct {
	Driver     Driver
	URL        string
	Warehouses int
	From, To   int
	Threads    int
	// LoadTime adds 3.3.2.11, which holds only until the first Delivery. It is the caller's
	// statement, not detected: nothing in the database records whether a Delivery has run, and
	// inferring it from the data would make 3.3.2.11 unable to fail.
	LoadTime  bool
	ChunkSize int // warehouses per snapshot transaction (default 10)
}

// CheckResult is the outcome of one condition over the whole range.
type CheckResult struct {
	Condition Condition
	Pass      bool
	Skipped   bool   // LoadOnly condition without LoadTime
	Detail    string // the first offending place and values, e.g. "w_id=1 w_ytd=300001.00 sum_d_ytd=300000.00"
	Elapsed   time.Duration
}

// Validate checks the options before any work, naming the flag of each problem.
func (o *CheckOptions) Validate() error {
	from, to, err := ValidateRange(o.Warehouses, o.From, o.To, o.Threads)
	if err != nil {
		return err
	}
	o.From, o.To = from, to
	if o.ChunkSize == 0 {
		o.ChunkSize = 10
	}
	if o.URL == "" {
		return errors.New("--url is required")
	}
	return nil
}

// Check runs the conditions over the range and returns one result per condition. Each chunk of
// warehouses is read in one read-only snapshot transaction of the driver's (CheckBackend), so
// every condition of a chunk sees the same state; chunks run in parallel and may see different
// snapshots, which only matters if a workload is running. A driver evaluates the conditions in
// its own query language, or in the client from range scans (internal/tpcc/clientcheck).
// The range must be loaded (all its warehouses done in the meta table), else an error names the
// missing warehouses before any condition runs.
func Check(ctx context.Context, o CheckOptions) ([]CheckResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	b, err := o.Driver.OpenCheck(ctx, o)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return runCheck(ctx, o, b)
}

// CheckBackend reads one engine for Check: the load states, the item table, and one chunk's
// conditions in one snapshot.
type CheckBackend interface {
	WarehouseStates(ctx context.Context) (map[int]string, error)
	// CheckItems verifies the item table (ItemsVerdict).
	CheckItems(ctx context.Context) (ok bool, detail string, err error)
	// CheckChunk evaluates every condition not skipped in results over warehouses from..to in
	// one snapshot, returning one finding per condition (Conditions' order).
	CheckChunk(ctx context.Context, results []CheckResult, from, to int) ([]ChunkFinding, error)
	Close()
}

// runCheck checks the loaded range chunk by chunk, o.Threads chunks at a time, keeping for each
// condition the offender of the lowest chunk.
func runCheck(ctx context.Context, o CheckOptions, b CheckBackend) ([]CheckResult, error) {
	states, err := b.WarehouseStates(ctx)
	if err != nil {
		return nil, fmt.Errorf("--url: %w", err)
	}
	if missing := MissingWarehouses(states, o.From, o.To); len(missing) > 0 {
		return nil, fmt.Errorf("--warehouses/--from/--to: warehouses %s are not loaded in this database", FormatRanges(missing))
	}

	results := make([]CheckResult, len(Conditions))
	for i, c := range Conditions {
		results[i] = CheckResult{Condition: c, Pass: true, Skipped: c.LoadOnly && !o.LoadTime}
	}
	itemsOK, itemDetail, err := b.CheckItems(ctx)
	if err != nil {
		return nil, err
	}
	if !itemsOK {
		results[0].Pass, results[0].Detail = false, itemDetail
	}
	firstBad := make([]int, len(Conditions)) // warehouse of the reported failure: keep the lowest
	if !itemsOK {
		firstBad[0] = -1 // the item finding stays the reported one
	}

	type chunk struct{ from, to int }
	chunks := make(chan chunk)
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, o.Threads)
	for t := 0; t < o.Threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ch := range chunks {
				found, err := b.CheckChunk(ctx, results, ch.from, ch.to)
				if err != nil {
					errs <- fmt.Errorf("warehouses %d-%d: %w", ch.from, ch.to, err)
					return
				}
				mu.Lock()
				for i, f := range found {
					if f.Detail == "" || (firstBad[i] != 0 && firstBad[i] <= ch.from) {
						continue
					}
					results[i].Pass, results[i].Detail, firstBad[i] = false, f.Detail, ch.from
				}
				for i := range found {
					results[i].Elapsed += found[i].Elapsed
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for w := o.From; w <= o.To; w += o.ChunkSize {
		select {
		case chunks <- chunk{w, min(w+o.ChunkSize-1, o.To)}:
		case err := <-errs:
			close(chunks)
			wg.Wait()
			return nil, err
		case <-ctx.Done():
			break feed
		}
	}
	close(chunks)
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return results, nil
}

// ChunkFinding is one condition's outcome over one chunk: the first offender ("" when none) and
// the time its evaluation took.
type ChunkFinding struct {
	Detail  string
	Elapsed time.Duration
}

// ItemsVerdict judges the item table from its row count and its lowest and highest I_ID: exactly
// ids 1..100000.
func ItemsVerdict(n, lo, hi int64) (bool, string, error) {
	if n != Items || lo != 1 || hi != Items {
		return false, fmt.Sprintf("item: count=%d min(i_id)=%d max(i_id)=%d, want 100000 rows 1..100000", n, lo, hi), nil
	}
	return true, "", nil
}

// WriteCheckReport prints one line per condition and returns whether all ran conditions passed.
func WriteCheckReport(w io.Writer, results []CheckResult) bool {
	ok := true
	for _, r := range results {
		status := "PASS"
		switch {
		case r.Skipped:
			status = "SKIP"
		case !r.Pass:
			status, ok = "FAIL", false
		}
		line := fmt.Sprintf("%-11s %-4s %s", r.Condition.ID, status, r.Condition.Name)
		if r.Skipped {
			line += " (load-time only: pass --load-time before any Delivery has run)"
		}
		if r.Detail != "" {
			line += ": first offender " + r.Detail
		}
		if !r.Skipped {
			line += fmt.Sprintf(" [%s]", r.Elapsed.Round(time.Millisecond))
		}
		fmt.Fprintln(w, line)
	}
	return ok
}
