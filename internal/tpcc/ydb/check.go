package ydb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ydb-platform/ydb-go-sdk/v3"
	"github.com/ydb-platform/ydb-go-sdk/v3/pkg/decimal"
	"github.com/ydb-platform/ydb-go-sdk/v3/query"
	"github.com/ydb-platform/ydb-go-sdk/v3/types"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/clientcheck"
)

// ydbCheck evaluates the conditions in the client from YQL range scans (clientcheck.ChunkRows): YQL
// differs from the conditions' SQL in too many details (joins, aliases, decimal arithmetic) for
// one text to serve both.
type ydbCheck struct{ db *ydb.Driver }

// openYDBCheck connects, and adds the indexes the reads go through (clientcheck.Read's Index)
// where the dataset lacks them: a load finished before they were part of the schema. Without
// HISTORY it adds nothing: the check then reports what is not loaded.
func openYDBCheck(ctx context.Context, o tpcc.CheckOptions) (tpcc.CheckBackend, error) {
	db, err := openYDB(ctx, o.URL)
	if err != nil {
		return nil, err
	}
	if _, err := tableIndexes(ctx, db, tpcc.HistoryTable.Name); ydb.IsOperationErrorSchemeError(err) {
		return &ydbCheck{db: db}, nil
	}
	if err := addMissingIndexes(ctx, db, checkIndexes()); err != nil {
		_ = db.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("create the indexes the check reads by: %w", err)
	}
	return &ydbCheck{db: db}, nil
}

// checkIndexes are the secondary indexes the check's reads go through.
func checkIndexes() []tpcc.Index {
	var out []tpcc.Index
	for _, r := range clientcheck.Reads {
		for _, ix := range tpcc.SecondaryIndexes {
			if r.Index == ix.Name {
				out = append(out, ix)
			}
		}
	}
	return out
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
	snapshot := func(ctx context.Context, f func(context.Context, clientcheck.Scan) error) error {
		return y.db.Query().DoTx(ctx, func(ctx context.Context, tx query.TxActor) error {
			return f(ctx, func(ctx context.Context, r clientcheck.Read, from, to int, row func([]clientcheck.Value) error) error {
				return ydbScan(ctx, tx, r, from, to, row)
			})
		}, query.WithTxSettings(ydbSnapshotRead), query.WithIdempotent())
	}
	return clientcheck.ChunkRows(ctx, snapshot, results, from, to)
}

// ydbCheckQuery is the YQL of one range scan, through the read's index (VIEW) if it names one:
// YDB reads a secondary index only when the query names it.
func ydbCheckQuery(r clientcheck.Read, from, to int) ydbQuery {
	cols := strings.Join(r.Columns, ", ")
	source := "`" + r.Table.Name + "`"
	if r.Index != "" {
		source += " VIEW `" + r.Index + "`"
	}
	body := fmt.Sprintf("SELECT %s FROM %s WHERE %s BETWEEN $from AND $to", cols, source, r.Bound)
	if r.Count {
		body = fmt.Sprintf("SELECT %s, COUNT(*) AS n FROM %s WHERE %s BETWEEN $from AND $to GROUP BY %s", cols, source, r.Bound, cols)
	}
	return ydbQuery{params: []ydbParam{param("$from", i32(from)), param("$to", i32(to))}, body: body + ";"}
}

// ydbScan runs one range scan and converts each row. In the YDB schema only key columns are NOT
// NULL; every other column arrives as Optional.
func ydbScan(ctx context.Context, tx query.TxActor, r clientcheck.Read, from, to int, row func([]clientcheck.Value) error) error {
	n := len(r.Columns)
	if r.Count {
		n++
	}
	dst := make([]any, n)
	for i, name := range r.Columns {
		c := r.Column(name)
		switch {
		case c.Type.Kind == tpcc.KindInt && tpcc.IsKeyColumn(r.Table, name):
			dst[i] = new(int32)
		case c.Type.Kind == tpcc.KindInt:
			dst[i] = new(*int32)
		case c.Type.Kind == tpcc.KindDecimal:
			dst[i] = new(*types.Decimal)
		case c.Type.Kind == tpcc.KindTimestamp:
			dst[i] = new(*time.Time)
		default:
			return fmt.Errorf("tpcc: check reads no %s column (%s)", r.Table.Name, name)
		}
	}
	if r.Count {
		dst[n-1] = new(uint64)
	}
	vals := make([]clientcheck.Value, n)
	return readResultSets(ctx, tx, ydbCheckQuery(r, from, to), func(_ int, res query.Row) error {
		if err := res.Scan(dst...); err != nil {
			return err
		}
		for i, d := range dst {
			v, err := ydbCheckValue(d)
			if err != nil {
				return fmt.Errorf("%s: %w", r.Columns[min(i, len(r.Columns)-1)], err)
			}
			vals[i] = v
		}
		return row(vals)
	})
}

func ydbCheckValue(d any) (clientcheck.Value, error) {
	switch x := d.(type) {
	case *int32:
		return clientcheck.Int(int64(*x)), nil
	case *uint64:
		return clientcheck.Int(int64(*x)), nil
	case **int32:
		if *x == nil {
			return clientcheck.Null, nil
		}
		return clientcheck.Int(int64(**x)), nil
	case **time.Time:
		if *x == nil {
			return clientcheck.Null, nil
		}
		return clientcheck.Int((*x).UnixMicro()), nil
	case **types.Decimal:
		if *x == nil {
			return clientcheck.Null, nil
		}
		cents, err := tpcc.DecimalCents(decimal.FromInt128((*x).Bytes, (*x).Precision), int((*x).Scale))
		if err != nil {
			return clientcheck.Null, err
		}
		return clientcheck.Int(cents), nil
	}
	return clientcheck.Null, fmt.Errorf("tpcc: no conversion of %T", d)
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
