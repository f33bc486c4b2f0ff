package ydb

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ydb-platform/ydb-go-genproto/protos/Ydb_Query"
	"github.com/ydb-platform/ydb-go-sdk/v3/query"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

var (
	yqlReference  = regexp.MustCompile(`\$[a-z_]+`)
	yqlDefinition = regexp.MustCompile(`(?m)^(\$[a-z_]+) = \(`)
)

// checkYQLParams fails unless every $name the body reads is either declared (a parameter) or
// defined in the body, every parameter is read, and each DECLARE carries its value's type.
func checkYQLParams(t *testing.T, q ydbQuery, wantTypes map[string]string) {
	t.Helper()
	defined := map[string]bool{}
	for _, m := range yqlDefinition.FindAllStringSubmatch(q.body, -1) {
		defined[m[1]] = true
	}
	declared := map[string]bool{}
	for _, p := range q.params {
		if declared[p.name] {
			t.Errorf("parameter %s bound twice", p.name)
		}
		declared[p.name] = true
	}
	used := map[string]bool{}
	for _, name := range yqlReference.FindAllString(q.body, -1) {
		used[name] = true
		if !declared[name] && !defined[name] {
			t.Errorf("%s is read but neither declared nor defined", name)
		}
	}
	for name := range declared {
		if !used[name] {
			t.Errorf("parameter %s is declared but never read", name)
		}
		if defined[name] {
			t.Errorf("parameter %s is also defined in the body", name)
		}
	}
	text := q.text()
	for name, typ := range wantTypes {
		if decl := "DECLARE " + name + " AS " + typ + ";"; !strings.Contains(text, decl) {
			t.Errorf("missing %q in:\n%s", decl, text)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(text), ";") {
		t.Errorf("query does not end its last statement with ';'")
	}
}

func paramYQL(t *testing.T, q ydbQuery, name string) string {
	t.Helper()
	for _, p := range q.params {
		if p.name == name {
			return p.value.Yql()
		}
	}
	t.Fatalf("no parameter %s", name)
	return ""
}

func TestYDBNewOrderQueries(t *testing.T) {
	in := tpcc.NewOrderInput{WarehouseID: 3, DistrictID: 7, CustomerID: 99, Lines: []tpcc.NewOrderLine{
		{ItemID: 5, SupplyWarehouseID: 3, Quantity: 2},
		{ItemID: 5, SupplyWarehouseID: 3, Quantity: 4}, // same stock row twice
		{ItemID: 5, SupplyWarehouseID: 1, Quantity: 1}, // same item, remote warehouse
		{ItemID: 8, SupplyWarehouseID: 3, Quantity: 9},
		{ItemID: tpcc.UnusedItemID, SupplyWarehouseID: 3, Quantity: 1},
	}}
	read := ydbNewOrderRead(&in)
	checkYQLParams(t, read, map[string]string{
		"$w_id": "Int32", "$d_id": "Int32", "$c_id": "Int32",
		"$item_ids":   "List<Int32>",
		"$stock_keys": "List<Struct<'i_id':Int32,'w_id':Int32>>",
	})
	if got := paramYQL(t, read, "$item_ids"); got != "[5,8,100001]" {
		t.Errorf("$item_ids = %s, want each item once: [5,8,100001]", got)
	}
	if got := strings.Count(paramYQL(t, read, "$stock_keys"), "<|"); got != 4 {
		t.Errorf("$stock_keys has %d rows, want 4 distinct (warehouse, item) pairs", got)
	}
	if !strings.Contains(read.body, "s_dist_07") || strings.Contains(read.body, "s_dist_08") {
		t.Errorf("read does not pick S_DIST_07 for district 7:\n%s", read.body)
	}

	stock := map[[2]int]*ydbStockRow{{3, 5}: {StockUpdate: tpcc.StockUpdate{Quantity: 50}}, {1, 5}: {StockUpdate: tpcc.StockUpdate{Quantity: 12}}, {3, 8}: {StockUpdate: tpcc.StockUpdate{Quantity: 15}}}
	lines := []ydbNewOrderLine{
		{number: 1, itemID: 5, supplyWarehouseID: 3, quantity: 2, amountCents: 1998, distInfo: "d7-3-5"},
		{number: 2, itemID: 8, supplyWarehouseID: 3, quantity: 9, amountCents: 90000, distInfo: "d7-3-8"},
	}
	write := ydbNewOrderWrite(&in, 3001, stock, lines)
	checkYQLParams(t, write, map[string]string{
		"$o_id": "Int32", "$next_o_id": "Int32", "$ol_cnt": "Int32", "$all_local": "Int32",
		"$stock": "List<Struct<'s_i_id':Int32,'s_order_cnt':Int32,'s_quantity':Int32,'s_remote_cnt':Int32,'s_w_id':Int32,'s_ytd':Int32>>",
		"$lines": "List<Struct<'ol_amount':Decimal(22,9),'ol_dist_info':Utf8,'ol_i_id':Int32,'ol_number':Int32,'ol_quantity':Int32,'ol_supply_w_id':Int32>>",
	})
	for name, want := range map[string]string{"$o_id": "3001", "$next_o_id": "3002", "$all_local": "0", "$ol_cnt": "2"} {
		if got := paramYQL(t, write, name); !strings.HasPrefix(got, want) {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	if got := paramYQL(t, write, "$lines"); !strings.Contains(got, `Decimal("19.980000000",22,9)`) || !strings.Contains(got, `Decimal("900.000000000",22,9)`) {
		t.Errorf("$lines amounts not exact decimals: %s", got)
	}
	// Stock rows (1,5), (3,5), (3,8) hold quantities 12, 50, 15: they must come in (warehouse,
	// item) order, so that every writer touches them alike.
	stockYQL := paramYQL(t, write, "$stock")
	if a, b, c := strings.Index(stockYQL, "`s_quantity`:12"), strings.Index(stockYQL, "`s_quantity`:50"), strings.Index(stockYQL, "`s_quantity`:15"); a < 0 || !(a < b && b < c) {
		t.Errorf("stock rows not in (warehouse, item) order: %s", stockYQL)
	}
}

func TestYDBPaymentQueries(t *testing.T) {
	in := tpcc.PaymentInput{WarehouseID: 1, DistrictID: 2, CustomerWarehouseID: 4, CustomerDistrictID: 5,
		Customer: tpcc.CustomerSelector{ByLastName: true, LastName: "BARBARBAR"}, AmountCents: 123456}
	byName := ydbCustomersByLastName(4, 5, "BARBARBAR")
	checkYQLParams(t, byName, map[string]string{"$c_w_id": "Int32", "$c_d_id": "Int32", "$c_last": "Utf8"})
	if !strings.Contains(byName.body, "VIEW `customer_name_idx`") || !strings.Contains(byName.body, "ORDER BY c_first, c_id") {
		t.Errorf("by-name lookup does not use the index in C_FIRST order:\n%s", byName.body)
	}
	checkYQLParams(t, ydbPaymentRead(&in, 17), map[string]string{"$c_id": "Int32"})

	data := "old data"
	withData := ydbPaymentWrite(&in, 17, &data, 42, "WNAME    DNAME")
	checkYQLParams(t, withData, map[string]string{"$amount": "Decimal(22,9)", "$h_pk": "Uint64", "$c_data": "Utf8", "$h_data": "Utf8"})
	if got := paramYQL(t, withData, "$amount"); !strings.Contains(got, `"1234.56`) {
		t.Errorf("$amount = %s, want exactly 1234.56", got)
	}
	if !strings.Contains(withData.body, "c_data = $c_data") {
		t.Error("bad-credit payment does not write C_DATA")
	}
	goodCredit := ydbPaymentWrite(&in, 17, nil, 42, "WNAME    DNAME")
	checkYQLParams(t, goodCredit, nil)
	if strings.Contains(goodCredit.body, "c_data") {
		t.Error("good-credit payment writes C_DATA")
	}
	if !strings.Contains(goodCredit.body, "h_pk") {
		t.Error("history insert lacks the YDB surrogate key")
	}
}

func TestYDBOrderStatusDeliveryStockLevelQueries(t *testing.T) {
	status := ydbOrderStatus(2, 3, 44)
	checkYQLParams(t, status, map[string]string{"$w_id": "Int32", "$d_id": "Int32", "$c_id": "Int32"})
	if !strings.Contains(status.body, "VIEW `orders_customer_idx`") || !strings.Contains(status.body, "ORDER BY o_id DESC LIMIT 1") {
		t.Errorf("order-status does not read the latest order through the index:\n%s", status.body)
	}

	oldest := ydbDeliveryOldest(6)
	checkYQLParams(t, oldest, map[string]string{"$w_id": "Int32"})
	if got := strings.Count(oldest.body, "ORDER BY no_o_id LIMIT 1;"); got != tpcc.DistrictsPerWarehouse {
		t.Errorf("%d per-district reads, want %d", got, tpcc.DistrictsPerWarehouse)
	}
	for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
		if !strings.Contains(oldest.body, "no_d_id = "+strconv.Itoa(d)+" ") {
			t.Errorf("district %d not read", d)
		}
	}

	write := ydbDeliveryWrite(6, 9, []ydbDeliveryKey{{1, 2101}, {4, 2150}})
	checkYQLParams(t, write, map[string]string{"$carrier_id": "Int32", "$keys": "List<Struct<'d_id':Int32,'o_id':Int32,'w_id':Int32>>"})
	keys := paramYQL(t, write, "$keys")
	if !strings.Contains(keys, "`d_id`:1,`o_id`:2101,`w_id`:6") || !strings.Contains(keys, "`d_id`:4,`o_id`:2150,`w_id`:6") {
		t.Errorf("$keys = %s, want both picked orders of warehouse 6", keys)
	}
	for _, stmt := range []string{"DELETE FROM new_order ON", "UPSERT INTO orders", "UPSERT INTO order_line", "UPSERT INTO customer"} {
		if !strings.Contains(write.body, stmt) {
			t.Errorf("delivery write lacks %q", stmt)
		}
	}

	sl := ydbStockLevel(&tpcc.StockLevelInput{WarehouseID: 1, DistrictID: 2, Threshold: 15})
	checkYQLParams(t, sl, map[string]string{"$threshold": "Int32"})
	if got := paramYQL(t, sl, "$threshold"); got != "15" {
		t.Errorf("$threshold = %s, want 15", got)
	}
}

// The YDB executor's read-write transactions carry the mode of the run's level: serializable by
// default and for Serializable, snapshot read-write for RepeatableRead; ReadCommitted, which YDB
// does not offer, is refused before connecting, naming the level.
func TestYDBReadWriteSettingsByIsolation(t *testing.T) {
	mode := func(s query.TransactionSettings) string {
		pb := &Ydb_Query.TransactionSettings{}
		for _, o := range s {
			o.ApplyQueryTxSettingsOption(pb)
		}
		switch pb.TxMode.(type) {
		case *Ydb_Query.TransactionSettings_SerializableReadWrite:
			return "serializable_read_write"
		case *Ydb_Query.TransactionSettings_SnapshotReadWrite:
			return "snapshot_read_write"
		}
		return fmt.Sprintf("%T", pb.TxMode)
	}
	for l, want := range map[isolation.Level]string{"": "serializable_read_write", isolation.Serializable: "serializable_read_write",
		isolation.RepeatableRead: "snapshot_read_write"} {
		s, err := ydbReadWriteSettings(l)
		if err != nil || mode(s) != want {
			t.Errorf("%q: %s, %v; want %s", l, mode(s), err, want)
		}
	}
	if _, err := ydbReadWriteSettings(isolation.ReadCommitted); err == nil || !strings.Contains(err.Error(), "no READ COMMITTED") {
		t.Errorf("ReadCommitted: %v, want a refusal", err)
	}
	_, err := tpcc.NewExecutor(context.Background(), tpcc.ExecutorConfig{Driver: Driver, URL: "grpc://127.0.0.1:1/local", MaxConns: 1, Isolation: isolation.ReadCommitted})
	if err == nil || !strings.Contains(err.Error(), "isolation ReadCommitted") {
		t.Errorf("NewExecutor(YDB, ReadCommitted) = %v, want a refusal naming the level before any connection", err)
	}
}

// The 1 % New-Order with an unused item (always its last line) does the work the PostgreSQL-wire
// path's first round trip does before it rolls back: the district's next order id and the stock
// of every line before the unused item are written; no order, new-order or order-line row is.
func TestYDBNewOrderRollbackWritesBeforeItAborts(t *testing.T) {
	in := tpcc.NewOrderInput{WarehouseID: 1, DistrictID: 7, CustomerID: 9, Lines: []tpcc.NewOrderLine{
		{ItemID: 5, SupplyWarehouseID: 1, Quantity: 2}, {ItemID: 8, SupplyWarehouseID: 3, Quantity: 9}, {ItemID: tpcc.UnusedItemID, SupplyWarehouseID: 1, Quantity: 1}}}
	prices := map[int]float64{5: 9.99, 8: 100}
	stock := map[[2]int]*ydbStockRow{{1, 5}: {StockUpdate: tpcc.StockUpdate{Quantity: 50}}, {3, 8}: {StockUpdate: tpcc.StockUpdate{Quantity: 15}}}
	o, err := applyNewOrderLines(&in, prices, map[int]string{}, stock)
	if err != nil {
		t.Fatal(err)
	}
	if !o.unused || len(o.lines) != 2 || len(o.applied) != 2 {
		t.Fatalf("unused %v, %d lines, %d stock rows applied; want the rollback after 2 lines", o.unused, len(o.lines), len(o.applied))
	}
	if q := o.applied[[2]int{1, 5}]; q.Quantity != 48 || q.YTD != 2 || q.OrderCount != 1 || q.RemoteCount != 0 {
		t.Errorf("stock 1/5 after the line: %+v", q.StockUpdate)
	}
	if q := o.applied[[2]int{3, 8}]; q.Quantity != 15-9+91 || q.RemoteCount != 1 {
		t.Errorf("stock 3/8 after the remote line: %+v", q.StockUpdate)
	}
	abort := ydbNewOrderAbortWrite(&in, 3001, o.applied)
	checkYQLParams(t, abort, map[string]string{"$next_o_id": "Int32",
		"$stock": "List<Struct<'s_i_id':Int32,'s_order_cnt':Int32,'s_quantity':Int32,'s_remote_cnt':Int32,'s_w_id':Int32,'s_ytd':Int32>>"})
	if got := paramYQL(t, abort, "$next_o_id"); got != "3002" {
		t.Errorf("$next_o_id = %s", got)
	}
	if got := strings.Count(paramYQL(t, abort, "$stock"), "<|"); got != 2 {
		t.Errorf("$stock has %d rows, want the 2 lines' before the unused item", got)
	}
	for _, table := range []string{"orders", "new_order", "order_line"} {
		if strings.Contains(abort.body, "INTO "+table) {
			t.Errorf("the rollback writes %s:\n%s", table, abort.body)
		}
	}

	// Without the unused item every line is applied and nothing rolls back.
	in.Lines = in.Lines[:2]
	stock = map[[2]int]*ydbStockRow{{1, 5}: {StockUpdate: tpcc.StockUpdate{Quantity: 50}}, {3, 8}: {StockUpdate: tpcc.StockUpdate{Quantity: 15}}}
	if o, err := applyNewOrderLines(&in, prices, map[int]string{}, stock); err != nil || o.unused || len(o.lines) != 2 || o.totalCents != 1998+90000 {
		t.Errorf("a whole order: %+v, %v", o, err)
	}
	// A line whose stock row is missing is a data error, not a rollback.
	delete(stock, [2]int{3, 8})
	if _, err := applyNewOrderLines(&in, prices, map[int]string{}, stock); err == nil || !strings.Contains(err.Error(), "stock 3/8 not found") {
		t.Errorf("missing stock row: %v", err)
	}
}
