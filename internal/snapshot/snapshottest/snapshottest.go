// Package snapshottest builds realistic client snapshots for tests and
// benchmarks of the code that consumes them (merge, verdict, controller).
package snapshottest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// LatencyModel is a log-normal response-time distribution, the usual shape
// of OLTP response times: Median scaled by exp(Sigma·N(0,1)).
type LatencyModel struct {
	Median time.Duration
	Sigma  float64
}

// Draw returns one response time in microseconds, inside the contract's geometry.
func (m LatencyModel) Draw(rng *rand.Rand) int64 {
	v := float64(m.Median.Microseconds()) * math.Exp(m.Sigma*rng.NormFloat64())
	return min(max(int64(v), snapshot.HistogramLowestMicros), snapshot.HistogramHighestMicros)
}

// Latencies are plausible per-type distributions of a loaded database.
var Latencies = map[snapshot.Transaction]LatencyModel{
	snapshot.NewOrder:    {Median: 25 * time.Millisecond, Sigma: 0.9},
	snapshot.Payment:     {Median: 12 * time.Millisecond, Sigma: 0.9},
	snapshot.OrderStatus: {Median: 4 * time.Millisecond, Sigma: 0.7},
	snapshot.Delivery:    {Median: 80 * time.Millisecond, Sigma: 1.0},
	snapshot.StockLevel:  {Median: 30 * time.Millisecond, Sigma: 1.1},
}

// Step describes the pods of one synthetic step.
type Step struct {
	Pods             int
	WarehousesPerPod int
	Measured         time.Duration
	Start            time.Time
	// SamplesPerHistogram is the recorded count of every type's histogram in
	// every pod. DistinctDraws values are drawn and each recorded
	// SamplesPerHistogram/DistinctDraws times, which fills the buckets the way
	// that many independent draws would while keeping set-up fast.
	SamplesPerHistogram int64
	DistinctDraws       int
	Seed                uint64
}

// Build returns the pods' snapshots. Every type gets SamplesPerHistogram
// samples (a worst case for decoding, not the TPC-C mix); 1 % of New-Orders
// roll back and the audit counters sit at their nominal TPC-C rates.
func (s Step) Build() ([]*snapshot.Snapshot, error) {
	if s.Pods < 1 || s.WarehousesPerPod < 1 || s.DistinctDraws < 1 || s.SamplesPerHistogram < int64(s.DistinctDraws) {
		return nil, fmt.Errorf("snapshottest: invalid step %+v", s)
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x7c7c))
	weight := s.SamplesPerHistogram / int64(s.DistinctDraws)
	samples := weight * int64(s.DistinctDraws)
	active := s.Pods * s.WarehousesPerPod
	var out []*snapshot.Snapshot
	for p := range s.Pods {
		snap := &snapshot.Snapshot{
			Version: snapshot.Version,
			Identity: snapshot.Identity{
				Pod: fmt.Sprintf("step-%d", p), Instance: "synthetic", Engine: "postgres",
				Warehouses: active, WarehouseFrom: p*s.WarehousesPerPod + 1, WarehouseTo: (p + 1) * s.WarehousesPerPod,
				ActiveWarehouses: active, Terminals: 10 * s.WarehousesPerPod, Wait: snapshot.WaitSpec,
			},
			Phase: snapshot.PhaseDone,
			Times: snapshot.Times{MeasurementStart: s.Start, Updated: s.Start.Add(s.Measured),
				MeasuredSeconds: s.Measured.Seconds()},
			Transactions: map[snapshot.Transaction]snapshot.TransactionCounts{},
			Constants:    snapshot.Constants{CLastLoad: 157, CLastRun: 223, CCustomerID: 259, CItemID: 7911},
			Versions:     snapshot.Versions{Client: "synthetic", K6: "v1.8.1", EngineServer: "PostgreSQL 17"},
		}
		for _, t := range snapshot.Transactions {
			h := snapshot.NewHistogram()
			model := Latencies[t]
			for range s.DistinctDraws {
				if err := h.RecordValues(model.Draw(rng), weight); err != nil {
					return nil, err
				}
			}
			encoded, err := snapshot.EncodeHistogram(h)
			if err != nil {
				return nil, err
			}
			counts := snapshot.TransactionCounts{Histogram: encoded, Commits: samples, Errors: samples / 10000, Retries: samples / 100}
			if t == snapshot.NewOrder {
				counts.Rollbacks = samples / 100
				counts.Commits -= counts.Rollbacks
			}
			snap.Transactions[t] = counts
		}
		snap.Audit = nominalAudit(samples)
		out = append(out, snap)
	}
	return out, nil
}

// nominalAudit returns audit counters at the nominal TPC-C rates for
// newOrders New-Orders and as many Payments, Order-Statuses and Deliveries.
func nominalAudit(n int64) snapshot.Audit {
	var a snapshot.Audit
	for i := range a.OrderLineCounts {
		a.OrderLineCounts[i] = n / snapshot.OrderLineCountsLen
	}
	a.OrderLineCounts[5] += n - n/snapshot.OrderLineCountsLen*snapshot.OrderLineCountsLen
	a.RemoteOrderLines = 10 * n / 100
	a.RemotePayments = n * 15 / 100
	a.PaymentsByLastName = n * 60 / 100
	a.OrderStatusByLastName = n * 60 / 100
	a.DeliveredDistricts = 10 * n
	return a
}

var (
	hundredPodsOnce sync.Once
	hundredPodsJSON [][]byte
	hundredPodsErr  error
)

// HundredPods is 100 pods' final snapshots as served over HTTP: five histograms of 1M log-normal
// response times each per pod. It is built once per process; the benchmarks of merging and
// judging share it.
func HundredPods() ([][]byte, error) {
	hundredPodsOnce.Do(func() {
		snaps, err := Step{
			Pods: 100, WarehousesPerPod: 10, Measured: 10 * time.Minute, Start: time.Unix(1_800_000_000, 0),
			SamplesPerHistogram: 1_000_000, DistinctDraws: 100_000, Seed: 1,
		}.Build()
		if err != nil {
			hundredPodsErr = err
			return
		}
		for _, s := range snaps {
			data, err := snapshot.Marshal(s)
			if err != nil {
				hundredPodsErr = err
				return
			}
			hundredPodsJSON = append(hundredPodsJSON, data)
		}
	})
	return hundredPodsJSON, hundredPodsErr
}
