package tpcc

// Cardinalities of Clause 1.2 / 4.3.3.1.
const (
	Items                 = 100_000
	DistrictsPerWarehouse = 10
	CustomersPerDistrict  = 3_000
	OrdersPerDistrict     = 3_000
	StockPerWarehouse     = Items
	FirstUndeliveredOrder = 2_101 // orders 2101..3000 of each district are new (undelivered)
	NewOrdersPerDistrict  = OrdersPerDistrict - FirstUndeliveredOrder + 1
	MinOrderLines         = 5
	MaxOrderLines         = 15
	CustomersPerWarehouse = DistrictsPerWarehouse * CustomersPerDistrict
	OrdersPerWarehouse    = DistrictsPerWarehouse * OrdersPerDistrict
	NewOrdersPerWarehouse = DistrictsPerWarehouse * NewOrdersPerDistrict
	HistoryPerWarehouse   = CustomersPerWarehouse
	DeliveredPerDistrict  = FirstUndeliveredOrder - 1
	LastNamesByCustomerID = 1_000 // customers 1..1000 get the last name of C_ID−1
	OriginalPercent       = 10    // share of I_DATA / S_DATA holding "ORIGINAL"
	BadCreditPercent      = 10    // share of customers with C_CREDIT = "BC"
)

// ColumnType is the logical type of a column; each dialect renders it.
type ColumnType struct {
	Kind      TypeKind
	Precision int // Decimal: total digits; Varchar/Char: length
	Scale     int // Decimal: digits after the point
}

// TypeKind enumerates the logical column types the TPC-C schema needs.
type TypeKind int

const (
	KindInt       TypeKind = iota // identifiers and counts: 32-bit integer
	KindDecimal                   // money and rates: exact decimal
	KindVarchar                   // variable text up to Precision
	KindChar                      // fixed text of Precision characters
	KindTimestamp                 // date and time
)

func intT() ColumnType                     { return ColumnType{Kind: KindInt} }
func decimalT(p, s int) ColumnType         { return ColumnType{Kind: KindDecimal, Precision: p, Scale: s} }
func varcharT(n int) ColumnType            { return ColumnType{Kind: KindVarchar, Precision: n} }
func charT(n int) ColumnType               { return ColumnType{Kind: KindChar, Precision: n} }
func timestampT() ColumnType               { return ColumnType{Kind: KindTimestamp} }
func col(name string, t ColumnType) Column { return Column{Name: name, Type: t} }
func nullable(name string, t ColumnType) Column {
	return Column{Name: name, Type: t, Nullable: true}
}

// Column is one column of a table.
type Column struct {
	Name     string
	Type     ColumnType
	Nullable bool
}

// Table is one TPC-C table: its columns in load order, its primary key (empty for HISTORY,
// which the spec gives none) and the column that names its warehouse (empty for ITEM).
type Table struct {
	Name            string
	Columns         []Column
	PrimaryKey      []string
	WarehouseColumn string
}

// ColumnNames returns the column names in load order.
func (t Table) ColumnNames() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// Index is a secondary index, created after the bulk phase. Include are columns it stores besides
// its key, so that a query reading them needs no row of the table (an index-only scan), where the
// engine stores columns in an index (PostgreSQL's INCLUDE, CockroachDB's STORING).
type Index struct {
	Name    string
	Table   string
	Columns []string
	Include []string
}

// The nine tables with the spec's names (Clause 1.3) and types. Counts and quantities use a
// 32-bit integer, which holds every value the spec's numeric(n) allows; money and rates are exact.
var (
	WarehouseTable = Table{Name: "warehouse", WarehouseColumn: "w_id", PrimaryKey: []string{"w_id"}, Columns: []Column{
		col("w_id", intT()), col("w_name", varcharT(10)), col("w_street_1", varcharT(20)),
		col("w_street_2", varcharT(20)), col("w_city", varcharT(20)), col("w_state", charT(2)),
		col("w_zip", charT(9)), col("w_tax", decimalT(4, 4)), col("w_ytd", decimalT(12, 2)),
	}}
	DistrictTable = Table{Name: "district", WarehouseColumn: "d_w_id", PrimaryKey: []string{"d_w_id", "d_id"}, Columns: []Column{
		col("d_id", intT()), col("d_w_id", intT()), col("d_name", varcharT(10)),
		col("d_street_1", varcharT(20)), col("d_street_2", varcharT(20)), col("d_city", varcharT(20)),
		col("d_state", charT(2)), col("d_zip", charT(9)), col("d_tax", decimalT(4, 4)),
		col("d_ytd", decimalT(12, 2)), col("d_next_o_id", intT()),
	}}
	CustomerTable = Table{Name: "customer", WarehouseColumn: "c_w_id", PrimaryKey: []string{"c_w_id", "c_d_id", "c_id"}, Columns: []Column{
		col("c_id", intT()), col("c_d_id", intT()), col("c_w_id", intT()),
		col("c_first", varcharT(16)), col("c_middle", charT(2)), col("c_last", varcharT(16)),
		col("c_street_1", varcharT(20)), col("c_street_2", varcharT(20)), col("c_city", varcharT(20)),
		col("c_state", charT(2)), col("c_zip", charT(9)), col("c_phone", charT(16)),
		col("c_since", timestampT()), col("c_credit", charT(2)), col("c_credit_lim", decimalT(12, 2)),
		col("c_discount", decimalT(4, 4)), col("c_balance", decimalT(12, 2)),
		col("c_ytd_payment", decimalT(12, 2)), col("c_payment_cnt", intT()),
		col("c_delivery_cnt", intT()), col("c_data", varcharT(500)),
	}}
	HistoryTable = Table{Name: "history", WarehouseColumn: "h_w_id", Columns: []Column{
		col("h_c_id", intT()), col("h_c_d_id", intT()), col("h_c_w_id", intT()),
		col("h_d_id", intT()), col("h_w_id", intT()), col("h_date", timestampT()),
		col("h_amount", decimalT(6, 2)), col("h_data", varcharT(24)),
	}}
	OrdersTable = Table{Name: "orders", WarehouseColumn: "o_w_id", PrimaryKey: []string{"o_w_id", "o_d_id", "o_id"}, Columns: []Column{
		col("o_id", intT()), col("o_d_id", intT()), col("o_w_id", intT()), col("o_c_id", intT()),
		col("o_entry_d", timestampT()), nullable("o_carrier_id", intT()), col("o_ol_cnt", intT()),
		col("o_all_local", intT()),
	}}
	NewOrderTable = Table{Name: "new_order", WarehouseColumn: "no_w_id", PrimaryKey: []string{"no_w_id", "no_d_id", "no_o_id"}, Columns: []Column{
		col("no_o_id", intT()), col("no_d_id", intT()), col("no_w_id", intT()),
	}}
	OrderLineTable = Table{Name: "order_line", WarehouseColumn: "ol_w_id", PrimaryKey: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number"}, Columns: []Column{
		col("ol_o_id", intT()), col("ol_d_id", intT()), col("ol_w_id", intT()), col("ol_number", intT()),
		col("ol_i_id", intT()), col("ol_supply_w_id", intT()), nullable("ol_delivery_d", timestampT()),
		col("ol_quantity", intT()), col("ol_amount", decimalT(6, 2)), col("ol_dist_info", charT(24)),
	}}
	ItemTable = Table{Name: "item", PrimaryKey: []string{"i_id"}, Columns: []Column{
		col("i_id", intT()), col("i_im_id", intT()), col("i_name", varcharT(24)),
		col("i_price", decimalT(5, 2)), col("i_data", varcharT(50)),
	}}
	StockTable = Table{Name: "stock", WarehouseColumn: "s_w_id", PrimaryKey: []string{"s_w_id", "s_i_id"}, Columns: []Column{
		col("s_i_id", intT()), col("s_w_id", intT()), col("s_quantity", intT()),
		col("s_dist_01", charT(24)), col("s_dist_02", charT(24)), col("s_dist_03", charT(24)),
		col("s_dist_04", charT(24)), col("s_dist_05", charT(24)), col("s_dist_06", charT(24)),
		col("s_dist_07", charT(24)), col("s_dist_08", charT(24)), col("s_dist_09", charT(24)),
		col("s_dist_10", charT(24)), col("s_ytd", intT()), col("s_order_cnt", intT()),
		col("s_remote_cnt", intT()), col("s_data", varcharT(50)),
	}}
)

// Tables lists the nine tables; WarehouseTables those loaded per warehouse, in load order.
var (
	Tables          = []Table{WarehouseTable, DistrictTable, CustomerTable, HistoryTable, OrdersTable, NewOrderTable, OrderLineTable, ItemTable, StockTable}
	WarehouseTables = []Table{WarehouseTable, DistrictTable, CustomerTable, HistoryTable, OrdersTable, NewOrderTable, OrderLineTable, StockTable}
)

// SecondaryIndexes serve Payment/Order-Status by last name and Order-Status's latest order, and
// the consistency check's reads of HISTORY by the paying district and by the paid customer
// (HistoryIndexes): HISTORY has no key in the spec, and without them every chunk of the check
// scans all of it, a check quadratic in the warehouses. They are CockroachDB's own TPC-C
// workload's history_district_fk_idx and history_customer_fk_idx, with H_AMOUNT, the one other
// column the check reads, stored in them: PostgreSQL then reads a chunk's HISTORY from the index
// alone, where with the table's rows to fetch it plans a parallel scan of the whole table for
// chunks of a quarter of it or more.
var SecondaryIndexes = []Index{
	{Name: "customer_name_idx", Table: "customer", Columns: []string{"c_w_id", "c_d_id", "c_last", "c_first"}},
	{Name: "orders_customer_idx", Table: "orders", Columns: []string{"o_w_id", "o_d_id", "o_c_id", "o_id"}},
	HistoryDistrictIndex,
	HistoryCustomerIndex,
}

// The HISTORY indexes of the consistency check (SecondaryIndexes).
var (
	HistoryDistrictIndex = Index{Name: "history_district_idx", Table: "history", Columns: []string{"h_w_id", "h_d_id"}, Include: []string{"h_amount"}}
	HistoryCustomerIndex = Index{Name: "history_customer_idx", Table: "history", Columns: []string{"h_c_w_id", "h_c_d_id", "h_c_id"}, Include: []string{"h_amount"}}
	HistoryIndexes       = []Index{HistoryDistrictIndex, HistoryCustomerIndex}
)

// Meta tables: run-wide constants, and the load state of every warehouse.
const (
	MetaTable          = "tpcc_meta"
	WarehouseLoadTable = "tpcc_warehouse_load"
)

// Load states of a warehouse in WarehouseLoadTable.
const (
	StateLoading = "loading" // rows may be partial: clean and reload
	StateDone    = "done"
)

// IsKeyColumn reports whether name is a column of t's primary key, or HISTORY's warehouse column,
// which leads the surrogate key of drivers that give HISTORY one.
func IsKeyColumn(t Table, name string) bool {
	for _, k := range t.PrimaryKey {
		if k == name {
			return true
		}
	}
	return t.Name == HistoryTable.Name && name == "h_w_id"
}
