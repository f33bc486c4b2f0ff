package pgwire

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// Against the local sync cluster: the nine tables, the meta tables and the indexes the finish adds
// are created unlogged (relpersistence 'u') or logged ('p'); a load asking for the other
// persistence than the existing tables' fails, naming --tables.
func TestLoadTablePersistence(t *testing.T) {
	for _, tc := range []struct {
		tables tpcc.TablePersistence
		want   string
	}{{tpcc.TablesUnlogged, "u"}, {tpcc.TablesLogged, "p"}} {
		t.Run(string(tc.tables), func(t *testing.T) {
			url := pgtestDatabase(t)
			loadForTest(t, url, tpcc.LoadOptions{Warehouses: 1, Finish: true, Tables: tc.tables})
			c := connect(t, url)
			names := []string{tpcc.MetaTable, tpcc.WarehouseLoadTable}
			for _, table := range tpcc.Tables {
				names = append(names, table.Name)
			}
			ctx := context.Background()
			for _, name := range names {
				var persistence string
				if err := c.QueryRow(ctx, "SELECT relpersistence::text FROM pg_class WHERE relname = $1 AND relkind = 'r'", name).Scan(&persistence); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if persistence != tc.want {
					t.Errorf("%s: relpersistence %q, want %q", name, persistence, tc.want)
				}
			}
			if n := queryInt(t, c, "SELECT count(*) FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid "+
				"JOIN pg_class r ON r.oid = i.indrelid WHERE r.relname = ANY($1) AND c.relpersistence <> $2", names, tc.want); n != 0 {
				t.Errorf("%d indexes of the tables with another persistence than %q", n, tc.want)
			}
			if n := queryInt(t, c, "SELECT count(*) FROM warehouse"); n != 1 {
				t.Errorf("%d warehouses, want 1", n)
			}

			other := tpcc.TablesLogged
			if tc.tables == tpcc.TablesLogged {
				other = tpcc.TablesUnlogged
			}
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			err := tpcc.Load(ctx, tpcc.LoadOptions{Driver: Postgres, URL: url, Warehouses: 1, Threads: 1, Seed: 7, SeedSet: true, Tables: other})
			if err == nil || !strings.Contains(err.Error(), "--tables "+string(other)+": the tables") {
				t.Errorf("loading %s tables over %s ones: %v, want a --tables error", other, tc.tables, err)
			}
		})
	}
}
