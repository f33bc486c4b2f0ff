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
// SERIALIZABLE on CockroachDB, snapshot read-only on YDB), so every condition of a chunk sees the
// same state; chunks run in parallel and may see different snapshots, which only matters if a
// workload is running. PostgreSQL and CockroachDB evaluate the SQL conditions; for YDB the client
// evaluates them from range scans (check_rows.go).
// The range must be loaded (all its warehouses done in the meta table), else an error names the
// missing warehouses before any condition runs.
func Check(ctx context.Context, o CheckOptions) ([]CheckResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var b checkBackend
	if o.Dialect == YDB {
		yb, err := openYDBCheck(ctx, o)
		if err != nil {
			return nil, err
		}
		b = yb
	} else {
		pb, err := openPgCheck(ctx, o)
		if err != nil {
			return nil, err
		}
		b = pb
	}
	defer b.close()
	return runCheck(ctx, o, b)
}

// checkBackend reads one engine for Check: the load states, the item table, and one chunk's
// conditions in one snapshot.
type checkBackend interface {
	warehouseStates(ctx context.Context) (map[int]string, error)
	checkItems(ctx context.Context) (ok bool, detail string, err error)
	checkChunk(ctx context.Context, results []CheckResult, from, to int) ([]chunkFinding, error)
	close()
}

// pgCheck runs the SQL conditions on PostgreSQL and CockroachDB.
type pgCheck struct {
	pool    *pgxpool.Pool
	dialect Dialect
}

func openPgCheck(ctx context.Context, o CheckOptions) (*pgCheck, error) {
	cfg, err := pgxpool.ParseConfig(o.URL)
	if err != nil {
		return nil, fmt.Errorf("--url: %w", err)
	}
	cfg.MaxConns = int32(o.Threads)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("--url: %w", err)
	}
	if err := ping(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &pgCheck{pool: pool, dialect: o.Dialect}, nil
}

func (p *pgCheck) close() { p.pool.Close() }

func (p *pgCheck) warehouseStates(ctx context.Context) (map[int]string, error) {
	return WarehouseStates(ctx, p.pool)
}

func (p *pgCheck) checkItems(ctx context.Context) (bool, string, error) {
	return checkItems(ctx, p.pool)
}

func (p *pgCheck) checkChunk(ctx context.Context, results []CheckResult, from, to int) ([]chunkFinding, error) {
	return checkChunk(ctx, p.pool, p.dialect, results, from, to)
}

// runCheck checks the loaded range chunk by chunk, o.Threads chunks at a time, keeping for each
// condition the offender of the lowest chunk.
func runCheck(ctx context.Context, o CheckOptions, b checkBackend) ([]CheckResult, error) {
	states, err := b.warehouseStates(ctx)
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
	itemsOK, itemDetail, err := b.checkItems(ctx)
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
				found, err := b.checkChunk(ctx, results, ch.from, ch.to)
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
// Results come in text format, which keeps a numeric's scale even for zero (0.00, not 0).
func firstOffender(ctx context.Context, tx pgx.Tx, sql string, from, to int) (string, error) {
	rows, err := tx.Query(ctx, sql, pgx.QueryResultFormats{pgx.TextFormatCode}, from, to)
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
	return itemsVerdict(n, lo, hi)
}

func itemsVerdict(n, lo, hi int64) (bool, string, error) {
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
