package ydb

import (
	"context"
	"errors"
	"fmt"

	"github.com/ydb-platform/ydb-go-sdk/v3"
	"github.com/ydb-platform/ydb-go-sdk/v3/query"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// datasetCountYQL counts a table's rows.
func datasetCountYQL(t tpcc.Table) string { return "SELECT COUNT(*) AS n FROM `" + t.Name + "`" }

// readMeta reads the meta row through the loader's own query.
func readMeta(ctx context.Context, db *ydb.Driver) (tpcc.Meta, error) {
	row, err := db.Query().QueryRow(ctx, ydbReadMetaYQL)
	if errors.Is(err, query.ErrNoRows) {
		return tpcc.Meta{}, tpcc.ErrNotLoaded
	}
	if err != nil {
		return tpcc.Meta{}, fmt.Errorf("read %s: %w", tpcc.MetaTable, err)
	}
	return scanMeta(row)
}

// scanMeta converts a row of ydbReadMetaYQL; every column but the flags must be set.
func scanMeta(row query.Row) (tpcc.Meta, error) {
	var seed *int64
	var w, cl, cr, ci, co *int32
	var items, fin *bool
	if err := row.Scan(&seed, &w, &cl, &cr, &ci, &co, &items, &fin); err != nil {
		return tpcc.Meta{}, fmt.Errorf("read %s: %w", tpcc.MetaTable, err)
	}
	if seed == nil || w == nil || cl == nil || cr == nil || ci == nil || co == nil {
		return tpcc.Meta{}, fmt.Errorf("%s row 1 has empty fields", tpcc.MetaTable)
	}
	return tpcc.Meta{Seed: uint64(*seed), Warehouses: int(*w),
		Constants:   tpcc.Constants{CLoad: int(*cl), CRun: int(*cr), CID: int(*ci), OLIID: int(*co)},
		ItemsLoaded: items != nil && *items, Finished: fin != nil && *fin}, nil
}

// readDataset is ReadDataset on YDB, through the loader's own meta query. No YDB server runs
// here: its queries are checked by the YQL consistency tests only.
func readDataset(ctx context.Context, url string) (snapshot.Dataset, error) {
	db, err := ydb.Open(ctx, url)
	if err != nil {
		return snapshot.Dataset{}, fmt.Errorf("--url: cannot reach YDB: %w", err)
	}
	defer db.Close(context.WithoutCancel(ctx)) //nolint:errcheck
	m, err := readMeta(ctx, db)
	if err != nil {
		return snapshot.Dataset{}, err
	}
	ds := tpcc.NewDataset(name, m)
	for _, g := range tpcc.GrownTables {
		row, err := db.Query().QueryRow(ctx, datasetCountYQL(g.Table))
		if err != nil {
			return snapshot.Dataset{}, fmt.Errorf("count %s: %w", g.Table.Name, err)
		}
		var n uint64
		if err := row.Scan(&n); err != nil {
			return snapshot.Dataset{}, fmt.Errorf("count %s: %w", g.Table.Name, err)
		}
		ds.Rows[g.Table.Name] = int64(n)
	}
	return ds, nil
}

// readLoaded reads the meta row and the per-warehouse load states. YDB has no statement that
// reports its version: the server version is "YDB". No YDB server runs here: it follows the
// loader's own queries, checked by the YQL consistency tests.
func readLoaded(ctx context.Context, url string) (tpcc.LoadedData, error) {
	db, err := ydb.Open(ctx, url)
	if err != nil {
		return tpcc.LoadedData{}, fmt.Errorf("--url: cannot reach YDB: %s", snapshot.RedactCredentials(err.Error()))
	}
	defer db.Close(context.WithoutCancel(ctx)) //nolint:errcheck
	m, err := readMeta(ctx, db)
	if err != nil {
		return tpcc.LoadedData{}, err
	}
	states, err := ydbWarehouseStates(ctx, db)
	if err != nil {
		return tpcc.LoadedData{}, err
	}
	return tpcc.LoadedData{Meta: m, States: states, ServerVersion: "YDB"}, m.Constants.Validate()
}
