package pgwire

import (
	"context"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"strings"
	"testing"
	"time"
)

func TestUnloggedDDL(t *testing.T) {
	ddl := strings.Join(CreateTableDDLFor(Postgres, tpcc.TablesUnlogged), ";\n")
	if got := strings.Count(ddl, "CREATE UNLOGGED TABLE IF NOT EXISTS"); got != 11 {
		t.Errorf("postgres unlogged: %d unlogged tables, want 9 + 2 meta:\n%s", got, ddl)
	}
	if strings.Contains(strings.Join(Postgres.SchemaDDL(tpcc.TablesLogged), ";"), "UNLOGGED") {
		t.Error("postgres logged DDL contains UNLOGGED")
	}
	for _, d := range []Dialect{Cockroach, YDB} {
		if strings.Contains(strings.Join(CreateTableDDLFor(d, tpcc.TablesUnlogged), ";"), "UNLOGGED") {
			t.Errorf("%s DDL contains UNLOGGED", d)
		}
		o := tpcc.LoadOptions{Driver: d, URL: "x", Warehouses: 1, Threads: 1, Tables: tpcc.TablesUnlogged}
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--tables unlogged") {
			t.Errorf("%s: Validate = %v, want a --tables error", d, err)
		}
	}
}

func TestParseTablePersistence(t *testing.T) {
	for in, want := range map[string]tpcc.TablePersistence{"logged": tpcc.TablesLogged, "unlogged": tpcc.TablesUnlogged} {
		if got, err := tpcc.ParseTablePersistence(in); got != want || err != nil {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	if _, err := tpcc.ParseTablePersistence("Unlogged"); err == nil || !strings.Contains(err.Error(), "--tables") {
		t.Errorf("Unlogged: %v, want an error naming --tables", err)
	}
}

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
