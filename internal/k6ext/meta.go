package k6ext

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/ydb-platform/ydb-go-sdk/v3"
	"github.com/ydb-platform/ydb-go-sdk/v3/query"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// loadedData is what a run needs to know about the database before it starts.
type loadedData struct {
	meta          tpcc.Meta
	states        map[int]string // warehouse → load state
	serverVersion string
}

// readLoadedData reads the load meta row, the per-warehouse load states and the server version.
func readLoadedData(ctx context.Context, d tpcc.Dialect, url string) (loadedData, error) {
	if d == tpcc.YDB {
		return readLoadedDataYDB(ctx, url)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return loadedData{}, fmt.Errorf("--url: cannot connect to %s: %s", d, snapshot.RedactCredentials(err.Error()))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var ld loadedData
	if ld.meta, err = tpcc.ReadMeta(ctx, conn); err != nil {
		return loadedData{}, err
	}
	if ld.states, err = tpcc.WarehouseStates(ctx, conn); err != nil {
		return loadedData{}, err
	}
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&ld.serverVersion); err != nil {
		return loadedData{}, fmt.Errorf("read server version: %w", err)
	}
	return ld, nil
}

// readLoadedDataYDB is the YDB flavour of readLoadedData. No YDB server runs where this was
// written: it follows the loader's own queries (internal/tpcc/load_ydb.go) and is unverified.
func readLoadedDataYDB(ctx context.Context, url string) (loadedData, error) {
	db, err := ydb.Open(ctx, url)
	if err != nil {
		return loadedData{}, fmt.Errorf("--url: cannot reach YDB: %s", snapshot.RedactCredentials(err.Error()))
	}
	defer db.Close(context.WithoutCancel(ctx)) //nolint:errcheck
	ld := loadedData{states: map[int]string{}, serverVersion: "YDB"}
	row, err := db.Query().QueryRow(ctx, "SELECT seed, warehouses, c_load, c_run, c_id, c_ol_i_id FROM `"+tpcc.MetaTable+"` WHERE id = 1")
	if errors.Is(err, query.ErrNoRows) {
		return loadedData{}, tpcc.ErrNotLoaded
	}
	if err != nil {
		return loadedData{}, fmt.Errorf("read %s: %w", tpcc.MetaTable, err)
	}
	var seed *int64
	var w, cl, cr, ci, co *int32
	if err := row.Scan(&seed, &w, &cl, &cr, &ci, &co); err != nil {
		return loadedData{}, fmt.Errorf("read %s: %w", tpcc.MetaTable, err)
	}
	if seed == nil || w == nil || cl == nil || cr == nil || ci == nil || co == nil {
		return loadedData{}, fmt.Errorf("%s row 1 has empty fields", tpcc.MetaTable)
	}
	ld.meta = tpcc.Meta{Seed: uint64(*seed), Warehouses: int(*w),
		Constants: tpcc.Constants{CLoad: int(*cl), CRun: int(*cr), CID: int(*ci), OLIID: int(*co)}}
	rs, err := db.Query().QueryResultSet(ctx, "SELECT w_id, state FROM `"+tpcc.WarehouseLoadTable+"`")
	if err != nil {
		return loadedData{}, fmt.Errorf("read %s: %w", tpcc.WarehouseLoadTable, err)
	}
	defer rs.Close(ctx) //nolint:errcheck
	for {
		r, err := rs.NextRow(ctx)
		if errors.Is(err, io.EOF) {
			return ld, ld.meta.Constants.Validate()
		}
		if err != nil {
			return loadedData{}, err
		}
		var wid int32
		var s *string
		if err := r.Scan(&wid, &s); err != nil {
			return loadedData{}, err
		}
		if s != nil {
			ld.states[int(wid)] = *s
		}
	}
}

// checkLoaded verifies that the database holds what the run drives: --warehouses no larger than
// the loaded count, and every active warehouse (terminals pick remote warehouses among them)
// loaded completely.
func checkLoaded(ld loadedData, warehouses, active int) error {
	if warehouses > ld.meta.Warehouses {
		return fmt.Errorf("--warehouses %d: the database holds %d loaded warehouses (meta table %s)", warehouses, ld.meta.Warehouses, tpcc.MetaTable)
	}
	if missing := tpcc.MissingWarehouses(ld.states, 1, active); len(missing) > 0 {
		return fmt.Errorf("--active-warehouses %d: warehouses %s are not loaded (run tpcc load)", active, tpcc.FormatRanges(missing))
	}
	return nil
}
