package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/ydb-platform/ydb-go-sdk/v3"
	"github.com/ydb-platform/ydb-go-sdk/v3/query"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// grownTables are the tables the transactions add rows to, with the rows a load puts in per
// warehouse (Clause 4.3.3.1: 3000 orders and history rows per district, 900 new orders).
var grownTables = []struct {
	table        Table
	perWarehouse int64
}{
	{OrdersTable, DistrictsPerWarehouse * OrdersPerDistrict},
	{HistoryTable, DistrictsPerWarehouse * CustomersPerDistrict},
	{NewOrderTable, DistrictsPerWarehouse * NewOrdersPerDistrict},
}

// datasetCountSQL counts a table's rows.
func datasetCountSQL(d Dialect, t Table) string {
	if d == YDB {
		return "SELECT COUNT(*) AS n FROM `" + t.Name + "`"
	}
	return "SELECT count(*) FROM " + t.Name
}

// ReadDataset reads the identity and the grown tables' sizes of the database at url.
func ReadDataset(ctx context.Context, d Dialect, url string) (snapshot.Dataset, error) {
	if d == YDB {
		return readDatasetYDB(ctx, url)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return snapshot.Dataset{}, fmt.Errorf("--url: cannot connect to %s: %w", d, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	m, err := ReadMeta(ctx, conn)
	if err != nil {
		return snapshot.Dataset{}, err
	}
	ds := newDataset(d, m)
	for _, g := range grownTables {
		var n int64
		if err := conn.QueryRow(ctx, datasetCountSQL(d, g.table)).Scan(&n); err != nil {
			return snapshot.Dataset{}, fmt.Errorf("count %s: %w", g.table.Name, err)
		}
		ds.Rows[g.table.Name] = n
	}
	return ds, nil
}

func newDataset(d Dialect, m Meta) snapshot.Dataset {
	ds := snapshot.Dataset{Engine: string(d), SchemaVersion: snapshot.SchemaVersion, Warehouses: m.Warehouses, Seed: m.Seed, Finished: m.Finished,
		Rows: map[string]int64{}, Loaded: map[string]int64{}}
	for _, g := range grownTables {
		ds.Loaded[g.table.Name] = g.perWarehouse * int64(m.Warehouses)
	}
	return ds
}

// readDatasetYDB is ReadDataset on YDB, through the loader's own meta query. No YDB server runs
// here: its queries are checked by the YQL consistency tests only.
func readDatasetYDB(ctx context.Context, url string) (snapshot.Dataset, error) {
	db, err := ydb.Open(ctx, url)
	if err != nil {
		return snapshot.Dataset{}, fmt.Errorf("--url: cannot reach YDB: %w", err)
	}
	defer db.Close(context.WithoutCancel(ctx)) //nolint:errcheck
	row, err := db.Query().QueryRow(ctx, ydbReadMetaYQL)
	if errors.Is(err, query.ErrNoRows) {
		return snapshot.Dataset{}, ErrNotLoaded
	}
	if err != nil {
		return snapshot.Dataset{}, fmt.Errorf("read %s: %w", MetaTable, err)
	}
	var seed *int64
	var w, cl, cr, ci, co *int32
	var items, fin *bool
	if err := row.Scan(&seed, &w, &cl, &cr, &ci, &co, &items, &fin); err != nil {
		return snapshot.Dataset{}, fmt.Errorf("read %s: %w", MetaTable, err)
	}
	if seed == nil || w == nil {
		return snapshot.Dataset{}, fmt.Errorf("%s row 1 has empty fields", MetaTable)
	}
	ds := newDataset(YDB, Meta{Seed: uint64(*seed), Warehouses: int(*w), Finished: fin != nil && *fin})
	for _, g := range grownTables {
		row, err := db.Query().QueryRow(ctx, datasetCountSQL(YDB, g.table))
		if err != nil {
			return snapshot.Dataset{}, fmt.Errorf("count %s: %w", g.table.Name, err)
		}
		var n uint64
		if err := row.Scan(&n); err != nil {
			return snapshot.Dataset{}, fmt.Errorf("count %s: %w", g.table.Name, err)
		}
		ds.Rows[g.table.Name] = int64(n)
	}
	return ds, nil
}
