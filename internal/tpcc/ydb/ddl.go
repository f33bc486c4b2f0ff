package ydb

import (
	"fmt"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// YDB has no table without a primary key, so HISTORY, which the spec gives no key, gets a
// surrogate key column. It is not part of the loaded column list: the writer supplies 64 random
// bits (see HistoryKey).
const YDBHistoryKey = "h_pk"

// YDBDecimal is the YDB type of every money/rate column. Decimal(22,9) is exact and accepted by
// every YDB release; the spec's narrower precisions need parameterized decimals, which older
// servers reject. All TPC-C values fit (at most 12 integer digits, 4 fractional digits).
const YDBDecimal = "Decimal(22,9)"

// CreateTableDDL returns the statements creating the nine tables and the meta tables, each
// idempotent (IF NOT EXISTS), primary keys included.
func CreateTableDDL() []string {
	stmts := make([]string, 0, len(tpcc.Tables)+2)
	for _, t := range tpcc.Tables {
		stmts = append(stmts, createTable(t))
	}
	return append(stmts, metaDDL()...)
}

func createTable(t tpcc.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS `%s` (\n", t.Name)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  %s %s", c.Name, columnType(c.Type))
		if !c.Nullable && tpcc.IsKeyColumn(t, c.Name) {
			// YDB allows NOT NULL on key columns only in all releases we target.
			b.WriteString(" NOT NULL")
		}
	}
	key := t.PrimaryKey
	if t.Name == tpcc.HistoryTable.Name {
		fmt.Fprintf(&b, ",\n  %s Uint64 NOT NULL", YDBHistoryKey)
		key = []string{"h_w_id", YDBHistoryKey}
	}
	if len(key) > 0 {
		fmt.Fprintf(&b, ",\n  PRIMARY KEY (%s)", strings.Join(key, ", "))
	}
	b.WriteString("\n) WITH (AUTO_PARTITIONING_BY_SIZE = ENABLED, AUTO_PARTITIONING_BY_LOAD = ENABLED)")
	return b.String()
}

func columnType(t tpcc.ColumnType) string {
	switch t.Kind {
	case tpcc.KindInt:
		return "Int32"
	case tpcc.KindDecimal:
		return YDBDecimal
	case tpcc.KindVarchar, tpcc.KindChar:
		return "Utf8"
	case tpcc.KindTimestamp:
		return "Timestamp"
	}
	panic(fmt.Sprintf("tpcc: column kind %d has no %s type", t.Kind, name))
}

func metaDDL() []string {
	return []string{
		"CREATE TABLE IF NOT EXISTS `" + tpcc.MetaTable + "` (\n" +
			"  id Int32 NOT NULL,\n  seed Int64,\n  warehouses Int32,\n  c_load Int32,\n  c_run Int32,\n" +
			"  c_id Int32,\n  c_ol_i_id Int32,\n  items_loaded Bool,\n  finished Bool,\n  created_at Timestamp,\n" +
			"  PRIMARY KEY (id)\n)",
		"CREATE TABLE IF NOT EXISTS `" + tpcc.WarehouseLoadTable + "` (\n" +
			"  w_id Int32 NOT NULL,\n  state Utf8,\n  updated_at Timestamp,\n  PRIMARY KEY (w_id)\n)",
	}
}

// SecondaryIndexDDL returns the statements creating the secondary indexes. YQL has no
// IF NOT EXISTS for indexes: the loader checks the table description first (addMissingIndexes).
func SecondaryIndexDDL() []string {
	out := make([]string, 0, len(tpcc.SecondaryIndexes))
	for _, ix := range tpcc.SecondaryIndexes {
		out = append(out, indexDDL(ix))
	}
	return out
}

func indexDDL(ix tpcc.Index) string {
	return fmt.Sprintf("ALTER TABLE `%s` ADD INDEX `%s` GLOBAL ON (%s)", ix.Table, ix.Name, strings.Join(ix.Columns, ", "))
}

// DropTableDDL returns statements removing every table CreateTableDDL creates.
func DropTableDDL() []string {
	names := []string{tpcc.MetaTable, tpcc.WarehouseLoadTable}
	for _, t := range tpcc.Tables {
		names = append(names, t.Name)
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "DROP TABLE IF EXISTS `" + n + "`"
	}
	return out
}
