package sla

import "github.com/tpcc-operator/tpcc-operator/internal/snapshot"

// LatencyRatio is the largest ratio of a latency bound's measured percentile
// to its limit over c's bounds (above 1: that bound failed), 0 when no bound
// has a completed transaction to measure. The percentile is read over the
// completed transactions at the nearest rank (snapshot.ValueAtNearestRank);
// the verdict also ranks failed transactions above them, so a bound can fail
// at a ratio of 1 or below when its type's failures reach the percentile. The
// guided capacity search estimates the boundary from it.
func LatencyRatio(m *snapshot.Merged, c Criteria) float64 {
	worst := 0.0
	for _, b := range c.Latency {
		t := m.Transactions[b.Transaction]
		if t == nil || t.Histogram == nil || t.Histogram.TotalCount() == 0 || b.Max <= 0 {
			continue
		}
		worst = max(worst, float64(snapshot.ValueAtNearestRank(t.Histogram, b.Percentile))/float64(b.Max.Microseconds()))
	}
	return worst
}
