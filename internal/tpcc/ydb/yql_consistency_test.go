package ydb

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ydb-platform/ydb-go-sdk/v3/types"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/clientcheck"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
)

// No YQL parser can be had here, and no YDB server runs: these tests check what can be checked
// without one, on the queries as the code builds them (every builder, every branch):
//   - every DECLAREd parameter is bound with that name and YDB type, and every bound one declared;
//   - every $parameter the body uses is declared (or is a named expression), every declared one used;
//   - every table a query names exists in the YQL schema (CreateTableDDL(), parsed from its text),
//     every column it names exists in one of its tables (or is an alias, or a field of a struct
//     parameter), and a parameter compared with, assigned to, or inserted into a column has the
//     column's type (a List's element type for IN; a struct's fields for UPSERT … AS_TABLE).
// The YQL schema is then compared with the PostgreSQL one, and the YDB loader's rows with both.

// yqlColumn is one column of the YQL schema.
type yqlColumn struct {
	typ     string // "Int32", "Decimal(22,9)", …
	notNull bool
}

type yqlTable struct {
	columns map[string]yqlColumn
	order   []string
	key     []string
}

var (
	ddlTableRE  = regexp.MustCompile("^CREATE TABLE IF NOT EXISTS `(\\w+)` \\(")
	ddlColumnRE = regexp.MustCompile(`^\s*(\w+) (\w+(?:\(\d+,\d+\))?)( NOT NULL)?,?$`)
	ddlKeyRE    = regexp.MustCompile(`^\s*PRIMARY KEY \(([\w, ]+)\)`)
)

// parseYQLSchema reads the CREATE TABLE statements of the YQL schema from their text.
func parseYQLSchema(t *testing.T, ddl []string) map[string]yqlTable {
	t.Helper()
	out := map[string]yqlTable{}
	for _, stmt := range ddl {
		lines := strings.Split(stmt, "\n")
		m := ddlTableRE.FindStringSubmatch(lines[0])
		if m == nil {
			t.Fatalf("not a CREATE TABLE: %s", lines[0])
		}
		tb := yqlTable{columns: map[string]yqlColumn{}}
		for _, l := range lines[1:] {
			if k := ddlKeyRE.FindStringSubmatch(l); k != nil {
				tb.key = strings.Split(k[1], ", ")
				continue
			}
			if c := ddlColumnRE.FindStringSubmatch(l); c != nil {
				tb.columns[c[1]] = yqlColumn{typ: c[2], notNull: c[3] != ""}
				tb.order = append(tb.order, c[1])
			}
		}
		for _, k := range tb.key {
			if _, ok := tb.columns[k]; !ok {
				t.Errorf("table %s: key column %s is not a column", m[1], k)
			}
		}
		out[m[1]] = tb
	}
	return out
}

var (
	yqlDeclareRE   = regexp.MustCompile(`(?m)^DECLARE (\$\w+) AS (.+);$`)
	yqlParamUseRE  = regexp.MustCompile(`\$\w+`)
	yqlNamedExprRE = regexp.MustCompile(`(\$\w+)\s*=\s*\(`)
	yqlTableRefRE  = regexp.MustCompile("\\b(?:FROM|JOIN|INTO|UPDATE|ALTER TABLE)\\s+(`?)([a-z_]\\w*)`?(?:\\s+VIEW\\s+`\\w+`)?(?:\\s+AS\\s+(\\w+))?")
	yqlAsTableRE   = regexp.MustCompile(`AS_TABLE\((\$\w+)\)(?:\s+AS\s+(\w+))?`)
	yqlNamedFromRE = regexp.MustCompile(`\b(?:FROM|JOIN)\s+(\$\w+)(?:\s+AS\s+(\w+))?`)
	yqlAliasRE     = regexp.MustCompile(`\bAS\s+(\w+)`)
	yqlQualifiedRE = regexp.MustCompile(`\b([a-z]\w*)\.([a-z]\w*)\b`)
	yqlIdentRE     = regexp.MustCompile("[`$.]?\\b[a-z][a-z0-9]*_[a-z0-9_]*\\b")
	yqlCompareRE   = regexp.MustCompile(`\b(?:([a-z]\w*)\.)?([a-z]\w*)\s*(?:=|<|>|<=|>=|\+|-|BETWEEN)\s*(\$\w+)`)
	yqlInRE        = regexp.MustCompile(`\b(?:([a-z]\w*)\.)?([a-z]\w*)\s+IN\s+(\$\w+)`)
	yqlValuesRE    = regexp.MustCompile("INTO\\s+`?(\\w+)`?\\s*\\(([\\w, ]+)\\)\\s*VALUES\\s*\\(([^;]+)\\)")
	yqlUpsertAllRE = regexp.MustCompile("UPSERT INTO\\s+`?(\\w+)`?\\s+SELECT \\* FROM AS_TABLE\\((\\$\\w+)\\)")
	yqlStructRE    = regexp.MustCompile(`'(\w+)':(Optional<\w+(?:\(\d+,\d+\))?>|\w+(?:\(\d+,\d+\))?)`)
	yqlStringRE    = regexp.MustCompile(`'[^']*'|"[^"]*"`)
)

// structFields returns the fields of a Struct (or List<Struct>) type as YQL prints it.
func structFields(yql string) map[string]string {
	out := map[string]string{}
	for _, m := range yqlStructRE.FindAllStringSubmatch(yql, -1) {
		out[m[1]] = m[2]
	}
	return out
}

func baseType(t string) string {
	t = strings.TrimSuffix(strings.TrimPrefix(t, "Optional<"), ">")
	return t
}

// yqlProblems checks one query against the schema; it returns one line per problem.
func yqlProblems(q ydbQuery, schema map[string]yqlTable) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	text := q.text()

	bound := map[string]string{}
	for _, p := range q.params {
		bound[p.name] = p.value.Type().Yql()
	}
	declared := map[string]string{}
	for _, m := range yqlDeclareRE.FindAllStringSubmatch(text, -1) {
		declared[m[1]] = m[2]
	}
	for name, typ := range declared {
		switch b, ok := bound[name]; {
		case !ok:
			bad("%s is declared %s but not bound", name, typ)
		case b != typ:
			bad("%s is declared %s but bound as %s", name, typ, b)
		}
	}
	for name, typ := range bound {
		if _, ok := declared[name]; !ok {
			bad("%s is bound (%s) but not declared", name, typ)
		}
	}

	body := yqlDeclareRE.ReplaceAllString(text, "")
	bodyNoStrings := yqlStringRE.ReplaceAllString(body, "''")
	named := map[string]bool{}
	for _, m := range yqlNamedExprRE.FindAllStringSubmatch(body, -1) {
		named[m[1]] = true
	}
	used := map[string]bool{}
	for _, u := range yqlParamUseRE.FindAllString(bodyNoStrings, -1) {
		used[u] = true
		if !named[u] {
			if _, ok := declared[u]; !ok {
				bad("%s is used but not declared", u)
			}
		}
	}
	for name := range declared {
		if !used[name] {
			bad("%s is declared but never used", name)
		}
	}

	// Tables and aliases.
	aliasTable := map[string]string{}  // alias or table name → table
	aliasStruct := map[string]string{} // alias → struct parameter
	opaque := map[string]bool{}        // aliases of named expressions: columns unknown here
	tables := map[string]bool{}
	for _, m := range yqlTableRefRE.FindAllStringSubmatch(bodyNoStrings, -1) {
		name := m[2]
		if name == "AS_TABLE" {
			continue
		}
		if _, ok := schema[name]; !ok {
			bad("table %s is not in the YQL schema", name)
			continue
		}
		tables[name] = true
		aliasTable[name] = name
		if m[3] != "" {
			aliasTable[m[3]] = name
		}
	}
	for _, m := range yqlAsTableRE.FindAllStringSubmatch(bodyNoStrings, -1) {
		if m[2] != "" {
			aliasStruct[m[2]] = m[1]
		}
	}
	for _, m := range yqlNamedFromRE.FindAllStringSubmatch(bodyNoStrings, -1) {
		if m[2] != "" {
			opaque[m[2]] = true
		}
	}
	known := map[string]bool{}
	for tb := range tables {
		for c := range schema[tb].columns {
			known[c] = true
		}
	}
	for _, m := range yqlAliasRE.FindAllStringSubmatch(bodyNoStrings, -1) {
		known[m[1]] = true
	}
	for _, typ := range bound {
		for f := range structFields(typ) {
			known[f] = true
		}
	}
	columnType := func(alias, col string) (string, bool) {
		if alias != "" {
			if tb, ok := aliasTable[alias]; ok {
				c, ok := schema[tb].columns[col]
				return c.typ, ok
			}
			return "", false
		}
		for tb := range tables {
			if c, ok := schema[tb].columns[col]; ok {
				return c.typ, true
			}
		}
		return "", false
	}

	// Columns, qualified and not.
	for _, m := range yqlQualifiedRE.FindAllStringSubmatch(bodyNoStrings, -1) {
		alias, col := m[1], m[2]
		switch {
		case aliasTable[alias] != "":
			if _, ok := schema[aliasTable[alias]].columns[col]; !ok {
				bad("%s.%s: table %s has no column %s", alias, col, aliasTable[alias], col)
			}
		case aliasStruct[alias] != "":
			if _, ok := structFields(bound[aliasStruct[alias]])[col]; !ok {
				bad("%s.%s: parameter %s has no field %s", alias, col, aliasStruct[alias], col)
			}
		case opaque[alias]:
		default:
			bad("%s.%s: %s is not a table, alias or struct parameter of this query", alias, col, alias)
		}
	}
	for _, id := range yqlIdentRE.FindAllString(bodyNoStrings, -1) {
		if strings.ContainsAny(id[:1], "`$.") || known[id] || aliasTable[id] != "" || aliasStruct[id] != "" || opaque[id] {
			continue
		}
		bad("%s is not a column of %v, an alias or a struct field", id, sortedKeys(tables))
	}

	// Types of parameters against the columns they meet.
	paramType := func(p string) string { return bound[p] }
	for _, m := range yqlCompareRE.FindAllStringSubmatch(bodyNoStrings, -1) {
		col, p := m[2], m[3]
		if named[p] || bound[p] == "" {
			continue
		}
		if ct, ok := columnType(m[1], col); ok && baseType(ct) != baseType(paramType(p)) {
			bad("%s is %s but meets column %s of type %s", p, paramType(p), col, ct)
		}
	}
	for _, m := range yqlInRE.FindAllStringSubmatch(bodyNoStrings, -1) {
		col, p := m[2], m[3]
		elem := strings.TrimSuffix(strings.TrimPrefix(paramType(p), "List<"), ">")
		if ct, ok := columnType(m[1], col); ok && baseType(ct) != elem {
			bad("%s is %s but column %s IN it is %s", p, paramType(p), col, ct)
		}
	}
	for _, m := range yqlValuesRE.FindAllStringSubmatch(bodyNoStrings, -1) {
		tb, ok := schema[m[1]]
		if !ok {
			continue
		}
		cols := strings.Split(m[2], ", ")
		vals := strings.Split(m[3], ", ")
		if len(cols) != len(vals) {
			bad("INTO %s: %d columns, %d values", m[1], len(cols), len(vals))
			continue
		}
		for i, c := range cols {
			col, ok := tb.columns[c]
			if !ok {
				bad("INTO %s: no column %s", m[1], c)
				continue
			}
			if v := strings.TrimSpace(vals[i]); strings.HasPrefix(v, "$") && baseType(col.typ) != baseType(paramType(v)) {
				bad("INTO %s: %s is %s, column %s is %s", m[1], v, paramType(v), c, col.typ)
			}
		}
	}
	for _, m := range yqlUpsertAllRE.FindAllStringSubmatch(bodyNoStrings, -1) {
		tb := schema[m[1]]
		fields := structFields(paramType(m[2]))
		for f, ft := range fields {
			col, ok := tb.columns[f]
			switch {
			case !ok:
				bad("UPSERT INTO %s from %s: field %s is not a column", m[1], m[2], f)
			case baseType(col.typ) != ft:
				bad("UPSERT INTO %s from %s: field %s is %s, the column is %s", m[1], m[2], f, ft, col.typ)
			}
		}
		for _, k := range tb.key {
			if _, ok := fields[k]; !ok {
				bad("UPSERT INTO %s from %s: key column %s missing", m[1], m[2], k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ydbQueriesOfTheCode builds every YQL query the YDB paths send, through the builders the code
// calls, in every branch, plus the parameterless statements by the constants the code uses.
func ydbQueriesOfTheCode() map[string]ydbQuery {
	newOrder := &tpcc.NewOrderInput{WarehouseID: 1, DistrictID: 3, CustomerID: 7, Lines: []tpcc.NewOrderLine{
		{ItemID: 11, SupplyWarehouseID: 1, Quantity: 3}, {ItemID: 12, SupplyWarehouseID: 2, Quantity: 5}, {ItemID: 11, SupplyWarehouseID: 1, Quantity: 4}}}
	stock := map[[2]int]*ydbStockRow{{1, 11}: {StockUpdate: tpcc.StockUpdate{Quantity: 20}}, {2, 12}: {StockUpdate: tpcc.StockUpdate{Quantity: 30}}}
	lines := []ydbNewOrderLine{{number: 1, itemID: 11, supplyWarehouseID: 1, quantity: 3, amountCents: 300, distInfo: "x"}}
	payLocal := &tpcc.PaymentInput{WarehouseID: 1, DistrictID: 2, CustomerWarehouseID: 1, CustomerDistrictID: 2, Customer: tpcc.CustomerSelector{ID: 5}, AmountCents: 1000}
	payRemote := &tpcc.PaymentInput{WarehouseID: 1, DistrictID: 2, CustomerWarehouseID: 2, CustomerDistrictID: 4, Customer: tpcc.CustomerSelector{ByLastName: true, LastName: tpcc.LastName(3)}, AmountCents: 1000}
	data := "bad credit data"
	qs := map[string]ydbQuery{
		"new-order read":              ydbNewOrderRead(newOrder),
		"new-order write":             ydbNewOrderWrite(newOrder, 3001, stock, lines),
		"new-order abort write":       ydbNewOrderAbortWrite(newOrder, 3001, stock),
		"customer by last name":       ydbCustomersByLastName(2, 4, tpcc.LastName(3)),
		"payment read":                ydbPaymentRead(payRemote, 5),
		"payment write (good credit)": ydbPaymentWrite(payLocal, 5, nil, 42, "w    d"),
		"payment write (bad credit)":  ydbPaymentWrite(payRemote, 5, &data, 43, "w    d"),
		"order-status":                ydbOrderStatus(1, 2, 5),
		"delivery oldest":             ydbDeliveryOldest(1),
		"delivery write":              ydbDeliveryWrite(1, 4, []ydbDeliveryKey{{1, 2101}, {2, 2101}}),
		"stock-level":                 ydbStockLevel(&tpcc.StockLevelInput{WarehouseID: 1, DistrictID: 2, Threshold: 15}),
		"load: insert meta":           ydbInsertMeta(7, 2, tpcc.ConstantsForSeed(7)),
		"load: mark warehouse":        ydbMarkWarehouse(1, tpcc.StateLoading),
		"load: read meta":             {body: ydbReadMetaYQL},
		"load: items loaded":          {body: ydbItemsLoadedYQL},
		"load: finished":              {body: ydbFinishedYQL},
		"check: warehouse states":     {body: ydbWarehouseStatesYQL},
		"check: item count":           {body: ydbItemCountYQL},
	}
	for i, r := range clientcheck.Reads {
		qs[fmt.Sprintf("check: scan %d (%s)", i, r.Table.Name)] = ydbCheckQuery(r, 1, 10)
	}
	for i, s := range SecondaryIndexDDL() {
		qs[fmt.Sprintf("finish: index %d", i)] = ydbQuery{body: s}
	}
	for _, g := range tpcc.GrownTables {
		qs["dataset: count "+g.Table.Name] = ydbQuery{body: datasetCountYQL(g.Table)}
	}
	return qs
}

func TestYQLConsistency(t *testing.T) {
	schema := parseYQLSchema(t, CreateTableDDL())
	qs := ydbQueriesOfTheCode()
	names := make([]string, 0, len(qs))
	for n := range qs {
		names = append(names, n)
	}
	sort.Strings(names)
	params := 0
	for _, n := range names {
		params += len(qs[n].params)
		if probs := yqlProblems(qs[n], schema); len(probs) > 0 {
			t.Errorf("%s:\n  %s\n%s", n, strings.Join(probs, "\n  "), qs[n].text())
		}
	}
	t.Logf("%d YQL queries checked (%d bound parameters) against the YQL schema of %d tables", len(qs), params, len(schema))
}

// TestYQLConsistencyNegativeControl: the checks catch a renamed parameter, a wrong type, a
// missing DECLARE, an unknown column and an unknown table.
func TestYQLConsistencyNegativeControl(t *testing.T) {
	schema := parseYQLSchema(t, CreateTableDDL())
	stockLevel := ydbStockLevel(&tpcc.StockLevelInput{WarehouseID: 1, DistrictID: 2, Threshold: 15})
	renamed := stockLevel
	renamed.params = append([]ydbParam(nil), stockLevel.params...)
	renamed.params[2].name = "$thresh" // the body still says $threshold
	wrongType := stockLevel
	wrongType.params = append([]ydbParam(nil), stockLevel.params...)
	wrongType.params[0].value = types.Uint64Value(1) // $w_id meets d_w_id Int32
	mark := ydbMarkWarehouse(1, tpcc.StateDone)
	undeclared := ydbQuery{body: mark.body} // the old loader's way: bound, no DECLARE
	for _, c := range []struct {
		name  string
		q     ydbQuery
		bound []ydbParam // bound instead of q.params (for a DECLARE that disagrees)
		want  string
	}{
		{"renamed parameter", renamed, nil, "$threshold is used but not declared"},
		{"wrong type", wrongType, nil, "$w_id is Uint64 but meets column"},
		{"DECLARE disagrees with the bound value", mark, []ydbParam{param("$w", i32(1)), param("$s", types.Int32Value(1))}, "$s is declared Utf8 but bound as Int32"},
		{"bound, not declared", undeclared, mark.params, "$s is bound (Utf8) but not declared"},
		{"unknown column", ydbQuery{body: strings.Replace(stockLevel.body, "s.s_quantity", "s.s_qty", 1), params: stockLevel.params}, nil, "table stock has no column s_qty"},
		{"unknown table", ydbQuery{body: "SELECT w_id FROM warehouses WHERE w_id = $w_id;", params: []ydbParam{param("$w_id", i32(1))}}, nil, "table warehouses is not in the YQL schema"},
	} {
		if c.bound != nil { // c.q's text declares its own params; c.bound is what is bound
			checkCaught(t, c.name, yqlProblemsText(c.q.text(), c.bound, schema), c.want)
			continue
		}
		checkCaught(t, c.name, yqlProblems(c.q, schema), c.want)
	}
}

// yqlProblemsText checks a query text that already holds its DECLAREs against other bound values.
func yqlProblemsText(text string, bound []ydbParam, schema map[string]yqlTable) []string {
	// A ydbQuery whose text() is exactly text: no params to declare, the checked bindings apart.
	probs := yqlProblems(ydbQuery{body: text}, schema)
	// yqlProblems saw no bound values: redo the DECLARE comparison with them.
	var out []string
	declared := map[string]string{}
	for _, m := range yqlDeclareRE.FindAllStringSubmatch(text, -1) {
		declared[m[1]] = m[2]
	}
	for _, p := range bound {
		if d, ok := declared[p.name]; !ok {
			out = append(out, fmt.Sprintf("%s is bound (%s) but not declared", p.name, p.value.Type().Yql()))
		} else if d != p.value.Type().Yql() {
			out = append(out, fmt.Sprintf("%s is declared %s but bound as %s", p.name, d, p.value.Type().Yql()))
		}
	}
	for _, p := range probs {
		if !strings.Contains(p, "but not bound") {
			out = append(out, p)
		}
	}
	return out
}

func checkCaught(t *testing.T, name string, probs []string, want string) {
	t.Helper()
	for _, p := range probs {
		if strings.Contains(p, want) {
			t.Logf("negative control %-40s caught: %s", name, p)
			return
		}
	}
	t.Errorf("%s: problems %q, want one containing %q", name, probs, want)
}

// TestYQLSchemaMatchesPostgres: the YQL schema has the PostgreSQL schema's tables, columns (in
// corresponding types), primary keys and secondary indexes; HISTORY alone differs, by its
// surrogate key. And the YDB loader's rows (YDBRow over the shared generator) have the YQL
// schema's columns and types, and as many rows per warehouse as the PostgreSQL loader's COPY.
func TestYQLSchemaMatchesPostgres(t *testing.T) {
	ydbSchema := parseYQLSchema(t, CreateTableDDL())
	pgTypes := map[string]string{"integer": "Int32", "numeric": YDBDecimal, "varchar": "Utf8", "char": "Utf8", "timestamp": "Timestamp",
		"bigint": "Int64", "boolean": "Bool", "timestamptz": "Timestamp", "text": "Utf8"}
	pgKeys := map[string][]string{}
	for _, pk := range pgwire.Postgres.PrimaryKeyDDL() {
		m := regexp.MustCompile(`PRIMARY KEY \(([\w, ]+)\)`).FindStringSubmatch(pk.SQL)
		pgKeys[pk.Table] = strings.Split(m[1], ", ")
	}
	var compared []string
	pgColumnRE := regexp.MustCompile(`^\s*(\w+) (integer|numeric|varchar|char|timestamptz|timestamp|bigint|boolean|text)\b(.*PRIMARY KEY)?`)
	for _, stmt := range pgwire.Postgres.SchemaDDL(tpcc.TablesLogged) {
		if !strings.HasPrefix(stmt, "CREATE TABLE IF NOT EXISTS ") {
			continue
		}
		lines := strings.Split(stmt, "\n")
		name := strings.Fields(lines[0])[5]
		compared = append(compared, name)
		yt, ok := ydbSchema[name]
		if !ok {
			t.Errorf("table %s: not in the YQL schema", name)
			continue
		}
		var pgCols []string
		for _, l := range lines[1:] {
			m := pgColumnRE.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			pgCols = append(pgCols, m[1])
			if m[3] != "" { // the meta tables' inline key
				pgKeys[strings.Fields(lines[0])[5]] = []string{m[1]}
			}
			if c, ok := yt.columns[m[1]]; !ok {
				t.Errorf("%s.%s: not in the YQL schema", name, m[1])
			} else if c.typ != pgTypes[m[2]] {
				t.Errorf("%s.%s: PostgreSQL %s, YQL %s, want %s", name, m[1], m[2], c.typ, pgTypes[m[2]])
			}
		}
		extra := []string{}
		for _, c := range yt.order {
			if !contains(pgCols, c) {
				extra = append(extra, c)
			}
		}
		wantKey := pgKeys[name]
		if name == tpcc.HistoryTable.Name {
			if fmt.Sprint(extra) != fmt.Sprint([]string{YDBHistoryKey}) || fmt.Sprint(yt.key) != fmt.Sprint([]string{"h_w_id", YDBHistoryKey}) {
				t.Errorf("history: YQL extra columns %v, key %v; want [%s] and [h_w_id %s]", extra, yt.key, YDBHistoryKey, YDBHistoryKey)
			}
			continue
		}
		if len(extra) > 0 {
			t.Errorf("%s: YQL columns %v not in PostgreSQL", name, extra)
		}
		if fmt.Sprint(yt.key) != fmt.Sprint(wantKey) {
			t.Errorf("%s: YQL key %v, PostgreSQL key %v", name, yt.key, wantKey)
		}
	}
	t.Logf("PostgreSQL and YQL schemas compared, columns, types and keys: %v", compared)
	if len(ydbSchema) != len(tpcc.Tables)+2 {
		t.Errorf("YQL schema has %d tables, want %d (the nine and two meta tables)", len(ydbSchema), len(tpcc.Tables)+2)
	}
	pgIdx, ydbIdx := pgwire.SecondaryIndexDDL(), SecondaryIndexDDL()
	colsRE := regexp.MustCompile(`\(([\w, ]+)\)`) // the first list: the key, before PostgreSQL's INCLUDE
	for i := range pgIdx {
		if a, b := colsRE.FindString(pgIdx[i]), colsRE.FindString(ydbIdx[i]); a != b || a == "" {
			t.Errorf("index %d: PostgreSQL %s, YQL %s", i, pgIdx[i], ydbIdx[i])
		}
	}

	// Rows per warehouse: the YDB loader's rows against the YQL schema and the COPY stream.
	gen := &tpcc.Generator{Seed: 7, Constants: tpcc.ConstantsForSeed(7), Now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	for _, tb := range append([]tpcc.Table{tpcc.ItemTable}, tpcc.WarehouseTables...) {
		w := 1
		if tb.Name == tpcc.ItemTable.Name {
			w = 0
		}
		src, err := gen.Source(tb, w)
		if err != nil {
			t.Fatal(err)
		}
		ydbRows := 0
		var first string
		err = YDBBatches(src, gen.Now, 50_000, func(rows types.Value, n int) error {
			ydbRows += n
			if first == "" {
				first = rows.Type().Yql()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		fields := structFields(first)
		yt := ydbSchema[tb.Name]
		for _, c := range yt.order {
			if ft, ok := fields[c]; !ok {
				t.Errorf("%s: the loader's rows have no %s", tb.Name, c)
			} else if baseType(ft) != yt.columns[c].typ {
				t.Errorf("%s.%s: the loader writes %s, the column is %s", tb.Name, c, ft, yt.columns[c].typ)
			}
		}
		if len(fields) != len(yt.order) {
			t.Errorf("%s: the loader's rows have %d fields, the table %d columns", tb.Name, len(fields), len(yt.order))
		}
		src, _ = gen.Source(tb, w)
		r := pgwire.NewCopyReaderFormat(src, gen.Now, pgwire.CopyText)
		buf := make([]byte, 1<<20)
		for {
			if _, err := r.Read(buf); err != nil {
				break
			}
		}
		if int64(ydbRows) != r.Rows() {
			t.Errorf("%s: YDB loader %d rows, COPY %d rows per warehouse", tb.Name, ydbRows, r.Rows())
		}
		t.Logf("%-10s %7d rows per %s, YDB and PostgreSQL alike; %d columns, types match", tb.Name, ydbRows,
			map[bool]string{true: "load", false: "warehouse"}[w == 0], len(yt.order))
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
