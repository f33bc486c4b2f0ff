package tpcc

import (
	"runtime"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Outcome is one finished logical transaction as a terminal reports it.
type Outcome struct {
	Type       txType
	Start, End time.Time // end of keying .. commit or rollback (Clause 5.3)
	Failed     bool      // failed for good after its retries
	RolledBack bool      // New-Order rolled back by design (the 1 % unused item)
	Retries    int
	// Late is how far behind its keying/think schedule the terminal started the transaction
	// (spec waits only; 0 without waits).
	Late time.Duration
	// Audit inputs (Clause 9.2), read only for completed transactions of the matching type.
	Lines, RemoteLines int  // New-Order
	RemotePayment      bool // Payment
	ByLastName         bool // Payment, Order-Status
	Delivered, Skipped int  // Delivery
}

// Recorder collects the outcomes of the measured interval: per type an HDR histogram of response
// times, commits, rollbacks, errors and retries, and the audit counters of snapshot.Audit.
//
// It is striped: terminal i records into shard i mod n under that shard's mutex, so terminals on
// different cores rarely contend, and a snapshot locks each shard in turn and merges n small
// histograms per type (n ≈ 4 × cores). hdr.Histogram is not goroutine-safe; one histogram per
// terminal would cost 5 × 17 KB per terminal — 8.5 GB for 100 000 — where the stripes cost a
// fixed ~90 KB each. Each shard holds the window itself, so a shard's counters and histograms are
// always consistent with each other: every histogram holds exactly commits + rollbacks samples.
//
// Next to the whole-step state each shard keeps the open intervals of the time series
// (recorder_intervals.go); the same lock covers both, so they always agree.
type Recorder struct {
	shards []recorderShard
	store  intervalStore
}

type recorderShard struct {
	mu     sync.Mutex
	start  time.Time // zero: not measuring; outcomes are dropped
	end    time.Time // zero: open; outcomes finishing after end are dropped
	hist   [txTypes]*hdr.Histogram
	counts [txTypes]snapshot.TransactionCounts
	audit  snapshot.Audit
	iv     intervalShard
	_      [64]byte // keep neighbouring shards' mutexes off one cache line
}

// NewRecorder returns a recorder with about 4 stripes per core.
func NewRecorder() *Recorder { return newRecorder(4 * runtime.GOMAXPROCS(0)) }

func newRecorder(stripes int) *Recorder {
	r := &Recorder{shards: make([]recorderShard, max(stripes, 1))}
	for i := range r.shards {
		for t := range txTypes {
			r.shards[i].hist[t] = snapshot.NewHistogram()
		}
	}
	return r
}

// BeginMeasurement resets every counter and opens the measured interval at start: only
// transactions that start at or after it count.
func (r *Recorder) BeginMeasurement(start time.Time) {
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		for t := range txTypes {
			s.hist[t].Reset()
			s.counts[t] = snapshot.TransactionCounts{}
		}
		s.audit = snapshot.Audit{}
		s.start, s.end = start, time.Time{}
		s.mu.Unlock()
	}
}

// EndMeasurement closes the interval at end: transactions finishing after it do not count.
// Only the first call has an effect.
func (r *Recorder) EndMeasurement(end time.Time) {
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		if !s.start.IsZero() && s.end.IsZero() {
			s.end = end
		}
		s.mu.Unlock()
	}
}

// Record adds o for the terminal with the given index, if o lies inside the measured interval,
// and to the time series (measured or not) once StartIntervals ran. It reports whether o was
// counted in the measured interval.
func (r *Recorder) Record(terminal int, o *Outcome) bool {
	s := &r.shards[terminal%len(r.shards)]
	s.mu.Lock()
	defer s.mu.Unlock()
	measured := !s.start.IsZero() && !o.Start.Before(s.start) && (s.end.IsZero() || !o.End.After(s.end))
	if s.iv.length > 0 {
		s.iv.record(o, measured)
	}
	if !measured {
		return false
	}
	c := &s.counts[o.Type]
	c.Retries += int64(o.Retries)
	if o.Failed {
		c.Errors++
		return true
	}
	snapshot.RecordLatency(s.hist[o.Type], o.End.Sub(o.Start))
	if o.RolledBack {
		c.Rollbacks++
	} else {
		c.Commits++
	}
	a := &s.audit
	switch o.Type {
	case txNewOrder:
		if i := o.Lines - snapshot.MinOrderLines; i >= 0 && i < snapshot.OrderLineCountsLen {
			a.OrderLineCounts[i]++
		}
		a.RemoteOrderLines += int64(o.RemoteLines)
	case txPayment:
		if o.RemotePayment {
			a.RemotePayments++
		}
		if o.ByLastName {
			a.PaymentsByLastName++
		}
	case txOrderStatus:
		if o.ByLastName {
			a.OrderStatusByLastName++
		}
	case txDelivery:
		a.DeliveredDistricts += int64(o.Delivered)
		a.SkippedDeliveryDistricts += int64(o.Skipped)
	}
	return true
}

// Measured is the merged state of all stripes at one moment.
type Measured struct {
	Start, End time.Time // End is the close of the interval, or the moment of collection while open
	Histograms [txTypes]*hdr.Histogram
	Counts     [txTypes]snapshot.TransactionCounts // Histogram fields are empty; see Encode
	Audit      snapshot.Audit
}

// MeasuredDuration is the length of the interval covered.
func (m *Measured) MeasuredDuration() time.Duration {
	if m.Start.IsZero() {
		return 0
	}
	return max(m.End.Sub(m.Start), 0)
}

// Collect merges the stripes. now closes an interval that is still open.
func (r *Recorder) Collect(now time.Time) *Measured {
	m := &Measured{}
	for t := range txTypes {
		m.Histograms[t] = snapshot.NewHistogram()
	}
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		if i == 0 {
			m.Start, m.End = s.start, s.end
		}
		for t := range txTypes {
			// Merge cannot drop values: every stripe has the contract's geometry.
			m.Histograms[t].Merge(s.hist[t])
			c := &m.Counts[t]
			c.Commits += s.counts[t].Commits
			c.Rollbacks += s.counts[t].Rollbacks
			c.Errors += s.counts[t].Errors
			c.Retries += s.counts[t].Retries
		}
		m.Audit.Add(s.audit)
		s.mu.Unlock()
	}
	if !m.Start.IsZero() && m.End.IsZero() {
		m.End = now
	}
	return m
}

// Transactions returns the per-type entries of a snapshot document, histograms encoded.
func (m *Measured) Transactions() (map[snapshot.Transaction]snapshot.TransactionCounts, error) {
	out := make(map[snapshot.Transaction]snapshot.TransactionCounts, txTypes)
	for t := range txTypes {
		c := m.Counts[t]
		if m.Histograms[t].TotalCount() > 0 {
			enc, err := snapshot.EncodeHistogram(m.Histograms[t])
			if err != nil {
				return nil, err
			}
			c.Histogram = enc
		}
		out[t.Transaction()] = c
	}
	return out, nil
}

// Percentile returns the p-th percentile response time of a type by the nearest-rank method
// (snapshot.NearestRank), 0 without samples.
func (m *Measured) Percentile(t snapshot.Transaction, p float64) time.Duration {
	h := m.Histograms[txTypeOf(t)]
	if h.TotalCount() == 0 {
		return 0
	}
	return snapshot.Micros(snapshot.ValueAtNearestRank(h, p))
}

// Completed returns a type's completed transactions (commits + rollbacks).
func (m *Measured) Completed(t snapshot.Transaction) int64 {
	c := m.Counts[txTypeOf(t)]
	return c.Commits + c.Rollbacks
}
