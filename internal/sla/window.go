package sla

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Holding a result: a sustained phase runs one long step at a fraction of the capacity found and
// judges the SLA over each window of it (a minute by default), so that what shows over hours —
// checkpoints, vacuum, lag, growth — is caught when it first breaks the SLA.

// Window is one stretch of a sustained step, merged over its client pods and intervals.
type Window struct {
	Seconds          float64
	ActiveWarehouses int
	// Histograms are the response times of the transactions completed in the window, exact
	// (merged bucket by bucket); Completed and Errors count them and the failed ones.
	Histograms map[snapshot.Transaction]*hdr.Histogram
	Completed  map[snapshot.Transaction]int64
	Errors     map[snapshot.Transaction]int64
	// MaxReplayLag is each standby's largest replay lag in the window's samples (PostgreSQL);
	// Samples and FailedSamples count the database samples read and failed.
	MaxReplayLag           map[string]time.Duration
	Samples, FailedSamples int
}

// JudgeWindow says which criteria a window breaks, each named with its figure and bound; none:
// the SLA held over it. Only what the window shows is judged, and only beyond its noise:
//   - a latency bound on a type the window has attempts of (a window may attempt no 4 % type;
//     the step's own verdict judges the whole), its failed transactions counted as infinitely
//     slow as in Judge;
//   - efficiency only when the window's New-Orders fall short of the minimum by more than three
//     times the counting noise of the count the minimum expects (√n): a minute of a few
//     warehouses counts a few dozen New-Orders, whose chance variation alone would cross the
//     bound again and again;
//   - errors over the window's transactions, and per type over each type's attempts
//     (typeErrorsWithin, as Judge);
//   - maxLag (0: none) on every standby sampled, and on a window whose samples all failed.
func JudgeWindow(w Window, c Criteria, maxLag time.Duration) []string {
	var out []string
	for _, b := range c.Latency {
		h, failed := w.Histograms[b.Transaction], w.Errors[b.Transaction]
		if h == nil || h.TotalCount()+failed == 0 {
			continue
		}
		if ch := latencyCheck(&snapshot.MergedTransaction{Histogram: h, Errors: failed}, b); ch.Status == Fail {
			out = append(out, ch.Detail)
		}
	}
	if w.Seconds > 0 && w.ActiveWarehouses > 0 && c.MinEfficiencyPercent > 0 {
		minutes := w.Seconds / 60
		atMin := c.MinEfficiencyPercent / 100 * snapshot.SpecTpmCPerWarehouse * float64(w.ActiveWarehouses) * minutes
		n := float64(w.Completed[snapshot.NewOrder])
		if n < atMin-3*math.Sqrt(atMin) {
			eff := snapshot.EfficiencyPercent(n/minutes, w.ActiveWarehouses)
			out = append(out, fmt.Sprintf("efficiency %.1f%% < %g%% beyond counting noise (%d New-Orders, %.0f expected at the minimum)",
				eff, c.MinEfficiencyPercent, int64(n), atMin))
		}
	}
	var completed, errors int64
	for _, t := range snapshot.Transactions {
		completed += w.Completed[t]
		errors += w.Errors[t]
	}
	if p := snapshot.Percent(errors, completed+errors); p > c.MaxErrorPercent {
		out = append(out, fmt.Sprintf("errors %.3f%% > %g%%", p, c.MaxErrorPercent))
	}
	for _, t := range snapshot.Transactions {
		if ch := typeErrorCheck(t, w.Errors[t], w.Completed[t]+w.Errors[t], c.MaxErrorPercent); ch.Status == Fail {
			out = append(out, ch.Detail)
		}
	}
	if maxLag > 0 {
		if w.Samples == 0 && w.FailedSamples > 0 {
			out = append(out, "replication lag: unknown, every database sample of the window failed")
		}
		names := make([]string, 0, len(w.MaxReplayLag))
		for name := range w.MaxReplayLag {
			names = append(names, name)
		}
		sort.Strings(names)
		var over []string
		for _, name := range names {
			if lag := w.MaxReplayLag[name]; lag > maxLag {
				over = append(over, fmt.Sprintf("standby %s replay lag %s", name, formatDuration(lag)))
			}
		}
		if len(over) > 0 {
			out = append(out, fmt.Sprintf("replication lag: %s > %s", strings.Join(over, ", "), formatDuration(maxLag)))
		}
	}
	return out
}

// Slope is the least-squares slope of ys over xs (per unit of x); 0 with fewer than two points.
func Slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if len(xs) < 2 || len(xs) != len(ys) {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy = sx+xs[i], sy+ys[i]
		sxx, sxy = sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
