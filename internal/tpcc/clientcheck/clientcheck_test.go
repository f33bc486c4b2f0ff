package clientcheck

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// columns are the columns the fake database keeps of each table, its key first: every column a
// read of Reads names.
var columns = map[string][]string{
	tpcc.WarehouseTable.Name: {"w_id", "w_ytd"},
	tpcc.DistrictTable.Name:  {"d_w_id", "d_id", "d_ytd", "d_next_o_id"},
	tpcc.CustomerTable.Name:  {"c_w_id", "c_d_id", "c_id", "c_balance", "c_ytd_payment"},
	tpcc.StockTable.Name:     {"s_w_id", "s_i_id"},
	tpcc.HistoryTable.Name:   {"h_w_id", "h_d_id", "h_c_w_id", "h_c_d_id", "h_c_id", "h_amount"},
	tpcc.OrdersTable.Name:    {"o_w_id", "o_d_id", "o_id", "o_c_id", "o_carrier_id", "o_ol_cnt"},
	tpcc.NewOrderTable.Name:  {"no_w_id", "no_d_id", "no_o_id"},
	tpcc.OrderLineTable.Name: {"ol_w_id", "ol_d_id", "ol_o_id", "ol_number", "ol_delivery_d", "ol_amount"},
}

func columnIndex(table, column string) int {
	i := slices.Index(columns[table], column)
	if i < 0 {
		panic("the fake database keeps no column " + column + " of " + table)
	}
	return i
}

// loadedAt is the delivery date of the lines of the orders the load delivers (Unix microseconds).
const loadedAt = 1_700_000_000_000_000

// loaded yields warehouse w's rows of table as the load leaves them, in descending key order (a
// scan returns its rows in no particular order). Money is in cents: w_ytd 300000.00, d_ytd
// 30000.00, one payment of 10.00 per customer (c_balance -10.00, c_ytd_payment 10.00), orders
// 1..2100 of each district delivered with lines of amount 0, orders 2101..3000 new with lines of
// 1.11 × ol_number; every order has 5 lines and order o was placed by customer o.
func loaded(table string, w int64, yield func(...Value) error) error {
	const (
		districts = tpcc.DistrictsPerWarehouse
		customers = tpcc.CustomersPerDistrict
		orders    = tpcc.OrdersPerDistrict
		firstNew  = tpcc.FirstUndeliveredOrder
		lines     = 5
	)
	var err error
	each := func(n int64, f func(int64)) {
		for i := n; i >= 1 && err == nil; i-- {
			f(i)
		}
	}
	var buf [6]Value // one row buffer, so that a scan of 150 000 lines allocates little
	emit := func(v ...Value) {
		if err == nil {
			err = yield(buf[:copy(buf[:], v)]...)
		}
	}
	switch table {
	case tpcc.WarehouseTable.Name:
		emit(Int(w), Int(30_000_000))
	case tpcc.DistrictTable.Name:
		each(districts, func(d int64) { emit(Int(w), Int(d), Int(3_000_000), Int(orders+1)) })
	case tpcc.CustomerTable.Name:
		each(districts, func(d int64) {
			each(customers, func(c int64) { emit(Int(w), Int(d), Int(c), Int(-1000), Int(1000)) })
		})
	case tpcc.StockTable.Name:
		each(tpcc.StockPerWarehouse, func(i int64) { emit(Int(w), Int(i)) })
	case tpcc.HistoryTable.Name:
		each(districts, func(d int64) {
			each(customers, func(c int64) { emit(Int(w), Int(d), Int(w), Int(d), Int(c), Int(1000)) })
		})
	case tpcc.OrdersTable.Name:
		each(districts, func(d int64) {
			each(orders, func(o int64) {
				carrier := Null
				if o < firstNew {
					carrier = Int(1 + o%10)
				}
				emit(Int(w), Int(d), Int(o), Int(o), carrier, Int(lines))
			})
		})
	case tpcc.NewOrderTable.Name:
		each(districts, func(d int64) {
			for o := int64(orders); o >= firstNew && err == nil; o-- {
				emit(Int(w), Int(d), Int(o))
			}
		})
	case tpcc.OrderLineTable.Name:
		each(districts, func(d int64) {
			each(orders, func(o int64) {
				each(lines, func(n int64) {
					if o < firstNew {
						emit(Int(w), Int(d), Int(o), Int(n), Int(loadedAt), Int(0))
					} else {
						emit(Int(w), Int(d), Int(o), Int(n), Null, Int(111*n))
					}
				})
			})
		})
	}
	return err
}

// edit changes the rows of table whose leading columns are key: sets column to value or, without
// a column, deletes them.
type edit struct {
	table  string
	key    []int64
	column string
	value  Value
}

func set(table, column string, value Value, key ...int64) edit {
	return edit{table: table, key: key, column: column, value: value}
}

func del(table string, key ...int64) edit { return edit{table: table, key: key} }

func (e edit) matches(table string, row []Value) bool {
	if e.table != table {
		return false
	}
	for i, k := range e.key {
		if row[i].null || row[i].v != k {
			return false
		}
	}
	return true
}

// database is warehouses 1..warehouses as the load left them, with the edits and added rows of
// what ran since (a workload's transactions, a corruption). It serves Reads as a database does:
// the rows whose bound column is within the range, reusing one row buffer as the YDB driver does.
type database struct {
	warehouses int64
	edits      []edit
	added      map[string][][]Value
}

func (db *database) scan(_ context.Context, r Read, from, to int, row func([]Value) error) error {
	table := r.Table.Name
	pick := make([]int, len(r.Columns))
	for i, c := range r.Columns {
		pick[i] = columnIndex(table, c)
	}
	bound := columnIndex(table, r.Bound)
	type group struct {
		key [8]Value
		n   int64
	}
	var groups []group // of a Count read, in the order first seen
	out := make([]Value, 0, len(pick)+1)
	serve := func(stored ...Value) error {
		v, copied := stored, false
		for _, e := range db.edits {
			if !e.matches(table, stored) {
				continue
			}
			if e.column == "" {
				return nil
			}
			if !copied {
				v, copied = slices.Clone(stored), true
			}
			v[columnIndex(table, e.column)] = e.value
		}
		if b := v[bound]; b.null || b.v < int64(from) || b.v > int64(to) {
			return nil
		}
		out = out[:0]
		for _, i := range pick {
			out = append(out, v[i])
		}
		if !r.Count {
			return row(out)
		}
		var k [8]Value
		copy(k[:], out)
		for i := len(groups) - 1; i >= 0; i-- {
			if groups[i].key == k {
				groups[i].n++
				return nil
			}
		}
		groups = append(groups, group{key: k, n: 1})
		return nil
	}
	// A loaded row of warehouse w has w in every warehouse column (the edits change none), so
	// only the range's warehouses can have rows in it.
	for w := min(db.warehouses, int64(to)); w >= max(1, int64(from)); w-- {
		if err := loaded(table, w, serve); err != nil {
			return err
		}
	}
	for _, a := range db.added[table] {
		if err := serve(a...); err != nil {
			return err
		}
	}
	for _, g := range groups {
		if err := row(append(g.key[:len(pick):len(pick)], Int(g.n))); err != nil {
			return err
		}
	}
	return nil
}

func (db *database) snapshot(ctx context.Context, f func(context.Context, Scan) error) error {
	return f(ctx, db.scan)
}

// results are the conditions as tpcc.Check hands them to a chunk: 3.3.2.11 skipped unless the
// check runs at load time.
func results(loadTime bool) []tpcc.CheckResult {
	out := make([]tpcc.CheckResult, len(tpcc.Conditions))
	for i, c := range tpcc.Conditions {
		out[i] = tpcc.CheckResult{Condition: c, Skipped: c.LoadOnly && !loadTime}
	}
	return out
}

func ints(v ...int64) []Value {
	out := make([]Value, len(v))
	for i, x := range v {
		out[i] = Int(x)
	}
	return out
}

func TestChunkRows(t *testing.T) {
	const (
		warehouse = "warehouse"
		district  = "district"
		customer  = "customer"
		stock     = "stock"
		history   = "history"
		orders    = "orders"
		newOrder  = "new_order"
		orderLine = "order_line"
	)
	// A Delivery of order 2101 of district 1 of warehouse 1 (customer 2101, lines of 1.11 … 5.55,
	// 16.65 in all) and a Payment of 5.00 by customer 5 of district 4 of warehouse 2, as the
	// workload makes them.
	deliveryAndPayment := []edit{
		set(orders, "o_carrier_id", Int(7), 1, 1, 2101),
		del(newOrder, 1, 1, 2101),
		set(orderLine, "ol_delivery_d", Int(loadedAt+60_000_000), 1, 1, 2101),
		set(customer, "c_balance", Int(-1000+1665), 1, 1, 2101),
		set(warehouse, "w_ytd", Int(30_000_500), 2),
		set(district, "d_ytd", Int(3_000_500), 2, 4),
		set(customer, "c_balance", Int(-1500), 2, 4, 5),
		set(customer, "c_ytd_payment", Int(1500), 2, 4, 5),
	}
	paymentHistory := map[string][][]Value{history: {ints(2, 4, 2, 4, 5, 500)}}
	// A Payment of 5.00 by customer 5 of district 4 of warehouse 3 through district 6 of
	// warehouse 2: its history row is warehouse 2's by h_w_id, warehouse 3's by h_c_w_id.
	remotePayment := []edit{
		set(warehouse, "w_ytd", Int(30_000_500), 2),
		set(district, "d_ytd", Int(3_000_500), 2, 6),
		set(customer, "c_balance", Int(-1500), 3, 4, 5),
		set(customer, "c_ytd_payment", Int(1500), 3, 4, 5),
	}
	remoteHistory := map[string][][]Value{history: {ints(2, 6, 3, 4, 5, 500)}}
	for _, tc := range []struct {
		name     string
		db       database
		from, to int
		loadTime bool
		// want is the first offender by condition ID; every other condition passes.
		want map[string]string
	}{
		{name: "as loaded: every condition holds", db: database{warehouses: 2}, from: 1, to: 2, loadTime: true},
		{name: "one warehouse of several", db: database{warehouses: 3}, from: 2, to: 2, loadTime: true},
		{
			name: "one d_ytd off by a cent",
			db:   database{warehouses: 2, edits: []edit{set(district, "d_ytd", Int(3_000_001), 2, 7)}}, from: 1, to: 2,
			want: map[string]string{
				"3.3.2.1": "w_id=2 w_ytd=300000.00 sum_d_ytd=300000.01",
				"3.3.2.9": "d_w_id=2 d_id=7 d_ytd=30000.01 sum_h_amount=30000.00",
			},
		},
		{
			// Lines come in descending order: the smallest key is kept, not the first seen.
			name: "an order delivered without its new_order row deleted",
			db:   database{warehouses: 2, edits: []edit{set(orders, "o_carrier_id", Int(3), 1, 4, 2500)}}, from: 1, to: 2,
			want: map[string]string{
				"3.3.2.5": "o_w_id=1 o_d_id=4 o_id=2500 o_carrier_id=3 new_order_o_id=2500",
				"3.3.2.7": "ol_w_id=1 ol_d_id=4 ol_o_id=2500 ol_number=1 ol_delivery_d=NULL o_carrier_id=3",
			},
		},
		{
			name: "a line delivered of an order not delivered",
			db:   database{warehouses: 1, edits: []edit{set(orderLine, "ol_delivery_d", Int(loadedAt), 1, 9, 2999, 4)}}, from: 1, to: 1,
			want: map[string]string{
				"3.3.2.7": "ol_w_id=1 ol_d_id=9 ol_o_id=2999 ol_number=4 ol_delivery_d=2023-11-14T22:13:20Z o_carrier_id=NULL",
				// Its amount, 4.44, now counts as delivered to customer 2999.
				"3.3.2.10": "c_w_id=1 c_d_id=9 c_id=2999 c_balance=-10.00 delivered_minus_paid=-5.56",
				"3.3.2.12": "c_w_id=1 c_d_id=9 c_id=2999 balance_plus_ytd_payment=0.00 delivered_amount=4.44",
			},
		},
		{
			name: "a customer's balance",
			db:   database{warehouses: 2, edits: []edit{set(customer, "c_balance", Int(-999), 1, 2, 3)}}, from: 1, to: 2,
			want: map[string]string{
				"3.3.2.10": "c_w_id=1 c_d_id=2 c_id=3 c_balance=-9.99 delivered_minus_paid=-10.00",
				"3.3.2.12": "c_w_id=1 c_d_id=2 c_id=3 balance_plus_ytd_payment=0.01 delivered_amount=0.00",
			},
		},
		{
			name: "a NULL balance counts as 0",
			db:   database{warehouses: 1, edits: []edit{set(customer, "c_balance", Null, 1, 2, 3)}}, from: 1, to: 1,
			want: map[string]string{
				"3.3.2.10": "c_w_id=1 c_d_id=2 c_id=3 c_balance=0.00 delivered_minus_paid=-10.00",
				"3.3.2.12": "c_w_id=1 c_d_id=2 c_id=3 balance_plus_ytd_payment=10.00 delivered_amount=0.00",
			},
		},
		{
			name: "an order line lost",
			db:   database{warehouses: 2, edits: []edit{del(orderLine, 2, 1, 10, 1)}}, from: 1, to: 2,
			want: map[string]string{
				"3.3.2.4": "o_w_id=2 o_d_id=1 sum_o_ol_cnt=15000 order_lines=14999",
				"3.3.2.6": "o_w_id=2 o_d_id=1 o_id=10 o_ol_cnt=5 order_lines=4",
			},
		},
		{
			name: "an order line without its order",
			db:   database{warehouses: 1, added: map[string][][]Value{orderLine: {append(ints(1, 2, 3001, 1), Null, Int(100))}}}, from: 1, to: 1,
			want: map[string]string{"3.3.2.4": "o_w_id=1 o_d_id=2 sum_o_ol_cnt=15000 order_lines=15001"},
		},
		{
			name: "d_next_o_id behind the orders",
			db:   database{warehouses: 2, edits: []edit{set(district, "d_next_o_id", Int(3000), 1, 5)}}, from: 1, to: 2,
			want: map[string]string{"3.3.2.2": "d_w_id=1 d_id=5 d_next_o_id_minus_1=2999 max_o_id=3000 max_no_o_id=3000"},
		},
		{
			name: "a new_order row without its order",
			db:   database{warehouses: 1, added: map[string][][]Value{newOrder: {ints(1, 2, 3001)}}}, from: 1, to: 1, loadTime: true,
			want: map[string]string{
				"3.3.2.2":  "d_w_id=1 d_id=2 d_next_o_id_minus_1=3000 max_o_id=3000 max_no_o_id=3001",
				"3.3.2.11": "o_w_id=1 o_d_id=2 orders=3000 new_orders=901",
			},
		},
		{
			name: "a hole in new_order",
			db:   database{warehouses: 2, edits: []edit{del(newOrder, 1, 3, 2500)}}, from: 1, to: 2, loadTime: true,
			want: map[string]string{
				"3.3.2.3":  "no_w_id=1 no_d_id=3 id_span=900 new_orders=899",
				"3.3.2.5":  "o_w_id=1 o_d_id=3 o_id=2500 o_carrier_id=NULL new_order_o_id=NULL",
				"3.3.2.11": "o_w_id=1 o_d_id=3 orders=3000 new_orders=899",
			},
		},
		{
			name: "a NULL w_ytd",
			db:   database{warehouses: 2, edits: []edit{set(warehouse, "w_ytd", Null, 2)}}, from: 1, to: 2,
			want: map[string]string{
				"3.3.2.1": "w_id=2 w_ytd=NULL sum_d_ytd=300000.00",
				"3.3.2.8": "w_id=2 w_ytd=NULL sum_h_amount=300000.00",
			},
		},
		{
			name: "a stock row missing",
			db:   database{warehouses: 2, edits: []edit{del(stock, 2, 77)}}, from: 1, to: 2,
			want: map[string]string{"cardinality": "w_id=2 districts=10 customers=30000 stock=99999 orders=30000 history=30000"},
		},
		{
			name: "a district missing",
			db:   database{warehouses: 1, edits: []edit{del(district, 1, 10)}}, from: 1, to: 1,
			want: map[string]string{
				"cardinality": "w_id=1 districts=9 customers=30000 stock=100000 orders=30000 history=30000",
				"3.3.2.1":     "w_id=1 w_ytd=300000.00 sum_d_ytd=270000.00",
			},
		},
		{
			name: "the first offender is the smallest key",
			db: database{warehouses: 2, edits: []edit{set(district, "d_ytd", Int(3_000_001), 2, 7),
				set(district, "d_ytd", Int(3_000_001), 1, 9), set(district, "d_ytd", Int(3_000_001), 2, 3)}}, from: 1, to: 2,
			want: map[string]string{
				"3.3.2.1": "w_id=1 w_ytd=300000.00 sum_d_ytd=300000.01",
				"3.3.2.9": "d_w_id=1 d_id=9 d_ytd=30000.01 sum_h_amount=30000.00",
			},
		},
		{
			// h_d_id is no key column: the row counts for its warehouse, not for a district.
			name: "a history row without its district",
			db:   database{warehouses: 1, edits: []edit{set(history, "h_d_id", Null, 1, 6, 1, 6, 1)}}, from: 1, to: 1,
			want: map[string]string{"3.3.2.9": "d_w_id=1 d_id=6 d_ytd=30000.00 sum_h_amount=29990.00"},
		},
		{
			name: "a delivery and a payment: only 3.3.2.11 fails, at load time",
			db:   database{warehouses: 2, edits: deliveryAndPayment, added: paymentHistory}, from: 1, to: 2, loadTime: true,
			want: map[string]string{"3.3.2.11": "o_w_id=1 o_d_id=1 orders=3000 new_orders=899"},
		},
		{
			name: "a delivery and a payment: consistent",
			db:   database{warehouses: 2, edits: deliveryAndPayment, added: paymentHistory}, from: 1, to: 2,
		},
		{name: "a remote payment, the paying warehouse's chunk", db: database{warehouses: 3, edits: remotePayment, added: remoteHistory}, from: 2, to: 2, loadTime: true},
		{name: "a remote payment, the customer's chunk", db: database{warehouses: 3, edits: remotePayment, added: remoteHistory}, from: 3, to: 3, loadTime: true},
		{name: "a remote payment, one chunk", db: database{warehouses: 3, edits: remotePayment, added: remoteHistory}, from: 1, to: 3, loadTime: true},
		{
			name: "a warehouse outside the chunk is not read",
			db:   database{warehouses: 3, edits: []edit{set(warehouse, "w_ytd", Int(30_000_100), 1)}}, from: 2, to: 3,
		},
		{
			name: "the same warehouse in its chunk",
			db:   database{warehouses: 3, edits: []edit{set(warehouse, "w_ytd", Int(30_000_100), 1)}}, from: 1, to: 1,
			want: map[string]string{
				"3.3.2.1": "w_id=1 w_ytd=300001.00 sum_d_ytd=300000.00",
				"3.3.2.8": "w_id=1 w_ytd=300001.00 sum_h_amount=300000.00",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for id := range tc.want {
				if !slices.ContainsFunc(tpcc.Conditions, func(c tpcc.Condition) bool { return c.ID == id }) {
					t.Fatalf("no condition %s", id)
				}
			}
			rs := results(tc.loadTime)
			found, err := ChunkRows(context.Background(), tc.db.snapshot, rs, tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != len(tpcc.Conditions) {
				t.Fatalf("%d findings, want %d", len(found), len(tpcc.Conditions))
			}
			for i, c := range tpcc.Conditions {
				if rs[i].Skipped {
					if found[i] != (tpcc.ChunkFinding{}) {
						t.Errorf("%s was skipped but has a finding: %+v", c.ID, found[i])
					}
					continue
				}
				if found[i].Detail != tc.want[c.ID] {
					t.Errorf("%s: %q, want %q", c.ID, found[i].Detail, tc.want[c.ID])
				}
			}
		})
	}
}

func TestChunkRowsErrors(t *testing.T) {
	errBoom := errors.New("boom")
	intact := &database{warehouses: 1}
	for _, tc := range []struct {
		name     string
		snapshot Snapshot
		want     string
		is       error
	}{
		{
			name:     "a NULL key column",
			snapshot: (&database{warehouses: 1, edits: []edit{set("order_line", "ol_number", Null, 1, 2, 3, 4)}}).snapshot,
			want:     "read order_line: order_line.ol_number is NULL",
		},
		{
			name:     "a NULL district of a district row",
			snapshot: (&database{warehouses: 1, edits: []edit{set("district", "d_id", Null, 1, 5)}}).snapshot,
			want:     "read district: district.d_id is NULL",
		},
		{
			name: "a scan that fails",
			snapshot: func(ctx context.Context, f func(context.Context, Scan) error) error {
				return f(ctx, func(ctx context.Context, r Read, from, to int, row func([]Value) error) error {
					if r.Table.Name == "new_order" {
						return errBoom
					}
					return intact.scan(ctx, r, from, to, row)
				})
			},
			want: "read new_order: boom", is: errBoom,
		},
		{
			name: "a snapshot that cannot begin",
			snapshot: func(context.Context, func(context.Context, Scan) error) error {
				return errBoom
			},
			want: "boom", is: errBoom,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, err := ChunkRows(context.Background(), tc.snapshot, results(true), 1, 1)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
			if found != nil {
				t.Errorf("findings %v with the error", found)
			}
		})
	}
}

// An engine that retries the snapshot's transaction runs the evaluation again from the start:
// nothing of the failed attempt's rows remains.
func TestChunkRowsRetriedSnapshot(t *testing.T) {
	errAborted := errors.New("transaction aborted")
	corrupt := &database{warehouses: 1, edits: []edit{set("district", "d_ytd", Int(3_000_001), 1, 7)}}
	clean := &database{warehouses: 1}
	attempts := 0
	snapshot := func(ctx context.Context, f func(context.Context, Scan) error) error {
		for {
			attempts++
			scan := clean.scan
			if attempts == 1 {
				// The first attempt reads other data, then aborts before its last read.
				scan = func(ctx context.Context, r Read, from, to int, row func([]Value) error) error {
					if r.Table.Name == "order_line" {
						return errAborted
					}
					return corrupt.scan(ctx, r, from, to, row)
				}
			}
			if err := f(ctx, scan); !errors.Is(err, errAborted) {
				return err
			}
		}
	}
	found, err := ChunkRows(context.Background(), snapshot, results(true), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if attempts != 2 {
		t.Errorf("%d attempts, want 2", attempts)
	}
	for i, c := range tpcc.Conditions {
		if found[i].Detail != "" {
			t.Errorf("%s: %q after the retry, want no offender", c.ID, found[i].Detail)
		}
	}
}

// Each condition that ran gets an equal share of the chunk's time, snapshot included; a skipped
// one gets none.
func TestChunkRowsElapsed(t *testing.T) {
	const wait = 24 * time.Millisecond
	db := &database{warehouses: 1}
	slow := func(ctx context.Context, f func(context.Context, Scan) error) error {
		time.Sleep(wait)
		return db.snapshot(ctx, f)
	}
	rs := results(false)
	ran := 0
	for _, r := range rs {
		if !r.Skipped {
			ran++
		}
	}
	start := time.Now()
	found, err := ChunkRows(context.Background(), slow, rs, 1, 1)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	share := found[0].Elapsed
	if share < wait/time.Duration(ran) || share > took/time.Duration(ran) {
		t.Errorf("share %v, want between %v and %v (%d conditions ran in %v)", share, wait/time.Duration(ran), took/time.Duration(ran), ran, took)
	}
	for i, c := range tpcc.Conditions {
		switch {
		case rs[i].Skipped && found[i] != (tpcc.ChunkFinding{}):
			t.Errorf("%s skipped: %+v, want no finding", c.ID, found[i])
		case !rs[i].Skipped && found[i].Elapsed != share:
			t.Errorf("%s: %v, want the share %v", c.ID, found[i].Elapsed, share)
		}
	}

	none := results(false)
	for i := range none {
		none[i].Skipped = true
	}
	found, err = ChunkRows(context.Background(), db.snapshot, none, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range found {
		if f != (tpcc.ChunkFinding{}) {
			t.Errorf("nothing ran, but %s has %+v", tpcc.Conditions[i].ID, f)
		}
	}
}

func TestReads(t *testing.T) {
	at := map[string]int{}
	for i, r := range Reads {
		if len(r.Columns) == 0 || r.Columns[0] != r.Bound {
			t.Errorf("read %d of %s: bound %q is not its first column %v", i, r.Table.Name, r.Bound, r.Columns)
		}
		for _, c := range r.Columns {
			if got := r.Column(c); got.Name != c {
				t.Errorf("read %d: Column(%q) = %q", i, c, got.Name)
			}
		}
		if r.Count != (r.Table.Name == tpcc.StockTable.Name) {
			t.Errorf("read %d of %s: Count %v, want counts of stock alone", i, r.Table.Name, r.Count)
		}
		if _, ok := at[r.Table.Name]; !ok {
			at[r.Table.Name] = i
		}
	}
	for _, table := range []string{"warehouse", "district", "customer", "stock", "history", "orders", "new_order", "order_line"} {
		if _, ok := at[table]; !ok {
			t.Errorf("no read of %s", table)
		}
	}
	if at["warehouse"] > at["district"] || at["orders"] > at["new_order"] || at["orders"] > at["order_line"] {
		t.Errorf("reads in the order %v: warehouse must come before district, orders before new_order and order_line", at)
	}
	var bounds []string
	for _, r := range Reads {
		if r.Table.Name == tpcc.HistoryTable.Name {
			bounds = append(bounds, r.Bound)
		}
	}
	if !slices.Equal(bounds, []string{"h_w_id", "h_c_w_id"}) {
		t.Errorf("history is read by %v, want by its warehouse and by its customer's", bounds)
	}
}

func TestReadColumnUnknown(t *testing.T) {
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, "no column c_zip in warehouse") {
			t.Errorf("panic %v, want one naming the column and the table", r)
		}
	}()
	Reads[0].Column("c_zip")
	t.Error("Column of a column the table lacks returned")
}

func TestDistinct(t *testing.T) {
	for _, tc := range []struct {
		a, b Value
		want bool
	}{
		{Null, Null, false},
		{Int(0), Null, true},
		{Null, Int(0), true},
		{Int(3), Int(3), false},
		{Int(3), Int(4), true},
		{Int(-1), Int(1), true},
	} {
		if got := distinct(tc.a, tc.b); got != tc.want {
			t.Errorf("distinct(%+v, %+v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestAggregates(t *testing.T) {
	for _, tc := range []struct {
		name          string
		values        []Value
		sum, max, min Value
	}{
		{"no rows", nil, Null, Null, Null},
		{"only NULLs", []Value{Null, Null}, Null, Null, Null},
		{"NULLs ignored", []Value{Null, Int(5), Null, Int(-2), Int(4)}, Int(7), Int(5), Int(-2)},
		{"a zero is a value", []Value{Int(0)}, Int(0), Int(0), Int(0)},
		{"equal values", []Value{Int(3), Int(3)}, Int(6), Int(3), Int(3)},
	} {
		sum, hi, lo := Null, Null, Null
		for _, v := range tc.values {
			addTo(&sum, v)
			maxOf(&hi, v)
			minOf(&lo, v)
		}
		if sum != tc.sum || hi != tc.max || lo != tc.min {
			t.Errorf("%s: sum %+v max %+v min %+v, want %+v %+v %+v", tc.name, sum, hi, lo, tc.sum, tc.max, tc.min)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want Value
	}{{0, Null}, {1, Int(1)}, {30000, Int(30000)}} {
		if got := count(tc.n); got != tc.want {
			t.Errorf("count(%d) = %+v, want %+v", tc.n, got, tc.want)
		}
	}
}

func TestDetails(t *testing.T) {
	for _, tc := range []struct {
		pairs []any
		want  string
	}{
		{nil, ""},
		{[]any{"w_id", Int(2)}, "w_id=2"},
		{[]any{"w_id", Int(2), "w_ytd", money(Int(30_000_001)), "sum_d_ytd", money(Null)}, "w_id=2 w_ytd=300000.01 sum_d_ytd=NULL"},
		{[]any{"c_balance", money(Int(-999)), "n", Int(-3)}, "c_balance=-9.99 n=-3"},
		{[]any{"a", money(Int(5)), "b", money(Int(0)), "c", money(Int(-5))}, "a=0.05 b=0.00 c=-0.05"},
		{[]any{"o_carrier_id", Null}, "o_carrier_id=NULL"},
		{[]any{"ol_delivery_d", timestamp(Int(1_700_000_000_123_456))}, "ol_delivery_d=2023-11-14T22:13:20.123456Z"},
		{[]any{"ol_delivery_d", timestamp(Int(loadedAt))}, "ol_delivery_d=2023-11-14T22:13:20Z"},
		{[]any{"ol_delivery_d", timestamp(Null)}, "ol_delivery_d=NULL"},
		{[]any{"w_id", Int(1), "dangling"}, "w_id=1"},
	} {
		if got := details(tc.pairs...); got != tc.want {
			t.Errorf("details(%v) = %q, want %q", tc.pairs, got, tc.want)
		}
	}
}

func TestOffenderConsider(t *testing.T) {
	for _, tc := range []struct {
		name       string
		keys       [][]int
		wantKey    []int
		wantDetail string
		// wantCalls is how many details were rendered: only those of a new first offender.
		wantCalls int
	}{
		{"none", nil, nil, "", 0},
		{"one", [][]int{{2, 7}}, []int{2, 7}, "2,7", 1},
		{"a smaller warehouse wins over a smaller district", [][]int{{2, 3}, {1, 9}}, []int{1, 9}, "1,9", 2},
		{"a larger key is not rendered", [][]int{{1, 9}, {2, 3}, {1, 10}}, []int{1, 9}, "1,9", 1},
		{"an equal key keeps the first", [][]int{{1, 9, 4}, {1, 9, 4}}, []int{1, 9, 4}, "1,9,4", 1},
		{"a shorter prefix is smaller", [][]int{{1, 9, 4}, {1, 9}}, []int{1, 9}, "1,9", 2},
		{"descending", [][]int{{3}, {2}, {1}}, []int{1}, "1", 3},
	} {
		var o offender
		calls := 0
		for _, k := range tc.keys {
			key := slices.Clone(k)
			o.consider(key, func() string {
				calls++
				s := make([]string, len(k))
				for i, x := range k {
					s[i] = strconv.Itoa(x)
				}
				return strings.Join(s, ",")
			})
			key[0] = -1 // the caller may reuse its key
		}
		if !slices.Equal(o.key, tc.wantKey) || o.detail != tc.wantDetail || calls != tc.wantCalls {
			t.Errorf("%s: key %v detail %q after %d renderings, want %v %q after %d", tc.name, o.key, o.detail, calls, tc.wantKey, tc.wantDetail, tc.wantCalls)
		}
	}
}
