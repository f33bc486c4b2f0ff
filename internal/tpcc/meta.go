package tpcc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Meta is the load-wide record in MetaTable: the seed every loader must share and the C constants
// derived from it (the run reads CRun, CID, OLIID from here).
type Meta struct {
	Seed        uint64
	Warehouses  int // the largest --warehouses any load declared
	Constants   Constants
	ItemsLoaded bool
	Finished    bool // primary keys (where added late) and secondary indexes exist
}

// constantsStream is the random stream of the C constants, apart from all data streams.
const constantsStream = 1 << 62

// ConstantsForSeed derives the C constants of a load from its seed.
func ConstantsForSeed(seed uint64) Constants { return NewConstants(NewRand(seed, constantsStream)) }

// ensureMeta records (seed, warehouses) unless a meta row exists, and returns the stored row.
// The first loader to insert wins; every other loader adopts its seed, so parallel loaders of one
// database agree. A seed given explicitly (seedSet) that differs from the stored one is an error.
func ensureMeta(ctx context.Context, pool *pgxpool.Pool, seed uint64, seedSet bool, warehouses int) (Meta, error) {
	c := ConstantsForSeed(seed)
	_, err := pool.Exec(ctx, `INSERT INTO `+MetaTable+` (id, seed, warehouses, c_load, c_run, c_id, c_ol_i_id)
		VALUES (1, $1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
		int64(seed), warehouses, c.CLoad, c.CRun, c.CID, c.OLIID)
	if err != nil {
		return Meta{}, fmt.Errorf("record load meta: %w", err)
	}
	if _, err := pool.Exec(ctx, `UPDATE `+MetaTable+` SET warehouses = $1 WHERE id = 1 AND warehouses < $1`, warehouses); err != nil {
		return Meta{}, fmt.Errorf("update load meta: %w", err)
	}
	m, err := ReadMeta(ctx, pool)
	if err != nil {
		return Meta{}, err
	}
	if seedSet && m.Seed != seed {
		return Meta{}, fmt.Errorf("--seed %d: this database was loaded with seed %d (drop it, or omit --seed)", seed, m.Seed)
	}
	return m, nil
}

// ErrNotLoaded means the database holds no TPC-C meta table or row.
var ErrNotLoaded = errors.New("no TPC-C data: the meta table " + MetaTable + " is missing or empty (run tpcc load first)")

// ReadMeta reads the meta row of a loaded database.
func ReadMeta(ctx context.Context, q querier) (Meta, error) {
	var m Meta
	var seed int64
	err := q.QueryRow(ctx, `SELECT seed, warehouses, c_load, c_run, c_id, c_ol_i_id, items_loaded, finished
		FROM `+MetaTable+` WHERE id = 1`).Scan(&seed, &m.Warehouses, &m.Constants.CLoad, &m.Constants.CRun,
		&m.Constants.CID, &m.Constants.OLIID, &m.ItemsLoaded, &m.Finished)
	if errors.Is(err, pgx.ErrNoRows) || isUndefinedTable(err) {
		return Meta{}, ErrNotLoaded
	}
	if err != nil {
		return Meta{}, fmt.Errorf("read %s: %w", MetaTable, err)
	}
	m.Seed = uint64(seed)
	if err := m.Constants.Validate(); err != nil {
		return Meta{}, fmt.Errorf("%s holds invalid constants: %w", MetaTable, err)
	}
	return m, nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// WarehouseStates returns the load state of every warehouse with a row in WarehouseLoadTable.
func WarehouseStates(ctx context.Context, q querier) (map[int]string, error) {
	rows, err := q.Query(ctx, `SELECT w_id, state FROM `+WarehouseLoadTable)
	if err != nil {
		if isUndefinedTable(err) {
			return nil, ErrNotLoaded
		}
		return nil, fmt.Errorf("read %s: %w", WarehouseLoadTable, err)
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

// MissingWarehouses lists the warehouses of from..to that are not in state done.
func MissingWarehouses(states map[int]string, from, to int) []int {
	var missing []int
	for w := from; w <= to; w++ {
		if states[w] != StateDone {
			missing = append(missing, w)
		}
	}
	return missing
}

// FormatRanges renders sorted warehouse ids compactly, e.g. [1 2 3 7 9 10] → "1-3,7,9-10".
func FormatRanges(ids []int) string {
	ids = append([]int(nil), ids...)
	sort.Ints(ids)
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}

// ValidateRange checks --warehouses, --from, --to and --threads, naming the flag of a problem, and
// returns the range with its defaults (0, 0 → 1..warehouses).
func ValidateRange(warehouses, from, to, threads int) (int, int, error) {
	if warehouses < 1 {
		return 0, 0, fmt.Errorf("--warehouses must be >= 1, got %d", warehouses)
	}
	if from == 0 {
		from = 1
	}
	if to == 0 {
		to = warehouses
	}
	if from < 1 || from > warehouses {
		return 0, 0, fmt.Errorf("--from %d outside 1..%d (--warehouses)", from, warehouses)
	}
	if to < from || to > warehouses {
		return 0, 0, fmt.Errorf("--to %d outside %d..%d (--from..--warehouses)", to, from, warehouses)
	}
	if threads < 1 {
		return 0, 0, fmt.Errorf("--threads must be >= 1, got %d", threads)
	}
	return from, to, nil
}
