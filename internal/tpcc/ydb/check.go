package ydb

import (
	"context"
	"errors"
	"fmt"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/ydb-platform/ydb-go-sdk/v3"
	"github.com/ydb-platform/ydb-go-sdk/v3/pkg/decimal"
	"github.com/ydb-platform/ydb-go-sdk/v3/query"
	"github.com/ydb-platform/ydb-go-sdk/v3/types"
)

// ydbCheck evaluates the conditions in the client from YQL range scans (check_rows.go): YQL
// differs from the conditions' SQL in too many details (joins, aliases, decimal arithmetic) for
// one text to serve both.
type ydbCheck struct{ db *ydb.Driver }

func openYDBCheck(ctx context.Context, o tpcc.CheckOptions) (tpcc.CheckBackend, error) {
	db, err := openYDB(ctx, o.URL)
	if err != nil {
		return nil, err
	}
	return &ydbCheck{db: db}, nil
}

func (y *ydbCheck) Close() { _ = y.db.Close(context.Background()) }

func (y *ydbCheck) WarehouseStates(ctx context.Context) (map[int]string, error) {
	return ydbWarehouseStates(ctx, y.db)
}

func (y *ydbCheck) CheckItems(ctx context.Context) (bool, string, error) {
	row, err := y.db.Query().QueryRow(ctx, ydbItemCountYQL)
	if err != nil {
		return false, "", fmt.Errorf("count item: %w", err)
	}
	var n uint64
	var lo, hi *int32
	if err := row.Scan(&n, &lo, &hi); err != nil {
		return false, "", fmt.Errorf("count item: %w", err)
	}
	return tpcc.ItemsVerdict(int64(n), int64(deref(lo)), int64(deref(hi)))
}

const ydbWarehouseStatesYQL = "SELECT w_id, state FROM `" + tpcc.WarehouseLoadTable + "`"

const ydbItemCountYQL = "SELECT COUNT(*) AS n, MIN(i_id) AS lo, MAX(i_id) AS hi FROM `" + "item" + "`"

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func (y *ydbCheck) CheckChunk(ctx context.Context, results []tpcc.CheckResult, from, to int) ([]tpcc.ChunkFinding, error) {
	snapshot := func(ctx context.Context, f func(context.Context, checkScan) error) error {
		return y.db.Query().DoTx(ctx, func(ctx context.Context, tx query.TxActor) error {
			return f(ctx, func(ctx context.Context, r checkRead, from, to int, row func([]checkValue) error) error {
				return ydbScan(ctx, tx, r, from, to, row)
			})
		}, query.WithTxSettings(ydbSnapshotRead), query.WithIdempotent())
	}
	return checkChunkRows(ctx, snapshot, results, from, to)
}

// ydbCheckQuery is the YQL of one range scan.
func ydbCheckQuery(r checkRead, from, to int) ydbQuery {
	cols := strings.Join(r.columns, ", ")
	body := fmt.Sprintf("SELECT %s FROM `%s` WHERE %s BETWEEN $from AND $to", cols, r.table.Name, r.bound)
	if r.count {
		body = fmt.Sprintf("SELECT %s, COUNT(*) AS n FROM `%s` WHERE %s BETWEEN $from AND $to GROUP BY %s", cols, r.table.Name, r.bound, cols)
	}
	return ydbQuery{params: []ydbParam{param("$from", i32(from)), param("$to", i32(to))}, body: body + ";"}
}

// ydbScan runs one range scan and converts each row. In the YDB schema only key columns are NOT
// NULL; every other column arrives as Optional.
func ydbScan(ctx context.Context, tx query.TxActor, r checkRead, from, to int, row func([]checkValue) error) error {
	n := len(r.columns)
	if r.count {
		n++
	}
	dst := make([]any, n)
	for i, name := range r.columns {
		c := r.column(name)
		switch {
		case c.Type.Kind == tpcc.KindInt && tpcc.IsKeyColumn(r.table, name):
			dst[i] = new(int32)
		case c.Type.Kind == tpcc.KindInt:
			dst[i] = new(*int32)
		case c.Type.Kind == tpcc.KindDecimal:
			dst[i] = new(*types.Decimal)
		case c.Type.Kind == tpcc.KindTimestamp:
			dst[i] = new(*time.Time)
		default:
			return fmt.Errorf("tpcc: check reads no %s column (%s)", r.table.Name, name)
		}
	}
	if r.count {
		dst[n-1] = new(uint64)
	}
	vals := make([]checkValue, n)
	return readResultSets(ctx, tx, ydbCheckQuery(r, from, to), func(_ int, res query.Row) error {
		if err := res.Scan(dst...); err != nil {
			return err
		}
		for i, d := range dst {
			v, err := ydbCheckValue(d)
			if err != nil {
				return fmt.Errorf("%s: %w", r.columns[min(i, len(r.columns)-1)], err)
			}
			vals[i] = v
		}
		return row(vals)
	})
}

func ydbCheckValue(d any) (checkValue, error) {
	switch x := d.(type) {
	case *int32:
		return val(int64(*x)), nil
	case *uint64:
		return val(int64(*x)), nil
	case **int32:
		if *x == nil {
			return null, nil
		}
		return val(int64(**x)), nil
	case **time.Time:
		if *x == nil {
			return null, nil
		}
		return val((*x).UnixMicro()), nil
	case **types.Decimal:
		if *x == nil {
			return null, nil
		}
		cents, err := DecimalCents(decimal.FromInt128((*x).Bytes, (*x).Precision), int((*x).Scale))
		if err != nil {
			return null, err
		}
		return val(cents), nil
	}
	return null, fmt.Errorf("tpcc: no conversion of %T", d)
}

// DecimalCents converts units × 10^-scale to cents; a value with a non-zero digit below the cent
// is an error (TPC-C money has two decimals, so it would be a corrupted row).
func DecimalCents(units *big.Int, scale int) (int64, error) {
	q := new(big.Int).Set(units)
	if scale < 2 {
		q.Mul(q, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(2-scale)), nil))
	} else if scale > 2 {
		var rem big.Int
		q.QuoRem(q, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale-2)), nil), &rem)
		if rem.Sign() != 0 {
			return 0, fmt.Errorf("amount %s×10^-%d has digits below the cent", units, scale)
		}
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("amount %s×10^-%d is out of range", units, scale)
	}
	return q.Int64(), nil
}

// ydbWarehouseStates reads the load state of every warehouse.
func ydbWarehouseStates(ctx context.Context, db *ydb.Driver) (map[int]string, error) {
	rs, err := db.Query().QueryResultSet(ctx, ydbWarehouseStatesYQL)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", tpcc.WarehouseLoadTable, err)
	}
	defer rs.Close(ctx) //nolint:errcheck
	states := map[int]string{}
	for {
		row, err := rs.NextRow(ctx)
		if errors.Is(err, io.EOF) {
			return states, nil
		}
		if err != nil {
			return nil, err
		}
		var w int32
		var s *string
		if err := row.Scan(&w, &s); err != nil {
			return nil, err
		}
		if s != nil {
			states[int(w)] = *s
		}
	}
}
