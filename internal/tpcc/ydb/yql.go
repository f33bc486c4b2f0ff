package ydb

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/ydb-platform/ydb-go-sdk/v3"
	"github.com/ydb-platform/ydb-go-sdk/v3/query"
	"github.com/ydb-platform/ydb-go-sdk/v3/types"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// ydbQuery is one YQL query with its parameters. The DECLARE lines are generated from the
// parameters' own types, so the text and the bound values cannot disagree.
type ydbQuery struct {
	body   string
	params []ydbParam
}

type ydbParam struct {
	name  string // with the leading $
	value types.Value
}

func param(name string, v types.Value) ydbParam { return ydbParam{name: name, value: v} }

func i32(v int) types.Value { return types.Int32Value(int32(v)) }

// ydbMoneyScale is the scale of YDBDecimal (Decimal(22,9)).
const ydbMoneyScale = 9

// ydbMoney is an exact amount of cents as a YDBDecimal value.
func ydbMoney(cents int64) types.Value {
	v := new(big.Int).Mul(big.NewInt(cents), new(big.Int).Exp(big.NewInt(10), big.NewInt(ydbMoneyScale-2), nil))
	return types.DecimalValueFromBigInt(v, 22, ydbMoneyScale)
}

// text returns the full query: DECLAREs in parameter order, then the body.
func (q ydbQuery) text() string {
	var b strings.Builder
	for _, p := range q.params {
		fmt.Fprintf(&b, "DECLARE %s AS %s;\n", p.name, p.value.Type().Yql())
	}
	b.WriteString(q.body)
	return b.String()
}

// options returns the text's parameters as an execute option.
func (q ydbQuery) options() query.ExecuteOption {
	b := ydb.ParamsBuilder()
	for _, p := range q.params {
		b = b.Param(p.name).Any(p.value)
	}
	return query.WithParameters(b.Build())
}

// YQL of the five transactions. Non-key columns are nullable in the YDB schema, so values the
// client needs are unwrapped: a NULL there is a data error and fails the query.

func ydbNewOrderRead(in *tpcc.NewOrderInput) ydbQuery {
	itemIDs := make([]types.Value, 0, len(in.Lines))
	seenItem := map[int]bool{}
	stockKeys := make([]types.Value, 0, len(in.Lines))
	seenStock := map[[2]int]bool{}
	for _, l := range in.Lines {
		if !seenItem[l.ItemID] {
			seenItem[l.ItemID] = true
			itemIDs = append(itemIDs, i32(l.ItemID))
		}
		k := [2]int{l.SupplyWarehouseID, l.ItemID}
		if !seenStock[k] {
			seenStock[k] = true
			stockKeys = append(stockKeys, types.StructValue(
				types.StructFieldValue("w_id", i32(l.SupplyWarehouseID)), types.StructFieldValue("i_id", i32(l.ItemID))))
		}
	}
	return ydbQuery{
		params: []ydbParam{
			param("$w_id", i32(in.WarehouseID)), param("$d_id", i32(in.DistrictID)), param("$c_id", i32(in.CustomerID)),
			param("$item_ids", types.ListValue(itemIDs...)), param("$stock_keys", types.ListValue(stockKeys...)),
		},
		body: fmt.Sprintf(`SELECT Unwrap(CAST(d_tax AS Double)) AS d_tax, Unwrap(d_next_o_id) AS d_next_o_id
FROM district WHERE d_w_id = $w_id AND d_id = $d_id;
SELECT Unwrap(CAST(w_tax AS Double)) AS w_tax FROM warehouse WHERE w_id = $w_id;
SELECT Unwrap(CAST(c_discount AS Double)) AS c_discount, Unwrap(c_last) AS c_last, Unwrap(c_credit) AS c_credit
FROM customer WHERE c_w_id = $w_id AND c_d_id = $d_id AND c_id = $c_id;
SELECT i_id, Unwrap(CAST(i_price AS Double)) AS i_price, Unwrap(i_data) AS i_data
FROM item WHERE i_id IN $item_ids;
SELECT s.s_w_id AS s_w_id, s.s_i_id AS s_i_id, Unwrap(s.s_quantity) AS s_quantity, Unwrap(s.s_ytd) AS s_ytd,
  Unwrap(s.s_order_cnt) AS s_order_cnt, Unwrap(s.s_remote_cnt) AS s_remote_cnt, Unwrap(s.s_data) AS s_data,
  Unwrap(s.s_dist_%02d) AS s_dist_info
FROM AS_TABLE($stock_keys) AS k
JOIN stock AS s ON s.s_w_id = k.w_id AND s.s_i_id = k.i_id;
`, in.DistrictID),
	}
}

// ydbStockRow is a stock row as New-Order reads and rewrites it (tpcc.StockUpdate.ApplyLine).
type ydbStockRow struct {
	tpcc.StockUpdate
	data, distInfo string
}

// ydbNewOrderLine is one ORDER-LINE row to write.
type ydbNewOrderLine struct {
	number, itemID, supplyWarehouseID, quantity int
	amountCents                                 int64
	distInfo                                    string
}

func ydbNewOrderWrite(in *tpcc.NewOrderInput, orderID int, stock map[[2]int]*ydbStockRow, lines []ydbNewOrderLine) ydbQuery {
	lineRows := make([]types.Value, len(lines))
	for i, l := range lines {
		lineRows[i] = types.StructValue(
			types.StructFieldValue("ol_number", i32(l.number)), types.StructFieldValue("ol_i_id", i32(l.itemID)),
			types.StructFieldValue("ol_supply_w_id", i32(l.supplyWarehouseID)), types.StructFieldValue("ol_quantity", i32(l.quantity)),
			types.StructFieldValue("ol_amount", ydbMoney(l.amountCents)), types.StructFieldValue("ol_dist_info", types.TextValue(l.distInfo)))
	}
	return ydbQuery{
		params: []ydbParam{
			param("$w_id", i32(in.WarehouseID)), param("$d_id", i32(in.DistrictID)), param("$c_id", i32(in.CustomerID)),
			param("$o_id", i32(orderID)), param("$next_o_id", i32(orderID+1)),
			param("$ol_cnt", i32(len(lines))), param("$all_local", i32(in.AllLocalFlag())),
			param("$stock", ydbStockRows(stock)), param("$lines", types.ListValue(lineRows...)),
		},
		body: `UPSERT INTO district (d_w_id, d_id, d_next_o_id) VALUES ($w_id, $d_id, $next_o_id);
UPSERT INTO stock SELECT * FROM AS_TABLE($stock);
UPSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
VALUES ($w_id, $d_id, $o_id, $c_id, CurrentUtcTimestamp(), $ol_cnt, $all_local);
UPSERT INTO new_order (no_w_id, no_d_id, no_o_id) VALUES ($w_id, $d_id, $o_id);
UPSERT INTO order_line
SELECT $w_id AS ol_w_id, $d_id AS ol_d_id, $o_id AS ol_o_id, l.ol_number AS ol_number, l.ol_i_id AS ol_i_id,
  l.ol_supply_w_id AS ol_supply_w_id, l.ol_quantity AS ol_quantity, l.ol_amount AS ol_amount, l.ol_dist_info AS ol_dist_info
FROM AS_TABLE($lines) AS l;
`,
	}
}

// ydbStockRows is the changed stock rows as a list of structs, in key order.
func ydbStockRows(stock map[[2]int]*ydbStockRow) types.Value {
	keys := make([][2]int, 0, len(stock))
	for k := range stock {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || (keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1])
	})
	stockRows := make([]types.Value, len(keys))
	for i, k := range keys {
		s := stock[k]
		stockRows[i] = types.StructValue(
			types.StructFieldValue("s_w_id", i32(k[0])), types.StructFieldValue("s_i_id", i32(k[1])),
			types.StructFieldValue("s_quantity", i32(s.Quantity)), types.StructFieldValue("s_ytd", i32(s.YTD)),
			types.StructFieldValue("s_order_cnt", i32(s.OrderCount)), types.StructFieldValue("s_remote_cnt", i32(s.RemoteCount)))
	}
	return types.ListValue(stockRows...)
}

// ydbNewOrderAbortWrite is what a New-Order with an unused item writes before it rolls back: the
// district's next order id and the stock rows of the lines before the unused item.
func ydbNewOrderAbortWrite(in *tpcc.NewOrderInput, orderID int, stock map[[2]int]*ydbStockRow) ydbQuery {
	return ydbQuery{
		params: []ydbParam{param("$w_id", i32(in.WarehouseID)), param("$d_id", i32(in.DistrictID)),
			param("$next_o_id", i32(orderID+1)), param("$stock", ydbStockRows(stock))},
		body: `UPSERT INTO district (d_w_id, d_id, d_next_o_id) VALUES ($w_id, $d_id, $next_o_id);
UPSERT INTO stock SELECT * FROM AS_TABLE($stock);
`,
	}
}

// ydbCustomersByLastName lists the customers of a district with a last name, in the order of
// Clause 2.5.2.2 (C_FIRST; C_ID breaks ties), through the secondary index.
func ydbCustomersByLastName(w, d int, lastName string) ydbQuery {
	return ydbQuery{
		params: []ydbParam{param("$c_w_id", i32(w)), param("$c_d_id", i32(d)), param("$c_last", types.TextValue(lastName))},
		body: "SELECT c_id FROM customer VIEW `" + tpcc.SecondaryIndexes[0].Name + "`\n" +
			"WHERE c_w_id = $c_w_id AND c_d_id = $c_d_id AND c_last = $c_last\nORDER BY c_first, c_id;\n",
	}
}

func ydbPaymentRead(in *tpcc.PaymentInput, customerID int) ydbQuery {
	return ydbQuery{
		params: []ydbParam{
			param("$w_id", i32(in.WarehouseID)), param("$d_id", i32(in.DistrictID)),
			param("$c_w_id", i32(in.CustomerWarehouseID)), param("$c_d_id", i32(in.CustomerDistrictID)), param("$c_id", i32(customerID)),
		},
		body: `SELECT Unwrap(w_name) AS w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = $w_id;
SELECT Unwrap(d_name) AS d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = $w_id AND d_id = $d_id;
SELECT c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
  Unwrap(c_credit) AS c_credit, c_credit_lim, c_discount, c_balance, Unwrap(c_data) AS c_data
FROM customer WHERE c_w_id = $c_w_id AND c_d_id = $c_d_id AND c_id = $c_id;
`,
	}
}

func ydbPaymentWrite(in *tpcc.PaymentInput, customerID int, newData *string, historyKey uint64, historyData string) ydbQuery {
	params := []ydbParam{
		param("$w_id", i32(in.WarehouseID)), param("$d_id", i32(in.DistrictID)),
		param("$c_w_id", i32(in.CustomerWarehouseID)), param("$c_d_id", i32(in.CustomerDistrictID)), param("$c_id", i32(customerID)),
		param("$amount", ydbMoney(in.AmountCents)), param("$h_pk", types.Uint64Value(historyKey)), param("$h_data", types.TextValue(historyData)),
	}
	setData := ""
	if newData != nil {
		params = append(params, param("$c_data", types.TextValue(*newData)))
		setData = ", c_data = $c_data"
	}
	return ydbQuery{
		params: params,
		body: `UPDATE warehouse SET w_ytd = w_ytd + $amount WHERE w_id = $w_id;
UPDATE district SET d_ytd = d_ytd + $amount WHERE d_w_id = $w_id AND d_id = $d_id;
UPDATE customer SET c_balance = c_balance - $amount, c_ytd_payment = c_ytd_payment + $amount,
  c_payment_cnt = c_payment_cnt + 1` + setData + `
WHERE c_w_id = $c_w_id AND c_d_id = $c_d_id AND c_id = $c_id;
UPSERT INTO history (h_w_id, ` + YDBHistoryKey + `, h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_date, h_amount, h_data)
VALUES ($w_id, $h_pk, $c_id, $c_d_id, $c_w_id, $d_id, CurrentUtcTimestamp(), $amount, $h_data);
`,
	}
}

func ydbOrderStatus(w, d, customerID int) ydbQuery {
	return ydbQuery{
		params: []ydbParam{param("$w_id", i32(w)), param("$d_id", i32(d)), param("$c_id", i32(customerID))},
		body: "$latest = (SELECT o_w_id, o_d_id, o_id, o_entry_d, o_carrier_id FROM orders VIEW `" + tpcc.SecondaryIndexes[1].Name + "`\n" +
			`  WHERE o_w_id = $w_id AND o_d_id = $d_id AND o_c_id = $c_id ORDER BY o_id DESC LIMIT 1);
SELECT c_id, CAST(c_balance AS Double) AS c_balance, c_first, c_middle, c_last
FROM customer WHERE c_w_id = $w_id AND c_d_id = $d_id AND c_id = $c_id;
SELECT o_id, o_entry_d, o_carrier_id FROM $latest;
SELECT ol.ol_i_id AS ol_i_id, ol.ol_supply_w_id AS ol_supply_w_id, ol.ol_quantity AS ol_quantity,
  CAST(ol.ol_amount AS Double) AS ol_amount, ol.ol_delivery_d AS ol_delivery_d
FROM $latest AS o
JOIN order_line AS ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
ORDER BY ol.ol_number;
`,
	}
}

// ydbDeliveryOldest reads the oldest new order of each of the ten districts: ten result sets,
// each empty (nothing to deliver) or one row (district, order).
func ydbDeliveryOldest(w int) ydbQuery {
	var b strings.Builder
	for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
		fmt.Fprintf(&b, "SELECT no_d_id, no_o_id FROM new_order WHERE no_w_id = $w_id AND no_d_id = %d ORDER BY no_o_id LIMIT 1;\n", d)
	}
	return ydbQuery{params: []ydbParam{param("$w_id", i32(w))}, body: b.String()}
}

// ydbDeliveryKey is an order picked for delivery.
type ydbDeliveryKey struct{ districtID, orderID int }

func deliveryKeys(w int, keys []ydbDeliveryKey) types.Value {
	rows := make([]types.Value, len(keys))
	for i, k := range keys {
		rows[i] = types.StructValue(types.StructFieldValue("w_id", i32(w)),
			types.StructFieldValue("d_id", i32(k.districtID)), types.StructFieldValue("o_id", i32(k.orderID)))
	}
	return types.ListValue(rows...)
}

// ydbDeliveryWrite delivers the picked orders in one query: delete the new orders, set the
// carrier, date the lines, credit each customer with its order's total.
func ydbDeliveryWrite(w, carrier int, keys []ydbDeliveryKey) ydbQuery {
	return ydbQuery{
		params: []ydbParam{param("$carrier_id", i32(carrier)), param("$keys", deliveryKeys(w, keys))},
		body: `$orders = (
  SELECT o.o_w_id AS o_w_id, o.o_d_id AS o_d_id, o.o_id AS o_id, Unwrap(o.o_c_id) AS o_c_id
  FROM AS_TABLE($keys) AS k JOIN orders AS o ON o.o_w_id = k.w_id AND o.o_d_id = k.d_id AND o.o_id = k.o_id);
$lines = (
  SELECT ol.ol_w_id AS ol_w_id, ol.ol_d_id AS ol_d_id, ol.ol_o_id AS ol_o_id, ol.ol_number AS ol_number, ol.ol_amount AS ol_amount
  FROM AS_TABLE($keys) AS k JOIN order_line AS ol ON ol.ol_w_id = k.w_id AND ol.ol_d_id = k.d_id AND ol.ol_o_id = k.o_id);
$totals = (
  SELECT o.o_w_id AS w_id, o.o_d_id AS d_id, o.o_c_id AS c_id, CAST(SUM(Unwrap(l.ol_amount)) AS ` + YDBDecimal + `) AS amount
  FROM $orders AS o JOIN $lines AS l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
  GROUP BY o.o_w_id, o.o_d_id, o.o_c_id);
$credited = (
  SELECT c.c_w_id AS c_w_id, c.c_d_id AS c_d_id, c.c_id AS c_id,
    c.c_balance + t.amount AS c_balance, c.c_delivery_cnt + 1 AS c_delivery_cnt
  FROM $totals AS t JOIN customer AS c ON c.c_w_id = t.w_id AND c.c_d_id = t.d_id AND c.c_id = t.c_id);
DELETE FROM new_order ON SELECT w_id AS no_w_id, d_id AS no_d_id, o_id AS no_o_id FROM AS_TABLE($keys);
UPSERT INTO orders SELECT o_w_id, o_d_id, o_id, $carrier_id AS o_carrier_id FROM $orders;
UPSERT INTO order_line SELECT ol_w_id, ol_d_id, ol_o_id, ol_number, CurrentUtcTimestamp() AS ol_delivery_d FROM $lines;
UPSERT INTO customer SELECT * FROM $credited;
`,
	}
}

func ydbStockLevel(in *tpcc.StockLevelInput) ydbQuery {
	return ydbQuery{
		params: []ydbParam{param("$w_id", i32(in.WarehouseID)), param("$d_id", i32(in.DistrictID)), param("$threshold", i32(in.Threshold))},
		body: `$next_o_id = (SELECT Unwrap(d_next_o_id) FROM district WHERE d_w_id = $w_id AND d_id = $d_id);
$items = (
  SELECT DISTINCT ol_w_id, ol_i_id FROM order_line
  WHERE ol_w_id = $w_id AND ol_d_id = $d_id AND ol_o_id >= $next_o_id - ` + strconv.Itoa(tpcc.StockLevelOrders) + ` AND ol_o_id < $next_o_id);
SELECT COUNT(*) AS low_stock
FROM $items AS i JOIN stock AS s ON s.s_w_id = i.ol_w_id AND s.s_i_id = i.ol_i_id
WHERE s.s_quantity < $threshold;
`,
	}
}
