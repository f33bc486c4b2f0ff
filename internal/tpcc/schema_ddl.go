package tpcc

import (
	"fmt"
	"strings"
)

// YDB has no table without a primary key and CockroachDB would otherwise add a hidden
// sequential rowid (a write hotspot), so HISTORY, which the spec gives no key, gets a surrogate
// key column in those two dialects. It is not part of the loaded column list: CockroachDB fills
// it with gen_random_uuid(); in YDB the writer supplies 64 random bits (see HistoryKey).
const (
	CockroachHistoryKey = "rowid"
	YDBHistoryKey       = "h_pk"
)

// YDBDecimal is the YDB type of every money/rate column. Decimal(22,9) is exact and accepted by
// every YDB release; the spec's narrower precisions need parameterized decimals, which older
// servers reject. All TPC-C values fit (at most 12 integer digits, 4 fractional digits).
const YDBDecimal = "Decimal(22,9)"

// CreateTableDDL returns the statements creating the nine tables and the meta tables, each
// idempotent (IF NOT EXISTS). For dialects with KeysAfterLoad the primary keys are not included:
// PrimaryKeyDDL adds them after the bulk phase. PostgreSQL also gets the columns' statistics
// targets (StatisticsDDL).
func CreateTableDDL(d Dialect) []string { return CreateTableDDLFor(d, TablesLogged) }

// CreateTableDDLFor is CreateTableDDL with tables (the nine and the meta tables) of the given
// persistence; unlogged applies only where the dialect has unlogged tables.
func CreateTableDDLFor(d Dialect, p TablePersistence) []string {
	stmts := make([]string, 0, 2*len(Tables)+2)
	for _, t := range Tables {
		stmts = append(stmts, createTable(d, p, t))
	}
	if d == Postgres {
		stmts = append(stmts, StatisticsDDL()...)
	}
	return append(stmts, metaDDL(d, p)...)
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
	for _, t := range Tables {
		var cols []string
		for _, c := range t.Columns {
			if (c.Type.Kind == KindVarchar || c.Type.Kind == KindChar) && !PredicateTextColumns[c.Name] {
				cols = append(cols, "ALTER COLUMN "+c.Name+" SET STATISTICS 0")
			}
		}
		if len(cols) > 0 {
			out = append(out, fmt.Sprintf("ALTER TABLE %s %s", t.Name, strings.Join(cols, ", ")))
		}
	}
	return out
}

func createTable(d Dialect, p TablePersistence, t Table) string {
	var b strings.Builder
	if d == YDB {
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS `%s` (\n", t.Name)
	} else {
		fmt.Fprintf(&b, "CREATE %sTABLE IF NOT EXISTS %s (\n", d.tableKind(p), t.Name)
	}
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  %s %s", c.Name, columnType(d, c.Type))
		if !c.Nullable && (d != YDB || isKeyColumn(t, c.Name)) {
			// YDB allows NOT NULL on key columns only in all releases we target.
			b.WriteString(" NOT NULL")
		}
	}
	key := t.PrimaryKey
	switch {
	case t.Name == HistoryTable.Name && d == Cockroach:
		fmt.Fprintf(&b, ",\n  %s UUID NOT NULL DEFAULT gen_random_uuid()", CockroachHistoryKey)
		key = []string{"h_w_id", CockroachHistoryKey}
	case t.Name == HistoryTable.Name && d == YDB:
		fmt.Fprintf(&b, ",\n  %s Uint64 NOT NULL", YDBHistoryKey)
		key = []string{"h_w_id", YDBHistoryKey}
	}
	if len(key) > 0 && !d.KeysAfterLoad() {
		fmt.Fprintf(&b, ",\n  PRIMARY KEY (%s)", strings.Join(key, ", "))
	}
	b.WriteString("\n)")
	if d == YDB {
		b.WriteString(" WITH (AUTO_PARTITIONING_BY_SIZE = ENABLED, AUTO_PARTITIONING_BY_LOAD = ENABLED)")
	}
	return b.String()
}

func isKeyColumn(t Table, name string) bool {
	for _, k := range t.PrimaryKey {
		if k == name {
			return true
		}
	}
	return t.Name == HistoryTable.Name && name == "h_w_id"
}

func columnType(d Dialect, t ColumnType) string {
	if d == YDB {
		switch t.Kind {
		case KindInt:
			return "Int32"
		case KindDecimal:
			return YDBDecimal
		case KindVarchar, KindChar:
			return "Utf8"
		case KindTimestamp:
			return "Timestamp"
		}
	}
	switch t.Kind {
	case KindInt:
		if d == Cockroach {
			return "INT4"
		}
		return "integer"
	case KindDecimal:
		return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale)
	case KindVarchar:
		return fmt.Sprintf("varchar(%d)", t.Precision)
	case KindChar:
		return fmt.Sprintf("char(%d)", t.Precision)
	case KindTimestamp:
		return "timestamp"
	}
	panic(fmt.Sprintf("tpcc: column kind %d has no %s type", t.Kind, d))
}

func metaDDL(d Dialect, p TablePersistence) []string {
	if d == YDB {
		return []string{
			"CREATE TABLE IF NOT EXISTS `" + MetaTable + "` (\n" +
				"  id Int32 NOT NULL,\n  seed Int64,\n  warehouses Int32,\n  c_load Int32,\n  c_run Int32,\n" +
				"  c_id Int32,\n  c_ol_i_id Int32,\n  items_loaded Bool,\n  finished Bool,\n  created_at Timestamp,\n" +
				"  PRIMARY KEY (id)\n)",
			"CREATE TABLE IF NOT EXISTS `" + WarehouseLoadTable + "` (\n" +
				"  w_id Int32 NOT NULL,\n  state Utf8,\n  updated_at Timestamp,\n  PRIMARY KEY (w_id)\n)",
		}
	}
	return []string{
		"CREATE " + d.tableKind(p) + "TABLE IF NOT EXISTS " + MetaTable + " (\n" +
			"  id integer PRIMARY KEY CHECK (id = 1),\n" +
			"  seed bigint NOT NULL,\n" +
			"  warehouses integer NOT NULL,\n" +
			"  c_load integer NOT NULL,\n  c_run integer NOT NULL,\n  c_id integer NOT NULL,\n  c_ol_i_id integer NOT NULL,\n" +
			"  items_loaded boolean NOT NULL DEFAULT false,\n" +
			"  finished boolean NOT NULL DEFAULT false,\n" +
			"  created_at timestamptz NOT NULL DEFAULT now()\n)",
		"CREATE " + d.tableKind(p) + "TABLE IF NOT EXISTS " + WarehouseLoadTable + " (\n" +
			"  w_id integer PRIMARY KEY,\n" +
			"  state text NOT NULL CHECK (state IN ('" + StateLoading + "', '" + StateDone + "')),\n" +
			"  updated_at timestamptz NOT NULL DEFAULT now()\n)",
	}
}

// PrimaryKeyStatement is an ALTER TABLE adding one primary key, with the constraint name the
// loader looks up to keep the step idempotent.
type PrimaryKeyStatement struct {
	Table, Constraint, SQL string
}

// PrimaryKeyDDL returns the statements adding the primary keys after the bulk phase; empty for
// dialects that create them with the table.
func PrimaryKeyDDL(d Dialect) []PrimaryKeyStatement {
	if !d.KeysAfterLoad() {
		return nil
	}
	var out []PrimaryKeyStatement
	for _, t := range Tables {
		if len(t.PrimaryKey) == 0 {
			continue
		}
		name := t.Name + "_pkey"
		out = append(out, PrimaryKeyStatement{Table: t.Name, Constraint: name, SQL: fmt.Sprintf(
			"ALTER TABLE %s ADD CONSTRAINT %s PRIMARY KEY (%s)", t.Name, name, strings.Join(t.PrimaryKey, ", "))})
	}
	return out
}

// SecondaryIndexDDL returns the statements creating the secondary indexes. YQL has no
// IF NOT EXISTS for indexes: the YDB loader checks the table description first.
func SecondaryIndexDDL(d Dialect) []string {
	out := make([]string, 0, len(SecondaryIndexes))
	for _, ix := range SecondaryIndexes {
		cols := strings.Join(ix.Columns, ", ")
		if d == YDB {
			out = append(out, fmt.Sprintf("ALTER TABLE `%s` ADD INDEX `%s` GLOBAL ON (%s)", ix.Table, ix.Name, cols))
			continue
		}
		out = append(out, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)", ix.Name, ix.Table, cols))
	}
	return out
}

// DropTableDDL returns statements removing every table this package creates.
func DropTableDDL(d Dialect) []string {
	names := []string{MetaTable, WarehouseLoadTable}
	for _, t := range Tables {
		names = append(names, t.Name)
	}
	out := make([]string, len(names))
	for i, n := range names {
		if d == YDB {
			out[i] = "DROP TABLE IF EXISTS `" + n + "`"
		} else {
			out[i] = "DROP TABLE IF EXISTS " + n
		}
	}
	return out
}
