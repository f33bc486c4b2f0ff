package snapshot

import (
	"maps"
	"math/bits"
	"slices"
)

// A long step at short intervals (a 12-hour sustained phase at 1 s is 43 200 intervals) would
// grow its series without bound: every column, the operator's memory, and each save of it. The
// series is therefore bounded: once it holds more than a limit of entries, the oldest ones
// outside a full-resolution tail (and outside the ranges a reader needs at full resolution: the
// minutes around a fault) are merged in pairs into entries twice as long. Entries are aligned
// blocks: an entry of level L covers the 2^L intervals [b·2^L, (b+1)·2^L); two entries merge only
// into the block of level L+1 that holds them both (or one of them and nothing else: the other
// half was never delivered and counts in Missing). Older entries end up coarser than newer ones,
// and the bound holds whatever the step's length.
//
// What a merged entry keeps, against what its intervals held on their own:
//   - exact: counts (completed, errors, late starts, pool acquisitions and waits, checkpoints,
//     failed, read and no-synchronous-standby samples, samples missing a standby, intervals not
//     delivered), maxima (max latency, replay lag, sync-rep waiters, standbys seen), the fewest
//     synchronous standbys streaming in a sample;
//   - mean over the entry's delivered intervals (exact up to integer rounding): WAL bytes and
//     commits per second;
//   - upper bound: p50, p90 and p99 are the largest of the parts' (a merged distribution's
//     q-quantile is never above the largest of its parts' q-quantiles), so a coarse entry never
//     shows a latency better than it was.
// The verdicts that read the series (replication, synchronous standbys, the fault's measure)
// therefore judge a downsampled series as they would the full one; only where an interval sits
// in time is coarser.

// Default bounds of a step's series: at most MaxSeriesEntries entries, and the newest
// FullResolutionTail intervals never merged. At 1-second intervals a 12-hour step keeps its last
// 17 minutes at 1 s and the rest at 8 to 16 s; a 24-hour one at 16 to 32 s.
const (
	MaxSeriesEntries   = 4096
	FullResolutionTail = 1024
)

// IndexRange is the intervals [From, To).
type IndexRange struct{ From, To int }

func (r IndexRange) overlaps(from, to int) bool { return from < r.To && r.From < to }

// SpanOf is how many intervals entry i covers.
func (c *CompactSeries) SpanOf(i int) int {
	if c.Spans == nil {
		return 1
	}
	return c.Spans[i]
}

// End is the interval after entry i: it covers [Index[i], End(i)).
func (c *CompactSeries) End(i int) int { return c.Index[i] + c.SpanOf(i) }

// Downsampled says whether some entry covers more than one interval.
func (c *CompactSeries) Downsampled() bool {
	for _, s := range c.Spans {
		if s > 1 {
			return true
		}
	}
	return false
}

// MissingOf is how many intervals of entry i no pod delivered (0 for a single interval: an
// interval nobody delivered has no entry).
func (c *CompactSeries) MissingOf(i int) int64 {
	if c.Missing == nil {
		return 0
	}
	return c.Missing[i]
}

// FailedOf is how many of entry i's database samples failed.
func (c *CompactSeries) FailedOf(i int) int64 {
	if i >= len(c.TelemetryFailed) {
		return 0
	}
	return c.TelemetryFailed[i]
}

// ReadOf is how many of entry i's database samples were read.
func (c *CompactSeries) ReadOf(i int) int64 {
	if c.TelemetryRead != nil {
		return c.TelemetryRead[i]
	}
	if i < len(c.Standbys) && c.Standbys[i] >= 0 {
		return 1
	}
	return 0
}

// NoSyncOf is how many of entry i's read samples found no standby streaming as synchronous.
func (c *CompactSeries) NoSyncOf(i int) int64 {
	if c.NoSyncStreaming != nil {
		return c.NoSyncStreaming[i]
	}
	if c.ReadOf(i) > 0 && i < len(c.SyncStandbysStreaming) && c.SyncStandbysStreaming[i] == 0 {
		return 1
	}
	return 0
}

// AbsentOf is how many of entry i's read samples did not report standby name.
func (c *CompactSeries) AbsentOf(name string, i int) int64 {
	if c.ReplayLagAbsent != nil {
		if col, ok := c.ReplayLagAbsent[name]; ok {
			return col[i]
		}
		return c.ReadOf(i)
	}
	if col, ok := c.ReplayLagMillis[name]; ok && col[i] >= 0 {
		return 0
	}
	return c.ReadOf(i)
}

// materialize turns the derived counts into columns, before a first merge.
func (c *CompactSeries) materialize() {
	if c.Spans != nil {
		return
	}
	n := len(c.Index)
	c.Spans, c.Missing = slices.Repeat([]int{1}, n), make([]int64, n)
	if c.TelemetryFailed == nil {
		return
	}
	read, nosync := make([]int64, n), make([]int64, n)
	absent := make(map[string][]int64, len(c.ReplayLagMillis))
	for name := range c.ReplayLagMillis {
		absent[name] = make([]int64, n)
	}
	for i := range n {
		read[i], nosync[i] = c.ReadOf(i), c.NoSyncOf(i)
		for name := range c.ReplayLagMillis {
			absent[name][i] = c.AbsentOf(name, i)
		}
	}
	c.TelemetryRead, c.NoSyncStreaming, c.ReplayLagAbsent = read, nosync, absent
}

// appendParts extends the count columns of a downsampled c (n entries before) with o's m
// entries; hadLags are the standbys c knew before (a new one was absent from c's read samples).
func (c *CompactSeries) appendParts(o CompactSeries, n, m int, hadLags map[string]bool) {
	if c.Spans == nil {
		return
	}
	for j := range m {
		c.Spans = append(c.Spans, o.SpanOf(j))
		c.Missing = append(c.Missing, o.MissingOf(j))
	}
	if c.TelemetryFailed == nil {
		return
	}
	oldRead := c.TelemetryRead
	c.TelemetryRead, c.NoSyncStreaming = padZero(c.TelemetryRead, n), padZero(c.NoSyncStreaming, n)
	for j := range m {
		c.TelemetryRead = append(c.TelemetryRead, o.ReadOf(j))
		c.NoSyncStreaming = append(c.NoSyncStreaming, o.NoSyncOf(j))
	}
	if c.ReplayLagAbsent == nil {
		c.ReplayLagAbsent = map[string][]int64{}
	}
	for name := range c.ReplayLagMillis {
		col := c.ReplayLagAbsent[name]
		if !hadLags[name] {
			col = padZero(slices.Clone(oldRead), n) // c's read samples did not report it
		}
		col = padZero(col, n)
		for j := range m {
			col = append(col, o.AbsentOf(name, j))
		}
		c.ReplayLagAbsent[name] = col
	}
}

func padZero(col []int64, n int) []int64 {
	for len(col) < n {
		col = append(col, 0)
	}
	return col
}

// Downsample merges the oldest entries until the series holds at most low entries, once it holds
// more than limit (so it runs about once per limit-low new entries, not on every append). The
// entries that end within the last tail intervals, and those overlapping a range of keep, are
// never merged. It returns whether anything was merged; if the tail and the kept ranges alone
// hold more than low entries, it merges what it can.
func (c *CompactSeries) Downsample(limit, low, tail int, keep ...IndexRange) bool {
	if len(c.Index) <= limit {
		return false
	}
	changed := false
	for len(c.Index) > low {
		cut := c.End(len(c.Index)-1) - tail
		eligible := func(from, to int) bool {
			if to > cut {
				return false
			}
			for _, r := range keep {
				if r.overlaps(from, to) {
					return false
				}
			}
			return true
		}
		levels := map[int]bool{}
		for i := range c.Index {
			if eligible(c.Index[i], c.End(i)) {
				levels[bits.TrailingZeros(uint(c.SpanOf(i)))] = true
			}
		}
		merged := false
		for _, level := range slices.Sorted(maps.Keys(levels)) {
			if c.mergeLevel(level, len(c.Index)-low, eligible) {
				merged = true
				break
			}
		}
		if !merged {
			break
		}
		changed = true
	}
	return changed
}

// group is entries [from, to) of a series becoming one entry at start covering span intervals.
type group struct{ from, to, start, span int }

// mergeLevel merges, oldest first, the entries of the given level whose block of the next level is
// eligible as a whole, until need entries fewer remain; it reports whether it merged any.
func (c *CompactSeries) mergeLevel(level, need int, eligible func(from, to int) bool) bool {
	size := 1 << (level + 1)
	var groups []group
	merged := false
	for i := 0; i < len(c.Index); {
		g := group{from: i, to: i + 1, start: c.Index[i], span: c.SpanOf(i)}
		if c.SpanOf(i) == size/2 {
			start := c.Index[i] &^ (size - 1)
			j := i
			same := i == 0 || c.End(i-1) <= start // no entry of another level before it in the block
			for j < len(c.Index) && c.Index[j] < start+size {
				same = same && c.SpanOf(j) == size/2
				j++
			}
			if same && need > 0 && eligible(start, start+size) {
				g, merged = group{from: i, to: j, start: start, span: size}, true
				need -= j - i - 1
			}
		}
		groups = append(groups, g)
		i = g.to
	}
	if merged {
		c.regroup(groups)
	}
	return merged
}

// regroup rebuilds every column from groups of consecutive entries.
func (c *CompactSeries) regroup(groups []group) {
	c.materialize()
	n := len(groups)
	delivered := c.Delivered
	combine := func(col []int64, f func(col []int64, from, to int) int64) []int64 {
		if col == nil {
			return nil
		}
		out := make([]int64, n)
		for k, g := range groups {
			out[k] = f(col, g.from, g.to)
		}
		return out
	}
	sum := func(col []int64, from, to int) int64 {
		var s int64
		for _, v := range col[from:to] {
			s += v
		}
		return s
	}
	largest := func(col []int64, from, to int) int64 { return slices.Max(col[from:to]) }
	// fewest: the smallest value of a read sample, -1 when no part was read.
	fewest := func(col []int64, from, to int) int64 {
		best := int64(-1)
		for _, v := range col[from:to] {
			if v >= 0 && (best < 0 || v < best) {
				best = v
			}
		}
		return best
	}
	mean := func(col []int64, from, to int) int64 {
		var s, w int64
		for i := from; i < to; i++ {
			s += col[i] * delivered(i)
			w += delivered(i)
		}
		if w == 0 {
			return 0
		}
		return (s + w/2) / w
	}
	// sampledMean: the mean of the parts that were sampled (weighted by their intervals), -1 when
	// none was: the sessions' counts, whose average the bottleneck rules read.
	sampledMean := func(col []int64, from, to int) int64 {
		var s, w int64
		for i := from; i < to; i++ {
			if col[i] >= 0 {
				s += col[i] * max(1, delivered(i))
				w += max(1, delivered(i))
			}
		}
		if w == 0 {
			return -1
		}
		return (s + w/2) / w
	}
	index, spans, missing := make([]int, n), make([]int, n), make([]int64, n)
	for k, g := range groups {
		index[k], spans[k] = g.start, g.span
		var d int64
		for i := g.from; i < g.to; i++ {
			d += delivered(i)
		}
		missing[k] = int64(g.span) - d
	}
	for _, cols := range c.Types {
		cols.Completed, cols.Errors = combine(cols.Completed, sum), combine(cols.Errors, sum)
		cols.P50, cols.P90, cols.P99 = combine(cols.P50, largest), combine(cols.P90, largest), combine(cols.P99, largest)
		cols.Max = combine(cols.Max, largest)
	}
	c.LateStarts, c.PoolWaits = combine(c.LateStarts, sum), combine(c.PoolWaits, sum)
	c.PoolAcquires, c.PoolWaitMillis = combine(c.PoolAcquires, sum), combine(c.PoolWaitMillis, sum)
	c.WALBytesPerSecond, c.CommitsPerSecond = combine(c.WALBytesPerSecond, mean), combine(c.CommitsPerSecond, mean)
	c.Checkpoints, c.SyncRepWaiters = combine(c.Checkpoints, sum), combine(c.SyncRepWaiters, largest)
	c.SyncStandbysStreaming, c.Standbys = combine(c.SyncStandbysStreaming, fewest), combine(c.Standbys, largest)
	c.TelemetryFailed, c.TelemetryRead = combine(c.TelemetryFailed, sum), combine(c.TelemetryRead, sum)
	c.NoSyncStreaming = combine(c.NoSyncStreaming, sum)
	for name, col := range c.ReplayLagMillis {
		c.ReplayLagMillis[name] = combine(col, largest) // -1 (not reported) is below every lag
	}
	for _, lags := range []map[string][]int64{c.WriteLagMillis, c.FlushLagMillis} {
		for name, col := range lags {
			lags[name] = combine(col, largest)
		}
	}
	c.ActiveSessions, c.LockWaiters = combine(c.ActiveSessions, sampledMean), combine(c.LockWaiters, sampledMean)
	c.IOWaiters = combine(c.IOWaiters, sampledMean)
	for name, col := range c.ReplayLagAbsent {
		c.ReplayLagAbsent[name] = combine(col, sum)
	}
	c.Index, c.Spans, c.Missing = index, spans, missing
}

// Delivered is how many intervals of entry i some pod delivered.
func (c *CompactSeries) Delivered(i int) int64 { return int64(c.SpanOf(i)) - c.MissingOf(i) }
