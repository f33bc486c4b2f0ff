package pgwire

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

var pgPlaceholder = regexp.MustCompile(`\$([0-9]+)`)

// placeholders returns the distinct $n of a statement, sorted.
func placeholders(sql string) []int {
	var out []int
	for _, m := range pgPlaceholder.FindAllStringSubmatch(sql, -1) {
		n, _ := strconv.Atoi(m[1])
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Each statement must use exactly the placeholders $1..$n for the n arguments its call site
// binds (executor.go); a gap or an extra one would fail only at run time.
func TestPgwireStatementPlaceholders(t *testing.T) {
	for _, d := range []*Flavour{Postgres, Cockroach} {
		s, err := newPgwireStatements(d, "")
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name string
			sql  string
			args int
		}{
			{"newOrderDistrict", s.newOrderDistrict, 2},
			{"newOrderWarehouse", s.newOrderWarehouse, 1},
			{"newOrderCustomer", s.newOrderCustomer, 3},
			{"newOrderItems", s.newOrderItems, 1},
			{"newOrderStock", s.newOrderStock, 5},
			{"newOrderStocks", s.newOrderStocks, 5},
			{"newOrderOrder", s.newOrderOrder, 6},
			{"newOrderNewOrder", s.newOrderNewOrder, 3},
			{"newOrderLines", s.newOrderLines, 9},
			{"paymentWarehouse", s.paymentWarehouse, 2},
			{"paymentDistrict", s.paymentDistrict, 3},
			{"paymentCustomerByID", s.paymentCustomerByID, 6},
			{"paymentCustomerByName", s.paymentCustomerByName, 6},
			{"orderStatusByID", s.orderStatusByID, 3},
			{"orderStatusByName", s.orderStatusByName, 3},
			{"deliveryDistrict", s.deliveryDistrict, 3},
			{"stockLevel", s.stockLevel, 3},
		}
		for _, tt := range tests {
			want := make([]int, tt.args)
			for i := range want {
				want[i] = i + 1
			}
			if got := placeholders(tt.sql); !slices.Equal(got, want) {
				t.Errorf("%s %s: placeholders %v, want %v", d, tt.name, got, want)
			}
		}
	}
}

func TestPgwireDialectDifferences(t *testing.T) {
	pg, err := newPgwireStatements(Postgres, "")
	if err != nil {
		t.Fatal(err)
	}
	crdb, err := newPgwireStatements(Cockroach, "")
	if err != nil {
		t.Fatal(err)
	}
	if pg.begin != "BEGIN ISOLATION LEVEL READ COMMITTED" || crdb.begin != "BEGIN ISOLATION LEVEL SERIALIZABLE" {
		t.Errorf("begin: postgres %q, cockroach %q", pg.begin, crdb.begin)
	}
	if !strings.Contains(pg.deliveryDistrict, "SKIP LOCKED") || strings.Contains(crdb.deliveryDistrict, "SKIP LOCKED") {
		t.Error("SKIP LOCKED belongs to the PostgreSQL delivery only")
	}
	for _, sql := range []string{crdb.paymentCustomerByName, crdb.orderStatusByName} {
		// CockroachDB's "/" on integers yields a decimal: the ⌈n/2⌉ rule must not divide.
		if strings.Contains(sql, "/ 2") || !strings.Contains(sql, "2 * pos IN (n, n + 1)") {
			t.Errorf("by-name selection is not division-free:\n%s", sql)
		}
	}
}

func TestStockDistInfoColumn(t *testing.T) {
	got := stockDistInfoColumn("$5::int4")
	for d := 1; d <= tpcc.DistrictsPerWarehouse; d++ {
		want := "WHEN " + strconv.Itoa(d) + " THEN s_dist_" + []string{"", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10"}[d]
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}

func TestStockLockOrder(t *testing.T) {
	lines := []tpcc.NewOrderLine{
		{ItemID: 50, SupplyWarehouseID: 2},
		{ItemID: 7, SupplyWarehouseID: 1},
		{ItemID: 50, SupplyWarehouseID: 1},
		{ItemID: 7, SupplyWarehouseID: 1}, // duplicate row: kept, after its twin
		{ItemID: 3, SupplyWarehouseID: 3},
	}
	if got, want := stockLockOrder(lines), []int{1, 3, 2, 0, 4}; !slices.Equal(got, want) {
		t.Errorf("stockLockOrder = %v, want %v", got, want)
	}
	if got := stockLockOrder(nil); len(got) != 0 {
		t.Errorf("stockLockOrder(nil) = %v", got)
	}
}

func TestPgwireStatementTexts(t *testing.T) {
	for _, d := range []*Flavour{Postgres, Cockroach} {
		texts, err := StatementTexts(d)
		if err != nil {
			t.Fatal(err)
		}
		// begin + 9 New-Order + 4 Payment + 2 Order-Status + Delivery + Stock-Level
		if len(texts) != 18 {
			t.Errorf("%s: %d statement texts, want 18", d, len(texts))
		}
		for i, s := range texts {
			if s == "" {
				t.Errorf("%s: text %d is empty", d, i)
			}
		}
	}
}

// The level changes only the BEGIN and Delivery's locking clause: READ COMMITTED skips a locked
// oldest order, the snapshot levels wait for it; every other statement is the same text.
func TestPgwireStatementsAtEachLevel(t *testing.T) {
	for _, d := range []*Flavour{Postgres, Cockroach} {
		base, err := newPgwireStatements(d, isolation.Serializable)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range isolation.Levels {
			s, err := newPgwireStatements(d, l)
			if err != nil {
				t.Fatalf("%s %s: %v", d, l, err)
			}
			if want := "BEGIN ISOLATION LEVEL " + l.SQL(); s.begin != want {
				t.Errorf("%s %s: begin %q, want %q", d, l, s.begin, want)
			}
			skip := strings.Contains(s.deliveryDistrict, "FOR UPDATE SKIP LOCKED")
			if skip != (l == isolation.ReadCommitted) || s.deliveryPicksSkipLocked != skip || !strings.Contains(s.deliveryDistrict, "FOR UPDATE") {
				t.Errorf("%s %s: delivery skips locked rows: %v; want only under ReadCommitted", d, l, skip)
			}
			same := s
			same.begin, same.deliveryDistrict, same.deliveryPicksSkipLocked = base.begin, base.deliveryDistrict, base.deliveryPicksSkipLocked
			if same != base {
				t.Errorf("%s %s: a statement other than BEGIN and Delivery's pick differs", d, l)
			}
		}
		def, _ := newPgwireStatements(d, "")
		at, _ := newPgwireStatements(d, d.Capabilities().DefaultIsolation)
		if def != at {
			t.Errorf("%s: the empty level is not the dialect's default %s", d, d.Capabilities().DefaultIsolation)
		}
	}
	if _, err := newPgwireStatements(Postgres, "Snapshot"); err == nil {
		t.Error("an unknown level was accepted")
	}
}
