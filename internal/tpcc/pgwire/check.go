package pgwire

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// pgCheck runs the SQL conditions (conditionSQL).
type pgCheck struct {
	pool *pgxpool.Pool
	f    *Flavour
}

// OpenCheck connects the check's pool, o.Threads connections, and creates the HISTORY indexes
// the conditions read by where the dataset lacks them (ensureCheckIndexes).
func (f *Flavour) OpenCheck(ctx context.Context, o tpcc.CheckOptions) (tpcc.CheckBackend, error) {
	c, err := f.openCheck(ctx, o, true)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// openCheck is OpenCheck, without the index step unless indexes is set.
func (f *Flavour) openCheck(ctx context.Context, o tpcc.CheckOptions, indexes bool) (*pgCheck, error) {
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
	if indexes {
		if err := ensureCheckIndexes(ctx, pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return &pgCheck{pool: pool, f: f}, nil
}

func (p *pgCheck) Close() { p.pool.Close() }

func (p *pgCheck) WarehouseStates(ctx context.Context) (map[int]string, error) {
	return WarehouseStates(ctx, p.pool)
}

func (p *pgCheck) CheckItems(ctx context.Context) (bool, string, error) {
	return checkItems(ctx, p.pool)
}

func (p *pgCheck) CheckChunk(ctx context.Context, results []tpcc.CheckResult, from, to int) ([]tpcc.ChunkFinding, error) {
	return checkChunk(ctx, p.pool, p.f.checkIsolation, results, from, to)
}

// checkChunk evaluates the conditions over warehouses from..to in one read-only transaction at
// iso, one snapshot.
func checkChunk(ctx context.Context, pool *pgxpool.Pool, iso pgx.TxIsoLevel, results []tpcc.CheckResult, from, to int) ([]tpcc.ChunkFinding, error) {
	found := make([]tpcc.ChunkFinding, len(tpcc.Conditions))
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: iso, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		for i, c := range tpcc.Conditions {
			if results[i].Skipped {
				continue
			}
			start := time.Now()
			detail, err := firstOffender(ctx, tx, conditionSQL[c.ID], from, to)
			if err != nil {
				return fmt.Errorf("%s: %w", c.ID, err)
			}
			found[i] = tpcc.ChunkFinding{Detail: detail, Elapsed: time.Since(start)}
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
	return tpcc.ItemsVerdict(n, lo, hi)
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
