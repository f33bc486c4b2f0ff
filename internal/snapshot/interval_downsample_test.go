package snapshot

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// synthSeries is a compact series of intervals [from, to) with telemetry, built column by column:
// every 97th interval is not delivered, every 89th sample failed, every 61st has no synchronous
// standby streaming, standby s2 is absent from every 53rd read sample, and a standby s3 appears
// only from interval 2500.
func synthSeries(rng *rand.Rand, from, to int) CompactSeries {
	var c CompactSeries
	c.LengthSeconds = 1
	c.Types = map[Transaction]*CompactColumns{}
	for _, t := range Transactions {
		c.Types[t] = &CompactColumns{}
	}
	c.ReplayLagMillis = map[string][]int64{"s1": nil, "s2": nil}
	if from >= 2500 {
		c.ReplayLagMillis["s3"] = nil
	}
	for i := from; i < to; i++ {
		if i%97 == 96 {
			continue
		}
		c.Index = append(c.Index, i)
		for _, t := range Transactions {
			col := c.Types[t]
			col.Completed = append(col.Completed, rng.Int64N(50))
			col.Errors = append(col.Errors, rng.Int64N(3))
			p50 := 1000 + rng.Int64N(5000)
			col.P50, col.P90, col.P99 = append(col.P50, p50), append(col.P90, 2*p50), append(col.P99, 3*p50)
			col.Max = append(col.Max, 4*p50+rng.Int64N(100000))
		}
		c.LateStarts, c.PoolWaits = append(c.LateStarts, rng.Int64N(4)), append(c.PoolWaits, rng.Int64N(4))
		c.PoolAcquires, c.PoolWaitMillis = append(c.PoolAcquires, 100+rng.Int64N(4)), append(c.PoolWaitMillis, rng.Int64N(40))
		c.WALBytesPerSecond = append(c.WALBytesPerSecond, 8e6+rng.Int64N(1e6))
		c.CommitsPerSecond = append(c.CommitsPerSecond, 400+rng.Int64N(100))
		c.Checkpoints = append(c.Checkpoints, int64(min(1, rng.IntN(300))))
		c.SyncRepWaiters = append(c.SyncRepWaiters, rng.Int64N(20))
		failed := i%89 == 0
		c.TelemetryFailed = append(c.TelemetryFailed, map[bool]int64{true: 1}[failed])
		for name := range c.ReplayLagMillis {
			lag := rng.Int64N(1000)
			if failed || (name == "s2" && i%53 == 0) {
				lag = -1
			}
			c.ReplayLagMillis[name] = append(c.ReplayLagMillis[name], lag)
		}
		switch {
		case failed:
			c.Standbys, c.SyncStandbysStreaming = append(c.Standbys, -1), append(c.SyncStandbysStreaming, -1)
		case i%61 == 0:
			c.Standbys, c.SyncStandbysStreaming = append(c.Standbys, 2), append(c.SyncStandbysStreaming, 0)
		default:
			c.Standbys, c.SyncStandbysStreaming = append(c.Standbys, 2), append(c.SyncStandbysStreaming, 1)
		}
	}
	return c
}

type totals struct {
	completed, errors map[Transaction]int64
	maxLatency        map[Transaction]int64
	late, waits, acq  int64
	waitMs, ckpt      int64
	failed, read      int64
	nosync, delivered int64
	absent, maxLag    map[string]int64
	walTimesN         int64
}

func totalsOf(c *CompactSeries) totals {
	out := totals{completed: map[Transaction]int64{}, errors: map[Transaction]int64{}, maxLatency: map[Transaction]int64{},
		absent: map[string]int64{}, maxLag: map[string]int64{}}
	for i := range c.Index {
		for t, col := range c.Types {
			out.completed[t] += col.Completed[i]
			out.errors[t] += col.Errors[i]
			out.maxLatency[t] = max(out.maxLatency[t], col.Max[i])
		}
		out.late += c.LateStarts[i]
		out.waits += c.PoolWaits[i]
		out.acq += c.PoolAcquires[i]
		out.waitMs += c.PoolWaitMillis[i]
		out.ckpt += c.Checkpoints[i]
		out.failed += c.FailedOf(i)
		out.read += c.ReadOf(i)
		out.nosync += c.NoSyncOf(i)
		out.delivered += c.Delivered(i)
		out.walTimesN += c.WALBytesPerSecond[i] * c.Delivered(i)
		for name, col := range c.ReplayLagMillis {
			out.absent[name] += c.AbsentOf(name, i)
			out.maxLag[name] = max(out.maxLag[name], col[i])
		}
	}
	return out
}

// A series appended to and downsampled poll by poll stays within its bound, keeps its tail and
// the kept range at full resolution, and keeps every total exact: counts, maxima, the samples a
// verdict counts (failed, read, without a synchronous standby, missing a standby) and the
// intervals delivered; latency percentiles are the largest of the parts' (an upper bound), and
// the WAL rate's mean is kept to within rounding.
func TestDownsampleKeepsTotals(t *testing.T) {
	const n, limit, low, tail = 6000, 512, 384, 128
	keep := IndexRange{From: 3000, To: 3200}
	var full, bounded CompactSeries
	rng := rand.New(rand.NewPCG(3, 4))
	for from := 0; from < n; {
		to := min(n, from+1+rng.IntN(12))
		piece := synthSeries(rng, from, to)
		full.Append(piece)
		bounded.Append(piece)
		bounded.Downsample(limit, low, tail, keep)
		from = to
		if len(bounded.Index) > limit {
			t.Fatalf("after interval %d: %d entries, limit %d", to, len(bounded.Index), limit)
		}
	}
	if !bounded.Downsampled() {
		t.Fatal("the series was never downsampled")
	}
	want, got := totalsOf(&full), totalsOf(&bounded)
	for _, check := range []struct {
		name      string
		got, want any
	}{
		{"completed", got.completed, want.completed}, {"errors", got.errors, want.errors}, {"max latency", got.maxLatency, want.maxLatency},
		{"late starts", got.late, want.late}, {"pool waits", got.waits, want.waits}, {"pool acquires", got.acq, want.acq},
		{"pool wait ms", got.waitMs, want.waitMs}, {"checkpoints", got.ckpt, want.ckpt}, {"failed samples", got.failed, want.failed},
		{"read samples", got.read, want.read}, {"no-sync samples", got.nosync, want.nosync}, {"delivered", got.delivered, want.delivered},
		{"absent", got.absent, want.absent}, {"max lag", got.maxLag, want.maxLag},
	} {
		if !equalAny(check.got, check.want) {
			t.Errorf("%s: downsampled %v, full %v", check.name, check.got, check.want)
		}
	}
	if d := float64(got.walTimesN-want.walTimesN) / float64(want.walTimesN); d < -1e-6 || d > 1e-6 {
		t.Errorf("WAL bytes over the step: downsampled %d, full %d (more than rounding)", got.walTimesN, want.walTimesN)
	}
	if want.failed == 0 || want.nosync == 0 || want.absent["s2"] == 0 || want.absent["s3"] == 0 || want.delivered == int64(n) {
		t.Fatalf("the fixture lacks failed, no-sync or absent samples, or gaps: %+v", want)
	}
	lastEnd := bounded.End(len(bounded.Index) - 1)
	pos := map[int]int{}
	for j, idx := range full.Index {
		pos[idx] = j
	}
	for i, idx := range bounded.Index {
		span, end := bounded.SpanOf(i), bounded.End(i)
		if bits.OnesCount(uint(span)) != 1 || idx%span != 0 || (i > 0 && bounded.End(i-1) > idx) {
			t.Fatalf("entry %d: [%d, %d) is not an aligned power-of-two block after the one before", i, idx, end)
		}
		if span > 1 && (end > lastEnd-tail || keep.overlaps(idx, end)) {
			t.Errorf("entry %d: [%d, %d) merged within the tail or the kept range", i, idx, end)
		}
		for tx, col := range bounded.Types {
			var p90 int64
			for k := idx; k < end; k++ {
				if j, ok := pos[k]; ok {
					p90 = max(p90, full.Types[tx].P90[j])
				}
			}
			if col.P90[i] != p90 {
				t.Fatalf("entry %d %s: p90 %d, want the largest of its intervals' %d", i, tx, col.P90[i], p90)
			}
		}
	}
	if first := bounded.SpanOf(0); first < 8 {
		t.Errorf("oldest entry spans %d intervals: the oldest should be the coarsest", first)
	}
}

func equalAny(a, b any) bool {
	switch a := a.(type) {
	case map[Transaction]int64:
		b := b.(map[Transaction]int64)
		return len(a) == len(b) && slices.Equal(sortedVals(a), sortedVals(b)) && func() bool {
			for k, v := range a {
				if b[k] != v {
					return false
				}
			}
			return true
		}()
	case map[string]int64:
		b := b.(map[string]int64)
		if len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if b[k] != v {
				return false
			}
		}
		return true
	}
	return a == b
}

func sortedVals[K comparable](m map[K]int64) []int64 {
	out := make([]int64, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// A version-1 series (no spans) reads as one interval per entry, its counts derived from its own
// columns; Downsample leaves a series within its limit untouched.
func TestDownsampleShortSeriesUntouched(t *testing.T) {
	c := synthSeries(rand.New(rand.NewPCG(1, 1)), 0, 300)
	before := totalsOf(&c)
	if c.Downsample(MaxSeriesEntries, MaxSeriesEntries*3/4, FullResolutionTail) || c.Spans != nil {
		t.Fatal("a short series was downsampled")
	}
	if c.SpanOf(5) != 1 || c.End(5) != 6 || before.delivered != 297 {
		t.Errorf("span %d, end %d, delivered %d", c.SpanOf(5), c.End(5), before.delivered)
	}
}
