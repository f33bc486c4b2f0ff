package snapshot

import (
	"slices"
	"time"
)

// CompactSeries is a step's merged interval series in a columnar summary small enough for a
// report that holds many long steps: per interval and type the completed count, errors, p50, p90,
// p99 and max (no p95: it costs a seventh of the report and the step's own p95 is in status), plus the client-bound and database signals a reader looks for first. Column i of
// every slice belongs to Index[i]; the full-resolution histograms stay in the pods' snapshots.
// Percentiles are in microseconds, as read from the merged HDR histogram and rounded to three
// significant digits (0: no sample).
type CompactSeries struct {
	Start         time.Time                       `json:"start"`
	LengthSeconds float64                         `json:"lengthSeconds"`
	Index         []int                           `json:"index"`
	Types         map[Transaction]*CompactColumns `json:"types"`
	// Errors of the unmeasured outcomes are left out; ramp-up shows as the intervals before the
	// first with measured completions.
	LateStarts []int64 `json:"lateStarts"`
	PoolWaits  []int64 `json:"poolWaits"`
	// PoolAcquires and PoolWaitMillis complete the pool's picture: acquisitions, and the summed
	// time spent acquiring (absent where the driver does not report its pool).
	PoolAcquires   []int64 `json:"poolAcquires,omitempty"`
	PoolWaitMillis []int64 `json:"poolWaitMillis,omitempty"`
	// Database signals, absent when no pod sampled them. ReplayLagMillis[name] is that standby's
	// replay lag at each interval's end (-1: not reported in that interval).
	ReplayLagMillis map[string][]int64 `json:"replayLagMillis,omitempty"`
	// HiddenStandbys are standbys whose positions the sampling role could not read (no lag known).
	HiddenStandbys    []string `json:"hiddenStandbys,omitempty"`
	WALBytesPerSecond []int64  `json:"walBytesPerSecond,omitempty"`
	Checkpoints       []int64  `json:"checkpoints,omitempty"` // started in the interval
	SyncRepWaiters    []int64  `json:"syncRepWaiters,omitempty"`
	CommitsPerSecond  []int64  `json:"commitsPerSecond,omitempty"`
	// SyncStandbysStreaming is, per interval, how many standbys the sample found streaming as
	// synchronous (sync or quorum), and Standbys how many it found at all (added within version
	// 1); -1 where the interval has no sample that was read (none taken, or it failed). With
	// ReplayLagMillis they tell a standby that left pg_stat_replication (-1 in its column where
	// the interval was sampled) from an interval nobody sampled.
	SyncStandbysStreaming []int64 `json:"syncStandbysStreaming,omitempty"`
	Standbys              []int64 `json:"standbys,omitempty"`
	// TelemetryFailed is 1 where the interval's database sample failed (its error is in the pod's
	// snapshot), 0 elsewhere; in a downsampled entry, how many of its intervals' samples failed.
	TelemetryFailed []int64 `json:"telemetryFailed,omitempty"`
	// WriteLagMillis and FlushLagMillis are each standby's write and flush lag at each interval's
	// end, as ReplayLagMillis (added within version 1): the time the WAL took to reach the
	// standby's operating system, and its disk.
	WriteLagMillis map[string][]int64 `json:"writeLagMillis,omitempty"`
	FlushLagMillis map[string][]int64 `json:"flushLagMillis,omitempty"`
	// ActiveSessions, LockWaiters and IOWaiters are the database's active client sessions at the
	// sample and those waiting on heavyweight locks and on I/O (PostgreSQL; added within version
	// 1), beside SyncRepWaiters: what the bottleneck rules read. -1 where the interval has no
	// sample of the sessions (none read, or an engine without wait events).
	ActiveSessions []int64 `json:"activeSessions,omitempty"`
	LockWaiters    []int64 `json:"lockWaiters,omitempty"`
	IOWaiters      []int64 `json:"ioWaiters,omitempty"`

	// A long step's series is downsampled (interval_downsample.go, series version 2): entry i then
	// covers the Spans[i] intervals from Index[i] on, and the columns below count, per entry, what
	// each interval of it would have said on its own. All of them are absent (nil) until the first
	// entry is merged, and in every version-1 document: each entry is then one interval, and the
	// counts derive from its own columns (SpanOf, MissingOf, ReadOf, NoSyncOf, AbsentOf).
	Spans []int `json:"spans,omitempty"`
	// Missing counts the intervals of the entry that no pod delivered.
	Missing []int64 `json:"missing,omitempty"`
	// TelemetryRead counts the entry's intervals with a database sample that was read;
	// NoSyncStreaming those whose sample found no standby streaming as synchronous;
	// ReplayLagAbsent[name] those whose sample was read but did not report that standby.
	TelemetryRead   []int64            `json:"telemetryRead,omitempty"`
	NoSyncStreaming []int64            `json:"noSyncStreaming,omitempty"`
	ReplayLagAbsent map[string][]int64 `json:"replayLagAbsent,omitempty"`
}

// CompactColumns is one transaction type's columns.
type CompactColumns struct {
	Completed []int64 `json:"completed"`
	Errors    []int64 `json:"errors"`
	P50       []int64 `json:"p50"`
	P90       []int64 `json:"p90"`
	P99       []int64 `json:"p99"`
	Max       []int64 `json:"max"`
}

// Compact summarises merged intervals (sorted by index, as MergeIntervals returns them) into
// columns. It is pure; the percentiles are exact reads of the merged histograms.
func Compact(intervals []MergedInterval, length time.Duration) CompactSeries {
	n := len(intervals)
	c := CompactSeries{LengthSeconds: length.Seconds(), Index: make([]int, n), Types: map[Transaction]*CompactColumns{},
		LateStarts: make([]int64, n), PoolWaits: make([]int64, n), PoolAcquires: make([]int64, n), PoolWaitMillis: make([]int64, n)}
	if n > 0 {
		c.Start = intervals[0].Start
	}
	for _, t := range Transactions {
		c.Types[t] = &CompactColumns{Completed: make([]int64, n), Errors: make([]int64, n), P50: make([]int64, n),
			P90: make([]int64, n), P99: make([]int64, n), Max: make([]int64, n)}
	}
	var db bool
	for _, iv := range intervals {
		db = db || iv.Telemetry != nil
	}
	if db {
		c.ReplayLagMillis = map[string][]int64{}
		c.WALBytesPerSecond, c.Checkpoints = make([]int64, n), make([]int64, n)
		c.SyncRepWaiters, c.CommitsPerSecond = make([]int64, n), make([]int64, n)
		c.SyncStandbysStreaming, c.Standbys = slices.Repeat([]int64{-1}, n), slices.Repeat([]int64{-1}, n)
		c.TelemetryFailed = make([]int64, n)
		c.WriteLagMillis, c.FlushLagMillis = map[string][]int64{}, map[string][]int64{}
		c.ActiveSessions, c.LockWaiters, c.IOWaiters = slices.Repeat([]int64{-1}, n), slices.Repeat([]int64{-1}, n), slices.Repeat([]int64{-1}, n)
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
				col.P50[i], col.P90[i], col.P99[i] = sig3(ValueAtNearestRank(h, 50)), sig3(ValueAtNearestRank(h, 90)), sig3(ValueAtNearestRank(h, 99))
				col.Max[i] = sig3(h.Max())
			}
		}
		c.LateStarts[i], c.PoolWaits[i] = iv.Client.LateStarts, iv.Client.PoolWaits
		c.PoolAcquires[i], c.PoolWaitMillis[i] = iv.Client.PoolAcquires, int64(iv.Client.PoolWaitSeconds*1000)
		if tel := iv.Telemetry; db && tel != nil && tel.Error != "" {
			c.TelemetryFailed[i] = 1
		} else if db && tel != nil {
			var streaming int64
			for _, s := range tel.Standbys {
				if s.State == "streaming" && (s.SyncState == "sync" || s.SyncState == "quorum") {
					streaming++
				}
			}
			c.SyncStandbysStreaming[i], c.Standbys[i] = streaming, int64(len(tel.Standbys))
			for _, s := range tel.Standbys {
				if s.Hidden {
					c.HiddenStandbys = appendUnique(c.HiddenStandbys, s.Name)
					continue
				}
				setLag(c.ReplayLagMillis, s.Name, n, i, s.ReplayLagSeconds)
				setLag(c.WriteLagMillis, s.Name, n, i, s.WriteLagSeconds)
				setLag(c.FlushLagMillis, s.Name, n, i, s.FlushLagSeconds)
			}
			if tel.WALBytesPerSecond != nil {
				c.WALBytesPerSecond[i] = int64(*tel.WALBytesPerSecond)
			}
			if tel.Checkpoints != nil {
				c.Checkpoints[i] = tel.Checkpoints.Started
			}
			if tel.Sessions != nil {
				c.SyncRepWaiters[i] = int64(tel.Sessions.SyncRep)
				c.ActiveSessions[i], c.LockWaiters[i], c.IOWaiters[i] = int64(tel.Sessions.Active), int64(tel.Sessions.Lock), int64(tel.Sessions.IO)
			}
			if tel.CommitsPerSecond != nil {
				c.CommitsPerSecond[i] = int64(*tel.CommitsPerSecond)
			}
		}
	}
	return c
}

// setLag sets the lag of standby name at interval i of n in cols, the column created with -1 (not
// reported) where it is new.
func setLag(cols map[string][]int64, name string, n, i int, seconds float64) {
	col, ok := cols[name]
	if !ok {
		col = slices.Repeat([]int64{-1}, n)
		cols[name] = col
	}
	col[i] = int64(seconds * 1000)
}

// sig3 rounds v to three significant digits. The histograms resolve two (HistogramSignificantDigits:
// buckets about 1 % wide), so this loses nothing they hold, and the trailing zeros make the long
// series compress: 20 two-hour steps fit a ConfigMap (controllers' BenchmarkReportSeriesSize).
func sig3(v int64) int64 { return RoundSignificant(v, 3) }

// RoundSignificant rounds v ≥ 0 to the given number of significant digits.
func RoundSignificant(v int64, digits int) int64 {
	limit := int64(1)
	for range digits {
		limit *= 10
	}
	scale := int64(1)
	for v/scale >= limit {
		scale *= 10
	}
	return (v + scale/2) / scale * scale
}

// Append adds o's intervals, which follow c's, to c: a step's series collected piece by piece
// equals the series compacted at once. A column one side lacks is padded (counts 0, replay lag -1:
// not reported).
func (c *CompactSeries) Append(o CompactSeries) {
	n, m := len(c.Index), len(o.Index)
	if m == 0 {
		return
	}
	if n == 0 {
		c.Start = o.Start
	}
	if c.LengthSeconds == 0 {
		c.LengthSeconds = o.LengthSeconds
	}
	hadLags := make(map[string]bool, len(c.ReplayLagMillis))
	for name := range c.ReplayLagMillis {
		hadLags[name] = true
	}
	if c.Spans == nil && o.Spans != nil {
		c.materialize() // o is downsampled: c's entries get their counts before o's join them
	}
	c.Index = append(c.Index, o.Index...)
	for _, name := range o.HiddenStandbys {
		c.HiddenStandbys = appendUnique(c.HiddenStandbys, name)
	}
	if c.Types == nil {
		c.Types = map[Transaction]*CompactColumns{}
	}
	for _, t := range Transactions {
		a, b := c.Types[t], o.Types[t]
		if a == nil && b == nil {
			continue
		}
		if a == nil {
			a = &CompactColumns{}
			a.pad(n)
			c.Types[t] = a
		}
		if b == nil {
			a.pad(n + m)
			continue
		}
		a.Completed, a.Errors = append(a.Completed, b.Completed...), append(a.Errors, b.Errors...)
		a.P50, a.P90 = append(a.P50, b.P50...), append(a.P90, b.P90...)
		a.P99, a.Max = append(a.P99, b.P99...), append(a.Max, b.Max...)
	}
	c.LateStarts = appendPadded(c.LateStarts, n, o.LateStarts, m, 0)
	c.PoolWaits = appendPadded(c.PoolWaits, n, o.PoolWaits, m, 0)
	c.PoolAcquires = appendPadded(c.PoolAcquires, n, o.PoolAcquires, m, 0)
	c.PoolWaitMillis = appendPadded(c.PoolWaitMillis, n, o.PoolWaitMillis, m, 0)
	c.WALBytesPerSecond = appendPadded(c.WALBytesPerSecond, n, o.WALBytesPerSecond, m, 0)
	c.Checkpoints = appendPadded(c.Checkpoints, n, o.Checkpoints, m, 0)
	c.SyncRepWaiters = appendPadded(c.SyncRepWaiters, n, o.SyncRepWaiters, m, 0)
	c.CommitsPerSecond = appendPadded(c.CommitsPerSecond, n, o.CommitsPerSecond, m, 0)
	c.SyncStandbysStreaming = appendPadded(c.SyncStandbysStreaming, n, o.SyncStandbysStreaming, m, -1)
	c.Standbys = appendPadded(c.Standbys, n, o.Standbys, m, -1)
	c.TelemetryFailed = appendPadded(c.TelemetryFailed, n, o.TelemetryFailed, m, 0)
	c.ActiveSessions = appendPadded(c.ActiveSessions, n, o.ActiveSessions, m, -1)
	c.LockWaiters = appendPadded(c.LockWaiters, n, o.LockWaiters, m, -1)
	c.IOWaiters = appendPadded(c.IOWaiters, n, o.IOWaiters, m, -1)
	c.ReplayLagMillis = appendLags(c.ReplayLagMillis, n, o.ReplayLagMillis, m)
	c.WriteLagMillis = appendLags(c.WriteLagMillis, n, o.WriteLagMillis, m)
	c.FlushLagMillis = appendLags(c.FlushLagMillis, n, o.FlushLagMillis, m)
	c.appendParts(o, n, m, hadLags)
}

// appendLags appends o's per-standby columns (m values) to c's (n values), padding with -1.
func appendLags(c map[string][]int64, n int, o map[string][]int64, m int) map[string][]int64 {
	if c == nil && o == nil {
		return nil
	}
	if c == nil {
		c = map[string][]int64{}
	}
	for name, col := range c {
		c[name] = appendPadded(col, n, o[name], m, -1)
	}
	for name, col := range o {
		if _, ok := c[name]; !ok {
			c[name] = appendPadded(nil, n, col, m, -1)
		}
	}
	return c
}

func appendUnique(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

func (c *CompactColumns) pad(n int) {
	for _, col := range []*[]int64{&c.Completed, &c.Errors, &c.P50, &c.P90, &c.P99, &c.Max} {
		*col = appendPadded(*col, len(*col), nil, n-len(*col), 0)
	}
}

// appendPadded appends b (m values) to a (n values), padding a missing side with fill; both
// absent stays nil (the column is not part of the series).
func appendPadded(a []int64, n int, b []int64, m int, fill int64) []int64 {
	if a == nil && b == nil {
		return nil
	}
	for len(a) < n {
		a = append(a, fill)
	}
	if b == nil {
		return append(a, slices.Repeat([]int64{fill}, m)...)
	}
	return append(a, b...)
}
