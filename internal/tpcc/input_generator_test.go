package tpcc

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

var testConstants = Constants{CLoad: 157, CRun: 223, CID: 259, OLIID: 7911}

func newTestGenerator(t *testing.T, seed uint64, cfg TerminalConfig) *InputGenerator {
	t.Helper()
	g, err := NewInputGenerator(NewRand(seed, 1), testConstants, cfg)
	if err != nil {
		t.Fatalf("NewInputGenerator(%+v): %v", cfg, err)
	}
	return g
}

// within fails unless got/total is within tolerance (absolute, in percent) of wantPercent.
func within(t *testing.T, what string, got, total int, wantPercent, tolerance float64) {
	t.Helper()
	share := 100 * float64(got) / float64(total)
	if math.Abs(share-wantPercent) > tolerance {
		t.Errorf("%s: %.3f%% (%d of %d), want %.2f%% ± %.2f", what, share, got, total, wantPercent, tolerance)
	}
}

func validLastNames() map[string]bool {
	names := make(map[string]bool, 1000)
	for n := 0; n < 1000; n++ {
		names[LastName(n)] = true
	}
	return names
}

func TestTerminalConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     TerminalConfig
		wantErr string // substring; empty means valid
	}{
		{"one warehouse", TerminalConfig{HomeWarehouseID: 1, HomeDistrictID: 1, ActiveWarehouses: 1}, ""},
		{"last warehouse, last district", TerminalConfig{HomeWarehouseID: 7, HomeDistrictID: 10, ActiveWarehouses: 7}, ""},
		{"no warehouses", TerminalConfig{HomeWarehouseID: 1, HomeDistrictID: 1, ActiveWarehouses: 0}, "ActiveWarehouses 0"},
		{"home above active", TerminalConfig{HomeWarehouseID: 3, HomeDistrictID: 1, ActiveWarehouses: 2}, "HomeWarehouseID 3"},
		{"home zero", TerminalConfig{HomeWarehouseID: 0, HomeDistrictID: 1, ActiveWarehouses: 2}, "HomeWarehouseID 0"},
		{"district zero", TerminalConfig{HomeWarehouseID: 1, HomeDistrictID: 0, ActiveWarehouses: 2}, "HomeDistrictID 0"},
		{"district eleven", TerminalConfig{HomeWarehouseID: 1, HomeDistrictID: 11, ActiveWarehouses: 2}, "HomeDistrictID 11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewInputGeneratorRejectsBadArguments(t *testing.T) {
	cfg := TerminalConfig{HomeWarehouseID: 1, HomeDistrictID: 1, ActiveWarehouses: 1}
	if _, err := NewInputGenerator(nil, testConstants, cfg); err == nil || !strings.Contains(err.Error(), "random generator") {
		t.Errorf("nil rng: err = %v, want it to name the random generator", err)
	}
	bad := testConstants
	bad.CRun = bad.CLoad + 96 // a forbidden C-Delta
	if _, err := NewInputGenerator(NewRand(1, 1), bad, cfg); err == nil || !strings.Contains(err.Error(), "C-Delta") {
		t.Errorf("C-Delta 96: err = %v, want it to name the C-Delta", err)
	}
	if _, err := NewInputGenerator(NewRand(1, 1), testConstants, TerminalConfig{}); err == nil {
		t.Error("zero TerminalConfig: err = nil, want an error")
	}
}

func TestNewOrderInputDistribution(t *testing.T) {
	const home, active, n = 3, 5, 200_000
	g := newTestGenerator(t, 42, TerminalConfig{HomeWarehouseID: home, HomeDistrictID: 4, ActiveWarehouses: active})
	var (
		districts     [DistrictsPerWarehouse + 1]int
		lineCounts    [MaxOrderLines + 1]int
		quantities    [MaxOrderLineQuantity + 1]int
		remoteBySuppl [active + 1]int
		rollbacks     int
		lines         int
		remoteLines   int
		notAllLocal   int
	)
	for i := 0; i < n; i++ {
		in := g.NewOrder()
		if in.WarehouseID != home {
			t.Fatalf("W_ID %d, want the home warehouse %d", in.WarehouseID, home)
		}
		if in.CustomerID < 1 || in.CustomerID > CustomersPerDistrict {
			t.Fatalf("C_ID %d outside [1, %d]", in.CustomerID, CustomersPerDistrict)
		}
		districts[in.DistrictID]++
		lineCounts[len(in.Lines)]++
		for j, l := range in.Lines {
			last := j == len(in.Lines)-1
			switch {
			case l.ItemID == UnusedItemID && last:
				rollbacks++
			case l.ItemID < 1 || l.ItemID > Items:
				t.Fatalf("line %d of %d: item %d outside [1, %d]", j+1, len(in.Lines), l.ItemID, Items)
			}
			if l.SupplyWarehouseID < 1 || l.SupplyWarehouseID > active {
				t.Fatalf("supply warehouse %d outside [1, %d]", l.SupplyWarehouseID, active)
			}
			if l.SupplyWarehouseID != home {
				remoteLines++
				remoteBySuppl[l.SupplyWarehouseID]++
			}
			quantities[l.Quantity]++
			lines++
		}
		if !in.AllLocal() {
			notAllLocal++
		}
	}
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		within(t, fmt.Sprintf("district %d", d), districts[d], n, 10, 0.5)
	}
	for c := MinOrderLines; c <= MaxOrderLines; c++ {
		within(t, fmt.Sprintf("orders with %d lines", c), lineCounts[c], n, 100.0/11, 0.5) // Clause 9.2.2.5.2: 1/11 ± 1 %
	}
	if mean := float64(lines) / n; mean < 9.9 || mean > 10.1 {
		t.Errorf("mean order lines %.3f, want 10 ± 0.1", mean)
	}
	for q := MinOrderLineQuantity; q <= MaxOrderLineQuantity; q++ {
		within(t, fmt.Sprintf("quantity %d", q), quantities[q], lines, 10, 0.3)
	}
	within(t, "rollbacks", rollbacks, n, 1, 0.1)
	within(t, "remote lines", remoteLines, lines, 1, 0.05)
	if remoteBySuppl[home] != 0 {
		t.Errorf("%d remote lines name the home warehouse", remoteBySuppl[home])
	}
	for w := 1; w <= active; w++ {
		if w != home {
			within(t, fmt.Sprintf("remote supplier %d", w), remoteBySuppl[w], remoteLines, 25, 3)
		}
	}
	if notAllLocal == 0 || notAllLocal > remoteLines {
		t.Errorf("%d orders not all local for %d remote lines", notAllLocal, remoteLines)
	}
}

func TestNewOrderSingleWarehouseHasNoRemoteLines(t *testing.T) {
	g := newTestGenerator(t, 7, TerminalConfig{HomeWarehouseID: 1, HomeDistrictID: 1, ActiveWarehouses: 1})
	for i := 0; i < 50_000; i++ {
		in := g.NewOrder()
		if !in.AllLocal() {
			t.Fatalf("order %d has %d remote lines with one warehouse", i, in.RemoteLines())
		}
	}
}

func TestPaymentInputDistribution(t *testing.T) {
	const home, active, n = 2, 4, 200_000
	g := newTestGenerator(t, 11, TerminalConfig{HomeWarehouseID: home, HomeDistrictID: 9, ActiveWarehouses: active})
	names := validLastNames()
	var remote, byName, remoteOtherDistrict int
	var amountSum int64
	minAmount, maxAmount := int64(math.MaxInt64), int64(0)
	for i := 0; i < n; i++ {
		in := g.Payment()
		if in.WarehouseID != home || in.DistrictID < 1 || in.DistrictID > DistrictsPerWarehouse {
			t.Fatalf("payment entered at W %d D %d, want home %d and D in [1, 10]", in.WarehouseID, in.DistrictID, home)
		}
		if in.RemoteCustomer() {
			remote++
			if in.CustomerWarehouseID < 1 || in.CustomerWarehouseID > active {
				t.Fatalf("remote customer warehouse %d outside [1, %d]", in.CustomerWarehouseID, active)
			}
			if in.CustomerDistrictID != in.DistrictID {
				remoteOtherDistrict++
			}
		} else if in.CustomerDistrictID != in.DistrictID {
			t.Fatalf("local customer in district %d, payment in district %d", in.CustomerDistrictID, in.DistrictID)
		}
		checkCustomerSelector(t, in.Customer, names)
		if in.Customer.ByLastName {
			byName++
		}
		amountSum += in.AmountCents
		minAmount = min(minAmount, in.AmountCents)
		maxAmount = max(maxAmount, in.AmountCents)
	}
	within(t, "remote payments", remote, n, 15, 0.3)
	within(t, "payments by last name", byName, n, 60, 0.4)
	// A remote customer's district is uniform and independent of the payment's: 9 in 10 differ.
	within(t, "remote customer in another district", remoteOtherDistrict, remote, 90, 1)
	if minAmount < MinPaymentAmountCents || maxAmount > MaxPaymentAmountCents {
		t.Errorf("amounts span [%d, %d] cents, want within [%d, %d]", minAmount, maxAmount, MinPaymentAmountCents, MaxPaymentAmountCents)
	}
	if mean := float64(amountSum) / n; math.Abs(mean-250050) > 2000 {
		t.Errorf("mean amount %.0f cents, want 250050 ± 2000", mean)
	}
}

func checkCustomerSelector(t *testing.T, c CustomerSelector, names map[string]bool) {
	t.Helper()
	if c.ByLastName {
		if !names[c.LastName] || c.ID != 0 {
			t.Fatalf("by-name selector %+v: want a syllable last name and no id", c)
		}
		return
	}
	if c.ID < 1 || c.ID > CustomersPerDistrict || c.LastName != "" {
		t.Fatalf("by-id selector %+v: want C_ID in [1, %d] and no name", c, CustomersPerDistrict)
	}
}

func TestPaymentSingleWarehouseIsAlwaysLocal(t *testing.T) {
	g := newTestGenerator(t, 5, TerminalConfig{HomeWarehouseID: 1, HomeDistrictID: 1, ActiveWarehouses: 1})
	for i := 0; i < 20_000; i++ {
		if in := g.Payment(); in.RemoteCustomer() || in.CustomerDistrictID != in.DistrictID {
			t.Fatalf("payment %d: %+v is remote with one warehouse", i, in)
		}
	}
}

func TestOrderStatusInputDistribution(t *testing.T) {
	const n = 100_000
	g := newTestGenerator(t, 13, TerminalConfig{HomeWarehouseID: 1, HomeDistrictID: 1, ActiveWarehouses: 3})
	names := validLastNames()
	var byName int
	var districts [DistrictsPerWarehouse + 1]int
	for i := 0; i < n; i++ {
		in := g.OrderStatus()
		if in.WarehouseID != 1 {
			t.Fatalf("W_ID %d, want home 1", in.WarehouseID)
		}
		districts[in.DistrictID]++
		checkCustomerSelector(t, in.Customer, names)
		if in.Customer.ByLastName {
			byName++
		}
	}
	within(t, "order-status by last name", byName, n, 60, 0.5)
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		within(t, fmt.Sprintf("district %d", d), districts[d], n, 10, 0.6)
	}
}

func TestDeliveryAndStockLevelInputs(t *testing.T) {
	const n = 50_000
	g := newTestGenerator(t, 17, TerminalConfig{HomeWarehouseID: 2, HomeDistrictID: 6, ActiveWarehouses: 2})
	var carriers [MaxCarrierID + 1]int
	var thresholds [MaxStockLevelThreshold + 1]int
	for i := 0; i < n; i++ {
		d := g.Delivery()
		if d.WarehouseID != 2 || d.CarrierID < MinCarrierID || d.CarrierID > MaxCarrierID {
			t.Fatalf("delivery %+v: want home 2 and carrier in [1, 10]", d)
		}
		carriers[d.CarrierID]++
		s := g.StockLevel()
		if s.WarehouseID != 2 || s.DistrictID != 6 {
			t.Fatalf("stock-level %+v: want the terminal's fixed W 2, D 6", s)
		}
		if s.Threshold < MinStockLevelThreshold || s.Threshold > MaxStockLevelThreshold {
			t.Fatalf("threshold %d outside [10, 20]", s.Threshold)
		}
		thresholds[s.Threshold]++
	}
	for c := MinCarrierID; c <= MaxCarrierID; c++ {
		within(t, fmt.Sprintf("carrier %d", c), carriers[c], n, 10, 0.8)
	}
	for th := MinStockLevelThreshold; th <= MaxStockLevelThreshold; th++ {
		within(t, fmt.Sprintf("threshold %d", th), thresholds[th], n, 100.0/11, 0.8)
	}
}

// The run draws last names with C-Run: changing C-Load must not change any input, changing
// C-Run must change the names.
func TestLastNamesUseCRun(t *testing.T) {
	cfg := TerminalConfig{HomeWarehouseID: 1, HomeDistrictID: 1, ActiveWarehouses: 1}
	draw := func(c Constants) []string {
		g, err := NewInputGenerator(NewRand(99, 3), c, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for len(out) < 200 {
			if p := g.Payment(); p.Customer.ByLastName {
				out = append(out, p.Customer.LastName)
			}
		}
		return out
	}
	base := draw(testConstants)
	otherLoad := testConstants
	otherLoad.CLoad = 150 // Δ to C-Run 223 is 73: still valid
	if got := draw(otherLoad); strings.Join(got, ",") != strings.Join(base, ",") {
		t.Error("changing C-Load changed the run's last names")
	}
	otherRun := testConstants
	otherRun.CRun = 230 // Δ 73
	if got := draw(otherRun); strings.Join(got, ",") == strings.Join(base, ",") {
		t.Error("changing C-Run left the run's last names unchanged")
	}
}

func TestInputGeneratorIsDeterministic(t *testing.T) {
	cfg := TerminalConfig{HomeWarehouseID: 3, HomeDistrictID: 2, ActiveWarehouses: 8}
	a, b := newTestGenerator(t, 1234, cfg), newTestGenerator(t, 1234, cfg)
	for i := 0; i < 1000; i++ {
		na, nb := a.NewOrder(), b.NewOrder()
		if na.DistrictID != nb.DistrictID || na.CustomerID != nb.CustomerID || len(na.Lines) != len(nb.Lines) {
			t.Fatalf("draw %d differs: %+v vs %+v", i, na, nb)
		}
		for j := range na.Lines {
			if na.Lines[j] != nb.Lines[j] {
				t.Fatalf("draw %d line %d differs", i, j)
			}
		}
		if pa, pb := a.Payment(), b.Payment(); pa != pb {
			t.Fatalf("payment %d differs: %+v vs %+v", i, pa, pb)
		}
	}
}

func TestInputValidation(t *testing.T) {
	lines := func(n int) []NewOrderLine {
		out := make([]NewOrderLine, n)
		for i := range out {
			out[i] = NewOrderLine{ItemID: i + 1, SupplyWarehouseID: 1, Quantity: 1}
		}
		return out
	}
	goodPayment := PaymentInput{WarehouseID: 1, DistrictID: 1, CustomerWarehouseID: 2, CustomerDistrictID: 3,
		Customer: CustomerSelector{ID: 1}, AmountCents: 100}
	tests := []struct {
		name    string
		err     error
		wantErr string // empty: valid
	}{
		{"new-order valid", (&NewOrderInput{WarehouseID: 1, DistrictID: 1, CustomerID: 1, Lines: lines(5)}).Validate(), ""},
		{"new-order unused item is valid", (&NewOrderInput{WarehouseID: 1, DistrictID: 1, CustomerID: 1,
			Lines: append(lines(4), NewOrderLine{ItemID: UnusedItemID, SupplyWarehouseID: 1, Quantity: 1})}).Validate(), ""},
		{"new-order 4 lines", (&NewOrderInput{WarehouseID: 1, DistrictID: 1, CustomerID: 1, Lines: lines(4)}).Validate(), "4 Lines"},
		{"new-order 16 lines", (&NewOrderInput{WarehouseID: 1, DistrictID: 1, CustomerID: 1, Lines: lines(16)}).Validate(), "16 Lines"},
		{"new-order customer 3001", (&NewOrderInput{WarehouseID: 1, DistrictID: 1, CustomerID: 3001, Lines: lines(5)}).Validate(), "CustomerID 3001"},
		{"new-order warehouse 0", (&NewOrderInput{WarehouseID: 0, DistrictID: 1, CustomerID: 1, Lines: lines(5)}).Validate(), "WarehouseID 0"},
		{"new-order quantity 11", (&NewOrderInput{WarehouseID: 1, DistrictID: 1, CustomerID: 1,
			Lines: append(lines(4), NewOrderLine{ItemID: 9, SupplyWarehouseID: 1, Quantity: 11})}).Validate(), "Lines[4].Quantity 11"},
		{"new-order item 0", (&NewOrderInput{WarehouseID: 1, DistrictID: 1, CustomerID: 1,
			Lines: append(lines(4), NewOrderLine{ItemID: 0, SupplyWarehouseID: 1, Quantity: 1})}).Validate(), "Lines[4].ItemID 0"},
		{"payment valid", goodPayment.Validate(), ""},
		{"payment customer district 0", func() error { p := goodPayment; p.CustomerDistrictID = 0; return p.Validate() }(), "CustomerDistrictID 0"},
		{"payment amount too big", func() error { p := goodPayment; p.AmountCents = 500001; return p.Validate() }(), "AmountCents 500001"},
		{"payment empty last name", func() error {
			p := goodPayment
			p.Customer = CustomerSelector{ByLastName: true}
			return p.Validate()
		}(), "Customer.LastName is empty"},
		{"order-status customer 0", (&OrderStatusInput{WarehouseID: 1, DistrictID: 1}).Validate(), "Customer.ID 0"},
		{"delivery carrier 11", (&DeliveryInput{WarehouseID: 1, CarrierID: 11}).Validate(), "CarrierID 11"},
		{"stock-level threshold 9", (&StockLevelInput{WarehouseID: 1, DistrictID: 1, Threshold: 9}).Validate(), "Threshold 9"},
	}
	for _, tt := range tests {
		if tt.wantErr == "" {
			if tt.err != nil {
				t.Errorf("%s: %v, want valid", tt.name, tt.err)
			}
			continue
		}
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.wantErr) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, tt.err, tt.wantErr)
		}
	}
}

// Every input the generator draws passes the executors' validation.
func TestGeneratedInputsAreValid(t *testing.T) {
	g := newTestGenerator(t, 3, TerminalConfig{HomeWarehouseID: 2, HomeDistrictID: 3, ActiveWarehouses: 3})
	for i := 0; i < 20_000; i++ {
		no, p, os, d, sl := g.NewOrder(), g.Payment(), g.OrderStatus(), g.Delivery(), g.StockLevel()
		for _, err := range []error{no.Validate(), p.Validate(), os.Validate(), d.Validate(), sl.Validate()} {
			if err != nil {
				t.Fatalf("draw %d: %v", i, err)
			}
		}
	}
}
