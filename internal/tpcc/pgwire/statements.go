package pgwire

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// pgwireStatements is the SQL of the five transactions for one engine that speaks the
// PostgreSQL protocol. PostgreSQL and CockroachDB share the statements except for how a
// transaction begins and how Delivery picks the oldest new order; every statement here also runs
// on PostgreSQL, which is how the CockroachDB variant is tested.
type pgwireStatements struct {
	begin string // BEGIN with the isolation level of the read-write transactions

	// New-Order (Clause 2.4.2).
	newOrderDistrict  string // $1 w, $2 d → d_tax, o_id
	newOrderWarehouse string // $1 w → w_tax
	newOrderCustomer  string // $1 w, $2 d, $3 c → c_discount, c_last, c_credit
	newOrderItems     string // $1 item ids → i_id, price in cents, i_name, i_data
	newOrderStock     string // $1 supply w, $2 item, $3 quantity, $4 remote 0/1, $5 district → s_quantity, s_data, s_dist_xx
	newOrderStocks    string // $1.. arrays of supply w, item, quantity, remote 0/1, $5 district → s_w_id, s_i_id, s_quantity, s_data, s_dist_xx per updated row
	newOrderOrder     string // $1 o_id, $2 d, $3 w, $4 c, $5 ol_cnt, $6 all_local
	newOrderNewOrder  string // $1 o_id, $2 d, $3 w
	newOrderLines     string // $1 o_id, $2 d, $3 w, $4.. arrays of number, item, supply w, quantity, amount in cents, dist_info

	// Payment (Clause 2.5.2).
	paymentWarehouse        string // $1 w, $2 amount → w_name, address
	paymentDistrict         string // $1 w, $2 d, $3 amount → d_name, address
	paymentCustomerByID     string // $1 w, $2 d, $3 c_w, $4 c_d, $5 amount, $6 c_id → customer
	paymentCustomerByName   string // same with $6 c_last
	orderStatusByID         string // $1 w, $2 d, $3 c_id → customer, latest order, its lines
	orderStatusByName       string // same with $3 c_last
	deliveryDistrict        string // $1 w, $2 d, $3 carrier → delivered o_id (no row: skipped)
	stockLevel              string // $1 w, $2 d, $3 threshold → count
	deliveryPicksSkipLocked bool   // recorded for tests and docs
}

// customerIDByLastName is the C_ID at position tpcc.MiddlePosition(n) = ⌈n/2⌉ among the n
// customers of ($w, $d) with last name $name, ordered by C_FIRST (Clause 2.5.2.2): the rule in
// SQL, so that the choice is made in the one statement. "2·pos ∈ {n, n+1}" is ⌈n/2⌉ = pos in
// integer arithmetic that both engines evaluate alike (CockroachDB's "/" on integers is decimal);
// TestByLastNameStatementsFollowMiddleCustomer runs it against tpcc.MiddleCustomer. C_ID breaks
// ties between equal first names so that the choice is deterministic.
func customerIDByLastName(w, d, name string) string {
	return fmt.Sprintf(`(SELECT c_id FROM (
    SELECT c_id, row_number() OVER (ORDER BY c_first, c_id) AS pos, count(*) OVER () AS n
    FROM customer WHERE c_w_id = %[1]s AND c_d_id = %[2]s AND c_last = %[3]s) AS same_name
  WHERE 2 * pos IN (n, n + 1))`, w, d, name)
}

// paymentCustomer updates the customer and writes the HISTORY row in one statement. The history
// row is built from a LEFT JOIN, so when no customer matches its H_C_ID is null (and with a
// missing warehouse or district its H_DATA is) and the NOT NULL constraint aborts the
// transaction: the COMMIT queued in the same round trip can never commit a partial payment.
func paymentCustomer(customerID string) string {
	return `WITH paid AS (
  UPDATE customer SET
    c_balance = c_balance - $5::numeric,
    c_ytd_payment = c_ytd_payment + $5::numeric,
    c_payment_cnt = c_payment_cnt + 1,
    c_data = ` + badCreditDataSQL("$1", "$2", "$5") + `
  WHERE c_w_id = $3 AND c_d_id = $4 AND c_id = ` + customerID + `
  RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
    c_since, c_credit, c_credit_lim, c_discount, c_balance, substr(c_data, 1, 200) AS c_data_head
), logged AS (
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
  SELECT paid.c_id, $4, $3, $2, $1, localtimestamp, $5::numeric,
    (SELECT w_name FROM warehouse WHERE w_id = $1) || '    ' ||
    (SELECT d_name FROM district WHERE d_w_id = $1 AND d_id = $2)
  FROM (VALUES (1)) AS one LEFT JOIN paid ON true
)
SELECT c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
  c_since, c_credit, c_credit_lim::float8, c_discount::float8, c_balance::float8, c_data_head
FROM paid`
}

// orderStatus reads the customer, the customer's latest order and its lines as one statement:
// one snapshot in every isolation level, one round trip.
func orderStatus(customerID string) string {
	return `WITH cust AS (
  SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
  WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = ` + customerID + `
), latest AS (
  SELECT o_id, o_entry_d, o_carrier_id FROM orders
  WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = (SELECT c_id FROM cust)
  ORDER BY o_id DESC LIMIT 1
)
SELECT cust.c_id, cust.c_balance::float8, cust.c_first, cust.c_middle, cust.c_last,
  latest.o_id, latest.o_entry_d, latest.o_carrier_id,
  ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount::float8, ol.ol_delivery_d
FROM cust
LEFT JOIN latest ON true
LEFT JOIN order_line AS ol ON ol.ol_w_id = $1 AND ol.ol_d_id = $2 AND ol.ol_o_id = latest.o_id
ORDER BY ol.ol_number`
}

// deliveryDistrict delivers the oldest new order of one district: delete it, set the carrier,
// date its lines, credit their sum to the customer. No row back means nothing to deliver.
func deliveryDistrict(pick string) string {
	return `WITH delivered AS (
  DELETE FROM new_order
  WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = (
    SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2
    ORDER BY no_o_id LIMIT 1 ` + pick + `)
  RETURNING no_o_id
), carried AS (
  UPDATE orders SET o_carrier_id = $3
  FROM delivered WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = delivered.no_o_id
  RETURNING o_c_id
), dated AS (
  UPDATE order_line SET ol_delivery_d = localtimestamp
  FROM delivered WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = delivered.no_o_id
  RETURNING ol_amount
), credited AS (
  UPDATE customer SET
    c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM dated),
    c_delivery_cnt = c_delivery_cnt + 1
  FROM carried WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = carried.o_c_id
  RETURNING c_id
)
SELECT no_o_id FROM delivered`
}

// newPgwireStatements is the statement table of flavour f at isolation level l ("" for the
// flavour's default). Only the BEGIN and Delivery's locking clause depend on the level.
//
// PostgreSQL's default, READ COMMITTED with explicit row locks taken in one global order, instead
// of SERIALIZABLE: the hot rows (W_YTD, D_YTD, D_NEXT_O_ID) are updated by most transactions, and
// under SERIALIZABLE every concurrent update of them fails and retries, each retry a
// synchronous-replica round trip. Every row a transaction reads and then writes is written with
// one UPDATE, which re-reads and locks the newest version, so no update is lost:
//
//	New-Order: district row, then stock rows in (supply W, item) order.
//	Payment:   warehouse, district, customer — in that order, one statement each.
//	Delivery:  per district in order 1..10: new_order row (pgwire.DeliveryPick), its order,
//	           lines, customer.
//
// No transaction waits for a lock held by one that waits for it: the orders above never cross
// (Payment takes its customer last and then waits for nothing; Delivery's customers are per
// district, visited in increasing order). Order-Status and Stock-Level are single statements,
// each one snapshot. The same statements run at REPEATABLE READ and SERIALIZABLE
// (workload.isolation): there a concurrent update of a row the transaction writes, or a read
// another transaction's write invalidates, fails with 40001 and the whole transaction is retried
// (RetryPolicy), counted inside the one logical transaction.
//
// CockroachDB's default is SERIALIZABLE, its own; conflicts surface as 40001 the same way.
func newPgwireStatements(f *Flavour, l isolation.Level) (pgwireStatements, error) {
	if l == "" {
		l = f.caps.DefaultIsolation
	}
	if _, err := isolation.Parse(string(l)); err != nil {
		return pgwireStatements{}, err
	}
	begin := Begin(l)
	pick, skipLocked := DeliveryPick(l)
	return pgwireStatements{
		begin: begin,

		newOrderDistrict: `UPDATE district SET d_next_o_id = d_next_o_id + 1
WHERE d_w_id = $1 AND d_id = $2 RETURNING d_tax::float8, d_next_o_id - 1`,
		newOrderWarehouse: `SELECT w_tax::float8 FROM warehouse WHERE w_id = $1`,
		newOrderCustomer:  `SELECT c_discount::float8, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`,
		newOrderItems:     `SELECT i_id, (i_price * 100)::int8, i_name, i_data FROM item WHERE i_id = ANY($1::int4[])`,
		newOrderStock: `UPDATE stock SET
  s_quantity = ` + stockQuantitySQL("s_quantity", "$3") + `,
  s_ytd = s_ytd + $3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $4
WHERE s_w_id = $1 AND s_i_id = $2
RETURNING s_quantity, s_data, ` + stockDistInfoColumn("$5::int4"),
		newOrderStocks: `UPDATE stock SET
  s_quantity = ` + stockQuantitySQL("s_quantity", "l.quantity") + `,
  s_ytd = s_ytd + l.quantity, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + l.remote
FROM unnest($1::int4[], $2::int4[], $3::int4[], $4::int4[]) AS l(supply, item, quantity, remote),
  (SELECT s_w_id AS w, s_i_id AS i FROM stock
   WHERE (s_w_id, s_i_id) IN (SELECT * FROM unnest($1::int4[], $2::int4[]))
   ORDER BY s_w_id, s_i_id FOR UPDATE) AS locked
WHERE locked.w = l.supply AND locked.i = l.item AND s_w_id = l.supply AND s_i_id = l.item
RETURNING s_w_id, s_i_id, s_quantity, s_data, ` + stockDistInfoColumn("$5::int4"),
		newOrderOrder: `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
VALUES ($1, $2, $3, $4, localtimestamp, NULL, $5, $6)`,
		newOrderNewOrder: `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)`,
		newOrderLines: `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
  ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT $1, $2, $3, l.number, l.item, l.supply, NULL, l.quantity, l.cents::numeric / 100, l.dist_info
FROM unnest($4::int4[], $5::int4[], $6::int4[], $7::int4[], $8::int8[], $9::text[])
  AS l(number, item, supply, quantity, cents, dist_info)`,

		paymentWarehouse: `UPDATE warehouse SET w_ytd = w_ytd + $2::numeric WHERE w_id = $1
RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip`,
		paymentDistrict: `UPDATE district SET d_ytd = d_ytd + $3::numeric WHERE d_w_id = $1 AND d_id = $2
RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip`,
		paymentCustomerByID:   paymentCustomer("$6::int4"),
		paymentCustomerByName: paymentCustomer(customerIDByLastName("$3", "$4", "$6::text")),

		orderStatusByID:   orderStatus("$3::int4"),
		orderStatusByName: orderStatus(customerIDByLastName("$1", "$2", "$3::text")),

		deliveryDistrict:        deliveryDistrict(pick),
		deliveryPicksSkipLocked: skipLocked,

		stockLevel: `SELECT count(DISTINCT s_i_id) FROM order_line
JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id
WHERE ol_w_id = $1 AND ol_d_id = $2
  AND ol_o_id < (SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2)
  AND ol_o_id >= (SELECT d_next_o_id - ` + strconv.Itoa(tpcc.StockLevelOrders) + ` FROM district WHERE d_w_id = $1 AND d_id = $2)
  AND s_quantity < $3`,
	}, nil
}

// stockDistInfoColumn selects S_DIST_xx for the district given by the parameter, so one prepared
// statement serves all ten districts.
func stockDistInfoColumn(district string) string {
	var b strings.Builder
	b.WriteString("CASE " + district)
	for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
		fmt.Fprintf(&b, " WHEN %d THEN s_dist_%02d", d, d)
	}
	b.WriteString(" END")
	return b.String()
}

// stockQuantitySQL is tpcc.StockQuantityAfter in SQL, for the column quantity and the ordered
// units: one UPDATE re-reads and locks the newest row and applies the rule there.
// TestStockStatementFollowsApplyLine runs it against tpcc.StockUpdate.ApplyLine.
func stockQuantitySQL(quantity, ordered string) string {
	left := quantity + " - " + ordered
	return fmt.Sprintf("CASE WHEN %[1]s >= %[2]d THEN %[1]s ELSE %[1]s + %[3]d END", left, tpcc.StockFloor, tpcc.StockRefill)
}

// badCreditDataSQL is tpcc.BadCreditData in SQL, for the parameters of the payment's warehouse,
// district and amount, applied to the customer row the UPDATE locks (C_DATA unchanged unless
// C_CREDIT is tpcc.BadCredit). TestPaymentStatementFollowsBadCreditData runs it against
// BadCreditData.
func badCreditDataSQL(w, d, amount string) string {
	return fmt.Sprintf(`CASE WHEN c_credit = '%s' THEN substr(
      c_id::text || ' ' || c_d_id::text || ' ' || c_w_id::text || ' ' || %s::int4::text || ' ' ||
      %s::int4::text || ' ' || %s::numeric::text || ' | ' || c_data, 1, %d) ELSE c_data END`, tpcc.BadCredit, d, w, amount, tpcc.CustomerDataMax)
}
