package sla

import (
	"fmt"
	"sort"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// What a fault cost, read from a step's merged per-interval series (snapshot.CompactSeries):
//
//   - Unavailability: the longest run of consecutive intervals, from the one the fault fell in,
//     in which no writing transaction (New-Order, Payment, Delivery) completed — committed, or
//     rolled back as the spec requires: the database answered. Order-Status and Stock-Level read
//     only; they complete on a database whose commits are all held, so they do not count. A
//     missing interval (no pod delivered it) ends a run: it is not known to be empty.
//   - Baseline: the mean New-Orders per second of the measured intervals in the minute before
//     the fault.
//   - Recovery: from the fault to the start of the first RecoveryWindow-long stretch, starting at or
//     after the end of the outage, whose mean New-Order rate reaches RecoveredShare of the baseline.
//     A window rather than single seconds: under the spec's think times a few warehouses commit
//     a New-Order or two a second, and single seconds are noise.
//   - Errors per transaction type from the fault's interval to the recovery (or the series' end).

const (
	// BaselineWindow is how much of the measured interval before a fault its baseline averages.
	BaselineWindow = time.Minute
	// RecoveryWindow is the stretch whose mean New-Order rate decides recovery.
	RecoveryWindow = 10 * time.Second
	// RecoveredShare of the baseline New-Order rate counts as recovered.
	RecoveredShare = 0.9
)

// FaultFigures is what MeasureFault found.
type FaultFigures struct {
	Unavailability  time.Duration
	UnavailableFrom time.Time // zero when there was no outage
	// UnavailableAtEnd: the outage lasted to the series' last interval, so Unavailability is a
	// lower bound.
	UnavailableAtEnd bool
	// Recovered says whether the rate came back; Recovery is then the time from the fault.
	Recovered bool
	Recovery  time.Duration
	// BaselineNewOrdersPerSecond is 0 when no measured interval preceded the fault.
	BaselineNewOrdersPerSecond float64
	Errors                     map[snapshot.Transaction]int64
	// AfterFrom and AfterTo are the interval indices [from, to) of the minute after the fault.
	AfterFrom, AfterTo int
}

// FaultIntervalIndex is the index of the interval of a series with the given origin (start of
// interval 0) and length that contains t.
func FaultIntervalIndex(origin time.Time, length time.Duration, t time.Time) int {
	if length <= 0 || t.Before(origin) {
		return 0
	}
	return int(t.Sub(origin) / length)
}

// MeasureFault measures a fault at faultAt in a series whose interval 0 starts at origin; the
// measured interval starts at measuredStart. It is pure.
func MeasureFault(s snapshot.CompactSeries, origin, measuredStart, faultAt time.Time) (FaultFigures, error) {
	length := time.Duration(s.LengthSeconds * float64(time.Second))
	if length <= 0 {
		return FaultFigures{}, fmt.Errorf("the series has no interval length")
	}
	k := FaultIntervalIndex(origin, length, faultAt)
	out := FaultFigures{Errors: map[snapshot.Transaction]int64{}, AfterFrom: k, AfterTo: k + int(time.Minute/length)}
	if len(s.Index) == 0 {
		return out, fmt.Errorf("the series is empty")
	}
	// Per entry: a downsampled series (snapshot.CompactSeries.Spans) has entries of several
	// intervals; the operator keeps the minute before a fault and minutes after it at full
	// resolution, so these figures are exact there and coarser only far from the fault.
	f := measuredSeries{s: s, origin: origin, length: length, k: k}
	f.completed, f.newOrders = writingCompletions(s)
	end := s.End(len(s.Index) - 1) // the interval after the series' last

	out.BaselineNewOrdersPerSecond = f.baseline(measuredStart)
	outageEnd := k
	if from, n := f.longestOutage(); n > 0 {
		out.Unavailability = time.Duration(n) * length
		out.UnavailableFrom = f.start(from)
		outageEnd = from + n
		out.UnavailableAtEnd = outageEnd == end
	}
	stop := end
	if out.BaselineNewOrdersPerSecond > 0 {
		if at, ok := f.recovery(outageEnd, end, out.BaselineNewOrdersPerSecond); ok {
			out.Recovered = true
			out.Recovery = max(0, f.start(at).Sub(faultAt))
			stop = at
		}
	}
	f.addErrors(out.Errors, stop)
	return out, nil
}

// measuredSeries is the series MeasureFault reads: its interval length, the fault's interval k,
// and per entry the writing transactions completed and the New-Orders among them.
type measuredSeries struct {
	s                    snapshot.CompactSeries
	origin               time.Time
	length               time.Duration
	k                    int
	completed, newOrders []int64
}

// writingCompletions are per entry of s the writing transactions (all but Order-Status and
// Stock-Level) that completed, and the New-Orders among them.
func writingCompletions(s snapshot.CompactSeries) (completed, newOrders []int64) {
	n := len(s.Index)
	completed, newOrders = make([]int64, n), make([]int64, n)
	for t, cols := range s.Types {
		if t == snapshot.OrderStatus || t == snapshot.StockLevel {
			continue // read-only: they complete on a database that commits nothing
		}
		for j := range n {
			completed[j] += cols.Completed[j]
			if t == snapshot.NewOrder {
				newOrders[j] += cols.Completed[j]
			}
		}
	}
	return completed, newOrders
}

// start is the start of interval idx.
func (f measuredSeries) start(idx int) time.Time { return f.origin.Add(time.Duration(idx) * f.length) }

// baseline is the mean New-Orders per second of the measured entries, every interval delivered,
// wholly inside the BaselineWindow before the fault; 0 when there is none.
func (f measuredSeries) baseline(measuredStart time.Time) float64 {
	var sum int64
	var intervals int
	lo := f.k - int(BaselineWindow/f.length)
	for j, idx := range f.s.Index {
		if idx < lo || f.s.End(j) > f.k || f.s.MissingOf(j) > 0 || f.start(idx).Before(measuredStart) {
			continue
		}
		sum += f.newOrders[j]
		intervals += f.s.SpanOf(j)
	}
	if intervals == 0 {
		return 0
	}
	return float64(sum) / (float64(intervals) * f.length.Seconds())
}

// longestOutage is the longest run of empty intervals from the fault's on: its first interval
// and its length in intervals (0: none). An interval nobody delivered (a gap, or missing from a
// merged entry) ends a run.
func (f measuredSeries) longestOutage() (first, n int) {
	s, k := f.s, f.k
	runStart, runLen, bestStart, bestLen := -1, 0, -1, 0
	prevEnd := k
	for j, idx := range s.Index {
		if s.End(j) <= k {
			continue
		}
		from := max(idx, k)
		if from > prevEnd {
			runLen = 0
		}
		prevEnd = s.End(j)
		if f.completed[j] == 0 && s.MissingOf(j) == 0 {
			if runLen == 0 {
				runStart = from
			}
			runLen += s.End(j) - from
			if runLen > bestLen {
				bestStart, bestLen = runStart, runLen
			}
			continue
		}
		runLen = 0
	}
	return bestStart, bestLen
}

// recovery is the start of the first RecoveryWindow from outageEnd (and ending by end) whose mean
// New-Order rate reaches RecoveredShare of baseline, and whether there is one. A window starts at
// an interval, or at a merged entry's start, and takes merged entries whole (it grows to their
// end; the rate it needs grows with it).
func (f measuredSeries) recovery(outageEnd, end int, baseline float64) (int, bool) {
	s, n := f.s, len(f.s.Index)
	window := max(1, int(RecoveryWindow/f.length))
	perInterval := RecoveredShare * baseline * f.length.Seconds()
	j := 0
	for s0 := outageEnd; s0+window <= end; s0++ {
		for j < n && s.End(j) <= s0 {
			j++
		}
		if j < n && s.Index[j] < s0 {
			continue // inside a merged entry
		}
		e, got := s0+window, int64(0)
		for i := j; i < n && s.Index[i] < e; i++ {
			e = max(e, s.End(i))
			got += f.newOrders[i]
		}
		if float64(got) >= perInterval*float64(e-s0) {
			return s0, true
		}
	}
	return 0, false
}

// addErrors adds to errors, per transaction type, the errors of the entries from the fault's on
// that start before the interval stop.
func (f measuredSeries) addErrors(errors map[snapshot.Transaction]int64, stop int) {
	for j, idx := range f.s.Index {
		if f.s.End(j) <= f.k || idx >= stop {
			continue
		}
		for t, cols := range f.s.Types {
			if e := cols.Errors[j]; e > 0 {
				errors[t] += e
			}
		}
	}
}

// UnavailabilityCheck is the criterion of sla.maxUnavailability. An outage that lasted to the end
// of the step (atEnd) fails it whatever its measured length: the database did not commit again
// while it was measured.
func UnavailabilityCheck(measured, bound time.Duration, atEnd bool) Check {
	ch := Check{Name: "unavailability", Status: Pass,
		Detail: fmt.Sprintf("unavailability: %s without a commit after the fault ≤ %s", formatDuration(measured), formatDuration(bound))}
	switch {
	case atEnd:
		ch.Status = Fail
		ch.Detail = fmt.Sprintf("unavailability: no commit again before the end of the step (at least %s; sla.maxUnavailability %s)",
			formatDuration(measured), formatDuration(bound))
	case measured > bound:
		ch.Status = Fail
		ch.Detail = fmt.Sprintf("unavailability: %s without a commit after the fault > sla.maxUnavailability %s", formatDuration(measured), formatDuration(bound))
	}
	return ch
}

// LedgerFailure is the check of a step whose ledger lost acknowledged commits (or could not be
// checked): it fails the step with the districts and counts.
func LedgerFailure(detail string) Check {
	return Check{Name: "ledger", Status: Fail, Detail: "ledger: " + detail}
}

// Outage is a fault's outage measured from the client processes' acknowledged commits.
type Outage struct {
	// Unavailability is the longest stretch, ending after the mark, in which no process got a
	// writing transaction committed: from the last commit acknowledged before it (From) to the
	// first one after it (To).
	Unavailability time.Duration
	From, To       time.Time // in the clock of the first process given
	// AtEnd: no process committed again before its terminals ended; To is then the end of the
	// first process's run and Unavailability a lower bound.
	AtEnd bool
	// Resolution is the coarsest commit record's minimum gap: shorter outages are not seen.
	Resolution time.Duration
}

// MeasureOutage measures the outage after the mark label from every client process's commit
// record (snapshot.CommitRecord). Each record is read relative to its own mark, so the clocks of
// the processes and of whoever marked need not agree: only the marks, set within milliseconds
// of each other, tie them together. A stretch without commits counts only where it is one in
// every process: the database was unavailable when no client got a commit through. It fails
// when a record or its mark is missing, or a process is still running — an outage that cannot
// be measured is not zero.
func MeasureOutage(records []*snapshot.CommitRecord, pods []string, label string) (Outage, error) {
	return MeasureOutageWithin(records, pods, label, 0)
}

// MeasureOutageWithin is MeasureOutage over the window from the mark to within after it (0: to
// the end): a stretch that goes on past the window counts up to its end, one that begins after it
// not at all — the outage of one state of several in a step, not the next state's.
func MeasureOutageWithin(records []*snapshot.CommitRecord, pods []string, label string, within time.Duration) (Outage, error) {
	if len(records) == 0 {
		return Outage{}, fmt.Errorf("no client process reported its commits")
	}
	var common []span
	var origin time.Time
	out := Outage{}
	for p, r := range records {
		name := fmt.Sprintf("process %d", p)
		if p < len(pods) {
			name = "pod " + pods[p]
		}
		if r == nil {
			return Outage{}, fmt.Errorf("%s reported no commit record: it was never marked", name)
		}
		mark, ok := r.MarkTime(label)
		if !ok {
			return Outage{}, fmt.Errorf("%s has no mark %q", name, label)
		}
		if r.Ended.IsZero() {
			return Outage{}, fmt.Errorf("%s is still running: its commit record is not final", name)
		}
		if p == 0 {
			origin = mark
		}
		out.Resolution = max(out.Resolution, time.Duration(r.MinGapSeconds*float64(time.Second)))
		spans := make([]span, 0, len(r.Gaps)+1)
		for _, g := range r.Gaps {
			spans = append(spans, span{from: g.From.Sub(mark), to: g.To.Sub(mark)})
		}
		last := r.LastCommit
		if last.IsZero() {
			last = r.TerminalsStart
		}
		if r.Ended.Sub(last) >= time.Duration(r.MinGapSeconds*float64(time.Second)) {
			spans = append(spans, span{from: last.Sub(mark), to: r.Ended.Sub(mark), open: true})
		}
		sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
		if p == 0 {
			common = spans
			continue
		}
		common = intersect(common, spans)
	}
	var best *span
	for i := range common {
		s := &common[i]
		if within > 0 && s.to > within { // the window's share of a stretch that goes on past it
			s.to, s.open = within, false
		}
		if s.to <= 0 || s.to <= s.from {
			continue // over before the mark, or begun after the window
		}
		if best == nil || s.to-s.from > best.to-best.from {
			best = s
		}
	}
	if best == nil {
		return out, nil // commits went on: no stretch after the mark reached the resolution
	}
	out.Unavailability = best.to - best.from
	out.From, out.To, out.AtEnd = origin.Add(best.from), origin.Add(best.to), best.open
	return out, nil
}

// span is a stretch without commits relative to a mark; open: it lasted to the end of the run.
type span struct {
	from, to time.Duration
	open     bool
}

// intersect intersects two lists of disjoint spans sorted by start. An open span ends with its
// process's run; where it meets a closed one (a commit ended the other), the closed end wins.
func intersect(a, b []span) []span {
	var out []span
	for i, j := 0, 0; i < len(a) && j < len(b); {
		s := span{from: max(a[i].from, b[j].from), to: min(a[i].to, b[j].to), open: a[i].open && b[j].open}
		if s.to > s.from {
			out = append(out, s)
		}
		if a[i].to < b[j].to {
			i++
		} else {
			j++
		}
	}
	return out
}
