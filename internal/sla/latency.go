package sla

import (
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// A latency bound is judged over every attempt of its type: the completed transactions, whose
// response times the histogram holds, and the failed ones, which never answered within any
// bound: each counts as an infinite response time, above every measured one, and reads "∞".
// The percentile is the attempt at the nearest rank ceil(p/100·n) of the n attempts
// (snapshot.NearestRank). A response time is known to its HDR bucket only, so the bound holds
// when the whole bucket holding that attempt lies at or below it — the bucket's top ≤ bound; a
// bucket the bound cuts through fails (at 5 s a bucket spans 4.981–5.014 s, so a 5 s bound
// passes a percentile up to 4.981 s).

// percentileReading is a bound's percentile over a type's attempts.
type percentileReading struct {
	Attempts, Failed, Rank int64
	// OnFailure: the attempt at Rank failed. Otherwise Micros is the top of the bucket holding
	// the completed transaction at Rank.
	OnFailure bool
	Micros    int64
}

// readPercentile reads the p-th percentile of the attempts of a type: the completed
// transactions in h and failed more, ranked above them.
func readPercentile(h *hdr.Histogram, failed int64, p float64) percentileReading {
	completed := h.TotalCount()
	r := percentileReading{Attempts: completed + max(failed, 0), Failed: max(failed, 0)}
	r.Rank = snapshot.NearestRank(p, r.Attempts)
	if r.Rank > completed {
		r.OnFailure = true
		return r
	}
	r.Micros = snapshot.ValueAtRank(h, r.Rank)
	return r
}

// unmeasured is the check of a latency bound whose transaction type attempted no transaction:
// inconclusive, or skipped when the criteria allow unmeasured bounds (probe steps).
func unmeasured(name string, t snapshot.Transaction, skip bool) Check {
	if skip {
		return tooFew(name, 0, 1, string(t)+" transactions")
	}
	return Check{Name: name, Status: Inconclusive,
		Detail: fmt.Sprintf("%s: cannot be judged: no %s transaction completed in the measured interval (lengthen the step, or drop the bound from sla.latency)", name, t)}
}

// latencyCheck judges bound b over t's completed and failed transactions.
func latencyCheck(t *snapshot.MergedTransaction, b LatencyBound) Check {
	name := fmt.Sprintf("%s %s", b.Transaction, percentileName(b.Percentile))
	h := t.Histogram
	if h.TotalCount()+max(t.Errors, 0) == 0 {
		return Check{Name: name, Status: Fail, Detail: fmt.Sprintf("%s: no completed %s transaction to measure", name, b.Transaction)}
	}
	r := readPercentile(h, t.Errors, b.Percentile)
	if r.OnFailure {
		return Check{Name: name, Status: Fail, Detail: fmt.Sprintf(
			"%s ∞ > %s: %d of %d %s attempts failed, each an infinite response time: the %s (attempt %d of %d) is one of them",
			name, formatDuration(b.Max), r.Failed, r.Attempts, b.Transaction, percentileName(b.Percentile), r.Rank, r.Attempts)}
	}
	failed := ""
	if r.Failed > 0 {
		failed = fmt.Sprintf(" (attempt %d of %d; %d failed, ranked above it)", r.Rank, r.Attempts, r.Failed)
	}
	bound := b.Max.Microseconds()
	if r.Micros <= bound {
		return Check{Name: name, Status: Pass, Detail: fmt.Sprintf("%s %s ≤ %s%s", name, formatMicros(r.Micros), formatDuration(b.Max), failed)}
	}
	straddles := ""
	if h.ValuesAreEquivalent(r.Micros, bound) {
		straddles = ": its histogram bucket reaches above the bound"
	}
	return Check{Name: name, Status: Fail, Detail: fmt.Sprintf("%s %s > %s%s%s", name, formatMicros(r.Micros), formatDuration(b.Max), failed, straddles)}
}
