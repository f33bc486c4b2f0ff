package tpcc

import (
	"sync"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// CommitGaps records, in this process's clock, when the database acknowledged commits of writing
// transactions, so that the outage a fault causes can be measured from the commits themselves —
// from the last one acknowledged before the outage to the first one after it — rather than from
// whole empty intervals of the time series, and in the clock of the process that saw them, so
// that no skew between machines can shift it.
//
// Until the first mark (POST /v1/mark, which a fault's controller sets right before it disrupts
// the database) it keeps only the latest commit: one comparison under a mutex per commit. From
// the mark on it keeps every stretch of at least minGap without a commit that ends after the
// mark. The record is bounded: past maxGaps stretches the resolution doubles and the shorter ones
// are dropped, so a sparse workload over hours cannot grow it without limit.
type CommitGaps struct {
	mu     sync.Mutex
	start  time.Time
	last   time.Time
	ended  time.Time
	marks  []snapshot.Mark
	gaps   []snapshot.CommitGap
	minGap time.Duration
	max    int
}

// DefaultMinCommitGap is the resolution of an outage measured from commits: shorter stretches
// without a commit are not recorded.
const DefaultMinCommitGap = 100 * time.Millisecond

// DefaultMaxCommitGaps bounds the stretches kept (about 100 KiB in a snapshot).
const DefaultMaxCommitGaps = 2048

// NewCommitGaps returns an empty record with the default resolution and bound.
func NewCommitGaps() *CommitGaps {
	return &CommitGaps{minGap: DefaultMinCommitGap, max: DefaultMaxCommitGaps}
}

// Start notes when the terminals started: a gap before the first commit runs from it.
func (g *CommitGaps) Start(at time.Time) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.start.IsZero() {
		g.start = at
	}
}

// End notes when the terminals ended: no commit follows it.
func (g *CommitGaps) End(at time.Time) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended.IsZero() {
		g.ended = at
	}
}

// Commit records one acknowledged commit at time at.
func (g *CommitGaps) Commit(at time.Time) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	prev := g.last
	if prev.IsZero() {
		prev = g.start
	}
	if !at.After(prev) {
		// Recorded out of order (a terminal that took the lock a moment late): it may split the
		// last gap kept.
		if n := len(g.gaps); n > 0 && at.After(g.gaps[n-1].From) && at.Before(g.gaps[n-1].To) {
			last := g.gaps[n-1]
			g.gaps = g.gaps[:n-1]
			g.keep(last.From, at)
			g.keep(at, last.To)
		}
		return
	}
	g.last = at
	if len(g.marks) > 0 && !prev.IsZero() && at.After(g.marks[0].Time) {
		g.keep(prev, at)
	}
}

// keep adds the stretch from..to when it is long enough, coarsening the record when it is full.
func (g *CommitGaps) keep(from, to time.Time) {
	if to.Sub(from) < g.minGap {
		return
	}
	g.gaps = append(g.gaps, snapshot.CommitGap{From: from, To: to})
	for len(g.gaps) > g.max {
		g.minGap *= 2
		kept := g.gaps[:0]
		for _, gap := range g.gaps {
			if gap.To.Sub(gap.From) >= g.minGap {
				kept = append(kept, gap)
			}
		}
		g.gaps = kept
	}
}

// Mark records the moment now under label and returns it; marking a label again returns the
// first moment (a restarted controller repeating its mark moves nothing).
func (g *CommitGaps) Mark(label string, now time.Time) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.marks {
		if m.Label == label {
			return m.Time
		}
	}
	g.marks = append(g.marks, snapshot.Mark{Label: label, Time: now})
	return now
}

// Record is the record for a snapshot; nil before the first mark.
func (g *CommitGaps) Record() *snapshot.CommitRecord {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.marks) == 0 {
		return nil
	}
	return &snapshot.CommitRecord{
		Marks: append([]snapshot.Mark(nil), g.marks...), Gaps: append([]snapshot.CommitGap{}, g.gaps...),
		MinGapSeconds: g.minGap.Seconds(), LastCommit: g.last, TerminalsStart: g.start, Ended: g.ended,
	}
}
