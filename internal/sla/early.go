package sla

import (
	"fmt"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Headroom is what is left of a running step.
type Headroom struct {
	// Remaining is the measured time still to run; <= 0 means the step is over.
	Remaining time.Duration
	// MaxMore bounds how many more transactions of each type can complete
	// before the step ends. A nil map or a missing type means unknown (no-wait
	// runs): rules that need the bound then never decide early.
	MaxMore map[snapshot.Transaction]int64
}

// Early says whether a running step's verdict is already certain.
type Early struct {
	Final   bool
	Verdict Verdict // when Final
}

// Decide judges a live merge. Once the step is over (Remaining <= 0) the
// verdict is Judge's. Before that it is final only when the step is certain
// to fail, because every outcome within the headroom fails a rule:
//
//   - a pod failed (a failed pod cannot rejoin the measured interval);
//   - the C-Run constant violates Clause 2.1.6.1;
//   - a latency bound: even if every remaining transaction of the type were
//     fast, more samples than the percentile allows already lie above it;
//   - efficiency: even if MaxMore New-Orders completed, tpmC over the full
//     interval would stay below the minimum;
//   - errors: even if every remaining transaction succeeded, the error share
//     of all types, or of one type, would stay above the bound.
//
// A step is never passed early: a latency bound can always still be broken
// by slow transactions, and the mix and audit windows are judged on the
// final counts only.
func Decide(m *snapshot.Merged, c Criteria, h Headroom) (Early, error) {
	if h.Remaining <= 0 {
		v, err := Judge(m, c)
		return Early{Final: true, Verdict: v}, err
	}
	if err := c.Validate(); err != nil {
		return Early{}, fmt.Errorf("sla criteria: %w", err)
	}
	if err := checkMerged(m); err != nil {
		return Early{}, err
	}
	var certain []Check
	for _, f := range m.Failures {
		certain = append(certain, Check{Name: "pod " + f.Pod, Status: Fail, Detail: fmt.Sprintf("pod %s failed: %s", f.Pod, f.Message)})
	}
	if ch := constantsCheck(m.Constants); ch.Status == Fail {
		certain = append(certain, ch)
	}
	for _, b := range c.Latency {
		if more, known := h.MaxMore[b.Transaction]; known {
			if ch, lost := latencyLost(m.Transactions[b.Transaction], b, more); lost {
				certain = append(certain, ch)
			}
		}
	}
	if ch, lost := efficiencyLost(m, c.MinEfficiencyPercent, h); lost {
		certain = append(certain, ch)
	}
	if ch, lost := errorsLost(m, c.MaxErrorPercent, h); lost {
		certain = append(certain, ch)
	}
	certain = append(certain, typeErrorsLost(m, c.MaxErrorPercent, h)...)
	if len(certain) == 0 {
		return Early{}, nil
	}
	v := Verdict{Compliant: false, SpecCompliant: false, Checks: certain, Reasons: []string{}}
	for _, ch := range certain {
		v.Reasons = append(v.Reasons, ch.Detail)
	}
	v.Notes = []string{fmt.Sprintf("decided early with %s of the step left", formatDuration(h.Remaining))}
	return Early{Final: true, Verdict: v}, nil
}

// latencyLost reports whether the bound fails whatever up to more further
// attempts are. Best case for the bound: all of them complete fast. The
// percentile's nearest rank r in n attempts (latency.go) fails the bound when
// r > n − above, where above counts the failed attempts and the samples in
// buckets whose top lies above the bound; n − r = floor(n·(1 − p/100)) never
// decreases as n grows, so n + more is the best case.
func latencyLost(t *snapshot.MergedTransaction, b LatencyBound, more int64) (Check, bool) {
	h := t.Histogram
	bound := b.Max.Microseconds()
	failed := max(t.Errors, 0)
	above := failed
	for _, bar := range h.Distribution() {
		if bar.To > bound {
			above += bar.Count
		}
	}
	if above == 0 {
		return Check{}, false
	}
	n := h.TotalCount() + failed + more
	if snapshot.NearestRank(b.Percentile, n) <= n-above {
		return Check{}, false
	}
	name := fmt.Sprintf("%s %s", b.Transaction, percentileName(b.Percentile))
	now := "∞" // the percentile is a failed attempt (latency.go)
	if r := readPercentile(h, failed, b.Percentile); !r.OnFailure {
		now = formatMicros(r.Micros)
	}
	return Check{Name: name, Status: Fail, Detail: fmt.Sprintf(
		"%s %s > %s: %d of %d attempts failed or took longer, more than %d further fast transactions can offset",
		name, now, formatDuration(b.Max), above, h.TotalCount()+failed, more)}, true
}

func efficiencyLost(m *snapshot.Merged, minPercent float64, h Headroom) (Check, bool) {
	more, known := h.MaxMore[snapshot.NewOrder]
	if !known {
		return Check{}, false
	}
	interval := m.Measured + h.Remaining
	best := snapshot.EfficiencyPercent(snapshot.PerMinute(m.Transactions[snapshot.NewOrder].Completed()+more, interval), m.ActiveWarehouses)
	if best >= minPercent {
		return Check{}, false
	}
	return Check{Name: "efficiency", Status: Fail, Detail: fmt.Sprintf(
		"efficiency can reach at most %.2f%% < %g%% (%d New-Orders so far, at most %d more in %s)",
		best, minPercent, m.Transactions[snapshot.NewOrder].Completed(), more, formatDuration(h.Remaining))}, true
}

func errorsLost(m *snapshot.Merged, maxPercent float64, h Headroom) (Check, bool) {
	var completed, errors, more int64
	for _, t := range snapshot.Transactions {
		n, known := h.MaxMore[t]
		if !known {
			return Check{}, false
		}
		more += n
		completed += m.Transactions[t].Completed()
		errors += m.Transactions[t].Errors
	}
	best := snapshot.Percent(errors, completed+errors+more)
	if best <= maxPercent {
		return Check{}, false
	}
	return Check{Name: "errors", Status: Fail, Detail: fmt.Sprintf(
		"errors stay above %g%% even if the remaining %d transactions succeed: at least %.3f%% (%d errors)",
		maxPercent, more, best, errors)}, true
}

// typeErrorsLost are the types whose error bound (errors.go) fails even if each of their
// remaining transactions succeeds.
func typeErrorsLost(m *snapshot.Merged, maxPercent float64, h Headroom) []Check {
	var lost []Check
	for _, t := range snapshot.Transactions {
		more, known := h.MaxMore[t]
		mt := m.Transactions[t]
		if !known || typeErrorsWithin(mt.Errors, mt.Completed()+mt.Errors+more, maxPercent) {
			continue
		}
		lost = append(lost, Check{Name: fmt.Sprintf("errors %s", t), Status: Fail, Detail: fmt.Sprintf(
			"errors %s stay above %g%% even if its remaining %d transactions succeed: at least %.3f%% (%d errors)",
			t, maxPercent, more, snapshot.Percent(mt.Errors, mt.Completed()+mt.Errors+more), mt.Errors)})
	}
	return lost
}

// SpecKeyingTime is the constant keying time before each transaction type
// (Clause 5.2.5.2, snapshot.DeckCards). A terminal with spec waits starts at most one
// transaction per keying time.
var SpecKeyingTime = func() map[snapshot.Transaction]time.Duration {
	k := make(map[snapshot.Transaction]time.Duration, len(snapshot.DeckCards))
	for _, c := range snapshot.DeckCards {
		k[c.Transaction] = c.Keying
	}
	return k
}()

// SpecWaitMaxMore bounds the transactions terminals with spec waits can
// still complete in remaining: each type at most once per keying time per
// terminal, plus one already past its keying. Pass the step's terminals
// (Merged.Terminals, or the planned count if pods are missing).
func SpecWaitMaxMore(terminals int, remaining time.Duration) map[snapshot.Transaction]int64 {
	out := make(map[snapshot.Transaction]int64, len(SpecKeyingTime))
	for t, keying := range SpecKeyingTime {
		out[t] = int64(terminals) * (int64(max(remaining, 0)/keying) + 1)
	}
	return out
}
