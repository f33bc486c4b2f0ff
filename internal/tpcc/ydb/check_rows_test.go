package ydb

import (
	"context"
	"fmt"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ydb-platform/ydb-go-sdk/v3/pkg/decimal"
	"github.com/ydb-platform/ydb-go-sdk/v3/types"
)

// pgRowsCheck runs the client-side evaluation (the YDB path) over PostgreSQL's rows, so it can be
// compared with the SQL conditions on the same data.
type pgRowsCheck struct{ pgCheck }

func (p *pgRowsCheck) checkChunk(ctx context.Context, results []tpcc.CheckResult, from, to int) ([]chunkFinding, error) {
	snapshot := func(ctx context.Context, f func(context.Context, checkScan) error) error {
		return pgx.BeginTxFunc(ctx, p.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			return f(ctx, func(ctx context.Context, r checkRead, from, to int, row func([]checkValue) error) error {
				return pgScan(ctx, tx, r, from, to, row)
			})
		})
	}
	return checkChunkRows(ctx, snapshot, results, from, to)
}

func pgScan(ctx context.Context, tx pgx.Tx, r checkRead, from, to int, row func([]checkValue) error) error {
	cols := strings.Join(r.columns, ", ")
	sql := fmt.Sprintf("SELECT %s FROM %s WHERE %s BETWEEN $1 AND $2", cols, r.table.Name, r.bound)
	if r.count {
		sql = fmt.Sprintf("SELECT %s, count(*) FROM %s WHERE %s BETWEEN $1 AND $2 GROUP BY %s", cols, r.table.Name, r.bound, cols)
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
		vals := make([]checkValue, len(raw))
		for i, x := range raw {
			switch v := x.(type) {
			case nil:
				vals[i] = null
			case int32:
				vals[i] = val(int64(v))
			case int64:
				vals[i] = val(v)
			case time.Time:
				vals[i] = val(v.UnixMicro())
			case pgtype.Numeric:
				cents, err := DecimalCents(new(big.Int).Mul(v.Int, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(v.Exp, 0))), nil)), int(-min(v.Exp, 0)))
				if err != nil {
					return err
				}
				vals[i] = val(cents)
			default:
				return fmt.Errorf("%s: no conversion of %T", r.columns[i], x)
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
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, o.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rowResults, err := runCheck(ctx, o, &pgRowsCheck{pgCheck{pool: pool, dialect: Postgres}})
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

func TestYDBCheckQueries(t *testing.T) {
	want := map[int]string{
		0: "DECLARE $from AS Int32;\nDECLARE $to AS Int32;\nSELECT w_id, w_ytd FROM `warehouse` WHERE w_id BETWEEN $from AND $to;",
		3: "DECLARE $from AS Int32;\nDECLARE $to AS Int32;\nSELECT s_w_id, COUNT(*) AS n FROM `stock` WHERE s_w_id BETWEEN $from AND $to GROUP BY s_w_id;",
		5: "DECLARE $from AS Int32;\nDECLARE $to AS Int32;\nSELECT h_c_w_id, h_c_d_id, h_c_id, h_amount FROM `history` WHERE h_c_w_id BETWEEN $from AND $to;",
		8: "DECLARE $from AS Int32;\nDECLARE $to AS Int32;\nSELECT ol_w_id, ol_d_id, ol_o_id, ol_number, ol_delivery_d, ol_amount FROM `order_line` WHERE ol_w_id BETWEEN $from AND $to;",
	}
	for i, w := range want {
		if got := ydbCheckQuery(checkReads[i], 3, 12).text(); got != w {
			t.Errorf("read %d:\n got %s\nwant %s", i, got, w)
		}
	}
	// Every read names columns of its table (column panics otherwise) of a kind the YDB scan
	// converts.
	for _, r := range checkReads {
		for _, c := range r.columns {
			if k := r.column(c).Type.Kind; k == tpcc.KindVarchar || k == tpcc.KindChar {
				t.Errorf("%s.%s: text is not read by the check", r.table.Name, c)
			}
		}
	}
}

func TestYDBCheckValues(t *testing.T) {
	i := int32(7)
	ts := time.Date(2026, 11, 21, 10, 0, 0, 123456000, time.UTC)
	money := func(s string) *types.Decimal {
		units, err := decimal.Parse(s, 22, 9)
		if err != nil {
			t.Fatal(err)
		}
		return &types.Decimal{Bytes: decimal.BigIntToByte(units, 22), Precision: 22, Scale: 9}
	}
	var nilInt *int32
	var nilDec *types.Decimal
	var nilTime *time.Time
	u := uint64(100000)
	cases := []struct {
		in   any
		want checkValue
	}{
		{&i, val(7)}, {&u, val(100000)},
		{func() **int32 { p := &i; return &p }(), val(7)}, {&nilInt, null},
		{func() **time.Time { p := &ts; return &p }(), val(ts.UnixMicro())}, {&nilTime, null},
		{func() **types.Decimal { p := money("-10.00"); return &p }(), val(-1000)},
		{func() **types.Decimal { p := money("300000.01"); return &p }(), val(30000001)},
		{&nilDec, null},
	}
	for _, tc := range cases {
		got, err := ydbCheckValue(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ydbCheckValue(%T) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	if _, err := ydbCheckValue(func() **types.Decimal { p := money("0.001"); return &p }()); err == nil || !strings.Contains(err.Error(), "below the cent") {
		t.Errorf("a sub-cent amount: %v", err)
	}
}

func TestDecimalCents(t *testing.T) {
	cases := []struct {
		units int64
		scale int
		want  int64
	}{{-10_000_000_000, 9, -1000}, {30000001, 2, 30000001}, {5, 0, 500}, {12, 1, 120}}
	for _, tc := range cases {
		if got, err := DecimalCents(big.NewInt(tc.units), tc.scale); err != nil || got != tc.want {
			t.Errorf("DecimalCents(%d, %d) = %d, %v; want %d", tc.units, tc.scale, got, err, tc.want)
		}
	}
}
