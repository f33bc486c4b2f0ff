package pgwire

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// ensureMeta records (seed, warehouses) unless a meta row exists, and returns the stored row.
// The first loader to insert wins; every other loader adopts its seed, so parallel loaders of one
// database agree (the core's load refuses a --seed other than the stored one).
func ensureMeta(ctx context.Context, pool *pgxpool.Pool, seed uint64, warehouses int) (tpcc.Meta, error) {
	c := tpcc.ConstantsForSeed(seed)
	_, err := pool.Exec(ctx, `INSERT INTO `+tpcc.MetaTable+` (id, seed, warehouses, c_load, c_run, c_id, c_ol_i_id)
		VALUES (1, $1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
		int64(seed), warehouses, c.CLoad, c.CRun, c.CID, c.OLIID)
	if err != nil {
		return tpcc.Meta{}, fmt.Errorf("record load meta: %w", err)
	}
	if _, err := pool.Exec(ctx, `UPDATE `+tpcc.MetaTable+` SET warehouses = $1 WHERE id = 1 AND warehouses < $1`, warehouses); err != nil {
		return tpcc.Meta{}, fmt.Errorf("update load meta: %w", err)
	}
	m, err := ReadMeta(ctx, pool)
	if err != nil {
		return tpcc.Meta{}, err
	}
	return m, nil
}

// ReadMeta reads the meta row of a loaded database.
func ReadMeta(ctx context.Context, q querier) (tpcc.Meta, error) {
	var m tpcc.Meta
	var seed int64
	err := q.QueryRow(ctx, `SELECT seed, warehouses, c_load, c_run, c_id, c_ol_i_id, items_loaded, finished
		FROM `+tpcc.MetaTable+` WHERE id = 1`).Scan(&seed, &m.Warehouses, &m.Constants.CLoad, &m.Constants.CRun,
		&m.Constants.CID, &m.Constants.OLIID, &m.ItemsLoaded, &m.Finished)
	if errors.Is(err, pgx.ErrNoRows) || isUndefinedTable(err) {
		return tpcc.Meta{}, tpcc.ErrNotLoaded
	}
	if err != nil {
		return tpcc.Meta{}, fmt.Errorf("read %s: %w", tpcc.MetaTable, err)
	}
	m.Seed = uint64(seed)
	if err := m.Constants.Validate(); err != nil {
		return tpcc.Meta{}, fmt.Errorf("%s holds invalid constants: %w", tpcc.MetaTable, err)
	}
	return m, nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// WarehouseStates returns the load state of every warehouse with a row in WarehouseLoadTable.
func WarehouseStates(ctx context.Context, q querier) (map[int]string, error) {
	rows, err := q.Query(ctx, `SELECT w_id, state FROM `+tpcc.WarehouseLoadTable)
	if err != nil {
		if isUndefinedTable(err) {
			return nil, tpcc.ErrNotLoaded
		}
		return nil, fmt.Errorf("read %s: %w", tpcc.WarehouseLoadTable, err)
	}
	defer rows.Close()
	states := map[int]string{}
	for rows.Next() {
		var w int
		var s string
		if err := rows.Scan(&w, &s); err != nil {
			return nil, err
		}
		states[w] = s
	}
	return states, rows.Err()
}
