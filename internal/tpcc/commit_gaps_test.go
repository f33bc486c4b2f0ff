package tpcc

import (
	"testing"
	"time"
)

func TestCommitGaps(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	g := NewCommitGaps()
	g.Start(at(0))
	for _, ms := range []int{50, 400, 420} { // before any mark: nothing kept
		g.Commit(at(ms))
	}
	if g.Record() != nil {
		t.Fatal("a record before the first mark")
	}
	if got := g.Mark("fault-0", at(1000)); !got.Equal(at(1000)) {
		t.Fatalf("mark %v", got)
	}
	if got := g.Mark("fault-0", at(5000)); !got.Equal(at(1000)) {
		t.Fatalf("a repeated mark moved: %v", got)
	}
	g.Commit(at(1100)) // the stretch 420..1100 straddles the mark: kept
	g.Commit(at(1150)) // 50 ms: below the resolution
	g.Commit(at(9000)) // the outage
	g.Commit(at(4000)) // recorded late, inside the outage: splits it
	g.End(at(9500))
	r := g.Record()
	want := [][2]int{{420, 1100}, {1150, 4000}, {4000, 9000}}
	if len(r.Gaps) != len(want) {
		t.Fatalf("gaps %+v, want %v", r.Gaps, want)
	}
	for i, w := range want {
		if !r.Gaps[i].From.Equal(at(w[0])) || !r.Gaps[i].To.Equal(at(w[1])) {
			t.Errorf("gap %d: %v..%v, want %v", i, r.Gaps[i].From.Sub(t0), r.Gaps[i].To.Sub(t0), w)
		}
	}
	if !r.LastCommit.Equal(at(9000)) || !r.Ended.Equal(at(9500)) || !r.TerminalsStart.Equal(at(0)) || r.MinGapSeconds != 0.1 {
		t.Errorf("record %+v", r)
	}
	if mt, ok := r.MarkTime("fault-0"); !ok || !mt.Equal(at(1000)) {
		t.Errorf("mark %v %v", mt, ok)
	}
}

// The record stays bounded: past its bound the resolution doubles and shorter stretches go.
func TestCommitGapsBounded(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	g := &CommitGaps{minGap: 100 * time.Millisecond, max: 8}
	g.Start(t0)
	g.Mark("m", t0)
	now := t0
	for i := range 100 {
		step := 150 * time.Millisecond
		if i%10 == 0 {
			step = time.Second // a long stretch every tenth commit
		}
		now = now.Add(step)
		g.Commit(now)
	}
	r := g.Record()
	if len(r.Gaps) > 8 || r.MinGapSeconds < 0.2 {
		t.Fatalf("%d gaps at resolution %gs", len(r.Gaps), r.MinGapSeconds)
	}
	for _, gap := range r.Gaps {
		if gap.To.Sub(gap.From) != time.Second {
			t.Fatalf("kept a short stretch %v", gap.To.Sub(gap.From))
		}
	}
}
