package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CheckOptions configures a consistency check over warehouses From..To (default 1..Warehouses).
type CheckOptions struct {
	Dialect    Dialect
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
// warehouses is read in one read-only snapshot transaction (REPEATABLE READ on PostgreSQL,
// SERIALIZABLE on CockroachDB), so every condition of a chunk sees the same state; chunks run in
// parallel and may see different snapshots, which only matters if a workload is running.
// The range must be loaded (all its warehouses done in the meta table), else an error names the
// missing warehouses before any condition runs.
func Check(ctx context.Context, o CheckOptions) ([]CheckResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if !o.Dialect.SpeaksPostgresWire() {
		return nil, fmt.Errorf("--engine %s: the consistency check speaks PostgreSQL/CockroachDB SQL only (YDB: use `ydb workload tpcc check`)", o.Dialect)
	}
	cfg, err := pgxpool.ParseConfig(o.URL)
	if err != nil {
		return nil, fmt.Errorf("--url: %w", err)
	}
	cfg.MaxConns = int32(o.Threads)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("--url: %w", err)
	}
	defer pool.Close()
	if err := ping(ctx, pool); err != nil {
		return nil, err
	}

	states, err := WarehouseStates(ctx, pool)
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
	itemsOK, itemDetail, err := checkItems(ctx, pool)
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
				found, err := checkChunk(ctx, pool, o.Dialect, results, ch.from, ch.to)
				if err != nil {
					errs <- fmt.Errorf("warehouses %d-%d: %w", ch.from, ch.to, err)
					return
				}
				mu.Lock()
				for i, f := range found {
					if f.detail == "" || (firstBad[i] != 0 && firstBad[i] <= ch.from) {
						continue
					}
					results[i].Pass, results[i].Detail, firstBad[i] = false, f.detail, ch.from
				}
				for i := range found {
					results[i].Elapsed += found[i].elapsed
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

type chunkFinding struct {
	detail  string
	elapsed time.Duration
}

func checkChunk(ctx context.Context, pool *pgxpool.Pool, d Dialect, results []CheckResult, from, to int) ([]chunkFinding, error) {
	iso := pgx.RepeatableRead
	if d == Cockroach {
		iso = pgx.Serializable
	}
	found := make([]chunkFinding, len(Conditions))
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: iso, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		for i, c := range Conditions {
			if results[i].Skipped {
				continue
			}
			start := time.Now()
			detail, err := firstOffender(ctx, tx, c.SQL, from, to)
			if err != nil {
				return fmt.Errorf("%s: %w", c.ID, err)
			}
			found[i] = chunkFinding{detail: detail, elapsed: time.Since(start)}
		}
		return nil
	})
	return found, err
}

// firstOffender runs a condition's query and renders its first row as "col=value …", or "".
func firstOffender(ctx context.Context, tx pgx.Tx, sql string, from, to int) (string, error) {
	rows, err := tx.Query(ctx, sql, from, to)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	if !rows.Next() {
		return "", rows.Err()
	}
	vals, err := rows.Values()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, f := range rows.FieldDescriptions() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%s", f.Name, formatValue(vals[i]))
	}
	return b.String(), nil
}

func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case pgtype.Numeric:
		return numericText(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// checkItems verifies the item table holds exactly ids 1..100000.
func checkItems(ctx context.Context, pool *pgxpool.Pool) (bool, string, error) {
	var n, lo, hi int64
	err := pool.QueryRow(ctx, "SELECT count(*), coalesce(min(i_id), 0), coalesce(max(i_id), 0) FROM item").Scan(&n, &lo, &hi)
	if err != nil {
		return false, "", fmt.Errorf("count item: %w", err)
	}
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

// numericText renders a numeric exactly, e.g. Int=3000001 Exp=-2 → "30000.01".
func numericText(n pgtype.Numeric) string {
	if !n.Valid {
		return "NULL"
	}
	if n.NaN || n.InfinityModifier != pgtype.Finite || n.Int == nil {
		v, _ := n.Value()
		return fmt.Sprint(v)
	}
	digits := n.Int.String()
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	if n.Exp >= 0 {
		digits += strings.Repeat("0", int(n.Exp))
	} else {
		scale := int(-n.Exp)
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}
