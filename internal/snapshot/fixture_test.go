package snapshot

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// podFixture builds a valid snapshot of one pod from recorded histograms.
type podFixture struct {
	pod        string
	from, to   int
	active     int
	histograms map[Transaction]*hdr.Histogram
	rollbacks  int64 // New-Order rollbacks among the NewOrder samples
	errors     map[Transaction]int64
	measured   float64
	start      time.Time
}

func (f podFixture) snapshot(t testing.TB) *Snapshot {
	t.Helper()
	s := &Snapshot{
		Version: Version,
		Identity: Identity{
			Pod: f.pod, Instance: "bench", Engine: "postgres",
			Warehouses: 2000, WarehouseFrom: f.from, WarehouseTo: f.to,
			ActiveWarehouses: f.active, Terminals: 10 * (f.to - f.from + 1), Wait: WaitSpec,
		},
		Phase:        PhaseMeasuring,
		Times:        Times{MeasurementStart: f.start, Updated: f.start.Add(time.Duration(f.measured * float64(time.Second))), MeasuredSeconds: f.measured},
		Transactions: map[Transaction]TransactionCounts{},
		Constants:    Constants{CLastLoad: 157, CLastRun: 223, CCustomerID: 259, CItemID: 7911},
		Versions:     Versions{Client: "v0.1.0", K6: "v1.8.1"},
	}
	for tx, h := range f.histograms {
		encoded, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		c := TransactionCounts{Histogram: encoded, Commits: h.TotalCount(), Errors: f.errors[tx]}
		if tx == NewOrder {
			c.Rollbacks = f.rollbacks
			c.Commits -= f.rollbacks
		}
		s.Transactions[tx] = c
	}
	return s
}

// latencyModel draws response times (µs) from a log-normal distribution with
// the given median and shape, the usual shape of OLTP response times.
type latencyModel struct {
	median time.Duration
	sigma  float64
}

var realisticLatencies = map[Transaction]latencyModel{
	NewOrder:    {median: 25 * time.Millisecond, sigma: 0.9},
	Payment:     {median: 12 * time.Millisecond, sigma: 0.9},
	OrderStatus: {median: 4 * time.Millisecond, sigma: 0.7},
	Delivery:    {median: 80 * time.Millisecond, sigma: 1.0},
	StockLevel:  {median: 30 * time.Millisecond, sigma: 1.1},
}

func (m latencyModel) draw(rng *rand.Rand) int64 {
	v := float64(m.median.Microseconds()) * math.Exp(m.sigma*rng.NormFloat64())
	return min(max(int64(v), HistogramLowestMicros), HistogramHighestMicros)
}
