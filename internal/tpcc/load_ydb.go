package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"path"
	"time"

	"github.com/ydb-platform/ydb-go-sdk/v3"
	"github.com/ydb-platform/ydb-go-sdk/v3/query"
	"github.com/ydb-platform/ydb-go-sdk/v3/table"
	"github.com/ydb-platform/ydb-go-sdk/v3/types"
)

// ydbBatchRows is the number of rows per BulkUpsert call: large enough to amortize the round
// trip, small enough to stay far below the request size limit (a customer row is < 1 KiB).
const ydbBatchRows = 10_000

// loadYDB loads through BulkUpsert, which is not transactional but idempotent: rows are generated
// deterministically from the seed and HISTORY's surrogate key is derived from the customer, so a
// warehouse found "loading" is simply upserted again (no delete, no duplicates). Concurrent
// loaders may both write the item table: the rows are identical.
//
// Not exercised against a server here (none runs in this environment); the generated rows and
// statements are unit-tested.
func loadYDB(ctx context.Context, o LoadOptions) error {
	db, err := openYDB(ctx, o.URL)
	if err != nil {
		return err
	}
	defer db.Close(context.WithoutCancel(ctx)) //nolint:errcheck
	l := &ydbLoader{loadTracker: loadTracker{o: o, start: time.Now()}, db: db}
	return l.run(ctx)
}

type ydbLoader struct {
	loadTracker
	db *ydb.Driver
}

func (l *ydbLoader) run(ctx context.Context) error {
	l.phase.Store("schema")
	l.report()
	for _, stmt := range CreateTableDDL(YDB) {
		if err := l.db.Query().Exec(ctx, stmt); err != nil {
			return fmt.Errorf("create schema: %w\n%s", err, stmt)
		}
	}
	meta, err := l.ensureMeta(ctx)
	if err != nil {
		return err
	}
	gen := &Generator{Seed: meta.Seed, Constants: meta.Constants, Now: l.o.Now}
	l.phase.Store("items")
	l.report()
	if !meta.ItemsLoaded {
		if err := l.upsertTable(ctx, gen, ItemTable, 0); err != nil {
			return err
		}
		if err := l.db.Query().Exec(ctx, ydbItemsLoadedYQL); err != nil {
			return fmt.Errorf("mark items loaded: %w", err)
		}
	}
	states, err := l.states(ctx)
	if err != nil {
		return err
	}
	var todo []int
	for w := l.o.From; w <= l.o.To; w++ {
		if states[w] == StateDone {
			l.skipped++
			l.done.Add(1)
			continue
		}
		todo = append(todo, w)
	}
	l.phase.Store("warehouses")
	if err := l.loadWarehouses(ctx, gen, todo); err != nil {
		return err
	}
	if l.o.Finish {
		l.phase.Store("finish")
		l.report()
		if err := l.finish(ctx); err != nil {
			return err
		}
	}
	l.phase.Store("done")
	l.report()
	return nil
}

func (l *ydbLoader) ensureMeta(ctx context.Context) (Meta, error) {
	c := ConstantsForSeed(l.o.Seed)
	var m Meta
	err := l.db.Query().DoTx(ctx, func(ctx context.Context, tx query.TxActor) error {
		m = Meta{}
		found := true
		row, err := tx.QueryRow(ctx, ydbReadMetaYQL)
		if errors.Is(err, query.ErrNoRows) {
			found = false
		} else if err != nil {
			return err
		}
		if !found {
			m = Meta{Seed: l.o.Seed, Warehouses: l.o.Warehouses, Constants: c}
			q := ydbInsertMeta(l.o.Seed, l.o.Warehouses, c)
			return tx.Exec(ctx, q.text(), q.options())
		}
		var seed *int64
		var w, cl, cr, ci, co *int32
		var items, fin *bool
		if err := row.Scan(&seed, &w, &cl, &cr, &ci, &co, &items, &fin); err != nil {
			return err
		}
		if seed == nil || w == nil || cl == nil || cr == nil || ci == nil || co == nil {
			return fmt.Errorf("%s row 1 has empty fields", MetaTable)
		}
		m = Meta{Seed: uint64(*seed), Warehouses: int(*w),
			Constants:   Constants{CLoad: int(*cl), CRun: int(*cr), CID: int(*ci), OLIID: int(*co)},
			ItemsLoaded: items != nil && *items, Finished: fin != nil && *fin}
		return nil
	})
	if err != nil {
		return Meta{}, fmt.Errorf("record load meta: %w", err)
	}
	if l.o.SeedSet && m.Seed != l.o.Seed {
		return Meta{}, fmt.Errorf("--seed %d: this database was loaded with seed %d (drop it, or omit --seed)", l.o.Seed, m.Seed)
	}
	return m, m.Constants.Validate()
}

// YQL of the loader's meta rows. The parameterized ones are ydbQuery values, so their DECLAREs come
// from the bound values (yql_consistency_test.go checks every query against the YQL schema).
const (
	ydbReadMetaYQL    = "SELECT seed, warehouses, c_load, c_run, c_id, c_ol_i_id, items_loaded, finished FROM `" + MetaTable + "` WHERE id = 1"
	ydbItemsLoadedYQL = "UPSERT INTO `" + MetaTable + "` (id, items_loaded) VALUES (1, true)"
	ydbFinishedYQL    = "UPSERT INTO `" + MetaTable + "` (id, finished) VALUES (1, true)"
)

func ydbInsertMeta(seed uint64, warehouses int, c Constants) ydbQuery {
	return ydbQuery{
		params: []ydbParam{
			param("$seed", types.Int64Value(int64(seed))), param("$warehouses", i32(warehouses)),
			param("$c_load", i32(c.CLoad)), param("$c_run", i32(c.CRun)), param("$c_id", i32(c.CID)), param("$c_ol_i_id", i32(c.OLIID)),
		},
		body: "UPSERT INTO `" + MetaTable + "` (id, seed, warehouses, c_load, c_run, c_id, c_ol_i_id, items_loaded, finished, created_at)\n" +
			"VALUES (1, $seed, $warehouses, $c_load, $c_run, $c_id, $c_ol_i_id, false, false, CurrentUtcTimestamp());\n",
	}
}

func ydbMarkWarehouse(w int, state string) ydbQuery {
	return ydbQuery{
		params: []ydbParam{param("$w", i32(w)), param("$s", types.TextValue(state))},
		body:   "UPSERT INTO `" + WarehouseLoadTable + "` (w_id, state, updated_at) VALUES ($w, $s, CurrentUtcTimestamp());\n",
	}
}

func (l *ydbLoader) states(ctx context.Context) (map[int]string, error) {
	return ydbWarehouseStates(ctx, l.db)
}

func (l *ydbLoader) mark(ctx context.Context, w int, state string) error {
	q := ydbMarkWarehouse(w, state)
	return l.db.Query().Exec(ctx, q.text(), q.options())
}

func (l *ydbLoader) loadWarehouses(ctx context.Context, gen *Generator, todo []int) error {
	return l.eachWarehouse(ctx, todo, func(ctx context.Context, w int) error {
		if err := l.mark(ctx, w, StateLoading); err != nil {
			return err
		}
		for _, t := range WarehouseTables {
			if err := l.upsertTable(ctx, gen, t, w); err != nil {
				return err
			}
		}
		return l.mark(ctx, w, StateDone)
	})
}

func (l *ydbLoader) upsertTable(ctx context.Context, gen *Generator, t Table, w int) error {
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
func YDBBatches(src RowSource, now time.Time, batch int, upsert func(rows types.Value, n int) error) error {
	t := src.Table()
	row := make([]Value, len(t.Columns))
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
func YDBRow(t Table, row []Value, now time.Time) types.Value {
	fields := make([]types.StructValueOption, 0, len(row)+1)
	for i, c := range t.Columns {
		fields = append(fields, types.StructFieldValue(c.Name, ydbValue(c, row[i], now)))
	}
	if t.Name == HistoryTable.Name {
		// Columns: h_c_id, h_c_d_id, h_c_w_id, …: one load row per customer.
		key := HistoryKey(int(row[2].Int), int(row[1].Int), int(row[0].Int))
		fields = append(fields, types.StructFieldValue(YDBHistoryKey, types.Uint64Value(key)))
	}
	return types.StructValue(fields...)
}

func ydbValue(c Column, v Value, now time.Time) types.Value {
	var out types.Value
	switch v.Kind {
	case ValueNull:
		return types.NullValue(ydbType(c.Type))
	case ValueInt:
		out = types.Int32Value(int32(v.Int))
	case ValueDecimal:
		out = types.DecimalValueFromBigInt(ydbDecimalUnits(v.Int, c.Type.Scale), 22, 9)
	case ValueText:
		out = types.TextValue(string(v.Text))
	case ValueTimestamp:
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

func ydbType(t ColumnType) types.Type {
	switch t.Kind {
	case KindInt:
		return types.TypeInt32
	case KindDecimal:
		return types.DecimalType(22, 9)
	case KindTimestamp:
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

func (l *ydbLoader) finish(ctx context.Context) error {
	states, err := l.states(ctx)
	if err != nil {
		return err
	}
	if missing := MissingWarehouses(states, 1, l.o.Warehouses); len(missing) > 0 {
		return fmt.Errorf("finish: warehouses %s of 1..%d are not loaded yet", FormatRanges(missing), l.o.Warehouses)
	}
	for i, ix := range SecondaryIndexes {
		desc, err := l.describe(ctx, ix.Table)
		if err != nil {
			return err
		}
		if ydbHasIndex(desc, ix.Name) {
			continue
		}
		if err := l.db.Query().Exec(ctx, SecondaryIndexDDL(YDB)[i]); err != nil {
			return fmt.Errorf("finish: %w\n%s", err, SecondaryIndexDDL(YDB)[i])
		}
	}
	return l.db.Query().Exec(ctx, ydbFinishedYQL)
}

func (l *ydbLoader) describe(ctx context.Context, name string) (desc tableDescription, err error) {
	err = l.db.Table().Do(ctx, func(ctx context.Context, s table.Session) error {
		d, err := s.DescribeTable(ctx, path.Join(l.db.Name(), name))
		if err != nil {
			return err
		}
		for _, ix := range d.Indexes {
			desc.indexes = append(desc.indexes, ix.Name)
		}
		return nil
	}, table.WithIdempotent())
	return desc, err
}

type tableDescription struct{ indexes []string }

func ydbHasIndex(d tableDescription, name string) bool {
	for _, n := range d.indexes {
		if n == name {
			return true
		}
	}
	return false
}
