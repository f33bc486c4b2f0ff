package ydb

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"path"
	"sync/atomic"
	"time"

	"github.com/ydb-platform/ydb-go-sdk/v3"
	"github.com/ydb-platform/ydb-go-sdk/v3/query"
	"github.com/ydb-platform/ydb-go-sdk/v3/table"
	"github.com/ydb-platform/ydb-go-sdk/v3/types"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// ydbBatchRows is the number of rows per BulkUpsert call: large enough to amortize the round
// trip, small enough to stay far below the request size limit (a customer row is < 1 KiB).
const ydbBatchRows = 10_000

// openLoader connects the bulk path of a load: BulkUpsert, which is not transactional but
// idempotent: rows are generated deterministically from the seed and HISTORY's surrogate key is
// derived from the customer, so a warehouse found "loading" is simply upserted again (no delete,
// no duplicates). Concurrent loaders may both write the item table: the rows are identical.
//
// Not exercised against a server here (none runs in this environment); the generated rows and
// statements are unit-tested.
func openLoader(ctx context.Context, o tpcc.LoadOptions, rows *atomic.Int64) (*ydbLoader, error) {
	db, err := openYDB(ctx, o.URL)
	if err != nil {
		return nil, err
	}
	return &ydbLoader{o: o, db: db, rows: rows}, nil
}

// ydbLoader is a load's BulkLoader on YDB.
type ydbLoader struct {
	o    tpcc.LoadOptions
	db   *ydb.Driver
	rows *atomic.Int64
}

func (l *ydbLoader) Close() { _ = l.db.Close(context.WithoutCancel(context.Background())) }

func (l *ydbLoader) CreateSchema(ctx context.Context) error {
	for _, stmt := range CreateTableDDL() {
		if err := l.db.Query().Exec(ctx, stmt); err != nil {
			return fmt.Errorf("create schema: %w\n%s", err, stmt)
		}
	}
	return nil
}

func (l *ydbLoader) LoadItems(ctx context.Context, gen *tpcc.Generator, meta tpcc.Meta) error {
	if meta.ItemsLoaded {
		return nil
	}
	if err := l.upsertTable(ctx, gen, tpcc.ItemTable, 0); err != nil {
		return err
	}
	if err := l.db.Query().Exec(ctx, ydbItemsLoadedYQL); err != nil {
		return fmt.Errorf("mark items loaded: %w", err)
	}
	return nil
}

// EnsureMeta records (seed, warehouses) unless a meta row exists and returns the stored row.
func (l *ydbLoader) EnsureMeta(ctx context.Context, seed uint64, warehouses int) (tpcc.Meta, error) {
	c := tpcc.ConstantsForSeed(seed)
	var m tpcc.Meta
	err := l.db.Query().DoTx(ctx, func(ctx context.Context, tx query.TxActor) error {
		row, err := tx.QueryRow(ctx, ydbReadMetaYQL)
		if errors.Is(err, query.ErrNoRows) {
			m = tpcc.Meta{Seed: seed, Warehouses: warehouses, Constants: c}
			q := ydbInsertMeta(seed, warehouses, c)
			return tx.Exec(ctx, q.text(), q.options())
		}
		if err != nil {
			return err
		}
		m, err = scanMeta(row)
		return err
	})
	if err != nil {
		return tpcc.Meta{}, fmt.Errorf("record load meta: %w", err)
	}
	return m, m.Constants.Validate()
}

// YQL of the loader's meta rows. The parameterized ones are ydbQuery values, so their DECLAREs come
// from the bound values (yql_consistency_test.go checks every query against the YQL schema).
const (
	ydbReadMetaYQL    = "SELECT seed, warehouses, c_load, c_run, c_id, c_ol_i_id, items_loaded, finished FROM `" + tpcc.MetaTable + "` WHERE id = 1"
	ydbItemsLoadedYQL = "UPSERT INTO `" + tpcc.MetaTable + "` (id, items_loaded) VALUES (1, true)"
	ydbFinishedYQL    = "UPSERT INTO `" + tpcc.MetaTable + "` (id, finished) VALUES (1, true)"
)

func ydbInsertMeta(seed uint64, warehouses int, c tpcc.Constants) ydbQuery {
	return ydbQuery{
		params: []ydbParam{
			param("$seed", types.Int64Value(int64(seed))), param("$warehouses", i32(warehouses)),
			param("$c_load", i32(c.CLoad)), param("$c_run", i32(c.CRun)), param("$c_id", i32(c.CID)), param("$c_ol_i_id", i32(c.OLIID)),
		},
		body: "UPSERT INTO `" + tpcc.MetaTable + "` (id, seed, warehouses, c_load, c_run, c_id, c_ol_i_id, items_loaded, finished, created_at)\n" +
			"VALUES (1, $seed, $warehouses, $c_load, $c_run, $c_id, $c_ol_i_id, false, false, CurrentUtcTimestamp());\n",
	}
}

func ydbMarkWarehouse(w int, state string) ydbQuery {
	return ydbQuery{
		params: []ydbParam{param("$w", i32(w)), param("$s", types.TextValue(state))},
		body:   "UPSERT INTO `" + tpcc.WarehouseLoadTable + "` (w_id, state, updated_at) VALUES ($w, $s, CurrentUtcTimestamp());\n",
	}
}

func (l *ydbLoader) WarehouseStates(ctx context.Context) (map[int]string, error) {
	return ydbWarehouseStates(ctx, l.db)
}

func (l *ydbLoader) mark(ctx context.Context, w int, state string) error {
	q := ydbMarkWarehouse(w, state)
	return l.db.Query().Exec(ctx, q.text(), q.options())
}

// LoadWarehouse upserts the warehouse's rows between a "loading" and a "done" mark; a partial
// warehouse is upserted again as it is.
func (l *ydbLoader) LoadWarehouse(ctx context.Context, gen *tpcc.Generator, w int, _ bool) error {
	if err := l.mark(ctx, w, tpcc.StateLoading); err != nil {
		return err
	}
	for _, t := range tpcc.WarehouseTables {
		if err := l.upsertTable(ctx, gen, t, w); err != nil {
			return err
		}
	}
	return l.mark(ctx, w, tpcc.StateDone)
}

func (l *ydbLoader) upsertTable(ctx context.Context, gen *tpcc.Generator, t tpcc.Table, w int) error {
	src, err := gen.Source(t, w)
	if err != nil {
		return err
	}
	tablePath := path.Join(l.db.Name(), t.Name)
	return YDBBatches(src, gen.Now, ydbBatchRows, func(rows types.Value, n int) error {
		if err := l.db.Table().BulkUpsert(ctx, tablePath, table.BulkUpsertDataRows(rows)); err != nil {
			return fmt.Errorf("BulkUpsert %s: %w", t.Name, err)
		}
		l.rows.Add(int64(n))
		return nil
	})
}

// YDBBatches converts src's rows into lists of at most batch YDB structs and hands each list to
// upsert with its row count.
func YDBBatches(src tpcc.RowSource, now time.Time, batch int, upsert func(rows types.Value, n int) error) error {
	t := src.Table()
	row := make([]tpcc.Value, len(t.Columns))
	list := make([]types.Value, 0, batch)
	for src.Next(row) {
		list = append(list, YDBRow(t, row, now))
		if len(list) == batch {
			if err := upsert(types.ListValue(list...), len(list)); err != nil {
				return err
			}
			list = list[:0]
		}
	}
	if len(list) > 0 {
		return upsert(types.ListValue(list...), len(list))
	}
	return nil
}

// YDBRow converts one generated row into the struct BulkUpsert takes: Int32, Decimal(22,9), Utf8,
// Timestamp, optional where the column is nullable, and HISTORY's surrogate key.
func YDBRow(t tpcc.Table, row []tpcc.Value, now time.Time) types.Value {
	fields := make([]types.StructValueOption, 0, len(row)+1)
	for i, c := range t.Columns {
		fields = append(fields, types.StructFieldValue(c.Name, ydbValue(c, row[i], now)))
	}
	if t.Name == tpcc.HistoryTable.Name {
		// Columns: h_c_id, h_c_d_id, h_c_w_id, …: one load row per customer.
		key := HistoryKey(int(row[2].Int), int(row[1].Int), int(row[0].Int))
		fields = append(fields, types.StructFieldValue(YDBHistoryKey, types.Uint64Value(key)))
	}
	return types.StructValue(fields...)
}

func ydbValue(c tpcc.Column, v tpcc.Value, now time.Time) types.Value {
	var out types.Value
	switch v.Kind {
	case tpcc.ValueNull:
		return types.NullValue(ydbType(c.Type))
	case tpcc.ValueInt:
		out = types.Int32Value(int32(v.Int))
	case tpcc.ValueDecimal:
		out = types.DecimalValueFromBigInt(ydbDecimalUnits(v.Int, c.Type.Scale), 22, 9)
	case tpcc.ValueText:
		out = types.TextValue(string(v.Text))
	case tpcc.ValueTimestamp:
		out = types.TimestampValueFromTime(now)
	}
	if c.Nullable {
		return types.OptionalValue(out)
	}
	return out
}

// ydbDecimalUnits rescales units of 10^-scale to the 10^-9 units of Decimal(22,9).
func ydbDecimalUnits(units int64, scale int) *big.Int {
	b := big.NewInt(units)
	return b.Mul(b, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(9-scale)), nil))
}

func ydbType(t tpcc.ColumnType) types.Type {
	switch t.Kind {
	case tpcc.KindInt:
		return types.TypeInt32
	case tpcc.KindDecimal:
		return types.DecimalType(22, 9)
	case tpcc.KindTimestamp:
		return types.TypeTimestamp
	default:
		return types.TypeText
	}
}

// HistoryKey is the YDB surrogate key of the load-time history row of customer (w, d, c): the
// splitmix64 finalizer of the packed ids, a bijection, so load keys never collide with each other,
// and a run's random 64-bit keys collide with them with negligible probability.
func HistoryKey(w, d, c int) uint64 {
	z := uint64(w)<<32 | uint64(d)<<16 | uint64(c)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Finish adds the secondary indexes that do not exist yet and marks the load finished.
func (l *ydbLoader) Finish(ctx context.Context) error {
	if err := addMissingIndexes(ctx, l.db, tpcc.SecondaryIndexes); err != nil {
		return fmt.Errorf("finish: %w", err)
	}
	return l.db.Query().Exec(ctx, ydbFinishedYQL)
}
