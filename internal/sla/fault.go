package sla

import (
	"fmt"
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
	completed := map[int]int64{}
	newOrders := map[int]int64{}
	pos := map[int]int{}
	for j, idx := range s.Index {
		pos[idx] = j
		for t, cols := range s.Types {
			if t == snapshot.OrderStatus || t == snapshot.StockLevel {
				continue // read-only: they complete on a database that commits nothing
			}
			completed[idx] += cols.Completed[j]
			if t == snapshot.NewOrder {
				newOrders[idx] += cols.Completed[j]
			}
		}
	}
	last := s.Index[len(s.Index)-1]
	start := func(idx int) time.Time { return origin.Add(time.Duration(idx) * length) }

	// Baseline: measured intervals wholly inside the minute before the fault.
	var baseSum int64
	var baseN int
	for idx := k - int(BaselineWindow/length); idx < k; idx++ {
		if _, ok := pos[idx]; !ok || start(idx).Before(measuredStart) {
			continue
		}
		baseSum += newOrders[idx]
		baseN++
	}
	if baseN > 0 {
		out.BaselineNewOrdersPerSecond = float64(baseSum) / (float64(baseN) * length.Seconds())
	}

	// Unavailability: the longest run of empty intervals from k on.
	runStart, runLen, bestStart, bestLen := -1, 0, -1, 0
	for idx := k; idx <= last; idx++ {
		_, ok := pos[idx]
		if ok && completed[idx] == 0 {
			if runLen == 0 {
				runStart = idx
			}
			runLen++
			if runLen > bestLen {
				bestStart, bestLen = runStart, runLen
			}
			continue
		}
		runLen = 0
	}
	outageEnd := k
	if bestLen > 0 {
		out.Unavailability = time.Duration(bestLen) * length
		out.UnavailableFrom = start(bestStart)
		outageEnd = bestStart + bestLen
		out.UnavailableAtEnd = outageEnd == last+1
	}

	// Recovery: the first window from the outage's end whose mean rate reaches the share.
	window := max(1, int(RecoveryWindow/length))
	end := last + 1
	if out.BaselineNewOrdersPerSecond > 0 {
		need := RecoveredShare * out.BaselineNewOrdersPerSecond * float64(window) * length.Seconds()
		for s0 := outageEnd; s0+window <= last+1; s0++ {
			var n int64
			for idx := s0; idx < s0+window; idx++ {
				n += newOrders[idx]
			}
			if float64(n) >= need {
				out.Recovered = true
				out.Recovery = max(0, start(s0).Sub(faultAt))
				end = s0
				break
			}
		}
	}
	for idx := k; idx < end && idx <= last; idx++ {
		j, ok := pos[idx]
		if !ok {
			continue
		}
		for t, cols := range s.Types {
			if e := cols.Errors[j]; e > 0 {
				out.Errors[t] += e
			}
		}
	}
	return out, nil
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
