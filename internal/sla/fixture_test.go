package sla

import (
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Counts of a 1000-warehouse, two-hour step at 12 tpmC per warehouse with a
// 444/433/41/41/41 deck: large enough for every audit to be judged.
const (
	fixtureWarehouses  = 1000
	fixtureNewOrders   = 1_440_000
	fixturePayments    = 1_404_324
	fixtureOthers      = 132_973
	fixtureMeasured    = 2 * time.Hour
	fixtureLatencyBase = 20 * time.Millisecond
)

// compliantStep returns a merged step that passes every check of
// DefaultCriteria, including the spec-compliance notes.
func compliantStep(t testing.TB) *snapshot.Merged {
	t.Helper()
	m := &snapshot.Merged{
		Pods: 10, Engine: "postgres", Wait: snapshot.WaitSpec,
		Warehouses: fixtureWarehouses, ActiveWarehouses: fixtureWarehouses, DrivenWarehouses: fixtureWarehouses,
		Terminals: 10 * fixtureWarehouses, Phase: snapshot.PhaseDone, Measured: fixtureMeasured,
		Transactions: map[snapshot.Transaction]*snapshot.MergedTransaction{},
		Constants:    snapshot.Constants{CLastLoad: 157, CLastRun: 223, CCustomerID: 259, CItemID: 7911},
	}
	counts := map[snapshot.Transaction]int64{
		snapshot.NewOrder: fixtureNewOrders, snapshot.Payment: fixturePayments,
		snapshot.OrderStatus: fixtureOthers, snapshot.Delivery: fixtureOthers, snapshot.StockLevel: fixtureOthers,
	}
	for tx, n := range counts {
		mt := &snapshot.MergedTransaction{Histogram: latencies(t, n, fixtureLatencyBase), Commits: n, Retries: n / 50}
		if tx == snapshot.NewOrder {
			mt.Rollbacks = n / 100
			mt.Commits = n - mt.Rollbacks
		}
		m.Transactions[tx] = mt
	}
	var lineCounts [snapshot.OrderLineCountsLen]int64
	for i := range lineCounts {
		lineCounts[i] = fixtureNewOrders / snapshot.OrderLineCountsLen
	}
	lineCounts[5] += fixtureNewOrders - fixtureNewOrders/snapshot.OrderLineCountsLen*snapshot.OrderLineCountsLen
	m.Audit = snapshot.Audit{
		OrderLineCounts:          lineCounts,
		RemoteOrderLines:         fixtureNewOrders * 10 / 100,
		RemotePayments:           fixturePayments * 15 / 100,
		PaymentsByLastName:       fixturePayments * 60 / 100,
		OrderStatusByLastName:    fixtureOthers * 60 / 100,
		DeliveredDistricts:       10*fixtureOthers - 1000,
		SkippedDeliveryDistricts: 1000,
	}
	return m
}

// latencies returns n samples spread evenly over 1..10 times base: p90 is 9·base.
func latencies(t testing.TB, n int64, base time.Duration) *hdr.Histogram {
	t.Helper()
	h := snapshot.NewHistogram()
	if n == 0 {
		return h
	}
	per := n / 10
	for i := int64(1); i <= 10; i++ {
		c := per
		if i == 10 {
			c = n - 9*per
		}
		if err := h.RecordValues(i*base.Microseconds(), c); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// withHistogram replaces a type's samples, keeping the counters consistent.
func withHistogram(m *snapshot.Merged, tx snapshot.Transaction, h *hdr.Histogram) {
	mt := m.Transactions[tx]
	mt.Histogram = h
	mt.Commits = h.TotalCount() - mt.Rollbacks
	if mt.Commits < 0 {
		mt.Rollbacks, mt.Commits = 0, h.TotalCount()
	}
}

func histogramOf(t testing.TB, samples map[time.Duration]int64) *hdr.Histogram {
	t.Helper()
	h := snapshot.NewHistogram()
	for d, n := range samples {
		if err := h.RecordValues(d.Microseconds(), n); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// setWarehouses makes the step drive n warehouses with their 10 terminals each.
func setWarehouses(m *snapshot.Merged, n int) {
	m.Warehouses, m.ActiveWarehouses, m.DrivenWarehouses = n, n, n
	m.Terminals = snapshot.TerminalsPerWarehouse * n
}
