package pgwire

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/clientcheck"
)

// rowsFlavour is a flavour whose check evaluates the conditions in the client from range scans
// (clientcheck.ChunkRows, the path of a driver without the conditions' SQL) over PostgreSQL's rows,
// so that it can be compared with the SQL conditions on the same data.
type rowsFlavour struct{ *Flavour }

func (f rowsFlavour) OpenCheck(ctx context.Context, o tpcc.CheckOptions) (tpcc.CheckBackend, error) {
	b, err := f.Flavour.OpenCheck(ctx, o)
	if err != nil {
		return nil, err
	}
	return &pgRowsCheck{b.(*pgCheck)}, nil
}

// pgRowsCheck is the SQL check's backend (load states, items) with the chunks evaluated in the
// client.
type pgRowsCheck struct{ *pgCheck }

func (p *pgRowsCheck) CheckChunk(ctx context.Context, results []tpcc.CheckResult, from, to int) ([]tpcc.ChunkFinding, error) {
	snapshot := func(ctx context.Context, f func(context.Context, clientcheck.Scan) error) error {
		return pgx.BeginTxFunc(ctx, p.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			return f(ctx, func(ctx context.Context, r clientcheck.Read, from, to int, row func([]clientcheck.Value) error) error {
				return pgScan(ctx, tx, r, from, to, row)
			})
		})
	}
	return clientcheck.ChunkRows(ctx, snapshot, results, from, to)
}

func pgScan(ctx context.Context, tx pgx.Tx, r clientcheck.Read, from, to int, row func([]clientcheck.Value) error) error {
	cols := strings.Join(r.Columns, ", ")
	sql := fmt.Sprintf("SELECT %s FROM %s WHERE %s BETWEEN $1 AND $2", cols, r.Table.Name, r.Bound)
	if r.Count {
		sql = fmt.Sprintf("SELECT %s, count(*) FROM %s WHERE %s BETWEEN $1 AND $2 GROUP BY %s", cols, r.Table.Name, r.Bound, cols)
	}
	rows, err := tx.Query(ctx, sql, from, to)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		raw, err := rows.Values()
		if err != nil {
			return err
		}
		vals := make([]clientcheck.Value, len(raw))
		for i, x := range raw {
			switch v := x.(type) {
			case nil:
				vals[i] = clientcheck.Null
			case int32:
				vals[i] = clientcheck.Int(int64(v))
			case int64:
				vals[i] = clientcheck.Int(v)
			case time.Time:
				vals[i] = clientcheck.Int(v.UnixMicro())
			case pgtype.Numeric:
				cents, err := tpcc.DecimalCents(new(big.Int).Mul(v.Int, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(v.Exp, 0))), nil)), int(-min(v.Exp, 0)))
				if err != nil {
					return err
				}
				vals[i] = clientcheck.Int(cents)
			default:
				return fmt.Errorf("%s: no conversion of %T", r.Columns[i], x)
			}
		}
		if err := row(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// checkBothWays runs Check (the SQL conditions) and the client-side evaluation on the same
// database and fails the test unless every condition has the same outcome and first offender.
func checkBothWays(t *testing.T, ctx context.Context, o tpcc.CheckOptions) []tpcc.CheckResult {
	t.Helper()
	sqlResults, err := tpcc.Check(ctx, o)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	o.Driver = rowsFlavour{FlavourOf(o.Driver)}
	rowResults, err := tpcc.Check(ctx, o)
	if err != nil {
		t.Fatalf("client-side check: %v", err)
	}
	for i, s := range sqlResults {
		r := rowResults[i]
		if s.Pass != r.Pass || s.Skipped != r.Skipped || s.Detail != r.Detail {
			t.Errorf("%s: SQL says pass=%v skipped=%v %q; client-side evaluation says pass=%v skipped=%v %q",
				s.Condition.ID, s.Pass, s.Skipped, s.Detail, r.Pass, r.Skipped, r.Detail)
		}
	}
	return sqlResults
}
