package pgwire

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// loadedDatabase creates a fresh database on TPCC_PG_URL, loads warehouses with the package's
// loader and returns its URL and the load's NURand constants.
func txLoadedDatabase(t *testing.T, warehouses int) (string, tpcc.Constants) {
	t.Helper()
	url := pgtestDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	err := tpcc.Load(ctx, tpcc.LoadOptions{Driver: Postgres, URL: url, Warehouses: warehouses, Threads: 2, Seed: 20260101, SeedSet: true, Finish: true})
	if err != nil {
		t.Fatalf("load %d warehouses: %v", warehouses, err)
	}
	t.Logf("loaded %d warehouses in %v", warehouses, time.Since(start).Round(time.Millisecond))
	conn := connectTx(t, url)
	meta, err := ReadMeta(ctx, conn)
	if err != nil {
		t.Fatalf("read meta: %v", err)
	}
	return url, meta.Constants
}

func connectTx(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func txNewExecutor(t *testing.T, d *Flavour, url string, conns int, retry tpcc.RetryPolicy) tpcc.Executor {
	return txNewExecutorAt(t, d, url, conns, retry, "")
}

// txNewExecutorAt is txNewExecutor at isolation level l ("" the flavour's default).
func txNewExecutorAt(t *testing.T, d *Flavour, url string, conns int, retry tpcc.RetryPolicy, l isolation.Level) tpcc.Executor {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: d, URL: url, MaxConns: conns, Retry: retry, Isolation: l})
	if err != nil {
		t.Fatalf("NewExecutor(%s): %v", d, err)
	}
	t.Cleanup(e.Close)
	return e
}

// queryInt runs a query returning one integer (or a numeric in cents when the SQL multiplies).
func txQueryInt(t *testing.T, conn *pgx.Conn, sql string, args ...any) int64 {
	t.Helper()
	var v int64
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s %v: %v", strings.Join(strings.Fields(sql), " "), args, err)
	}
	return v
}

type txStockRow struct{ quantity, ytd, orderCnt, remoteCnt int64 }

func txReadStock(t *testing.T, conn *pgx.Conn, w, item int) txStockRow {
	t.Helper()
	var s txStockRow
	err := conn.QueryRow(context.Background(),
		`SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock WHERE s_w_id = $1 AND s_i_id = $2`, w, item).
		Scan(&s.quantity, &s.ytd, &s.orderCnt, &s.remoteCnt)
	if err != nil {
		t.Fatalf("stock %d/%d: %v", w, item, err)
	}
	return s
}

// TestPgwireTransactionSemantics runs each transaction once per flavour against a loaded
// database and compares its effects with independent queries (Clauses 2.4.2–2.8.2).
func TestPgwireTransactionSemantics(t *testing.T) {
	url, _ := txLoadedDatabase(t, 2)
	conn := connectTx(t, url)
	ctx := context.Background()
	for _, d := range []*Flavour{Postgres, Cockroach} {
		t.Run(d.Name(), func(t *testing.T) {
			e := txNewExecutor(t, d, url, 4, tpcc.DefaultRetryPolicy)
			// Item 11 twice (a stock row updated by two lines, one statement each), item 12 from
			// warehouse 2 (remote), and item 13 with a quantity that pushes its stock under 10
			// after a few orders; then the same without the repeated row (one stock statement).
			repeated := []tpcc.NewOrderLine{
				{ItemID: 11, SupplyWarehouseID: 1, Quantity: 3},
				{ItemID: 12, SupplyWarehouseID: 2, Quantity: 5},
				{ItemID: 11, SupplyWarehouseID: 1, Quantity: 4},
				{ItemID: 13, SupplyWarehouseID: 1, Quantity: 10},
				{ItemID: 14, SupplyWarehouseID: 1, Quantity: 1},
			}
			distinct := slices.Clone(repeated)
			distinct[2] = tpcc.NewOrderLine{ItemID: 15, SupplyWarehouseID: 1, Quantity: 4}
			t.Run("NewOrder", func(t *testing.T) { testNewOrderSemantics(t, ctx, e, conn, distinct) })
			t.Run("NewOrderRepeatedStock", func(t *testing.T) { testNewOrderSemantics(t, ctx, e, conn, repeated) })
			t.Run("NewOrderRollback", func(t *testing.T) { testNewOrderRollback(t, ctx, e, conn) })
			// A distinct amount per flavour tells this payment's history row from the other's.
			amount := map[*Flavour]int64{Postgres: 123456, Cockroach: 65432}[d]
			t.Run("PaymentByLastName", func(t *testing.T) { testPaymentByLastName(t, ctx, e, conn, amount) })
			t.Run("PaymentUnknownCustomer", func(t *testing.T) { testPaymentUnknownCustomer(t, ctx, e, conn) })
			t.Run("OrderStatus", func(t *testing.T) { testOrderStatus(t, ctx, e, conn) })
			t.Run("Delivery", func(t *testing.T) { testDelivery(t, ctx, e, conn) })
			t.Run("StockLevel", func(t *testing.T) { testStockLevel(t, ctx, e, conn) })
			t.Run("BadInput", func(t *testing.T) { testBadInput(t, ctx, e) })
		})
	}
	// Last: it removes a stock row.
	t.Run("MissingStockIsAnError", func(t *testing.T) { testMissingStock(t, ctx, url, conn) })
}

func testMissingStock(t *testing.T, ctx context.Context, url string, conn *pgx.Conn) {
	const w, d, item = 1, 8, 99
	if _, err := conn.Exec(ctx, `DELETE FROM stock WHERE s_w_id = $1 AND s_i_id = $2`, w, item); err != nil {
		t.Fatal(err)
	}
	for _, dialect := range []*Flavour{Postgres, Cockroach} {
		e := txNewExecutor(t, dialect, url, 1, tpcc.DefaultRetryPolicy)
		next := txQueryInt(t, conn, `SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2`, w, d)
		in := tpcc.NewOrderInput{WarehouseID: w, DistrictID: d, CustomerID: 1, Lines: []tpcc.NewOrderLine{
			{ItemID: 1, SupplyWarehouseID: w, Quantity: 1}, {ItemID: 2, SupplyWarehouseID: w, Quantity: 1},
			{ItemID: item, SupplyWarehouseID: w, Quantity: 1}, {ItemID: 3, SupplyWarehouseID: w, Quantity: 1},
			{ItemID: 4, SupplyWarehouseID: w, Quantity: 1},
		}}
		res, err := e.NewOrder(ctx, &in)
		if err == nil || res.RolledBack || !strings.Contains(err.Error(), "stock 1/99 not found") {
			t.Errorf("%s: NewOrder without a stock row: %+v, %v; want an error naming stock 1/99", dialect, res, err)
		}
		if got := txQueryInt(t, conn, `SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2`, w, d); got != next {
			t.Errorf("%s: d_next_o_id %d after the failed order, want %d", dialect, got, next)
		}
	}
}

// testNewOrderSemantics orders lines (5, one of them remote) in warehouse 1 and checks the
// rows written and the stock rows updated.
func testNewOrderSemantics(t *testing.T, ctx context.Context, e tpcc.Executor, conn *pgx.Conn, lines []tpcc.NewOrderLine) {
	const w, d, c = 1, 3, 17
	in := tpcc.NewOrderInput{WarehouseID: w, DistrictID: d, CustomerID: c, Lines: lines}
	nextBefore := txQueryInt(t, conn, `SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2`, w, d)
	before := map[[2]int]txStockRow{}
	for _, l := range in.Lines {
		before[[2]int{l.SupplyWarehouseID, l.ItemID}] = txReadStock(t, conn, l.SupplyWarehouseID, l.ItemID)
	}

	res, err := e.NewOrder(ctx, &in)
	if err != nil {
		t.Fatalf("NewOrder: %v", err)
	}
	if res.RolledBack || res.OrderID != int(nextBefore) || res.Lines != 5 || res.RemoteLines != 1 {
		t.Fatalf("result %+v, want order %d with 5 lines, 1 remote, not rolled back", res, nextBefore)
	}
	if got := txQueryInt(t, conn, `SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2`, w, d); got != nextBefore+1 {
		t.Errorf("d_next_o_id %d, want %d", got, nextBefore+1)
	}
	if got := txQueryInt(t, conn, `SELECT o_ol_cnt * 10 + o_all_local FROM orders
		WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3 AND o_c_id = $4 AND o_carrier_id IS NULL`, w, d, res.OrderID, c); got != 50 {
		t.Errorf("orders row: o_ol_cnt*10 + o_all_local = %d, want 50 (5 lines, not all local)", got)
	}
	if got := txQueryInt(t, conn, `SELECT count(*) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3`, w, d, res.OrderID); got != 1 {
		t.Errorf("%d new_order rows, want 1", got)
	}
	// Each line: amount = quantity × price, dist info = the stock's S_DIST of the district.
	mismatched := txQueryInt(t, conn, `SELECT count(*) FROM order_line ol
		JOIN item ON i_id = ol_i_id JOIN stock ON s_w_id = ol_supply_w_id AND s_i_id = ol_i_id
		WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3
		  AND (ol_amount <> ol_quantity * i_price OR ol_dist_info <> s_dist_03 OR ol_delivery_d IS NOT NULL)`, w, d, res.OrderID)
	written := txQueryInt(t, conn, `SELECT count(*) FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`, w, d, res.OrderID)
	if written != 5 || mismatched != 0 {
		t.Errorf("%d order lines (%d with a wrong amount, dist info or date), want 5 and 0", written, mismatched)
	}
	for i, l := range in.Lines {
		if got := txQueryInt(t, conn, `SELECT ol_i_id * 100 + ol_quantity FROM order_line
			WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3 AND ol_number = $4`, w, d, res.OrderID, i+1); got != int64(l.ItemID*100+l.Quantity) {
			t.Errorf("line %d: item*100+quantity %d, want %d", i+1, got, l.ItemID*100+l.Quantity)
		}
	}
	// Stock: lines applied in order with the quantity rule of Clause 2.4.2.2.
	want := map[[2]int]txStockRow{}
	for k, v := range before {
		want[k] = v
	}
	for _, l := range in.Lines {
		k := [2]int{l.SupplyWarehouseID, l.ItemID}
		s := want[k]
		q := int64(l.Quantity)
		if s.quantity-q >= 10 {
			s.quantity -= q
		} else {
			s.quantity = s.quantity - q + 91
		}
		s.ytd += q
		s.orderCnt++
		if l.SupplyWarehouseID != w {
			s.remoteCnt++
		}
		want[k] = s
	}
	for k, s := range want {
		if got := txReadStock(t, conn, k[0], k[1]); got != s {
			t.Errorf("stock %v: %+v, want %+v", k, got, s)
		}
	}
}

func testNewOrderRollback(t *testing.T, ctx context.Context, e tpcc.Executor, conn *pgx.Conn) {
	const w, d = 2, 7
	in := tpcc.NewOrderInput{WarehouseID: w, DistrictID: d, CustomerID: 5, Lines: []tpcc.NewOrderLine{
		{ItemID: 21, SupplyWarehouseID: w, Quantity: 2}, {ItemID: 22, SupplyWarehouseID: w, Quantity: 2},
		{ItemID: 23, SupplyWarehouseID: w, Quantity: 2}, {ItemID: 24, SupplyWarehouseID: w, Quantity: 2},
		{ItemID: tpcc.UnusedItemID, SupplyWarehouseID: w, Quantity: 2},
	}}
	nextBefore := txQueryInt(t, conn, `SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2`, w, d)
	stockBefore := txReadStock(t, conn, w, 21)
	res, err := e.NewOrder(ctx, &in)
	if err != nil {
		t.Fatalf("NewOrder with an unused item: err %v, want a rolled-back result", err)
	}
	if !res.RolledBack || res.OrderID != 0 {
		t.Fatalf("result %+v, want RolledBack and no order id", res)
	}
	if got := txQueryInt(t, conn, `SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2`, w, d); got != nextBefore {
		t.Errorf("d_next_o_id %d after rollback, want %d unchanged", got, nextBefore)
	}
	if got := txReadStock(t, conn, w, 21); got != stockBefore {
		t.Errorf("stock of the first line %+v after rollback, want %+v unchanged", got, stockBefore)
	}
}

func testPaymentByLastName(t *testing.T, ctx context.Context, e tpcc.Executor, conn *pgx.Conn, amount int64) {
	const w, d, cw, cd = 1, 4, 2, 9
	// The last name of customer 1 exists in every district; pick one shared by several customers.
	var name string
	var n int64
	err := conn.QueryRow(ctx, `SELECT c_last, count(*) FROM customer WHERE c_w_id = $1 AND c_d_id = $2
		GROUP BY c_last HAVING count(*) >= 4 ORDER BY c_last LIMIT 1`, cw, cd).Scan(&name, &n)
	if err != nil {
		t.Fatalf("find a shared last name: %v", err)
	}
	wantID := txQueryInt(t, conn, `SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3
		ORDER BY c_first, c_id OFFSET $4 LIMIT 1`, cw, cd, name, (n+1)/2-1)
	wYTD := txQueryInt(t, conn, `SELECT (w_ytd * 100)::int8 FROM warehouse WHERE w_id = $1`, w)
	dYTD := txQueryInt(t, conn, `SELECT (d_ytd * 100)::int8 FROM district WHERE d_w_id = $1 AND d_id = $2`, w, d)
	balance := txQueryInt(t, conn, `SELECT (c_balance * 100)::int8 FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, cw, cd, wantID)
	history := txQueryInt(t, conn, `SELECT count(*) FROM history WHERE h_c_w_id = $1 AND h_c_d_id = $2 AND h_c_id = $3`, cw, cd, wantID)
	// Make the customer a bad-credit one so C_DATA is rewritten.
	if _, err := conn.Exec(ctx, `UPDATE customer SET c_credit = 'BC' WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, cw, cd, wantID); err != nil {
		t.Fatal(err)
	}

	in := tpcc.PaymentInput{WarehouseID: w, DistrictID: d, CustomerWarehouseID: cw, CustomerDistrictID: cd,
		Customer: tpcc.CustomerSelector{ByLastName: true, LastName: name}, AmountCents: amount}
	res, err := e.Payment(ctx, &in)
	if err != nil {
		t.Fatalf("Payment: %v", err)
	}
	if res.CustomerID != int(wantID) || !res.ByLastName || !res.RemoteCustomer || !res.BadCredit {
		t.Fatalf("result %+v, want customer %d (row ⌈%d/2⌉ by c_first), by name, remote, bad credit", res, wantID, n)
	}
	if got := txQueryInt(t, conn, `SELECT (w_ytd * 100)::int8 FROM warehouse WHERE w_id = $1`, w); got != wYTD+amount {
		t.Errorf("w_ytd %d cents, want %d", got, wYTD+amount)
	}
	if got := txQueryInt(t, conn, `SELECT (d_ytd * 100)::int8 FROM district WHERE d_w_id = $1 AND d_id = $2`, w, d); got != dYTD+amount {
		t.Errorf("d_ytd %d cents, want %d", got, dYTD+amount)
	}
	if got := txQueryInt(t, conn, `SELECT (c_balance * 100)::int8 FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, cw, cd, wantID); got != balance-amount {
		t.Errorf("c_balance %d cents, want %d", got, balance-amount)
	}
	if got := txQueryInt(t, conn, `SELECT count(*) FROM history WHERE h_c_w_id = $1 AND h_c_d_id = $2 AND h_c_id = $3`, cw, cd, wantID); got != history+1 {
		t.Errorf("%d history rows for the customer, want %d", got, history+1)
	}
	if got := txQueryInt(t, conn, `SELECT count(*) FROM history WHERE h_c_w_id = $1 AND h_c_d_id = $2 AND h_c_id = $3
		AND h_w_id = $4 AND h_d_id = $5 AND h_amount * 100 = $6 AND h_data <> ''`, cw, cd, wantID, w, d, amount); got != 1 {
		t.Errorf("%d history rows for this payment, want 1", got)
	}
	var data string
	if err := conn.QueryRow(ctx, `SELECT c_data FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, cw, cd, wantID).Scan(&data); err != nil {
		t.Fatal(err)
	}
	wantPrefix := strings.Join([]string{strconv.Itoa(int(wantID)), "9", "2", "4", "1", fmt.Sprintf("%d.%02d", amount/100, amount%100)}, " ") + " | "
	if !strings.HasPrefix(data, wantPrefix) || len(data) > 500 {
		t.Errorf("c_data %.60q… (%d chars), want the prefix %q and at most 500 chars", data, len(data), wantPrefix)
	}
}

func testPaymentUnknownCustomer(t *testing.T, ctx context.Context, e tpcc.Executor, conn *pgx.Conn) {
	wYTD := txQueryInt(t, conn, `SELECT (w_ytd * 100)::int8 FROM warehouse WHERE w_id = 1`)
	in := tpcc.PaymentInput{WarehouseID: 1, DistrictID: 1, CustomerWarehouseID: 1, CustomerDistrictID: 1,
		Customer: tpcc.CustomerSelector{ByLastName: true, LastName: "NOSUCHNAME"}, AmountCents: 500}
	_, err := e.Payment(ctx, &in)
	if !errors.Is(err, tpcc.ErrCustomerNotFound) || !strings.Contains(err.Error(), "NOSUCHNAME") {
		t.Fatalf("err = %v, want ErrCustomerNotFound naming the last name", err)
	}
	if got := txQueryInt(t, conn, `SELECT (w_ytd * 100)::int8 FROM warehouse WHERE w_id = 1`); got != wYTD {
		t.Errorf("w_ytd changed from %d to %d by a failed payment", wYTD, got)
	}
}

func testOrderStatus(t *testing.T, ctx context.Context, e tpcc.Executor, conn *pgx.Conn) {
	const w, d, c = 1, 2, 42
	wantOrder := txQueryInt(t, conn, `SELECT max(o_id) FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3`, w, d, c)
	wantLines := txQueryInt(t, conn, `SELECT count(*) FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`, w, d, wantOrder)
	res, err := e.OrderStatus(ctx, &tpcc.OrderStatusInput{WarehouseID: w, DistrictID: d, Customer: tpcc.CustomerSelector{ID: c}})
	if err != nil {
		t.Fatalf("OrderStatus: %v", err)
	}
	if res.CustomerID != c || res.OrderID != int(wantOrder) || res.Lines != int(wantLines) || res.ByLastName {
		t.Errorf("result %+v, want customer %d, order %d with %d lines", res, c, wantOrder, wantLines)
	}
	name := tpcc.LastName(41) // customer 42 of every district is named after 41 (Clause 4.3.3.1)
	res, err = e.OrderStatus(ctx, &tpcc.OrderStatusInput{WarehouseID: w, DistrictID: d, Customer: tpcc.CustomerSelector{ByLastName: true, LastName: name}})
	if err != nil {
		t.Fatalf("OrderStatus by name: %v", err)
	}
	n := txQueryInt(t, conn, `SELECT count(*) FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3`, w, d, name)
	wantID := txQueryInt(t, conn, `SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3
		ORDER BY c_first, c_id OFFSET $4 LIMIT 1`, w, d, name, (n+1)/2-1)
	if res.CustomerID != int(wantID) || !res.ByLastName || res.OrderID == 0 || res.Lines < tpcc.MinOrderLines {
		t.Errorf("by name: result %+v, want customer %d with an order of >= 5 lines", res, wantID)
	}
}

func testDelivery(t *testing.T, ctx context.Context, e tpcc.Executor, conn *pgx.Conn) {
	const w = 2
	type district struct{ oldest, customer, balanceCents, amountCents, deliveries int64 }
	before := make([]district, tpcc.DistrictsPerWarehouse+1)
	for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
		o := txQueryInt(t, conn, `SELECT min(no_o_id) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2`, w, d)
		c := txQueryInt(t, conn, `SELECT o_c_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3`, w, d, o)
		before[d] = district{
			oldest: o, customer: c,
			balanceCents: txQueryInt(t, conn, `SELECT (c_balance * 100)::int8 FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, w, d, c),
			amountCents:  txQueryInt(t, conn, `SELECT (sum(ol_amount) * 100)::int8 FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`, w, d, o),
			deliveries:   txQueryInt(t, conn, `SELECT c_delivery_cnt FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, w, d, c),
		}
	}
	res, err := e.Delivery(ctx, &tpcc.DeliveryInput{WarehouseID: w, CarrierID: 7})
	if err != nil {
		t.Fatalf("Delivery: %v", err)
	}
	if res.Delivered != 10 || res.Skipped != 0 {
		t.Fatalf("result %+v, want 10 delivered", res)
	}
	for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
		b := before[d]
		if got := txQueryInt(t, conn, `SELECT count(*) FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3`, w, d, b.oldest); got != 0 {
			t.Errorf("district %d: oldest new order %d still there", d, b.oldest)
		}
		if got := txQueryInt(t, conn, `SELECT coalesce(o_carrier_id, 0) FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3`, w, d, b.oldest); got != 7 {
			t.Errorf("district %d: carrier %d, want 7", d, got)
		}
		if got := txQueryInt(t, conn, `SELECT count(*) FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3 AND ol_delivery_d IS NULL`, w, d, b.oldest); got != 0 {
			t.Errorf("district %d: %d undated lines", d, got)
		}
		if got := txQueryInt(t, conn, `SELECT (c_balance * 100)::int8 FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, w, d, b.customer); got != b.balanceCents+b.amountCents {
			t.Errorf("district %d: customer balance %d cents, want %d", d, got, b.balanceCents+b.amountCents)
		}
		if got := txQueryInt(t, conn, `SELECT c_delivery_cnt FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`, w, d, b.customer); got != b.deliveries+1 {
			t.Errorf("district %d: c_delivery_cnt %d, want %d", d, got, b.deliveries+1)
		}
	}
}

func testStockLevel(t *testing.T, ctx context.Context, e tpcc.Executor, conn *pgx.Conn) {
	const w, d, threshold = 1, 5, 20
	// Independent computation: items of the last 20 orders' lines, their stock, in Go.
	next := txQueryInt(t, conn, `SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2`, w, d)
	rows, err := conn.Query(ctx, `SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id >= $3 AND ol_o_id < $4`, w, d, next-20, next)
	if err != nil {
		t.Fatal(err)
	}
	items, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, it := range items {
		if txReadStock(t, conn, w, int(it)).quantity < threshold {
			want++
		}
	}
	res, err := e.StockLevel(ctx, &tpcc.StockLevelInput{WarehouseID: w, DistrictID: d, Threshold: threshold})
	if err != nil {
		t.Fatalf("StockLevel: %v", err)
	}
	if res.LowStock != want || len(items) == 0 {
		t.Errorf("low stock %d, want %d (of %d distinct items)", res.LowStock, want, len(items))
	}
}

func testBadInput(t *testing.T, ctx context.Context, e tpcc.Executor) {
	_, err := e.NewOrder(ctx, &tpcc.NewOrderInput{WarehouseID: 1, DistrictID: 11, CustomerID: 1})
	if err == nil || !strings.Contains(err.Error(), "DistrictID 11") {
		t.Errorf("NewOrder with district 11: err %v, want it named", err)
	}
	_, err = e.Payment(ctx, &tpcc.PaymentInput{WarehouseID: 1, DistrictID: 1, CustomerWarehouseID: 1, CustomerDistrictID: 1, Customer: tpcc.CustomerSelector{ID: 1}, AmountCents: 0})
	if err == nil || !strings.Contains(err.Error(), "AmountCents 0") {
		t.Errorf("Payment of 0 cents: err %v, want it named", err)
	}
	_, err = e.Delivery(ctx, &tpcc.DeliveryInput{WarehouseID: 1, CarrierID: 0})
	if err == nil || !strings.Contains(err.Error(), "CarrierID 0") {
		t.Errorf("Delivery with carrier 0: err %v, want it named", err)
	}
}

func TestNewExecutorRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     tpcc.ExecutorConfig
		wantErr string
	}{
		{"no URL", tpcc.ExecutorConfig{Driver: Postgres, MaxConns: 1}, "URL is empty"},
		{"no connections", tpcc.ExecutorConfig{Driver: Postgres, URL: "postgres://127.0.0.1:1/x", MaxConns: 0}, "MaxConns 0"},
		{"bad retry policy", tpcc.ExecutorConfig{Driver: Postgres, URL: "postgres://127.0.0.1:1/x", MaxConns: 1, Retry: tpcc.RetryPolicy{MaxAttempts: -1}}, "MaxAttempts -1"},
		{"no driver", tpcc.ExecutorConfig{URL: "postgres://127.0.0.1:1/x", MaxConns: 1}, "no Driver"},
		{"unparsable URL", tpcc.ExecutorConfig{Driver: Cockroach, URL: "postgres://%zz", MaxConns: 1}, "parse URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tpcc.NewExecutor(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("NewExecutor: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}
