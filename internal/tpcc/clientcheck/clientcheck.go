// Package clientcheck evaluates TPC-C's consistency conditions (Clause 3.3.2) in the client, for
// a driver whose query language does not express them: a chunk's rows are read by simple range
// scans inside one snapshot (Reads), and every condition is computed from them (ChunkRows).
package clientcheck

import (
	"context"
	"fmt"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The consistency conditions evaluated in the client, for a driver whose query language does not
// express them (ChunkRows). A chunk's rows are read by simple range scans (Reads) inside
// one snapshot, and every condition of Clause 3.3.2 is computed from them with exact integer
// arithmetic (money in cents). The findings name the same places and values, with the same
// names, as the conditions a driver evaluates in SQL, so reports read alike for every engine.

// Read is one range scan of a chunk: Columns of Table where Bound is in [from, to]; with
// Count, one row per distinct Columns value with its row count appended. A Bound that does not
// lead the table's key is read through the secondary index Index, which it leads (an engine that
// picks no index by itself names it), so that no chunk scans the whole table.
type Read struct {
	Table   tpcc.Table
	Columns []string
	Bound   string
	Count   bool
	Index   string
}

// Reads lists the scans of a chunk in the order the evaluator needs them (orders before
// new_order and order_line, which are matched against them).
var Reads = []Read{
	{Table: tpcc.WarehouseTable, Columns: []string{"w_id", "w_ytd"}, Bound: "w_id"},
	{Table: tpcc.DistrictTable, Columns: []string{"d_w_id", "d_id", "d_ytd", "d_next_o_id"}, Bound: "d_w_id"},
	{Table: tpcc.CustomerTable, Columns: []string{"c_w_id", "c_d_id", "c_id", "c_balance", "c_ytd_payment"}, Bound: "c_w_id"},
	{Table: tpcc.StockTable, Columns: []string{"s_w_id"}, Bound: "s_w_id", Count: true},
	{Table: tpcc.HistoryTable, Columns: []string{"h_w_id", "h_d_id", "h_amount"}, Bound: "h_w_id"},
	{Table: tpcc.HistoryTable, Columns: []string{"h_c_w_id", "h_c_d_id", "h_c_id", "h_amount"}, Bound: "h_c_w_id", Index: tpcc.HistoryCustomerIndex.Name},
	{Table: tpcc.OrdersTable, Columns: []string{"o_w_id", "o_d_id", "o_id", "o_c_id", "o_carrier_id", "o_ol_cnt"}, Bound: "o_w_id"},
	{Table: tpcc.NewOrderTable, Columns: []string{"no_w_id", "no_d_id", "no_o_id"}, Bound: "no_w_id"},
	{Table: tpcc.OrderLineTable, Columns: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number", "ol_delivery_d", "ol_amount"}, Bound: "ol_w_id"},
}

// Column returns the named column of the read's table.
func (r Read) Column(name string) tpcc.Column {
	for _, c := range r.Table.Columns {
		if c.Name == name {
			return c
		}
	}
	panic("tpcc: no column " + name + " in " + r.Table.Name)
}

// Value is one scanned value: integers as they are, money in cents, timestamps in Unix
// microseconds, counts as integers.
type Value struct {
	v    int64
	null bool
}

// Int is a scanned value that is not NULL.
func Int(v int64) Value { return Value{v: v} }

// Null is a scanned NULL.
var Null = Value{null: true}

// distinct is SQL's IS DISTINCT FROM.
func distinct(a, b Value) bool { return a.null != b.null || (!a.null && a.v != b.v) }

// Scan runs one read over [from, to] and calls row with each result row's values, in the
// read's column order (plus the count).
type Scan func(ctx context.Context, r Read, from, to int, row func([]Value) error) error

// offender keeps the first offending place of one condition: the smallest key.
type offender struct {
	key    []int
	detail string
}

func (o *offender) consider(key []int, detail func() string) {
	if o.key == nil || slices.Compare(key, o.key) < 0 {
		o.key, o.detail = slices.Clone(key), detail()
	}
}

type (
	warehouseRows struct {
		ytd                                             Value
		sumDistrictYTD, sumHistory                      Value // null while no row
		districts, customers, stock, orders, historyByW int64
	}
	districtRows struct {
		ytd, nextOrderID Value
		exists           bool
		maxOrderID       Value
		orders           int64
		sumLineCounts    Value // sum(o_ol_cnt); null while no order
		lines            int64
		newOrders        int64
		minNewOrder      Value
		maxNewOrder      Value
		sumHistory       Value
	}
	orderRows struct {
		customerID int64
		carrier    Value
		lineCount  Value
		newOrderID Value // no_o_id of its new_order row, or null
		lines      int64
	}
	customerRows struct {
		balance, ytdPayment, delivered, paid int64
	}
)

// checkEvaluation accumulates the rows of one chunk [from, to].
type checkEvaluation struct {
	from, to   int
	warehouses map[int]*warehouseRows // only warehouses with a row
	districts  map[[2]int]*districtRows
	orders     map[[3]int]*orderRows
	customers  map[[3]int]*customerRows
	// 3.3.2.7 is judged line by line while order_line is scanned.
	lineOffender offender
}

func newCheckEvaluation(from, to int) *checkEvaluation {
	return &checkEvaluation{from: from, to: to, warehouses: map[int]*warehouseRows{}, districts: map[[2]int]*districtRows{},
		orders: map[[3]int]*orderRows{}, customers: map[[3]int]*customerRows{}}
}

func (e *checkEvaluation) inRange(w int64) bool { return w >= int64(e.from) && w <= int64(e.to) }

func (e *checkEvaluation) district(w, d int64) *districtRows {
	k := [2]int{int(w), int(d)}
	x := e.districts[k]
	if x == nil {
		x = &districtRows{sumLineCounts: Null, maxOrderID: Null, minNewOrder: Null, maxNewOrder: Null, sumHistory: Null}
		e.districts[k] = x
	}
	return x
}

func (e *checkEvaluation) customer(w, d, c int64) *customerRows {
	k := [3]int{int(w), int(d), int(c)}
	x := e.customers[k]
	if x == nil {
		x = &customerRows{}
		e.customers[k] = x
	}
	return x
}

func addTo(sum *Value, v Value) {
	if v.null {
		return // SQL's sum ignores NULLs
	}
	if sum.null {
		*sum = Int(0)
	}
	sum.v += v.v
}

func maxOf(m *Value, v Value) {
	if !v.null && (m.null || v.v > m.v) {
		*m = v
	}
}

func minOf(m *Value, v Value) {
	if !v.null && (m.null || v.v < m.v) {
		*m = v
	}
}

// add takes one row of read r (the index into Reads).
func (e *checkEvaluation) add(r int, v []Value) error {
	for i, c := range Reads[r].Columns {
		if v[i].null && tpcc.IsKeyColumn(Reads[r].Table, c) {
			return fmt.Errorf("%s.%s is NULL", Reads[r].Table.Name, c)
		}
	}
	switch r {
	case 0: // warehouse
		e.warehouses[int(v[0].v)] = &warehouseRows{ytd: v[1], sumDistrictYTD: Null, sumHistory: Null}
	case 1: // district
		d := e.district(v[0].v, v[1].v)
		d.exists, d.ytd, d.nextOrderID = true, v[2], v[3]
		if w := e.warehouses[int(v[0].v)]; w != nil {
			w.districts++
			addTo(&w.sumDistrictYTD, v[2])
		}
	case 2: // customer
		if w := e.warehouses[int(v[0].v)]; w != nil {
			w.customers++
		}
		c := e.customer(v[0].v, v[1].v, v[2].v)
		c.balance += v[3].v // NULL money counts as 0, as in SQL's sum over the union
		c.ytdPayment += v[4].v
	case 3: // stock counts
		if w := e.warehouses[int(v[0].v)]; w != nil {
			w.stock = v[1].v
		}
	case 4: // history by its own warehouse and district
		if w := e.warehouses[int(v[0].v)]; w != nil {
			w.historyByW++
			addTo(&w.sumHistory, v[2])
		}
		if !v[1].null {
			addTo(&e.district(v[0].v, v[1].v).sumHistory, v[2])
		}
	case 5: // history by the paying customer
		if !v[0].null && !v[1].null && !v[2].null && e.inRange(v[0].v) {
			e.customer(v[0].v, v[1].v, v[2].v).paid += v[3].v
		}
	case 6: // orders
		e.orders[[3]int{int(v[0].v), int(v[1].v), int(v[2].v)}] = &orderRows{customerID: v[3].v, carrier: v[4], lineCount: v[5], newOrderID: Null}
		if w := e.warehouses[int(v[0].v)]; w != nil {
			w.orders++
		}
		d := e.district(v[0].v, v[1].v)
		d.orders++
		maxOf(&d.maxOrderID, v[2])
		addTo(&d.sumLineCounts, v[5])
	case 7: // new_order
		d := e.district(v[0].v, v[1].v)
		d.newOrders++
		minOf(&d.minNewOrder, v[2])
		maxOf(&d.maxNewOrder, v[2])
		if o := e.orders[[3]int{int(v[0].v), int(v[1].v), int(v[2].v)}]; o != nil {
			o.newOrderID = v[2]
		}
	case 8: // order_line
		e.district(v[0].v, v[1].v).lines++
		o := e.orders[[3]int{int(v[0].v), int(v[1].v), int(v[2].v)}]
		if o == nil {
			return nil
		}
		o.lines++
		delivery := v[4]
		if delivery.null != o.carrier.null {
			e.lineOffender.consider([]int{int(v[0].v), int(v[1].v), int(v[2].v), int(v[3].v)}, func() string {
				return details("ol_w_id", v[0], "ol_d_id", v[1], "ol_o_id", v[2], "ol_number", v[3],
					"ol_delivery_d", timestamp(delivery), "o_carrier_id", o.carrier)
			})
		}
		if !delivery.null && !v[5].null {
			e.customer(v[0].v, v[1].v, o.customerID).delivered += v[5].v
		}
	}
	return nil
}

// findings returns the first offender of every condition (by Conditions index; "" when none).
func (e *checkEvaluation) findings() []string {
	byID := map[string]*offender{}
	for _, c := range tpcc.Conditions {
		byID[c.ID] = &offender{}
	}
	for w, x := range e.warehouses {
		key := []int{w}
		if x.districts != 10 || x.customers != 30000 || x.stock != 100000 || x.orders < 30000 || x.historyByW < 30000 {
			byID["cardinality"].consider(key, func() string {
				return details("w_id", Int(int64(w)), "districts", count(x.districts), "customers", count(x.customers),
					"stock", count(x.stock), "orders", count(x.orders), "history", count(x.historyByW))
			})
		}
		if distinct(x.ytd, x.sumDistrictYTD) {
			byID["3.3.2.1"].consider(key, func() string {
				return details("w_id", Int(int64(w)), "w_ytd", money(x.ytd), "sum_d_ytd", money(x.sumDistrictYTD))
			})
		}
		if distinct(x.ytd, x.sumHistory) {
			byID["3.3.2.8"].consider(key, func() string {
				return details("w_id", Int(int64(w)), "w_ytd", money(x.ytd), "sum_h_amount", money(x.sumHistory))
			})
		}
	}
	for k, d := range e.districts {
		key := []int{k[0], k[1]}
		w, id := Int(int64(k[0])), Int(int64(k[1]))
		if d.exists && e.inRange(int64(k[0])) {
			next := d.nextOrderID
			if !next.null {
				next.v--
			}
			if distinct(next, d.maxOrderID) || (!d.maxNewOrder.null && distinct(d.maxNewOrder, next)) {
				byID["3.3.2.2"].consider(key, func() string {
					return details("d_w_id", w, "d_id", id, "d_next_o_id_minus_1", next, "max_o_id", d.maxOrderID, "max_no_o_id", d.maxNewOrder)
				})
			}
			if distinct(d.ytd, d.sumHistory) {
				byID["3.3.2.9"].consider(key, func() string {
					return details("d_w_id", w, "d_id", id, "d_ytd", money(d.ytd), "sum_h_amount", money(d.sumHistory))
				})
			}
		}
		if d.newOrders > 0 && d.maxNewOrder.v-d.minNewOrder.v+1 != d.newOrders {
			byID["3.3.2.3"].consider(key, func() string {
				return details("no_w_id", w, "no_d_id", id, "id_span", Int(d.maxNewOrder.v-d.minNewOrder.v+1), "new_orders", Int(d.newOrders))
			})
		}
		if d.orders > 0 {
			if distinct(d.sumLineCounts, count(d.lines)) {
				byID["3.3.2.4"].consider(key, func() string {
					return details("o_w_id", w, "o_d_id", id, "sum_o_ol_cnt", d.sumLineCounts, "order_lines", count(d.lines))
				})
			}
			if d.orders-d.newOrders != tpcc.DeliveredPerDistrict {
				byID["3.3.2.11"].consider(key, func() string {
					return details("o_w_id", w, "o_d_id", id, "orders", Int(d.orders), "new_orders", Int(d.newOrders))
				})
			}
		}
	}
	for k, o := range e.orders {
		key := []int{k[0], k[1], k[2]}
		w, d, id := Int(int64(k[0])), Int(int64(k[1])), Int(int64(k[2]))
		if o.carrier.null != !o.newOrderID.null {
			byID["3.3.2.5"].consider(key, func() string {
				return details("o_w_id", w, "o_d_id", d, "o_id", id, "o_carrier_id", o.carrier, "new_order_o_id", o.newOrderID)
			})
		}
		if distinct(o.lineCount, count(o.lines)) {
			byID["3.3.2.6"].consider(key, func() string {
				return details("o_w_id", w, "o_d_id", d, "o_id", id, "o_ol_cnt", o.lineCount, "order_lines", count(o.lines))
			})
		}
	}
	if e.lineOffender.key != nil {
		*byID["3.3.2.7"] = e.lineOffender
	}
	for k, c := range e.customers {
		key := []int{k[0], k[1], k[2]}
		w, d, id := Int(int64(k[0])), Int(int64(k[1])), Int(int64(k[2]))
		if c.balance != c.delivered-c.paid {
			byID["3.3.2.10"].consider(key, func() string {
				return details("c_w_id", w, "c_d_id", d, "c_id", id, "c_balance", money(Int(c.balance)),
					"delivered_minus_paid", money(Int(c.delivered-c.paid)))
			})
		}
		if c.balance+c.ytdPayment != c.delivered {
			byID["3.3.2.12"].consider(key, func() string {
				return details("c_w_id", w, "c_d_id", d, "c_id", id, "balance_plus_ytd_payment", money(Int(c.balance+c.ytdPayment)),
					"delivered_amount", money(Int(c.delivered)))
			})
		}
	}
	out := make([]string, len(tpcc.Conditions))
	for i, c := range tpcc.Conditions {
		out[i] = byID[c.ID].detail
	}
	return out
}

// count renders a LEFT JOINed count as SQL does: NULL when there was no row.
func count(n int64) Value {
	if n == 0 {
		return Null
	}
	return Int(n)
}

// Rendering markers, so details can print money and timestamps like the SQL path's formatValue.
type (
	moneyValue     Value
	timestampValue Value
)

func money(v Value) moneyValue         { return moneyValue(v) }
func timestamp(v Value) timestampValue { return timestampValue(v) }

// details renders name/value pairs as "name=value …".
func details(pairs ...any) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pairs[i].(string))
		b.WriteByte('=')
		switch v := pairs[i+1].(type) {
		case Value:
			if v.null {
				b.WriteString("NULL")
			} else {
				b.WriteString(strconv.FormatInt(v.v, 10))
			}
		case moneyValue:
			if v.null {
				b.WriteString("NULL")
			} else {
				b.Write(tpcc.AppendDecimal(nil, v.v, 2))
			}
		case timestampValue:
			if v.null {
				b.WriteString("NULL")
			} else {
				b.WriteString(time.UnixMicro(v.v).UTC().Format(time.RFC3339Nano))
			}
		}
	}
	return b.String()
}

// evaluateChunk scans the chunk's rows through scan and returns the first offender of every
// condition (by Conditions index).
func evaluateChunk(ctx context.Context, scan Scan, from, to int) ([]string, error) {
	e := newCheckEvaluation(from, to)
	for i, r := range Reads {
		err := scan(ctx, r, from, to, func(v []Value) error { return e.add(i, v) })
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", r.Table.Name, err)
		}
	}
	return e.findings(), nil
}

// Snapshot runs f with a scan bound to one read-only snapshot of the database; f may be run
// again when the engine retries the transaction.
type Snapshot func(ctx context.Context, f func(ctx context.Context, scan Scan) error) error

// ChunkRows evaluates one chunk from range scans in one snapshot. The client cannot time the
// conditions separately, so each condition that ran is given an equal share of the chunk's time.
func ChunkRows(ctx context.Context, snapshot Snapshot, results []tpcc.CheckResult, from, to int) ([]tpcc.ChunkFinding, error) {
	start := time.Now()
	var details []string
	err := snapshot(ctx, func(ctx context.Context, scan Scan) error {
		d, err := evaluateChunk(ctx, scan, from, to)
		details = d
		return err
	})
	if err != nil {
		return nil, err
	}
	ran := 0
	for _, r := range results {
		if !r.Skipped {
			ran++
		}
	}
	share := time.Since(start) / time.Duration(max(ran, 1))
	found := make([]tpcc.ChunkFinding, len(tpcc.Conditions))
	for i := range found {
		if !results[i].Skipped {
			found[i] = tpcc.ChunkFinding{Detail: details[i], Elapsed: share}
		}
	}
	return found, nil
}
