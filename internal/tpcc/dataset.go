package tpcc

import (
	"context"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// GrownTables are the tables the transactions add rows to, with the rows a load puts in per
// warehouse (Clause 4.3.3.1: 3000 orders and history rows per district, 900 new orders).
var GrownTables = []GrownTable{
	{OrdersTable, DistrictsPerWarehouse * OrdersPerDistrict},
	{HistoryTable, DistrictsPerWarehouse * CustomersPerDistrict},
	{NewOrderTable, DistrictsPerWarehouse * NewOrdersPerDistrict},
}

// GrownTable is a table the transactions grow, with the rows a load puts in per warehouse.
type GrownTable struct {
	Table        Table
	PerWarehouse int64
}

// ReadDataset reads the identity and the grown tables' sizes of the database at url.
func ReadDataset(ctx context.Context, d Driver, url string) (snapshot.Dataset, error) {
	return d.ReadDataset(ctx, url)
}

// NewDataset is the dataset of engine name as its meta row describes it, with the rows a load
// puts in the grown tables; the driver fills Rows from its counts of GrownTables.
func NewDataset(engine string, m Meta) snapshot.Dataset {
	ds := snapshot.Dataset{Engine: engine, SchemaVersion: snapshot.SchemaVersion, Warehouses: m.Warehouses, Seed: m.Seed, Finished: m.Finished,
		Rows: map[string]int64{}, Loaded: map[string]int64{}}
	for _, g := range GrownTables {
		ds.Loaded[g.Table.Name] = g.PerWarehouse * int64(m.Warehouses)
	}
	return ds
}
