package tpcc

import (
	"fmt"
	"slices"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// The recorder's time series. Each stripe keeps, next to its whole-step histograms, the few
// intervals still open (usually one, two around a boundary): an outcome goes into the interval in
// which it completed, measured or not, under the stripe's mutex it already holds. A sealer (the
// session's interval loop, then the end of the run) moves the intervals that have ended out of
// every stripe, merges them, encodes them and keeps them in a store until a reader collects them
// (hand-over) or the retention bound drops the oldest uncollected one. So the memory of a long
// step is the open slots (stripes × ~2 × the histograms actually used) plus the retained
// encoded intervals (a few KB each), whatever its length or terminal count.

// DefaultIntervalRetention bounds the retained uncollected intervals: 3 hours at 10 s intervals.
// A reader polling every few seconds keeps one or two; the bound only matters when it stops.
const DefaultIntervalRetention = 1080

// measuredKind indexes a slot's two groups: outcomes the step counts, and the rest.
const (
	kindMeasured = iota
	kindUnmeasured
	kinds
)

// intervalShard is one stripe's part of the time series, guarded by the stripe's mutex.
type intervalShard struct {
	origin time.Time
	length time.Duration // 0: no time series
	floor  int           // intervals below it are sealed: a late outcome goes into floor instead
	open   []*intervalSlot
}

type intervalSlot struct {
	index  int
	hist   [kinds][txTypes]*hdr.Histogram // nil until the first sample
	counts [kinds][txTypes]snapshot.TransactionCounts
	client snapshot.ClientSignals
}

var slotPool = sync.Pool{New: func() any { return new(intervalSlot) }}

func (iv *intervalShard) record(o *Outcome, measured bool) {
	idx := max(int(o.End.Sub(iv.origin)/iv.length), iv.floor)
	slot := iv.slot(idx)
	k := kindUnmeasured
	if measured {
		k = kindMeasured
	}
	c := &slot.counts[k][o.Type]
	c.Retries += int64(o.Retries)
	if o.Failed {
		c.Errors++
	} else {
		h := slot.hist[k][o.Type]
		if h == nil {
			h = snapshot.NewHistogram()
			slot.hist[k][o.Type] = h
		}
		snapshot.RecordLatency(h, o.End.Sub(o.Start))
		if o.RolledBack {
			c.Rollbacks++
		} else {
			c.Commits++
		}
	}
	if o.Late > 0 {
		late := o.Late.Seconds()
		slot.client.LateSecondsTotal += late
		slot.client.LateSecondsMax = max(slot.client.LateSecondsMax, late)
		if o.Late > snapshot.LateThreshold {
			slot.client.LateStarts++
		}
	}
}

// slot returns the open slot of idx, opening it (in index order) when needed.
func (iv *intervalShard) slot(idx int) *intervalSlot {
	i := len(iv.open)
	for i > 0 && iv.open[i-1].index >= idx {
		if iv.open[i-1].index == idx {
			return iv.open[i-1]
		}
		i--
	}
	s := slotPool.Get().(*intervalSlot)
	s.index = idx
	iv.open = slices.Insert(iv.open, i, s)
	return s
}

// takeBelow removes and returns the open slots with index < upTo and raises the floor to upTo.
func (iv *intervalShard) takeBelow(upTo int, into []*intervalSlot) []*intervalSlot {
	n := 0
	for n < len(iv.open) && iv.open[n].index < upTo {
		n++
	}
	into = append(into, iv.open[:n]...)
	iv.open = slices.Delete(iv.open, 0, n)
	iv.floor = max(iv.floor, upTo)
	return into
}

// release resets a sealed slot for reuse; its histograms are kept.
func (s *intervalSlot) release() {
	for k := range kinds {
		for t := range txTypes {
			if h := s.hist[k][t]; h != nil {
				h.Reset()
			}
			s.counts[k][t] = snapshot.TransactionCounts{}
		}
	}
	s.client = snapshot.ClientSignals{}
	slotPool.Put(s)
}

// intervalStore holds the sealed intervals until a reader collects them.
type intervalStore struct {
	sealMu  sync.Mutex // one sealer at a time; scratch belongs to it
	scratch [txTypes]*hdr.Histogram

	mu        sync.Mutex
	origin    time.Time
	length    time.Duration
	retention int // 0: unbounded
	sealed    int
	released  int
	dropped   int64
	finished  bool
	items     []snapshot.Interval
}

// StartIntervals starts the time series: interval i covers [origin + i·length, origin +
// (i+1)·length), and every outcome recorded from now on, measured or not, goes into the interval
// in which it completed. retention bounds the retained uncollected intervals (0: unbounded).
// Call it once, before the terminals start.
func (r *Recorder) StartIntervals(origin time.Time, length time.Duration, retention int) error {
	if length <= 0 {
		return fmt.Errorf("--interval must be > 0, got %v", length)
	}
	if retention < 0 {
		return fmt.Errorf("--interval-retention must be >= 0 (0 = unbounded), got %d", retention)
	}
	st := &r.store
	st.mu.Lock()
	st.origin, st.length, st.retention = origin, length, retention
	st.mu.Unlock()
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		s.iv.origin, s.iv.length = origin, length
		s.mu.Unlock()
	}
	return nil
}

// IntervalIndex is the index of the interval holding t, -1 before the origin or without a series.
func (r *Recorder) IntervalIndex(t time.Time) int {
	st := &r.store
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.length == 0 || t.Before(st.origin) {
		return -1
	}
	return int(t.Sub(st.origin) / st.length)
}

// SealedIntervals is the number of intervals sealed so far.
func (r *Recorder) SealedIntervals() int {
	st := &r.store
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sealed
}

// IntervalBoundary is the start of interval i.
func (r *Recorder) IntervalBoundary(i int) time.Time {
	st := &r.store
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.origin.Add(time.Duration(i) * st.length)
}

// SealIntervals seals every interval below upTo: they leave the stripes, are merged and encoded,
// and wait in the store for a reader. annotate, when not nil, completes interval upTo-1 (the
// database's telemetry, the pool's counters) before any reader can see it. Sealing an index
// twice has no effect; an outcome arriving later for a sealed interval counts in the oldest
// open one, so the intervals always add up to the whole step.
func (r *Recorder) SealIntervals(upTo int, annotate func(*snapshot.Interval)) {
	r.seal(upTo, time.Time{}, annotate)
}

// FinishIntervals seals everything at the end of the run (after the last terminal returned); the
// last interval ends at end. Afterwards the store only serves and releases.
func (r *Recorder) FinishIntervals(end time.Time, annotate func(*snapshot.Interval)) {
	upTo := r.IntervalIndex(end) + 1
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		if n := len(s.iv.open); n > 0 {
			upTo = max(upTo, s.iv.open[n-1].index+1)
		}
		s.mu.Unlock()
	}
	r.seal(upTo, end, annotate)
}

func (r *Recorder) seal(upTo int, end time.Time, annotate func(*snapshot.Interval)) {
	st := &r.store
	st.sealMu.Lock()
	defer st.sealMu.Unlock()
	st.mu.Lock()
	from, length, origin, finished := st.sealed, st.length, st.origin, st.finished
	st.mu.Unlock()
	if length == 0 || finished || upTo <= from {
		return
	}
	var taken []*intervalSlot
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		taken = s.iv.takeBelow(upTo, taken)
		s.mu.Unlock()
	}
	byIndex := map[int][]*intervalSlot{}
	for _, slot := range taken {
		// Slots below from cannot exist: the floor sent their outcomes to from or above.
		byIndex[slot.index] = append(byIndex[slot.index], slot)
	}
	sealed := make([]snapshot.Interval, 0, upTo-from)
	for idx := from; idx < upTo; idx++ {
		start := origin.Add(time.Duration(idx) * length)
		iv := snapshot.Interval{Index: idx, Start: start, Seconds: length.Seconds()}
		if !end.IsZero() && idx == upTo-1 {
			iv.Seconds = max(end.Sub(start), 0).Seconds()
		}
		var client snapshot.ClientSignals
		for _, slot := range byIndex[idx] {
			client.Add(slot.client)
		}
		if client != (snapshot.ClientSignals{}) {
			iv.Client = &client
		}
		iv.Transactions = st.mergeKind(byIndex[idx], kindMeasured)
		iv.Unmeasured = st.mergeKind(byIndex[idx], kindUnmeasured)
		if annotate != nil && idx == upTo-1 {
			annotate(&iv)
		}
		sealed = append(sealed, iv)
	}
	for _, slot := range taken {
		slot.release()
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.items = append(st.items, sealed...)
	st.sealed = upTo
	st.finished = !end.IsZero()
	if over := len(st.items) - st.retention; st.retention > 0 && over > 0 {
		st.items = slices.Delete(st.items, 0, over)
		st.dropped += int64(over)
	}
}

// mergeKind merges one group of the slots of one index and encodes it; nil when empty.
func (st *intervalStore) mergeKind(slots []*intervalSlot, k int) map[snapshot.Transaction]snapshot.TransactionCounts {
	var out map[snapshot.Transaction]snapshot.TransactionCounts
	for t := range txTypes {
		var c snapshot.TransactionCounts
		h := st.scratch[t]
		if h == nil {
			h = snapshot.NewHistogram()
			st.scratch[t] = h
		}
		h.Reset()
		for _, slot := range slots {
			sc := slot.counts[k][t]
			c.Commits += sc.Commits
			c.Rollbacks += sc.Rollbacks
			c.Errors += sc.Errors
			c.Retries += sc.Retries
			if sh := slot.hist[k][t]; sh != nil && sh.TotalCount() > 0 {
				// Cannot drop values: one geometry.
				h.Merge(sh)
			}
		}
		if c == (snapshot.TransactionCounts{}) {
			continue
		}
		if h.TotalCount() > 0 {
			// Cannot fail: the contract's geometry.
			c.Histogram, _ = snapshot.EncodeHistogram(h)
		}
		if out == nil {
			out = make(map[snapshot.Transaction]snapshot.TransactionCounts, txTypes)
		}
		out[t.Transaction()] = c
	}
	return out
}

// Intervals returns the time series with the retained items of index > after; nil without one.
// With release, the items up to after are handed over: dropped, never served again.
func (r *Recorder) Intervals(after int, release bool) *snapshot.Intervals {
	st := &r.store
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.length == 0 {
		return nil
	}
	if release && after >= st.released {
		st.released = min(after+1, st.sealed)
		n := 0
		for n < len(st.items) && st.items[n].Index < st.released {
			n++
		}
		st.items = slices.Delete(st.items, 0, n)
	}
	out := &snapshot.Intervals{Origin: st.origin, LengthSeconds: st.length.Seconds(), Sealed: st.sealed,
		Released: st.released, Dropped: st.dropped, Retention: st.retention, Items: []snapshot.Interval{}}
	for _, iv := range st.items {
		if iv.Index > after {
			out.Items = append(out.Items, iv)
		}
	}
	return out
}
