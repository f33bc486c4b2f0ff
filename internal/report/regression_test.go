package report

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestEstimateOf(t *testing.T) {
	// One run: its own noise.
	one := EstimateOf([]Sample{TpmCSample(1000, 10000)}, "counting noise")
	if one.Value != 1000 || math.Abs(one.Half95-19.6) > 1e-9 || one.Runs != 1 || one.Basis != "counting noise" {
		t.Errorf("one run: %+v, want 1000 ± 19.6 (1.96·1000/√10000)", one)
	}
	// Two runs: the mean, with the noise of a mean of two.
	two := EstimateOf([]Sample{{Value: 1000, Half95: 20}, {Value: 1010, Half95: 20}}, "counting noise")
	if two.Value != 1005 || math.Abs(two.Half95-20/math.Sqrt2) > 1e-9 {
		t.Errorf("two runs: %+v", two)
	}
	// Three runs spread more than their own noise: Student's t, t(0.975, 2) = 4.303.
	three := EstimateOf([]Sample{{Value: 900, Half95: 5}, {Value: 1000, Half95: 5}, {Value: 1100, Half95: 5}}, "counting noise")
	if want := 4.303 * 100 / math.Sqrt(3); three.Value != 1000 || math.Abs(three.Half95-want) > 1e-9 || !strings.HasPrefix(three.Basis, "Student's t over 3") {
		t.Errorf("three runs: %+v, want 1000 ± %.2f by Student's t", three, want)
	}
	// Three identical runs: never more precise than the runs themselves.
	same := EstimateOf([]Sample{{Value: 8, Half95: 1}, {Value: 8, Half95: 1}, {Value: 8, Half95: 1}}, "search precision")
	if same.Half95 != math.Sqrt(3)/3 || same.Basis != "search precision" {
		t.Errorf("identical runs: %+v", same)
	}
}

func TestCompareFigure(t *testing.T) {
	e := func(v, h float64) Estimate { return Estimate{Value: v, Half95: h, Runs: 1} }
	for _, c := range []struct {
		name              string
		higher            bool
		base, value       Estimate
		tolerance         float64
		verdict           string
		change, noise     float64
		sentenceFragments []string
	}{
		{"20 % lower tpmC, little noise", true, e(1000, 10), e(800, 10), 5, VerdictRegressed, -20, math.Hypot(10, 10) / 10,
			[]string{"tpmC is 20.0 % worse than the baseline (1000.0 ± 10.0 → 800.0 ± 10.0; noise ±1.4 %, tolerance 5 %)"}},
		{"4 % lower: within a 5 % tolerance", true, e(1000, 10), e(960, 10), 5, VerdictWithin, -4, math.Hypot(10, 10) / 10, nil},
		{"8 % lower but noisy: within", true, e(1000, 40), e(920, 40), 5, VerdictWithin, -8, math.Hypot(40, 40) / 10, nil},
		{"higher tpmC beyond the noise: improved", true, e(1000, 10), e(1100, 10), 5, VerdictImproved, 10, math.Hypot(10, 10) / 10,
			[]string{"is 10.0 % better than the baseline"}},
		{"higher latency is worse", false, e(40, 1), e(60, 1), 5, VerdictRegressed, 50, math.Hypot(1, 1) / 40 * 100, nil},
		{"lower latency is better", false, e(40, 1), e(30, 1), 5, VerdictImproved, -25, math.Hypot(1, 1) / 40 * 100, nil},
		{"no baseline value", true, e(0, 0), e(10, 1), 5, VerdictNoBaseline, 0, 0, []string{"has no baseline value"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			unit := unitTpmC
			if !c.higher {
				unit = unitLatency
			}
			d := CompareFigure("tpmC", unit, c.higher, c.base, c.value, c.tolerance)
			if d.Verdict != c.verdict || math.Abs(d.ChangePercent-c.change) > 1e-9 || math.Abs(d.NoisePercent-c.noise) > 1e-9 {
				t.Errorf("%+v, want %s, change %.2f, noise %.2f", d, c.verdict, c.change, c.noise)
			}
			for _, f := range c.sentenceFragments {
				if s := d.Sentence(c.tolerance); !strings.Contains(s, f) {
					t.Errorf("sentence %q lacks %q", s, f)
				}
			}
		})
	}
}

// The order-statistic band of a percentile covers the true percentile about 95 % of the time.
func TestPercentileSampleCoverage(t *testing.T) {
	const trials, n = 400, 2000
	// Exponential response times with mean 20 ms: the true p90 is 20·ln(10) ms.
	truth := 20 * math.Log(10)
	rng := rand.New(rand.NewPCG(3, 4))
	covered := 0
	for range trials {
		h := snapshot.NewHistogram()
		for range n {
			snapshot.RecordLatency(h, time.Duration(rng.ExpFloat64()*20*float64(time.Millisecond)))
		}
		s := PercentileSample(h, 90)
		// The histogram reads values back within 1/128: allow that much.
		if math.Abs(s.Value-truth) <= s.Half95+truth*snapshot.HistogramMaxRelativeError {
			covered++
		}
	}
	if rate := float64(covered) / trials; rate < 0.92 || rate > 0.995 {
		t.Errorf("the 95 %% band covered the true p90 in %.1f %% of %d trials", rate*100, trials)
	}
}

func TestFiguresOfARun(t *testing.T) {
	run := run20()
	run.Status.Phase = benchv1.PhaseSucceeded
	h := snapshot.NewHistogram()
	for i := 1; i <= 1000; i++ {
		snapshot.RecordLatency(h, time.Duration(i)*time.Millisecond)
	}
	f, ok := FiguresOf(run, map[benchv1.Transaction]*hdr.Histogram{benchv1.NewOrder: h})
	if !ok {
		t.Fatal("no figures")
	}
	want := []string{FigureTpmC, FigureEfficiency, FigureWarehouses, "NewOrder p90"}
	if strings.Join(f.Order, ",") != strings.Join(want, ",") {
		t.Errorf("figures %v, want %v (the SLA bounds NewOrder p90 only)", f.Order, want)
	}
	s := run.Status.Steps[*run.Status.Result.Step]
	n := measure.NewOrdersCounted(s)
	if got := f.Samples[FigureTpmC]; got.Value != run.Status.Result.TpmC || math.Abs(got.Half95-1.96*got.Value/math.Sqrt(n)) > 1e-9 {
		t.Errorf("tpmC %+v from %v New-Orders", got, n)
	}
	if p := f.Samples["NewOrder p90"]; math.Abs(p.Value-900) > 900/128.0 || p.Half95 <= 0 || p.Half95 > 30 {
		t.Errorf("NewOrder p90 %+v, want ~900ms with a band of ~19 ranks", p)
	}
	failed := run20()
	failed.Status.Phase = benchv1.PhaseFailed
	if _, ok := FiguresOf(failed, nil); ok {
		t.Error("a failed run has figures")
	}
}

func TestParseTolerance(t *testing.T) {
	for in, want := range map[string]float64{"5%": 5, "5": 5, " 0.5 % ": 0.5, "100": 100} {
		if got, err := ParseTolerance(in); err != nil || got != want {
			t.Errorf("%q: %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "five", "-1", "101%", "NaN"} {
		if _, err := ParseTolerance(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A floor is never ranked as a capacity against a baseline: only a floor above the other side's
// capacity (beyond the noise) decides, and two floors decide nothing.
func TestCompareFigureFloors(t *testing.T) {
	est := func(v float64, floor bool) Estimate { return Estimate{Value: v, Half95: 1, Runs: 1, Floor: floor} }
	atLoad := func(v, load float64) Estimate { return Estimate{Value: v, Half95: 1, Runs: 1, Floor: true, Load: load} }
	for _, tc := range []struct {
		name            string
		baseline, value Estimate
		want            string
	}{
		{"a value floor below the baseline's capacity says nothing", est(150, false), est(100, true), VerdictFloor},
		{"a value floor above the baseline's capacity is an improvement", est(150, false), est(200, true), VerdictImproved},
		{"a baseline floor above the value's capacity is a regression", est(200, true), est(150, false), VerdictRegressed},
		{"a baseline floor below the value's capacity says nothing", est(100, true), est(150, false), VerdictFloor},
		{"two floors, however far apart, say nothing", est(100, true), est(300, true), VerdictFloor},
		{"two equal floors are no tie", est(300, true), est(300, true), VerdictFloor},
		{"two floors at one load compare as that load's figures", atLoad(400, 80), atLoad(320, 80), VerdictRegressed},
		{"two floors at one load within the tolerance", atLoad(400, 80), atLoad(396, 80), VerdictWithin},
		{"two floors at different loads say nothing", atLoad(400, 80), atLoad(320, 60), VerdictFloor},
		{"two capacities compare as before", est(150, false), est(100, false), VerdictRegressed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := CompareFigure(FigureWarehouses, unitWarehouses, true, tc.baseline, tc.value, 5)
			if d.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s (%+v)", d.Verdict, tc.want, d)
			}
			if s := d.Sentence(5); tc.want == VerdictFloor && !strings.Contains(s, "a floor is not a capacity") {
				t.Errorf("sentence %q", s)
			}
		})
	}
	if got := EstimateOf([]Sample{{Value: 100, Half95: 1}, {Value: 120, Half95: 1, Floor: true}}, "search precision"); !got.Floor {
		t.Errorf("an estimate over a floor is not a floor: %+v", got)
	}
	if got := EstimateOf([]Sample{{Value: 100, Load: 80}, {Value: 120, Load: 80}}, ""); got.Load != 80 {
		t.Errorf("runs at one load: %+v", got)
	}
	if got := EstimateOf([]Sample{{Value: 100, Load: 80}, {Value: 120, Load: 60}}, ""); got.Load != 0 {
		t.Errorf("runs at two loads: %+v", got)
	}
	if got := (FigureDelta{unit: unitWarehouses}).FormatValue(Estimate{Value: 120, Half95: 1, Floor: true}); got != "≥ 120.0 ± 1.0" {
		t.Errorf("a floor formats as %q", got)
	}
	if d := CompareFigure(FigureTpmC, unitTpmC, true, atLoad(400, 80), atLoad(320, 80), 5); d.FormatValue(d.Value) != "320.0 ± 1.0" {
		t.Errorf("a floor compared at its load formats as %q", d.FormatValue(d.Value))
	}
}
