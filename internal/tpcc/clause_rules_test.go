package tpcc

import (
	"strings"
	"testing"
)

func TestStockQuantityAfter(t *testing.T) {
	for _, tc := range []struct{ quantity, ordered, want int }{
		{50, 5, 45}, {20, 10, 10}, {19, 10, 100}, {10, 1, 100}, {11, 1, 10}, {15, 10, 96}, {100, 10, 90},
	} {
		if got := StockQuantityAfter(tc.quantity, tc.ordered); got != tc.want {
			t.Errorf("StockQuantityAfter(%d, %d) = %d, want %d", tc.quantity, tc.ordered, got, tc.want)
		}
	}
}

func TestStockUpdateApplyLine(t *testing.T) {
	for _, tc := range []struct {
		name     string
		quantity int
		remote   bool
		want     StockUpdate
	}{
		{"local", 5, false, StockUpdate{Quantity: 45, YTD: 15, OrderCount: 3, RemoteCount: 1}},
		{"remote", 5, true, StockUpdate{Quantity: 45, YTD: 15, OrderCount: 3, RemoteCount: 2}},
		{"refilled", 45, false, StockUpdate{Quantity: 96, YTD: 55, OrderCount: 3, RemoteCount: 1}},
	} {
		s := StockUpdate{Quantity: 50, YTD: 10, OrderCount: 2, RemoteCount: 1}
		s.ApplyLine(tc.quantity, tc.remote)
		if s != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, s, tc.want)
		}
	}
}

func TestIsBrandGeneric(t *testing.T) {
	for _, tc := range []struct {
		item, stock string
		want        bool
	}{
		{"xxORIGINALyy", "ORIGINAL", true}, {"ORIGINAL", "plain", false}, {"plain", "ORIGINAL", false},
		{"original", "ORIGINAL", false}, {"", "", false},
	} {
		if got := IsBrandGeneric(tc.item, tc.stock); got != tc.want {
			t.Errorf("IsBrandGeneric(%q, %q) = %t, want %t", tc.item, tc.stock, got, tc.want)
		}
	}
}

func TestOrderTotal(t *testing.T) {
	for _, tc := range []struct {
		cents                int64
		discount, wTax, dTax float64
		want                 float64
	}{
		{10000, 0, 0, 0, 100}, {10000, 0.5, 0, 0, 50}, {10000, 0, 0.1, 0.05, 115}, {2500, 0.1, 0.2, 0, 27},
	} {
		if got := OrderTotal(tc.cents, tc.discount, tc.wTax, tc.dTax); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("OrderTotal(%d, %v, %v, %v) = %v, want %v", tc.cents, tc.discount, tc.wTax, tc.dTax, got, tc.want)
		}
	}
	if got := LineAmountCents(7, 1234); got != 8638 {
		t.Errorf("LineAmountCents(7, 1234) = %d", got)
	}
}

func TestAllLocalFlag(t *testing.T) {
	in := &NewOrderInput{WarehouseID: 1, Lines: []NewOrderLine{{SupplyWarehouseID: 1}, {SupplyWarehouseID: 1}}}
	if in.AllLocalFlag() != 1 {
		t.Error("all local")
	}
	in.Lines[1].SupplyWarehouseID = 2
	if in.AllLocalFlag() != 0 || in.RemoteLines() != 1 {
		t.Error("one remote line")
	}
}

func TestMiddleCustomer(t *testing.T) {
	for _, tc := range []struct {
		ids  []int
		want int
		ok   bool
	}{
		{nil, 0, false},
		{[]int{7}, 7, true},
		{[]int{7, 8}, 7, true},        // ⌈2/2⌉ = 1st
		{[]int{7, 8, 9}, 8, true},     // ⌈3/2⌉ = 2nd
		{[]int{7, 8, 9, 10}, 8, true}, // ⌈4/2⌉ = 2nd
		{[]int{1, 2, 3, 4}, 2, true},
		{[]int{1, 2, 3, 4, 5}, 3, true},
	} {
		got, ok := MiddleCustomer(tc.ids)
		if got != tc.want || ok != tc.ok {
			t.Errorf("MiddleCustomer(%v) = %d, %t, want %d, %t", tc.ids, got, ok, tc.want, tc.ok)
		}
	}
	for n, want := range map[int]int{0: 0, 1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 10: 5, 11: 6} {
		if got := MiddlePosition(n); got != want {
			t.Errorf("MiddlePosition(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestBadCreditData(t *testing.T) {
	in := &PaymentInput{WarehouseID: 1, DistrictID: 2, CustomerWarehouseID: 3, CustomerDistrictID: 4, AmountCents: 123405}
	if got, want := BadCreditData(in, 5, "old"), "5 4 3 2 1 1234.05 | old"; got != want {
		t.Errorf("BadCreditData = %q, want %q", got, want)
	}
	in.AmountCents = 100
	if got := BadCreditData(in, 5, "x"); got != "5 4 3 2 1 1.00 | x" {
		t.Errorf("BadCreditData = %q", got)
	}
	long := BadCreditData(in, 3000, strings.Repeat("d", 600))
	if len(long) != CustomerDataMax || !strings.HasPrefix(long, "3000 4 3 2 1 1.00 | ddd") {
		t.Errorf("cut C_DATA: %d characters, %q…", len(long), long[:30])
	}
	if HistoryData("W", "D") != "W    D" {
		t.Error("HistoryData")
	}
}

func TestStockLevelWindowAndDelivery(t *testing.T) {
	if from, to := StockLevelWindow(3001); from != 2981 || to != 3001 {
		t.Errorf("StockLevelWindow(3001) = %d, %d", from, to)
	}
	for delivered, want := range map[int]DeliveryResult{0: {Skipped: 10}, 4: {Delivered: 4, Skipped: 6}, 10: {Delivered: 10}} {
		if got := DeliveryOutcome(delivered); got != want {
			t.Errorf("DeliveryOutcome(%d) = %+v", delivered, got)
		}
	}
}

// TestApplyNewOrderLine: S_QUANTITY wraps at StockFloor, S_YTD, S_ORDER_CNT and S_REMOTE_CNT grow
// (Clause 2.4.2.2).
func TestApplyNewOrderLine(t *testing.T) {
	tests := []struct {
		name         string
		quantity     int
		orderQty     int
		remote       bool
		wantQuantity int
	}{
		{"plenty left", 50, 5, false, 45},
		{"exactly 10 left", 20, 10, false, 10},
		{"9 left wraps", 19, 10, true, 100},
		{"from 10", 10, 1, false, 100},
	}
	for _, tt := range tests {
		s := StockUpdate{Quantity: tt.quantity, YTD: 3, OrderCount: 2, RemoteCount: 1}
		s.ApplyLine(tt.orderQty, tt.remote)
		wantRemote := 1
		if tt.remote {
			wantRemote = 2
		}
		if s.Quantity != tt.wantQuantity || s.YTD != 3+tt.orderQty || s.OrderCount != 3 || s.RemoteCount != wantRemote {
			t.Errorf("%s: %+v, want quantity %d, ytd %d, order count 3, remote count %d", tt.name, s, tt.wantQuantity, 3+tt.orderQty, wantRemote)
		}
	}
}

// TestPaymentCustomerData: the bad-credit C_DATA puts the payment first and is cut at 500.
func TestPaymentCustomerData(t *testing.T) {
	in := PaymentInput{WarehouseID: 1, DistrictID: 2, CustomerWarehouseID: 4, CustomerDistrictID: 5, AmountCents: 500}
	if got, want := BadCreditData(&in, 17, "xyz"), "17 5 4 2 1 5.00 | xyz"; got != want {
		t.Errorf("C_DATA %q, want %q", got, want)
	}
	long := strings.Repeat("a", 500)
	if got := BadCreditData(&in, 17, long); len(got) != 500 || !strings.HasPrefix(got, "17 5 4 2 1 5.00 | aaa") {
		t.Errorf("C_DATA of %d chars starting %q, want 500 with the payment first", len(got), got[:20])
	}
}

func TestIsBrand(t *testing.T) {
	tests := []struct {
		item, stock string
		want        bool
	}{
		{"xxORIGINALyy", "ORIGINAL", true},
		{"xxORIGINALyy", "original", false},
		{"plain", "ORIGINALzz", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := IsBrandGeneric(tt.item, tt.stock); got != tt.want {
			t.Errorf("IsBrandGeneric(%q, %q) = %v, want %v", tt.item, tt.stock, got, tt.want)
		}
	}
}
