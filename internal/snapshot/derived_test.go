package snapshot

import (
	"math"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

func TestSummarize(t *testing.T) {
	// 100 warehouses for 10 minutes: 12 000 New-Orders (120 rolled back) is
	// 1200 tpmC, 93.31 % of 12.86·100.
	histogram := func(n int64, micros ...int64) *hdr.Histogram {
		h := NewHistogram()
		per := n / int64(len(micros))
		for i, v := range micros {
			c := per
			if i == len(micros)-1 {
				c = n - per*int64(len(micros)-1)
			}
			_ = h.RecordValues(v, c)
		}
		return h
	}
	s := podFixture{pod: "a", from: 1, to: 100, active: 100, measured: 600, start: stepStart, rollbacks: 120,
		histograms: map[Transaction]*hdr.Histogram{
			NewOrder:    histogram(12000, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000, 4_000_000),
			Payment:     histogram(11500, 5_000),
			OrderStatus: histogram(1100, 2_000),
			Delivery:    histogram(1100, 100_000),
			StockLevel:  histogram(1100, 30_000),
		},
		errors: map[Transaction]int64{Payment: 200},
	}.snapshot(t)
	s.Audit = Audit{
		OrderLineCounts:  [OrderLineCountsLen]int64{1000, 1000, 1000, 1000, 1000, 2000, 1000, 1000, 1000, 1000, 1000},
		RemoteOrderLines: 1200, RemotePayments: 1725, PaymentsByLastName: 6900, OrderStatusByLastName: 660,
		DeliveredDistricts: 10890, SkippedDeliveryDistricts: 110,
	}
	m, err := Merge([]*Snapshot{s})
	if err != nil {
		t.Fatal(err)
	}
	got := m.Summarize()

	checks := []struct {
		name      string
		got, want float64
	}{
		{"tpmC", got.TpmC, 1200},
		{"tpmC committed", got.TpmCCommitted, 1188},
		{"efficiency", got.EfficiencyPercent, 100 * 1200 / 1286.0},
		{"efficiency committed", got.EfficiencyCommittedPercent, 100 * 1188 / 1286.0},
		{"mix NewOrder", got.MixPercent[NewOrder], 100 * 12000 / 26800.0},
		{"mix Payment", got.MixPercent[Payment], 100 * 11500 / 26800.0},
		{"errors", got.ErrorPercent, 100 * 200 / 27000.0},
		{"rollbacks", got.Audit.NewOrderRollbackPercent, 1},
		{"mean lines", got.Audit.MeanOrderLines, 120000 / 12000.0},
		{"remote lines", got.Audit.RemoteOrderLinePercent, 1},
		{"line count 10", got.Audit.OrderLineCountPercent[5], 100 * 2000 / 12000.0},
		{"remote payments", got.Audit.RemotePaymentPercent, 15},
		{"payments by name", got.Audit.PaymentByLastNamePercent, 60},
		{"order-status by name", got.Audit.OrderStatusByLastNamePercent, 60},
		{"skipped deliveries", got.Audit.SkippedDeliveryPercent, 1},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	no := got.Transactions[NewOrder]
	if no.Completed != 12000 || no.Commits != 11880 || no.Rollbacks != 120 {
		t.Errorf("NewOrder completed/commits/rollbacks = %d/%d/%d, want 12000/11880/120", no.Completed, no.Commits, no.Rollbacks)
	}
	// The values are 10 equal groups: p50 is the 5th group (50 ms), p90 the
	// 9th (90 ms), p95 and above the 4 s group; HDR reports each within its precision.
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"p50", no.P50Micros, 50_000}, {"p90", no.P90Micros, 90_000},
		{"p95", no.P95Micros, 4_000_000}, {"p99", no.P99Micros, 4_000_000}, {"max", no.MaxMicros, 4_000_000},
	} {
		if c.got < c.want || float64(c.got) > float64(c.want)*(1+HistogramMaxRelativeError) {
			t.Errorf("NewOrder %s = %d µs, want %d µs within the histogram's precision", c.name, c.got, c.want)
		}
	}
	if got.TotalCompleted != 26800 || got.TotalErrors != 200 {
		t.Errorf("totals = %d completed, %d errors; want 26800, 200", got.TotalCompleted, got.TotalErrors)
	}
}

func TestSummarizeWithoutAnyTransactionIsAllZero(t *testing.T) {
	m, err := Merge([]*Snapshot{podFixture{pod: "a", from: 1, to: 1, active: 1, start: stepStart}.snapshot(t)})
	if err != nil {
		t.Fatal(err)
	}
	got := m.Summarize()
	if got.TpmC != 0 || got.EfficiencyPercent != 0 || got.ErrorPercent != 0 || got.MixPercent[Payment] != 0 ||
		got.Audit.MeanOrderLines != 0 || got.Transactions[NewOrder].P90Micros != 0 {
		t.Errorf("empty merge summarized to non-zero figures: %+v", got)
	}
}

func TestPerMinuteAndEfficiency(t *testing.T) {
	for _, tc := range []struct {
		count    int64
		interval time.Duration
		active   int
		tpmC     float64
		eff      float64
	}{
		{count: 1286, interval: time.Minute, active: 100, tpmC: 1286, eff: 100},
		{count: 643, interval: 30 * time.Second, active: 100, tpmC: 1286, eff: 100},
		{count: 5, interval: 0, active: 1, tpmC: 0, eff: 0},
		{count: 5, interval: time.Minute, active: 0, tpmC: 5, eff: 0},
	} {
		tpmC := PerMinute(tc.count, tc.interval)
		if eff := EfficiencyPercent(tpmC, tc.active); !near(tpmC, tc.tpmC) || !near(eff, tc.eff) {
			t.Errorf("%d in %v over %d warehouses: tpmC %v, efficiency %v; want %v, %v", tc.count, tc.interval, tc.active, tpmC, eff, tc.tpmC, tc.eff)
		}
	}
}
