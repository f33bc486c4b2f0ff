package pgwire

import (
	"fmt"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// SchemaDDL returns the statements creating the nine tables and the meta tables, each idempotent
// (IF NOT EXISTS), with tables of persistence p where the flavour has unlogged tables. With
// keysAfterLoad the primary keys are not included: PrimaryKeyDDL adds them after the bulk phase.
// With statisticsTargets the columns' statistics targets follow (StatisticsDDL).
func (f *Flavour) SchemaDDL(p tpcc.TablePersistence) []string {
	stmts := make([]string, 0, 2*len(tpcc.Tables)+2)
	for _, t := range tpcc.Tables {
		stmts = append(stmts, f.createTable(p, t))
	}
	if f.statisticsTargets {
		stmts = append(stmts, StatisticsDDL()...)
	}
	return append(stmts, f.metaDDL(p)...)
}

// PredicateTextColumns are the only text columns a transaction or a consistency check filters,
// joins or sorts on (customer by last name, ordered by first name).
var PredicateTextColumns = map[string]bool{"c_last": true, "c_first": true}

// StatisticsDDL turns off planner statistics (SET STATISTICS 0) for the text columns no query
// filters, joins or sorts on: the stock's ten S_DIST_xx, C_DATA, S_DATA, addresses and the like.
// They are most of a row's width, and sorting their samples was most of ANALYZE's time after a
// load, for statistics no plan reads; autovacuum's later ANALYZEs skip them as well.
func StatisticsDDL() []string {
	var out []string
	for _, t := range tpcc.Tables {
		var cols []string
		for _, c := range t.Columns {
			if (c.Type.Kind == tpcc.KindVarchar || c.Type.Kind == tpcc.KindChar) && !PredicateTextColumns[c.Name] {
				cols = append(cols, "ALTER COLUMN "+c.Name+" SET STATISTICS 0")
			}
		}
		if len(cols) > 0 {
			out = append(out, fmt.Sprintf("ALTER TABLE %s %s", t.Name, strings.Join(cols, ", ")))
		}
	}
	return out
}

// tableKind is the word between CREATE and TABLE for tables of the given persistence.
func (f *Flavour) tableKind(p tpcc.TablePersistence) string {
	if p == tpcc.TablesUnlogged && f.caps.UnloggedTables {
		return "UNLOGGED "
	}
	return ""
}

func (f *Flavour) createTable(p tpcc.TablePersistence, t tpcc.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE %sTABLE IF NOT EXISTS %s (\n", f.tableKind(p), t.Name)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  %s %s", c.Name, f.columnType(c.Type))
		if !c.Nullable {
			b.WriteString(" NOT NULL")
		}
	}
	key := t.PrimaryKey
	if t.Name == tpcc.HistoryTable.Name && f.historyKey != "" {
		// HISTORY has no key in the spec; without one CockroachDB adds a hidden sequential rowid
		// (a write hotspot), so the flavour gives it a random surrogate key, filled by the server.
		fmt.Fprintf(&b, ",\n  %s UUID NOT NULL DEFAULT gen_random_uuid()", f.historyKey)
		key = []string{"h_w_id", f.historyKey}
	}
	if len(key) > 0 && !f.caps.KeysAfterLoad {
		fmt.Fprintf(&b, ",\n  PRIMARY KEY (%s)", strings.Join(key, ", "))
	}
	b.WriteString("\n)")
	return b.String()
}

func (f *Flavour) columnType(t tpcc.ColumnType) string {
	switch t.Kind {
	case tpcc.KindInt:
		return f.intType
	case tpcc.KindDecimal:
		return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale)
	case tpcc.KindVarchar:
		return fmt.Sprintf("varchar(%d)", t.Precision)
	case tpcc.KindChar:
		return fmt.Sprintf("char(%d)", t.Precision)
	case tpcc.KindTimestamp:
		return "timestamp"
	}
	panic(fmt.Sprintf("tpcc: column kind %d has no %s type", t.Kind, f.name))
}

func (f *Flavour) metaDDL(p tpcc.TablePersistence) []string {
	return []string{
		"CREATE " + f.tableKind(p) + "TABLE IF NOT EXISTS " + tpcc.MetaTable + " (\n" +
			"  id integer PRIMARY KEY CHECK (id = 1),\n" +
			"  seed bigint NOT NULL,\n" +
			"  warehouses integer NOT NULL,\n" +
			"  c_load integer NOT NULL,\n  c_run integer NOT NULL,\n  c_id integer NOT NULL,\n  c_ol_i_id integer NOT NULL,\n" +
			"  items_loaded boolean NOT NULL DEFAULT false,\n" +
			"  finished boolean NOT NULL DEFAULT false,\n" +
			"  created_at timestamptz NOT NULL DEFAULT now()\n)",
		"CREATE " + f.tableKind(p) + "TABLE IF NOT EXISTS " + tpcc.WarehouseLoadTable + " (\n" +
			"  w_id integer PRIMARY KEY,\n" +
			"  state text NOT NULL CHECK (state IN ('" + tpcc.StateLoading + "', '" + tpcc.StateDone + "')),\n" +
			"  updated_at timestamptz NOT NULL DEFAULT now()\n)",
	}
}

// PrimaryKeyStatement is an ALTER TABLE adding one primary key, with the constraint name the
// loader looks up to keep the step idempotent.
type PrimaryKeyStatement struct {
	Table, Constraint, SQL string
}

// PrimaryKeyDDL returns the statements adding the primary keys after the bulk phase; empty for a
// flavour that creates them with the table.
func (f *Flavour) PrimaryKeyDDL() []PrimaryKeyStatement {
	if !f.caps.KeysAfterLoad {
		return nil
	}
	var out []PrimaryKeyStatement
	for _, t := range tpcc.Tables {
		if len(t.PrimaryKey) == 0 {
			continue
		}
		name := t.Name + "_pkey"
		out = append(out, PrimaryKeyStatement{Table: t.Name, Constraint: name, SQL: fmt.Sprintf(
			"ALTER TABLE %s ADD CONSTRAINT %s PRIMARY KEY (%s)", t.Name, name, strings.Join(t.PrimaryKey, ", "))})
	}
	return out
}

// SecondaryIndexDDL returns the statements creating the secondary indexes.
func SecondaryIndexDDL() []string {
	out := make([]string, 0, len(tpcc.SecondaryIndexes))
	for _, ix := range tpcc.SecondaryIndexes {
		out = append(out, indexDDL(ix))
	}
	return out
}

// indexDDL creates one index; INCLUDE is PostgreSQL's word for the stored columns, which
// CockroachDB takes as a synonym of its STORING.
func indexDDL(ix tpcc.Index) string {
	sql := fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)", ix.Name, ix.Table, strings.Join(ix.Columns, ", "))
	if len(ix.Include) > 0 {
		sql += fmt.Sprintf(" INCLUDE (%s)", strings.Join(ix.Include, ", "))
	}
	return sql
}

// DropSchemaDDL returns statements removing every table SchemaDDL creates.
func (f *Flavour) DropSchemaDDL() []string {
	names := []string{tpcc.MetaTable, tpcc.WarehouseLoadTable}
	for _, t := range tpcc.Tables {
		names = append(names, t.Name)
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "DROP TABLE IF EXISTS " + n
	}
	return out
}
