package pgwire

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// ReadDataset reads the identity and the grown tables' sizes of the database at url.
func (f *Flavour) ReadDataset(ctx context.Context, url string) (snapshot.Dataset, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return snapshot.Dataset{}, fmt.Errorf("--url: cannot connect to %s: %w", f.name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	m, err := ReadMeta(ctx, conn)
	if err != nil {
		return snapshot.Dataset{}, err
	}
	ds := tpcc.NewDataset(f.name, m)
	for _, g := range tpcc.GrownTables {
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+g.Table.Name).Scan(&n); err != nil {
			return snapshot.Dataset{}, fmt.Errorf("count %s: %w", g.Table.Name, err)
		}
		ds.Rows[g.Table.Name] = n
	}
	return ds, nil
}

// ReadLoaded reads the load meta row, the per-warehouse load states and the server version.
func (f *Flavour) ReadLoaded(ctx context.Context, url string) (tpcc.LoadedData, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return tpcc.LoadedData{}, fmt.Errorf("--url: cannot connect to %s: %s", f.name, snapshot.RedactCredentials(err.Error()))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var ld tpcc.LoadedData
	if ld.Meta, err = ReadMeta(ctx, conn); err != nil {
		return tpcc.LoadedData{}, err
	}
	if ld.States, err = WarehouseStates(ctx, conn); err != nil {
		return tpcc.LoadedData{}, err
	}
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&ld.ServerVersion); err != nil {
		return tpcc.LoadedData{}, fmt.Errorf("read server version: %w", err)
	}
	return ld, nil
}
