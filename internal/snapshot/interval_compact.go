package snapshot

import (
	"slices"
	"time"
)

// CompactSeries is a step's merged interval series in a columnar summary small enough for a
// report that holds many long steps: per interval and type the completed count, errors and five
// percentiles, plus the client-bound and database signals a reader looks for first. Column i of
// every slice belongs to Index[i]; the full-resolution histograms stay in the pods' snapshots.
// Percentiles are in microseconds, as read from the merged HDR histogram (0: no sample).
type CompactSeries struct {
	Start         time.Time                       `json:"start"`
	LengthSeconds float64                         `json:"lengthSeconds"`
	Index         []int                           `json:"index"`
	Types         map[Transaction]*CompactColumns `json:"types"`
	// Errors of the unmeasured outcomes are left out; ramp-up shows as the intervals before the
	// first with measured completions.
	LateStarts []int64 `json:"lateStarts"`
	PoolWaits  []int64 `json:"poolWaits"`
	// Database signals, absent when no pod sampled them. ReplayLagMillis[name] is that standby's
	// replay lag at each interval's end (-1: not reported in that interval).
	ReplayLagMillis   map[string][]int64 `json:"replayLagMillis,omitempty"`
	WALBytesPerSecond []int64            `json:"walBytesPerSecond,omitempty"`
	Checkpoints       []int64            `json:"checkpoints,omitempty"` // started in the interval
	SyncRepWaiters    []int64            `json:"syncRepWaiters,omitempty"`
	CommitsPerSecond  []int64            `json:"commitsPerSecond,omitempty"`
}

// CompactColumns is one transaction type's columns.
type CompactColumns struct {
	Completed []int64 `json:"completed"`
	Errors    []int64 `json:"errors"`
	P50       []int64 `json:"p50"`
	P90       []int64 `json:"p90"`
	P95       []int64 `json:"p95"`
	P99       []int64 `json:"p99"`
	Max       []int64 `json:"max"`
}

// Compact summarises merged intervals (sorted by index, as MergeIntervals returns them) into
// columns. It is pure; the percentiles are exact reads of the merged histograms.
func Compact(intervals []MergedInterval, length time.Duration) CompactSeries {
	n := len(intervals)
	c := CompactSeries{LengthSeconds: length.Seconds(), Index: make([]int, n), Types: map[Transaction]*CompactColumns{},
		LateStarts: make([]int64, n), PoolWaits: make([]int64, n)}
	if n > 0 {
		c.Start = intervals[0].Start
	}
	for _, t := range Transactions {
		c.Types[t] = &CompactColumns{Completed: make([]int64, n), Errors: make([]int64, n), P50: make([]int64, n),
			P90: make([]int64, n), P95: make([]int64, n), P99: make([]int64, n), Max: make([]int64, n)}
	}
	var db bool
	for _, iv := range intervals {
		db = db || iv.Telemetry != nil
	}
	if db {
		c.ReplayLagMillis = map[string][]int64{}
		c.WALBytesPerSecond, c.Checkpoints = make([]int64, n), make([]int64, n)
		c.SyncRepWaiters, c.CommitsPerSecond = make([]int64, n), make([]int64, n)
	}
	for i, iv := range intervals {
		c.Index[i] = iv.Index
		for _, t := range Transactions {
			col, mt := c.Types[t], iv.Transactions[t]
			if mt == nil {
				continue
			}
			col.Completed[i], col.Errors[i] = mt.Completed(), mt.Errors
			if h := mt.Histogram; h != nil && h.TotalCount() > 0 {
				col.P50[i], col.P90[i], col.P95[i], col.P99[i] = h.ValueAtQuantile(50), h.ValueAtQuantile(90), h.ValueAtQuantile(95), h.ValueAtQuantile(99)
				col.Max[i] = h.Max()
			}
		}
		c.LateStarts[i], c.PoolWaits[i] = iv.Client.LateStarts, iv.Client.PoolWaits
		if tel := iv.Telemetry; db && tel != nil {
			for _, s := range tel.Standbys {
				col, ok := c.ReplayLagMillis[s.Name]
				if !ok {
					col = slices.Repeat([]int64{-1}, n)
					c.ReplayLagMillis[s.Name] = col
				}
				col[i] = int64(s.ReplayLagSeconds * 1000)
			}
			if tel.WALBytesPerSecond != nil {
				c.WALBytesPerSecond[i] = int64(*tel.WALBytesPerSecond)
			}
			if tel.Checkpoints != nil {
				c.Checkpoints[i] = tel.Checkpoints.Started
			}
			if tel.Sessions != nil {
				c.SyncRepWaiters[i] = int64(tel.Sessions.SyncRep)
			}
			if tel.CommitsPerSecond != nil {
				c.CommitsPerSecond[i] = int64(*tel.CommitsPerSecond)
			}
		}
	}
	return c
}
