package tpcc

import (
	"bytes"
	"testing"
	"time"
)

var testNow = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func testGenerator() *Generator {
	return &Generator{Seed: 42, Constants: Constants{CLoad: 157, CRun: 223, CID: 259, OLIID: 7911}, Now: testNow}
}

// collect returns all rows of table t for warehouse w, with text values copied out.
func collect(t *testing.T, g *Generator, table Table, w int) [][]Value {
	t.Helper()
	src, err := g.Source(table, w)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]Value
	row := make([]Value, len(table.Columns))
	for src.Next(row) {
		cp := make([]Value, len(row))
		for i, v := range row {
			cp[i] = v
			cp[i].Text = append([]byte(nil), v.Text...)
		}
		rows = append(rows, cp)
	}
	return rows
}

func colIndex(t Table, name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	panic("no column " + name + " in " + t.Name)
}

func TestGeneratedCardinalities(t *testing.T) {
	g := testGenerator()
	want := map[string]int{
		"warehouse": 1, "district": 10, "customer": 30_000, "history": 30_000, "orders": 30_000,
		"new_order": 9_000, "stock": 100_000, "item": 100_000,
	}
	for name, n := range want {
		table := tableByName(name)
		if got := len(collect(t, g, table, 3)); got != n {
			t.Errorf("%s: %d rows, want %d", name, got, n)
		}
	}
}

func tableByName(name string) Table {
	for _, t := range Tables {
		if t.Name == name {
			return t
		}
	}
	panic(name)
}

func TestRowsMatchColumnKinds(t *testing.T) {
	g := testGenerator()
	for _, table := range Tables {
		src, _ := g.Source(table, 1)
		row := make([]Value, len(table.Columns))
		for k := 0; k < 50 && src.Next(row); k++ {
			for i, c := range table.Columns {
				v := row[i]
				ok := false
				switch c.Type.Kind {
				case KindInt:
					ok = v.Kind == ValueInt
				case KindDecimal:
					ok = v.Kind == ValueDecimal
				case KindVarchar, KindChar:
					ok = v.Kind == ValueText && len(v.Text) <= c.Type.Precision &&
						(c.Type.Kind != KindChar || c.Name == "c_middle" || c.Name == "c_credit" || len(v.Text) == c.Type.Precision)
				case KindTimestamp:
					ok = v.Kind == ValueTimestamp
				}
				if v.Kind == ValueNull {
					ok = c.Nullable
				}
				if !ok {
					t.Fatalf("%s.%s: value %+v does not fit %+v", table.Name, c.Name, v, c)
				}
			}
		}
	}
}

func TestCustomerInitialValues(t *testing.T) {
	g := testGenerator()
	rows := collect(t, g, CustomerTable, 1)
	last, credit := colIndex(CustomerTable, "c_last"), colIndex(CustomerTable, "c_credit")
	id, disc := colIndex(CustomerTable, "c_id"), colIndex(CustomerTable, "c_discount")
	bal, ytd := colIndex(CustomerTable, "c_balance"), colIndex(CustomerTable, "c_ytd_payment")
	bc := 0
	nameCounts := map[string]int{}
	for _, r := range rows {
		c := int(r[id].Int)
		if c <= LastNamesByCustomerID {
			if got, want := string(r[last].Text), LastName(c-1); got != want {
				t.Fatalf("customer %d: C_LAST %q, want %q", c, got, want)
			}
		} else {
			nameCounts[string(r[last].Text)]++
		}
		if string(r[credit].Text) == "BC" {
			bc++
		} else if string(r[credit].Text) != "GC" {
			t.Fatalf("C_CREDIT %q", r[credit].Text)
		}
		if r[disc].Int < 0 || r[disc].Int > 5000 {
			t.Fatalf("C_DISCOUNT %d/10000 outside [0, 0.5]", r[disc].Int)
		}
		if r[bal].Int != -1000 || r[ytd].Int != 1000 {
			t.Fatalf("C_BALANCE/C_YTD_PAYMENT %d/%d cents, want -1000/1000", r[bal].Int, r[ytd].Int)
		}
	}
	if share := float64(bc) / float64(len(rows)); share < 0.09 || share > 0.11 {
		t.Errorf("BC share %.4f, want 0.10 ± 0.01", share)
	}
	// Customers 1001..3000 follow NURand(255, 0, 999): skewed, so some names repeat a lot.
	maxCount := 0
	for _, n := range nameCounts {
		maxCount = max(maxCount, n)
	}
	if maxCount < 3*20000/1000 {
		t.Errorf("most frequent NURand last name appears %d times in 20000: not skewed", maxCount)
	}
}

func TestOrdersAndOrderLinesAgree(t *testing.T) {
	g := testGenerator()
	orders := collect(t, g, OrdersTable, 2)
	lines := collect(t, g, OrderLineTable, 2)
	type key struct{ d, o int64 }
	olCnt := map[key]int64{}
	custSeen := map[int64]map[int64]bool{}
	for _, r := range orders {
		k := key{r[1].Int, r[0].Int}
		olCnt[k] = r[6].Int
		if r[6].Int < MinOrderLines || r[6].Int > MaxOrderLines {
			t.Fatalf("O_OL_CNT %d", r[6].Int)
		}
		undelivered := r[0].Int >= FirstUndeliveredOrder
		if undelivered != (r[5].Kind == ValueNull) {
			t.Fatalf("order %v: carrier %+v", k, r[5])
		}
		if !undelivered && (r[5].Int < 1 || r[5].Int > 10) {
			t.Fatalf("O_CARRIER_ID %d", r[5].Int)
		}
		if custSeen[k.d] == nil {
			custSeen[k.d] = map[int64]bool{}
		}
		custSeen[k.d][r[3].Int] = true
	}
	for d, s := range custSeen {
		if len(s) != CustomersPerDistrict {
			t.Errorf("district %d: O_C_ID covers %d customers, want a permutation of 3000", d, len(s))
		}
	}
	got := map[key]int64{}
	var sumLines int64
	for _, r := range lines {
		k := key{r[1].Int, r[0].Int}
		got[k]++
		sumLines++
		if r[3].Int != got[k] {
			t.Fatalf("order %v: OL_NUMBER %d out of sequence", k, r[3].Int)
		}
		delivered := k.o < FirstUndeliveredOrder
		switch {
		case delivered && (r[6].Kind != ValueTimestamp || r[8].Int != 0):
			t.Fatalf("delivered order %v line: delivery %+v amount %d", k, r[6], r[8].Int)
		case !delivered && (r[6].Kind != ValueNull || r[8].Int < 1 || r[8].Int > 999_999):
			t.Fatalf("new order %v line: delivery %+v amount %d", k, r[6], r[8].Int)
		}
		if r[7].Int != 5 || r[5].Int != 2 {
			t.Fatalf("OL_QUANTITY %d / OL_SUPPLY_W_ID %d", r[7].Int, r[5].Int)
		}
	}
	for k, n := range olCnt {
		if got[k] != n {
			t.Fatalf("order %v: O_OL_CNT %d, %d lines", k, n, got[k])
		}
	}
	if mean := float64(sumLines) / float64(len(orders)); mean < 9.8 || mean > 10.2 {
		t.Errorf("mean lines per order %.3f, want 10 ± 0.2", mean)
	}
}

func TestNewOrderRows(t *testing.T) {
	rows := collect(t, testGenerator(), NewOrderTable, 4)
	perDistrict := map[int64]int{}
	for _, r := range rows {
		if r[0].Int < FirstUndeliveredOrder || r[0].Int > OrdersPerDistrict || r[2].Int != 4 {
			t.Fatalf("new_order row %+v", r)
		}
		perDistrict[r[1].Int]++
	}
	for d := int64(1); d <= 10; d++ {
		if perDistrict[d] != 900 {
			t.Errorf("district %d: %d new_order rows, want 900", d, perDistrict[d])
		}
	}
}

func TestStockAndItemData(t *testing.T) {
	g := testGenerator()
	for _, tc := range []struct {
		table Table
		data  string
	}{{StockTable, "s_data"}, {ItemTable, "i_data"}} {
		rows := collect(t, g, tc.table, 1)
		i := colIndex(tc.table, tc.data)
		orig := 0
		for _, r := range rows {
			if bytes.Contains(r[i].Text, []byte("ORIGINAL")) {
				orig++
			}
		}
		if share := float64(orig) / float64(len(rows)); share < 0.095 || share > 0.105 {
			t.Errorf("%s: ORIGINAL share %.4f, want 0.10 ± 0.005", tc.data, share)
		}
	}
	stock := collect(t, g, StockTable, 1)
	q := colIndex(StockTable, "s_quantity")
	for _, r := range stock {
		if r[q].Int < 10 || r[q].Int > 100 {
			t.Fatalf("S_QUANTITY %d", r[q].Int)
		}
	}
}

func mustSource(g *Generator, t Table, w int) RowSource {
	s, err := g.Source(t, w)
	if err != nil {
		panic(err)
	}
	return s
}

func TestAppendDecimal(t *testing.T) {
	cases := []struct {
		units int64
		scale int
		want  string
	}{
		{-1000, 2, "-10.00"}, {30000000, 2, "300000.00"}, {5, 4, "0.0005"}, {2000, 4, "0.2000"},
		{0, 2, "0.00"}, {999999, 2, "9999.99"}, {7, 0, "7"}, {-5, 2, "-0.05"},
	}
	for _, tc := range cases {
		if got := string(AppendDecimal(nil, tc.units, tc.scale)); got != tc.want {
			t.Errorf("AppendDecimal(%d, %d) = %q, want %q", tc.units, tc.scale, got, tc.want)
		}
	}
}
