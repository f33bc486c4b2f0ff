package measure

import (
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// The start skew is the spread of the pods' measurement starts, known once every pod has begun;
// a step whose skew exceeds one series interval (a fault step's: one second) is inconclusive,
// naming both durations and the pods.
func TestStartSkewAndVerdict(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 23, 0, 0, 0, time.UTC)
	pod := func(name string, start time.Duration) *snapshot.Snapshot {
		s := &snapshot.Snapshot{Identity: snapshot.Identity{Pod: name}}
		if start >= 0 {
			s.Times.MeasurementStart = t0.Add(start)
		}
		return s
	}
	const notBegun = -1
	for _, tc := range []struct {
		name      string
		pods      []*snapshot.Snapshot
		interval  time.Duration
		faultStep bool
		want      StartSkew
		// cause holds parts of the inconclusive cause; nil: the step is not broken.
		cause []string
	}{
		{name: "no pods", interval: 10 * time.Second},
		{name: "one pod", pods: []*snapshot.Snapshot{pod("a", 0)}, interval: 10 * time.Second,
			want: StartSkew{Known: true, First: "a", Last: "a"}},
		{name: "together", pods: []*snapshot.Snapshot{pod("a", 30*time.Millisecond), pod("b", 0), pod("c", 12*time.Millisecond)},
			interval: 10 * time.Second, want: StartSkew{Known: true, Skew: 30 * time.Millisecond, First: "b", Last: "a"}},
		{name: "a pod still ramping up: unknown", pods: []*snapshot.Snapshot{pod("a", 0), pod("b", notBegun), pod("c", time.Minute)},
			interval: 10 * time.Second},
		{name: "exactly one interval apart still counts", pods: []*snapshot.Snapshot{pod("a", 0), pod("b", 10*time.Second)},
			interval: 10 * time.Second, want: StartSkew{Known: true, Skew: 10 * time.Second, First: "a", Last: "b"}},
		{name: "more than one interval apart", pods: []*snapshot.Snapshot{pod("a", 2*time.Second), pod("b", 0), pod("c", 12*time.Second+500*time.Millisecond)},
			interval: 10 * time.Second, want: StartSkew{Known: true, Skew: 12500 * time.Millisecond, First: "b", Last: "c"},
			cause: []string{"began measuring 12.5s apart", "b first, c last", "more than one series interval (10s)"}},
		{name: "a fault step's interval is one second", pods: []*snapshot.Snapshot{pod("a", 0), pod("b", 1500*time.Millisecond)},
			interval: 10 * time.Second, faultStep: true, want: StartSkew{Known: true, Skew: 1500 * time.Millisecond, First: "a", Last: "b"},
			cause: []string{"1.5s apart", "(1s)"}},
		{name: "a longer interval tolerates more", pods: []*snapshot.Snapshot{pod("a", 0), pod("b", 20*time.Second)},
			interval: 30 * time.Second, want: StartSkew{Known: true, Skew: 20 * time.Second, First: "a", Last: "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := StartSkewOf(tc.pods)
			if got != tc.want {
				t.Fatalf("StartSkewOf = %+v, want %+v", got, tc.want)
			}
			cause := SkewBreaks(got, SkewInterval(tc.interval, tc.faultStep))
			if (cause != "") != (tc.cause != nil) {
				t.Fatalf("cause %q, want one containing %q", cause, tc.cause)
			}
			for _, part := range tc.cause {
				if !strings.Contains(cause, part) {
					t.Errorf("cause %q lacks %q", cause, part)
				}
			}
		})
	}
}
