package sla

import (
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// series builds a 1 s series from interval 0 of per-second New-Order and Payment completions and
// errors; a negative New-Order count marks an interval no pod delivered.
func faultSeries(newOrders, errors []int64) snapshot.CompactSeries {
	s := snapshot.CompactSeries{LengthSeconds: 1, Types: map[snapshot.Transaction]*snapshot.CompactColumns{
		snapshot.NewOrder: {}, snapshot.Payment: {}, snapshot.StockLevel: {}}}
	for i, n := range newOrders {
		if n < 0 {
			continue
		}
		s.Index = append(s.Index, i)
		no, pay := s.Types[snapshot.NewOrder], s.Types[snapshot.Payment]
		no.Completed = append(no.Completed, n)
		pay.Completed = append(pay.Completed, n) // as many Payments
		var e int64
		if errors != nil {
			e = errors[i]
		}
		no.Errors = append(no.Errors, e)
		pay.Errors = append(pay.Errors, 0)
		// Reads complete throughout, outage or not: they never end one.
		st := s.Types[snapshot.StockLevel]
		st.Completed, st.Errors = append(st.Completed, 3), append(st.Errors, 0)
	}
	return s
}

func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func concat(parts ...[]int64) []int64 {
	var out []int64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestMeasureFault(t *testing.T) {
	origin := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	sec := func(n int) time.Time { return origin.Add(time.Duration(n) * time.Second) }
	cases := []struct {
		name                   string
		newOrders, errors      []int64
		measuredStart, faultAt time.Time
		unavailable            time.Duration
		unavailableFrom        time.Time
		recovered              bool
		recovery               time.Duration
		baseline               float64
		newOrderErrors         int64
		atEnd                  bool
	}{
		{
			// 20 s ramp-up (nothing measured), 70 s at 10/s, fault at 90.5 s: 12 s of nothing,
			// 3 s at 5/s, then 10/s again.
			name:          "outage then recovery",
			newOrders:     concat(repeat(0, 20), repeat(10, 70), []int64{6}, repeat(0, 12), repeat(5, 3), repeat(10, 30)),
			errors:        concat(repeat(0, 91), repeat(2, 12), repeat(0, 33)),
			measuredStart: sec(20), faultAt: sec(90).Add(500 * time.Millisecond),
			unavailable: 12 * time.Second, unavailableFrom: sec(91),
			// windows from 103: 5,5,5,10×7 = 85 < 90; from 104: 5,5,10×8 = 90 ≥ 90.
			recovered: true, recovery: sec(104).Sub(sec(90).Add(500 * time.Millisecond)),
			baseline: 10, newOrderErrors: 24,
		},
		{
			name: "a fault that costs nothing", newOrders: repeat(10, 120),
			measuredStart: sec(0), faultAt: sec(60),
			recovered: true, recovery: 0, baseline: 10,
		},
		{
			name: "never recovers", newOrders: concat(repeat(10, 60), repeat(0, 5), repeat(3, 40)),
			measuredStart: sec(0), faultAt: sec(60),
			unavailable: 5 * time.Second, unavailableFrom: sec(60), baseline: 10,
		},
		{
			// Nothing commits again before the step ends: the outage is at least what was seen.
			name: "down to the end", newOrders: concat(repeat(10, 60), repeat(0, 30)),
			measuredStart: sec(0), faultAt: sec(60),
			unavailable: 30 * time.Second, unavailableFrom: sec(60), baseline: 10, atEnd: true,
		},
		{
			// Interval 65 was not delivered: the outage is not known to span it.
			name: "a missing interval ends the outage", newOrders: concat(repeat(10, 60), repeat(0, 5), []int64{-1}, repeat(0, 3), repeat(10, 20)),
			measuredStart: sec(0), faultAt: sec(60),
			unavailable: 5 * time.Second, unavailableFrom: sec(60), recovered: true, recovery: 8 * time.Second, baseline: 10,
		},
		{
			// Only 10 measured seconds before the fault: the baseline averages those.
			name: "short baseline", newOrders: concat(repeat(0, 50), repeat(4, 10), repeat(0, 2), repeat(4, 20)),
			measuredStart: sec(50), faultAt: sec(60),
			unavailable: 2 * time.Second, unavailableFrom: sec(60), recovered: true, recovery: 2 * time.Second, baseline: 4,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := MeasureFault(faultSeries(tc.newOrders, tc.errors), origin, tc.measuredStart, tc.faultAt)
			if err != nil {
				t.Fatal(err)
			}
			if f.Unavailability != tc.unavailable || !f.UnavailableFrom.Equal(tc.unavailableFrom) {
				t.Errorf("unavailability %s from %s, want %s from %s", f.Unavailability, f.UnavailableFrom, tc.unavailable, tc.unavailableFrom)
			}
			if f.Recovered != tc.recovered || f.Recovery != tc.recovery {
				t.Errorf("recovered %v after %s, want %v after %s", f.Recovered, f.Recovery, tc.recovered, tc.recovery)
			}
			if f.UnavailableAtEnd != tc.atEnd {
				t.Errorf("unavailable at the end %v, want %v", f.UnavailableAtEnd, tc.atEnd)
			}
			if f.BaselineNewOrdersPerSecond != tc.baseline {
				t.Errorf("baseline %.2f/s, want %.2f/s", f.BaselineNewOrdersPerSecond, tc.baseline)
			}
			if got := f.Errors[snapshot.NewOrder]; got != tc.newOrderErrors {
				t.Errorf("New-Order errors %d, want %d", got, tc.newOrderErrors)
			}
		})
	}
}

func TestUnavailabilityCheck(t *testing.T) {
	for _, tc := range []struct {
		measured, bound time.Duration
		atEnd           bool
		want            Status
	}{
		{12 * time.Second, 30 * time.Second, false, Pass}, {30 * time.Second, 30 * time.Second, false, Pass},
		{31 * time.Second, 30 * time.Second, false, Fail},
		{10 * time.Second, 30 * time.Second, true, Fail}, // the step ended before any commit came back
	} {
		if got := UnavailabilityCheck(tc.measured, tc.bound, tc.atEnd); got.Status != tc.want {
			t.Errorf("%s against %s: %s (%s)", tc.measured, tc.bound, got.Status, got.Detail)
		}
	}
}

// MeasureOutage reads each process's commits relative to its own mark: skewed clocks do not move
// the outage, a stretch counts only where no process committed, and missing records fail.
func TestMeasureOutage(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	// record builds a process's record in a clock skewed by skew: gaps are [from, to] in ms
	// relative to the mark; last and ended likewise.
	record := func(skew time.Duration, last, ended int, gaps ...[2]int) *snapshot.CommitRecord {
		mark := t0.Add(skew)
		r := &snapshot.CommitRecord{Marks: []snapshot.Mark{{Label: "fault-0", Time: mark}}, MinGapSeconds: 0.1,
			TerminalsStart: mark.Add(-time.Minute), LastCommit: mark.Add(ms(last)), Ended: mark.Add(ms(ended))}
		for _, g := range gaps {
			r.Gaps = append(r.Gaps, snapshot.CommitGap{From: mark.Add(ms(g[0])), To: mark.Add(ms(g[1]))})
		}
		return r
	}
	for _, tc := range []struct {
		name    string
		records []*snapshot.CommitRecord
		want    time.Duration
		from    time.Duration // relative to the first record's mark
		atEnd   bool
		err     string
	}{
		{name: "one process, promotion after 12.3 s", records: []*snapshot.CommitRecord{record(0, 59_900, 60_000, [2]int{-200, 12_100})},
			want: ms(12_300), from: ms(-200)},
		{name: "two processes with clocks 40 s apart: the later first commit and the earlier last one bound it",
			records: []*snapshot.CommitRecord{record(0, 59_000, 60_000, [2]int{-300, 11_000}), record(40*time.Second, 59_500, 60_000, [2]int{-150, 12_000})},
			want:    ms(11_000 - (-150)), from: ms(-150)},
		{name: "where one process committed, the database was up: shorter stretches elsewhere do not join",
			records: []*snapshot.CommitRecord{record(0, 59_000, 60_000, [2]int{-100, 20_000}), record(-2*time.Second, 59_000, 60_000, [2]int{-50, 4_000}, [2]int{5_000, 25_000})},
			want:    ms(15_000), from: ms(5_000)},
		{name: "nothing committed again before the end: a lower bound", records: []*snapshot.CommitRecord{record(0, -400, 30_000), record(time.Second, -250, 30_100)},
			want: ms(30_250), from: ms(-250), atEnd: true},
		{name: "stretches over before the mark do not count", records: []*snapshot.CommitRecord{record(0, 59_990, 60_000, [2]int{-9_000, -1_000}, [2]int{500, 800})},
			want: ms(300), from: ms(500)},
		{name: "commits went on: no outage", records: []*snapshot.CommitRecord{record(0, 59_990, 60_000)}, want: 0},
		{name: "a process without a record", records: []*snapshot.CommitRecord{record(0, 1, 60_000), nil}, err: "pod p1 reported no commit record"},
		{name: "a process without the mark", records: []*snapshot.CommitRecord{{Marks: []snapshot.Mark{{Label: "other", Time: t0}}, Ended: t0}}, err: `pod p0 has no mark "fault-0"`},
		{name: "a process still running", records: []*snapshot.CommitRecord{{Marks: []snapshot.Mark{{Label: "fault-0", Time: t0}}}}, err: "pod p0 is still running"},
		{name: "no process", err: "no client process"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MeasureOutage(tc.records, []string{"p0", "p1"}, "fault-0")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Unavailability != tc.want || got.AtEnd != tc.atEnd || got.Resolution != 100*time.Millisecond {
				t.Fatalf("got %v (at end %v, resolution %v), want %v (at end %v)", got.Unavailability, got.AtEnd, got.Resolution, tc.want, tc.atEnd)
			}
			if tc.want > 0 && (!got.From.Equal(t0.Add(tc.from)) || !got.To.Equal(got.From.Add(tc.want))) {
				t.Fatalf("from %v to %v, want from %v", got.From, got.To, t0.Add(tc.from))
			}
		})
	}
}

// A state's outage is measured within its window: a stretch that began in it and goes on past it
// counts up to the window's end; one that begins after it is the next state's.
func TestMeasureOutageWithin(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	rec := func() *snapshot.CommitRecord {
		return &snapshot.CommitRecord{Marks: []snapshot.Mark{{Label: "fault-0", Time: sec(10)}}, MinGapSeconds: 1,
			Gaps:       []snapshot.CommitGap{{From: sec(12), To: sec(15)}, {From: sec(58), To: sec(90)}, {From: sec(100), To: sec(140)}},
			LastCommit: sec(199), TerminalsStart: t0, Ended: sec(200)}
	}
	records := []*snapshot.CommitRecord{rec(), rec()}
	for _, tc := range []struct {
		within time.Duration
		want   time.Duration
	}{
		{0, 40 * time.Second},                 // the whole step: the stretch from 100 s to 140 s
		{50 * time.Second, 3 * time.Second},   // to 60 s: 12–15 s; the stretch from 58 s counts its 2 s up to 60 s
		{100 * time.Second, 32 * time.Second}, // to 110 s: 58–90 s; the one from 100 s counts 10 s
	} {
		got, err := MeasureOutageWithin(records, []string{"a", "b"}, "fault-0", tc.within)
		if err != nil {
			t.Fatal(err)
		}
		if got.Unavailability != tc.want {
			t.Errorf("within %s: %s, want %s", tc.within, got.Unavailability, tc.want)
		}
	}
}
