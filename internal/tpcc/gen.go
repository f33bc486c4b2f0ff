package tpcc

import (
	"fmt"
	"time"
)

// ValueKind says how a generated Value is encoded.
type ValueKind uint8

const (
	ValueInt       ValueKind = iota // Int
	ValueDecimal                    // Int in units of 10^-scale, the scale of the column's type
	ValueText                       // Text (letters and digits only: never needs escaping)
	ValueTimestamp                  // the generator's load time
	ValueNull
)

// Value is one generated field. Text points into the generator's scratch space and is valid
// until the next call of Next.
type Value struct {
	Kind ValueKind
	Int  int64
	Text []byte
}

// RowSource yields the rows of one table for one warehouse (or the item table) in primary-key
// order. Next fills row (len = number of table columns) and reports false when exhausted.
type RowSource interface {
	Table() Table
	Next(row []Value) bool
}

// Generator produces the initial database of Clause 4.3.3.1. Every (warehouse, table) has its own
// random stream derived from Seed, so any warehouse range is generated identically by any loader,
// in any order, in parallel.
type Generator struct {
	Seed      uint64
	Constants Constants // CLoad gives the C_LAST of customers 1001..3000
	Now       time.Time // O_ENTRY_D, C_SINCE, H_DATE, OL_DELIVERY_D of delivered lines
}

// Stream codes: one random stream per (warehouse, purpose).
const (
	streamItem uint64 = iota + 1
	streamWarehouse
	streamDistrict
	streamCustomer
	streamHistory
	streamOrders
	streamOrderLineCount // shared by orders and order_line: O_OL_CNT must agree
	streamOrderLine
	streamStock
)

func (g *Generator) rand(w int, purpose uint64) *Rand {
	return NewRand(g.Seed, uint64(w)<<8|purpose)
}

// Source returns the rows of table t for warehouse w (w is ignored for the item table).
func (g *Generator) Source(t Table, w int) (RowSource, error) {
	switch t.Name {
	case ItemTable.Name:
		return &itemSource{r: g.rand(0, streamItem), w: newRowWriter()}, nil
	case WarehouseTable.Name:
		return &warehouseSource{r: g.rand(w, streamWarehouse), w: w, rw: newRowWriter()}, nil
	case DistrictTable.Name:
		return &districtSource{r: g.rand(w, streamDistrict), w: w, rw: newRowWriter()}, nil
	case CustomerTable.Name:
		return &customerSource{r: g.rand(w, streamCustomer), w: w, cLoad: g.Constants.CLoad, rw: newRowWriter()}, nil
	case HistoryTable.Name:
		return &historySource{r: g.rand(w, streamHistory), w: w, rw: newRowWriter()}, nil
	case OrdersTable.Name:
		return &ordersSource{r: g.rand(w, streamOrders), counts: g.rand(w, streamOrderLineCount), w: w}, nil
	case NewOrderTable.Name:
		return &newOrderSource{w: w}, nil
	case OrderLineTable.Name:
		return &orderLineSource{r: g.rand(w, streamOrderLine), counts: g.rand(w, streamOrderLineCount), w: w, rw: newRowWriter()}, nil
	case StockTable.Name:
		return &stockSource{r: g.rand(w, streamStock), w: w, rw: newRowWriter()}, nil
	}
	return nil, fmt.Errorf("tpcc: no generator for table %q", t.Name)
}

// rowWriter fills one row's values, keeping the text in a scratch buffer reset per row.
type rowWriter struct {
	row     []Value
	i       int
	scratch []byte
}

func (w *rowWriter) start(row []Value) {
	w.row, w.i, w.scratch = row, 0, w.scratch[:0]
}

func (w *rowWriter) int(v int) {
	w.row[w.i] = Value{Kind: ValueInt, Int: int64(v)}
	w.i++
}

func (w *rowWriter) decimal(units int64) {
	w.row[w.i] = Value{Kind: ValueDecimal, Int: units}
	w.i++
}

func (w *rowWriter) timestamp() {
	w.row[w.i] = Value{Kind: ValueTimestamp}
	w.i++
}

func (w *rowWriter) null() {
	w.row[w.i] = Value{Kind: ValueNull}
	w.i++
}

// text records the bytes appended to scratch since mark as the next value. (Should an append
// ever outgrow scratch, earlier values keep pointing at the old array, which stays valid.)
func (w *rowWriter) text(mark int) {
	w.row[w.i] = Value{Kind: ValueText, Text: w.scratch[mark:len(w.scratch):len(w.scratch)]}
	w.i++
}

func (w *rowWriter) literal(s string) {
	mark := len(w.scratch)
	w.scratch = append(w.scratch, s...)
	w.text(mark)
}

func (w *rowWriter) astring(r *Rand, minLen, maxLen int) {
	mark := len(w.scratch)
	w.scratch = r.AppendAString(w.scratch, minLen, maxLen)
	w.text(mark)
}

func (w *rowWriter) data(r *Rand, minLen, maxLen int) {
	mark := len(w.scratch)
	w.scratch = r.AppendData(w.scratch, minLen, maxLen)
	w.text(mark)
}

// address writes street 1, street 2, city, state and zip (Clause 4.3.2.7): the zip is a random
// 4-digit n-string followed by "11111".
func (w *rowWriter) address(r *Rand) {
	w.astring(r, 10, 20)
	w.astring(r, 10, 20)
	w.astring(r, 10, 20)
	w.astring(r, 2, 2)
	mark := len(w.scratch)
	w.scratch = r.AppendNString(w.scratch, 4, 4)
	w.scratch = append(w.scratch, "11111"...)
	w.text(mark)
}

// scratchSize bounds the text of one row (C_DATA up to 500 plus the other customer fields).
const scratchSize = 1024

func newRowWriter() rowWriter { return rowWriter{scratch: make([]byte, 0, scratchSize)} }

type itemSource struct {
	r  *Rand
	id int
	w  rowWriter
}

func (s *itemSource) Table() Table { return ItemTable }
func (s *itemSource) Next(row []Value) bool {
	if s.id == Items {
		return false
	}
	s.id++
	s.w.start(row)
	s.w.int(s.id)
	s.w.int(s.r.IntRange(1, 10_000))
	s.w.astring(s.r, 14, 24)
	s.w.decimal(int64(s.r.IntRange(100, 10_000))) // I_PRICE 1.00..100.00
	s.w.data(s.r, 26, 50)
	return true
}

type warehouseSource struct {
	r    *Rand
	w    int
	done bool
	rw   rowWriter
}

func (s *warehouseSource) Table() Table { return WarehouseTable }
func (s *warehouseSource) Next(row []Value) bool {
	if s.done {
		return false
	}
	s.done = true
	s.rw.start(row)
	s.rw.int(s.w)
	s.rw.astring(s.r, 6, 10)
	s.rw.address(s.r)
	s.rw.decimal(int64(s.r.IntRange(0, 2000))) // W_TAX 0.0000..0.2000
	s.rw.decimal(300_000_00)                   // W_YTD 300,000.00
	return true
}

type districtSource struct {
	r  *Rand
	w  int
	d  int
	rw rowWriter
}

func (s *districtSource) Table() Table { return DistrictTable }
func (s *districtSource) Next(row []Value) bool {
	if s.d == DistrictsPerWarehouse {
		return false
	}
	s.d++
	s.rw.start(row)
	s.rw.int(s.d)
	s.rw.int(s.w)
	s.rw.astring(s.r, 6, 10)
	s.rw.address(s.r)
	s.rw.decimal(int64(s.r.IntRange(0, 2000))) // D_TAX 0.0000..0.2000
	s.rw.decimal(30_000_00)                    // D_YTD 30,000.00
	s.rw.int(OrdersPerDistrict + 1)            // D_NEXT_O_ID 3001
	return true
}

type customerSource struct {
	r     *Rand
	w     int
	d, c  int // current district and customer; c == 0 before the first row
	cLoad int
	rw    rowWriter
}

func (s *customerSource) Table() Table { return CustomerTable }
func (s *customerSource) Next(row []Value) bool {
	if !advanceDistrictRow(&s.d, &s.c, CustomersPerDistrict) {
		return false
	}
	s.rw.start(row)
	s.rw.int(s.c)
	s.rw.int(s.d)
	s.rw.int(s.w)
	s.rw.astring(s.r, 8, 16) // C_FIRST
	s.rw.literal("OE")       // C_MIDDLE
	num := s.c - 1
	if s.c > LastNamesByCustomerID {
		num = s.r.LastNameNumber(s.cLoad)
	}
	mark := len(s.rw.scratch)
	s.rw.scratch = AppendLastName(s.rw.scratch, num)
	s.rw.text(mark)
	s.rw.address(s.r)
	mark = len(s.rw.scratch)
	s.rw.scratch = s.r.AppendNString(s.rw.scratch, 16, 16) // C_PHONE
	s.rw.text(mark)
	s.rw.timestamp() // C_SINCE
	if s.r.Intn(100) < BadCreditPercent {
		s.rw.literal("BC")
	} else {
		s.rw.literal("GC")
	}
	s.rw.decimal(50_000_00)                    // C_CREDIT_LIM 50,000.00
	s.rw.decimal(int64(s.r.IntRange(0, 5000))) // C_DISCOUNT 0.0000..0.5000
	s.rw.decimal(-10_00)                       // C_BALANCE -10.00
	s.rw.decimal(10_00)                        // C_YTD_PAYMENT 10.00
	s.rw.int(1)                                // C_PAYMENT_CNT
	s.rw.int(0)                                // C_DELIVERY_CNT
	s.rw.astring(s.r, 300, 500)                // C_DATA
	return true
}

// advanceDistrictRow steps (district, id) through 1..10 × 1..perDistrict; false when done.
func advanceDistrictRow(d, id *int, perDistrict int) bool {
	if *d == 0 {
		*d, *id = 1, 1
		return true
	}
	if *id < perDistrict {
		*id++
		return true
	}
	if *d < DistrictsPerWarehouse {
		*d, *id = *d+1, 1
		return true
	}
	return false
}

type historySource struct {
	r    *Rand
	w    int
	d, c int
	rw   rowWriter
}

func (s *historySource) Table() Table { return HistoryTable }
func (s *historySource) Next(row []Value) bool {
	if !advanceDistrictRow(&s.d, &s.c, CustomersPerDistrict) {
		return false
	}
	s.rw.start(row)
	s.rw.int(s.c)
	s.rw.int(s.d)
	s.rw.int(s.w)
	s.rw.int(s.d)
	s.rw.int(s.w)
	s.rw.timestamp()
	s.rw.decimal(10_00) // H_AMOUNT 10.00
	s.rw.astring(s.r, 12, 24)
	return true
}

type ordersSource struct {
	r, counts *Rand
	w         int
	d, o      int
	customers [CustomersPerDistrict]int // O_C_ID: a random permutation of 1..3000 per district
}

func (s *ordersSource) Table() Table { return OrdersTable }
func (s *ordersSource) Next(row []Value) bool {
	if !advanceDistrictRow(&s.d, &s.o, OrdersPerDistrict) {
		return false
	}
	if s.o == 1 {
		s.r.Permutation(s.customers[:])
	}
	row[0] = Value{Kind: ValueInt, Int: int64(s.o)}
	row[1] = Value{Kind: ValueInt, Int: int64(s.d)}
	row[2] = Value{Kind: ValueInt, Int: int64(s.w)}
	row[3] = Value{Kind: ValueInt, Int: int64(s.customers[s.o-1])}
	row[4] = Value{Kind: ValueTimestamp}
	if s.o < FirstUndeliveredOrder {
		row[5] = Value{Kind: ValueInt, Int: int64(s.r.IntRange(1, 10))}
	} else {
		row[5] = Value{Kind: ValueNull}
	}
	row[6] = Value{Kind: ValueInt, Int: int64(s.counts.IntRange(MinOrderLines, MaxOrderLines))}
	row[7] = Value{Kind: ValueInt, Int: 1} // O_ALL_LOCAL
	return true
}

type newOrderSource struct {
	w    int
	d, o int
}

func (s *newOrderSource) Table() Table { return NewOrderTable }
func (s *newOrderSource) Next(row []Value) bool {
	if !advanceDistrictRow(&s.d, &s.o, NewOrdersPerDistrict) {
		return false
	}
	row[0] = Value{Kind: ValueInt, Int: int64(FirstUndeliveredOrder - 1 + s.o)}
	row[1] = Value{Kind: ValueInt, Int: int64(s.d)}
	row[2] = Value{Kind: ValueInt, Int: int64(s.w)}
	return true
}

type orderLineSource struct {
	r, counts *Rand
	w         int
	d, o      int
	line, cnt int // current line number and O_OL_CNT of order o
	rw        rowWriter
}

func (s *orderLineSource) Table() Table { return OrderLineTable }
func (s *orderLineSource) Next(row []Value) bool {
	if s.line == s.cnt {
		if !advanceDistrictRow(&s.d, &s.o, OrdersPerDistrict) {
			return false
		}
		s.line, s.cnt = 0, s.counts.IntRange(MinOrderLines, MaxOrderLines)
	}
	s.line++
	s.rw.start(row)
	s.rw.int(s.o)
	s.rw.int(s.d)
	s.rw.int(s.w)
	s.rw.int(s.line)
	s.rw.int(s.r.IntRange(1, Items))
	s.rw.int(s.w) // OL_SUPPLY_W_ID
	delivered := s.o < FirstUndeliveredOrder
	if delivered {
		s.rw.timestamp() // OL_DELIVERY_D = O_ENTRY_D
	} else {
		s.rw.null()
	}
	s.rw.int(5) // OL_QUANTITY
	if delivered {
		s.rw.decimal(0)
	} else {
		s.rw.decimal(int64(s.r.IntRange(1, 999_999))) // OL_AMOUNT 0.01..9,999.99
	}
	s.rw.astring(s.r, 24, 24)
	return true
}

type stockSource struct {
	r  *Rand
	w  int
	i  int
	rw rowWriter
}

func (s *stockSource) Table() Table { return StockTable }
func (s *stockSource) Next(row []Value) bool {
	if s.i == StockPerWarehouse {
		return false
	}
	s.i++
	s.rw.start(row)
	s.rw.int(s.i)
	s.rw.int(s.w)
	s.rw.int(s.r.IntRange(10, 100))
	for k := 0; k < 10; k++ {
		s.rw.astring(s.r, 24, 24) // S_DIST_01..10
	}
	s.rw.int(0) // S_YTD
	s.rw.int(0) // S_ORDER_CNT
	s.rw.int(0) // S_REMOTE_CNT
	s.rw.data(s.r, 26, 50)
	return true
}
