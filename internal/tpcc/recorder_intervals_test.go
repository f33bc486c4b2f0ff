package tpcc

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// sumIntervals merges every item's measured group over the intervals with the snapshot package's
// exact merge and returns per type the summed counters and the merged histogram's sample count.
func sumIntervals(t *testing.T, items []snapshot.Interval, length time.Duration) map[snapshot.Transaction]*snapshot.MergedTransaction {
	t.Helper()
	merged, err := snapshot.MergeIntervals([]*snapshot.Intervals{{LengthSeconds: length.Seconds(), Items: items}})
	if err != nil {
		t.Fatal(err)
	}
	total := map[snapshot.Transaction]*snapshot.MergedTransaction{}
	for _, tt := range snapshot.Transactions {
		total[tt] = &snapshot.MergedTransaction{Histogram: snapshot.NewHistogram()}
	}
	for _, m := range merged {
		for tt, mt := range m.Transactions {
			a := total[tt]
			a.Commits += mt.Commits
			a.Rollbacks += mt.Rollbacks
			a.Errors += mt.Errors
			a.Retries += mt.Retries
			a.Histogram.Merge(mt.Histogram)
		}
	}
	return total
}

func TestRecorderIntervalsAddUpToTheWholeStep(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := newRecorder(3)
	if err := r.StartIntervals(t0, time.Second, 0); err != nil {
		t.Fatal(err)
	}
	at := func(typ txType, startMs, endMs int) *Outcome {
		return &Outcome{Type: typ, Start: t0.Add(time.Duration(startMs) * time.Millisecond), End: t0.Add(time.Duration(endMs) * time.Millisecond)}
	}
	// Ramp-up: 0..1.5 s, measured 1.5..3.5 s, stopping after.
	r.Record(0, at(txPayment, 100, 200)) // ramp-up, interval 0
	r.BeginMeasurement(t0.Add(1500 * time.Millisecond))
	r.Record(1, at(txPayment, 1400, 1600)) // started in ramp-up: unmeasured, interval 1
	r.Record(2, at(txNewOrder, 1500, 1700))
	no := at(txNewOrder, 1800, 2100)
	no.RolledBack, no.Lines = true, 15
	r.Record(0, no)
	failed := at(txDelivery, 2000, 2900)
	failed.Failed, failed.Retries = true, 2
	r.Record(1, failed)
	r.SealIntervals(2, nil)                   // intervals 0 and 1 sealed while 2 is open
	r.Record(2, at(txStockLevel, 1900, 1990)) // arrives after interval 1 was sealed: counted in 2
	r.Record(0, at(txOrderStatus, 3000, 3400))
	r.EndMeasurement(t0.Add(3500 * time.Millisecond))
	r.Record(1, at(txPayment, 3300, 3700)) // finished after the end: unmeasured, interval 3
	end := t0.Add(3800 * time.Millisecond)
	r.FinishIntervals(end, func(iv *snapshot.Interval) { iv.Telemetry = &snapshot.Telemetry{Engine: "postgres"} })

	series := r.Intervals(-1, false)
	if series.Sealed != 4 || len(series.Items) != 4 {
		t.Fatalf("sealed %d, items %d; want 4 and 4", series.Sealed, len(series.Items))
	}
	if err := series.Validate(); err != nil {
		t.Fatal(err)
	}
	for i, iv := range series.Items {
		if iv.Index != i || !iv.Start.Equal(t0.Add(time.Duration(i)*time.Second)) {
			t.Errorf("item %d: index %d start %v", i, iv.Index, iv.Start)
		}
	}
	if last := series.Items[3]; math.Abs(last.Seconds-0.8) > 1e-9 || last.Telemetry == nil {
		t.Errorf("last interval: %gs (want 0.8, ends at the run's end), telemetry %v (want the annotation)", last.Seconds, last.Telemetry)
	}
	if got := series.Items[0].Unmeasured[snapshot.Payment].Commits; got != 1 || series.Items[0].Transactions != nil {
		t.Errorf("interval 0: unmeasured payments %d, measured %v; want 1 and none", got, series.Items[0].Transactions)
	}
	if got := series.Items[2].Transactions[snapshot.StockLevel].Commits; got != 1 {
		t.Errorf("late stock-level counted %d times in interval 2, want 1", got)
	}

	m := r.Collect(end)
	sum := sumIntervals(t, series.Items, time.Second)
	for tt := range txTypes {
		want, got := m.Counts[tt], sum[tt.Transaction()]
		if got.Commits != want.Commits || got.Rollbacks != want.Rollbacks || got.Errors != want.Errors || got.Retries != want.Retries {
			t.Errorf("%s: intervals sum to %+v, whole step %+v", tt.Transaction(), *got, want)
		}
		if got.Histogram.TotalCount() != m.Histograms[tt].TotalCount() || got.Histogram.Max() != m.Histograms[tt].Max() {
			t.Errorf("%s: interval histograms hold %d samples (max %d), whole step %d (max %d)", tt.Transaction(),
				got.Histogram.TotalCount(), got.Histogram.Max(), m.Histograms[tt].TotalCount(), m.Histograms[tt].Max())
		}
	}
}

func TestRecorderIntervalsHandOverAndRetention(t *testing.T) {
	t0 := time.Now()
	r := newRecorder(2)
	if err := r.StartIntervals(t0, time.Second, 3); err != nil {
		t.Fatal(err)
	}
	r.BeginMeasurement(t0)
	record := func(sec int) {
		r.Record(sec, &Outcome{Type: txPayment, Start: t0.Add(time.Duration(sec) * time.Second), End: t0.Add(time.Duration(sec)*time.Second + time.Millisecond)})
	}
	seen := map[int]int{}
	after := -1
	read := func() {
		s := r.Intervals(after, true)
		for _, iv := range s.Items {
			seen[iv.Index]++
			after = iv.Index
		}
	}
	for sec := range 4 {
		record(sec)
		r.SealIntervals(sec+1, nil)
		read()
		read() // a repeated read with the same N returns nothing new
	}
	for idx := range 4 {
		if seen[idx] != 1 {
			t.Errorf("interval %d returned %d times to the advancing reader, want once", idx, seen[idx])
		}
	}
	if s := r.Intervals(-1, false); len(s.Items) != 0 || s.Released != 4 {
		t.Errorf("after hand-over: %d items retained, released %d; want 0 and 4", len(s.Items), s.Released)
	}
	// No reader: the retention bound keeps the newest 3 and counts the dropped ones.
	for sec := 4; sec < 10; sec++ {
		record(sec)
		r.SealIntervals(sec+1, nil)
	}
	s := r.Intervals(-1, false)
	if len(s.Items) != 3 || s.Items[0].Index != 7 || s.Dropped != 3 {
		t.Fatalf("retained %d items from %d, dropped %d; want 3 from 7, dropped 3", len(s.Items), s.Items[0].Index, s.Dropped)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	// A plain read (bookkeeping only) is what an older reader gets.
	if plain := r.Intervals(math.MaxInt, false); len(plain.Items) != 0 || plain.Sealed != 10 {
		t.Errorf("plain read: %d items, sealed %d", len(plain.Items), plain.Sealed)
	}
}

func TestRecorderIntervalsConcurrentSealing(t *testing.T) {
	t0 := time.Now()
	r := NewRecorder()
	const length = 5 * time.Millisecond
	if err := r.StartIntervals(t0, length, 0); err != nil {
		t.Fatal(err)
	}
	r.BeginMeasurement(t0)
	const writers, each = 8, 4000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				now := time.Now()
				o := Outcome{Type: txType(i % int(txTypes)), Start: now, End: now.Add(time.Duration(i%50) * time.Microsecond), Lines: 10}
				r.Record(w*each+i, &o)
			}
		})
	}
	stop := make(chan struct{})
	sealer := make(chan struct{})
	var collected []snapshot.Interval
	go func() {
		defer close(sealer)
		after := -1
		for {
			select {
			case <-stop:
				return
			default:
			}
			r.SealIntervals(r.IntervalIndex(time.Now()), nil)
			for _, iv := range r.Intervals(after, true).Items {
				collected = append(collected, iv)
				after = iv.Index
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-sealer
	end := time.Now()
	r.EndMeasurement(end)
	r.FinishIntervals(end, nil)
	last := -1
	if len(collected) > 0 {
		last = collected[len(collected)-1].Index
	}
	collected = append(collected, r.Intervals(last, true).Items...)
	m := r.Collect(end)
	sum := sumIntervals(t, collected, length)
	var total int64
	for tt := range txTypes {
		if got, want := sum[tt.Transaction()].Commits, m.Counts[tt].Commits; got != want {
			t.Errorf("%s: intervals %d, whole step %d", tt.Transaction(), got, want)
		}
		total += m.Counts[tt].Commits
	}
	if total != writers*each {
		t.Fatalf("whole step %d, want %d", total, writers*each)
	}
	t.Logf("%d intervals collected while recording", len(collected))
}

func TestRecorderLateStarts(t *testing.T) {
	t0 := time.Now()
	r := newRecorder(1)
	if err := r.StartIntervals(t0, time.Second, 0); err != nil {
		t.Fatal(err)
	}
	for _, late := range []time.Duration{0, 50 * time.Millisecond, 300 * time.Millisecond} {
		r.Record(0, &Outcome{Type: txPayment, Start: t0, End: t0.Add(time.Millisecond), Late: late})
	}
	r.FinishIntervals(t0.Add(time.Second), nil)
	c := r.Intervals(-1, false).Items[0].Client
	if c == nil || c.LateStarts != 1 || math.Abs(c.LateSecondsTotal-0.35) > 1e-9 || c.LateSecondsMax != 0.3 {
		t.Fatalf("client signals %+v, want 1 late start, 0.35 s total, 0.3 s max", c)
	}
}
