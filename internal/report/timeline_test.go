package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// pts writes points as "x,y" with "|" before a break.
func pts(points []point) string {
	var out []string
	for _, p := range points {
		s := fmt.Sprintf("%g,%g", p.X, p.Y)
		if p.Break {
			s = "|" + s
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestJoinSteps(t *testing.T) {
	a := line{Name: "db-1", Color: "red", Points: []point{{X: 1, Y: 1}, {X: 2, Y: 2}}}
	b := line{Name: "db-2", Color: "blue", Points: []point{{X: 1.5, Y: 5}}}
	for _, tc := range []struct {
		name  string
		parts [][]line
		want  string // name colour points; per line
	}{
		{"nothing", nil, ""},
		{"one step: no break", [][]line{{a, b}}, "db-1 red 1,1 2,2; db-2 blue 1.5,5"},
		{"two steps: a break where the second starts",
			[][]line{{a}, {{Name: "db-1", Color: "green", Points: []point{{X: 10, Y: 3}, {X: 11, Y: 4}}}}},
			"db-1 red 1,1 2,2 |10,3 11,4"},
		{"a name first seen in a later step starts without a break, after the others",
			[][]line{{a}, {b, {Name: "db-1", Points: []point{{X: 10, Y: 0}}}}},
			"db-1 red 1,1 2,2 |10,0; db-2 blue 1.5,5"},
		{"a step without points for a name leaves no trace", [][]line{{a}, {{Name: "db-1"}}, {a}}, "db-1 red 1,1 2,2 |1,1 2,2"},
	} {
		var got []string
		for _, l := range joinSteps(tc.parts) {
			got = append(got, strings.TrimSpace(fmt.Sprintf("%s %s %s", l.Name, l.Color, pts(l.Points))))
		}
		if g := strings.Join(got, "; "); g != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, g, tc.want)
		}
	}
}

func TestStretches(t *testing.T) {
	for _, tc := range []struct {
		points []point
		want   string
	}{
		{nil, "[]"},
		{[]point{{X: 1}, {X: 2}}, "[2]"},
		{[]point{{X: 1}, {X: 2}, {X: 5, Break: true}, {X: 6}, {X: 9, Break: true}}, "[2 2 1]"},
		{[]point{{X: 1, Break: true}, {X: 2}}, "[2]"}, // a break on the first point cuts nothing
	} {
		var lens []int
		for _, s := range stretches(tc.points) {
			lens = append(lens, len(s))
		}
		if got := fmt.Sprint(lens); got != tc.want {
			t.Errorf("stretches(%s) = %s, want %s", pts(tc.points), got, tc.want)
		}
	}
}

// timelineFixture is two steps of 3 intervals of 60 s each, the second starting 5 minutes after
// the first; a New-Order column per step.
func timelineFixture(completed ...[]int64) ([]benchv1.StepResult, *measure.SeriesReport) {
	var steps []benchv1.StepResult
	sr := &measure.SeriesReport{}
	for i, c := range completed {
		start := t0.Add(time.Duration(i) * 5 * time.Minute)
		end := start.Add(time.Duration(len(c)) * time.Minute)
		steps = append(steps, benchv1.StepResult{Index: int32(i), ActiveWarehouses: int32(10 * (i + 1)), Kind: benchv1.StepFull,
			StartTime: &metav1.Time{Time: start}, EndTime: &metav1.Time{Time: end}})
		st := measure.IndexedSeries{Index: int32(i), StepSeries: measure.StepSeries{Origin: start, LengthSeconds: 60,
			Series: snapshot.CompactSeries{LengthSeconds: 60, Types: map[snapshot.Transaction]*snapshot.CompactColumns{snapshot.NewOrder: {Completed: c, P90: c}}}}}
		for j := range c {
			st.Series.Index = append(st.Series.Index, j)
		}
		sr.Steps = append(sr.Steps, st)
	}
	return steps, sr
}

// TestRunTimeline places two steps on one clock: the second 5 minutes on, each measured
// interval a band, the x range over both, and New-Order's rate with a gap between the steps.
func TestRunTimeline(t *testing.T) {
	steps, sr := timelineFixture([]int64{0, 100, 120}, []int64{90, 90, 60})
	tl := newRunTimeline("r", steps, sr)
	if !tl.zero.Equal(t0) || len(tl.steps) != 2 || tl.lo != 0 || tl.hi != 8 {
		t.Fatalf("zero %v, %d steps, x [%g, %g]; want %v, 2, [0, 8]", tl.zero, len(tl.steps), tl.lo, tl.hi, t0)
	}
	var bands []string
	for _, b := range tl.bands {
		bands = append(bands, fmt.Sprintf("%g-%g %s", b.From, b.To, b.Label))
	}
	if got := strings.Join(bands, "; "); got != "0-3 0 · 10 wh; 5-8 1 · 20 wh" {
		t.Errorf("bands %q", got)
	}
	var parts [][]line
	for _, ts := range tl.steps {
		parts = append(parts, []line{{Name: "rate", Points: newOrderRatePoints(ts.series, ts.ax)}})
	}
	// The first step's ramp-up (no New-Order yet) has no point; the second step's first point
	// breaks the line.
	if got := pts(joinSteps(parts)[0].Points); got != "2,100 3,120 |6,90 7,90 8,60" {
		t.Errorf("New-Order per minute %q", got)
	}
	if tl.steps[0].ax.points != maxTimelinePoints/2 {
		t.Errorf("a step of half the entries gets %d points, want %d", tl.steps[0].ax.points, maxTimelinePoints/2)
	}
	if _, sr := timelineFixture(); len(newRunTimeline("r", nil, sr).steps) != 0 {
		t.Error("a timeline without steps")
	}
}

// TestNewOrderRatePointsDownsampled averages a bucket: count over the bucket's minutes.
func TestNewOrderRatePointsDownsampled(t *testing.T) {
	steps, sr := timelineFixture([]int64{60, 120, 30, 90, 0})
	ax := newStepAxis("r", steps[0], &sr.Steps[0])
	ax.points = 2
	if got := pts(newOrderRatePoints(&sr.Steps[0], ax)); got != "3,70 5,45" {
		t.Errorf("%q, want the means of (60,120,30) and (90,0)", got)
	}
}

func TestNewOrderBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		sla  benchv1.SLASpec
		want string
	}{
		{"the default SLA: TPC-C's 5 s", benchv1.SLASpec{}, "5s true"},
		{"the spec's", benchv1.SLASpec{Latency: []benchv1.LatencyBound{{Transaction: benchv1.Payment, Percentile: "90", Max: dur(time.Second)},
			{Transaction: benchv1.NewOrder, Percentile: "90.0", Max: dur(190 * time.Millisecond)}}}, "190ms true"},
		{"New-Order bounded on p99 only", benchv1.SLASpec{Latency: []benchv1.LatencyBound{{Transaction: benchv1.NewOrder, Percentile: "99", Max: dur(time.Second)}}}, "0s false"},
	} {
		d, ok := newOrderBound(tc.sla)
		if got := fmt.Sprint(d, " ", ok); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestRunTimelineSection: the panels and the SLA bound drawn as a dashed line; nothing without
// a series.
func TestRunTimelineSection(t *testing.T) {
	run := run20()
	got := runTimelineSection(RunInput{Run: run, Series: series20(run)})
	if err := contains(got, "<h2>Timeline</h2>", `aria-label="Run timeline: New-Order throughput"`, `aria-label="Run timeline: New-Order p90 against its bound (190.0ms)"`,
		"<title>bound 190.0ms</title>", `aria-label="Run timeline: standby replay lag"`, `aria-label="Run timeline: CPU of the database pods"`); err != nil {
		t.Error(err)
	}
	if strings.Count(got, "<svg") != 4 {
		t.Errorf("%d panels, want 4", strings.Count(got, "<svg"))
	}
	if runTimelineSection(RunInput{Run: run}) != "" {
		t.Error("a timeline without series")
	}
}
