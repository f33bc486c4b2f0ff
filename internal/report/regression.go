package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// A result is compared with a baseline figure by figure, each with its noise (docs/results.md):
//
//   - one run's tpmC and efficiency carry their counting noise: n New-Orders counted vary by √n,
//     so the 95 % half-width is 1.96·100/√n % of the figure (countingNoisePercent);
//   - one run's largest compliant warehouse count is known to the search's precision
//     (max(1, W/200) warehouses);
//   - one run's latency percentile carries the order-statistic band of its histogram: the values
//     at ranks n·p ± 1.96·√(n·p·(1-p));
//   - several runs (repeats, or baselines selected by label) give the mean, with the larger of
//     the Student's t 95 % interval of the runs (3 or more) and the runs' own noise of the mean.
//
// A figure is worse than its baseline by w percent (of the baseline; lower tpmC, higher latency).
// It has regressed when w exceeds the tolerance by more than the noise of the difference,
// √(h_baseline² + h_value²) in percent of the baseline: a drop the noise could explain is never a
// regression, and neither is one within the tolerance. It improved when it is better by more
// than the noise.

// Sample is one run's value of a figure and the 95 % half-width of that value from that run alone.
// Floor says the value is only a lower bound of the figure: the run's result was a floor
// (status.result.bound AllLoadedCompliant or StepsExhausted), so its warehouse count and the
// tpmC measured there are at least the capacity's, not the capacity's. Load is the active
// warehouses the figure was measured at (0: not a load-bound figure): two floors measured at one
// load compare as what they are, figures at that load.
type Sample struct {
	Value, Half95 float64
	Floor         bool
	Load          float64
}

// Estimate is a figure over one or more runs.
type Estimate struct {
	Value  float64 `json:"value"`
	Half95 float64 `json:"half95"`
	Runs   int     `json:"runs"`
	// Basis says where Half95 comes from.
	Basis string `json:"basis"`
	// Floor: some run's value was only a lower bound (Sample.Floor), so the estimate is one too.
	Floor bool `json:"floor,omitempty"`
	// Load is the active warehouses every run's figure was measured at, 0 when they differ or
	// none is known (Sample.Load).
	Load float64 `json:"load,omitempty"`
}

// EstimateOf is the figure over samples from separate runs: their mean, and the larger of the
// Student's t 95 % half-width (3 runs or more) and the runs' own noise of the mean
// (√Σh²/n). basis names the runs' own noise ("counting noise", "search precision", …).
func EstimateOf(samples []Sample, basis string) Estimate {
	n := len(samples)
	if n == 0 {
		return Estimate{Value: math.NaN()}
	}
	var sum, own float64
	floor, load := false, samples[0].Load
	for _, s := range samples {
		sum += s.Value
		own += s.Half95 * s.Half95
		floor = floor || s.Floor
		if s.Load != load {
			load = 0
		}
	}
	mean := sum / float64(n)
	e := Estimate{Value: mean, Half95: math.Sqrt(own) / float64(n), Runs: n, Basis: basis, Floor: floor, Load: load}
	if n >= MinRunsForInterval {
		var squares float64
		for _, s := range samples {
			squares += (s.Value - mean) * (s.Value - mean)
		}
		t := T975(n-1) * math.Sqrt(squares/float64(n-1)) / math.Sqrt(float64(n))
		if t >= e.Half95 {
			e.Half95, e.Basis = t, fmt.Sprintf("Student's t over %d runs", n)
		}
	}
	return e
}

// Figure verdicts.
const (
	VerdictRegressed = "Regressed"
	VerdictWithin    = "Within"
	VerdictImproved  = "Improved"
	// VerdictNoBaseline: the baseline's value is zero or missing, so no percentage exists.
	VerdictNoBaseline = "NoBaseline"
	// VerdictFloor: a side's value is only a lower bound (Estimate.Floor) and the bounds do not
	// decide: a floor is never ranked as a capacity. A floor above the other side's capacity
	// beyond the noise is still an improvement (or, on the baseline's side, a regression).
	VerdictFloor = "Floor"
)

// FigureDelta is one figure against its baseline.
type FigureDelta struct {
	Figure         string   `json:"figure"`
	HigherIsBetter bool     `json:"higherIsBetter"`
	Baseline       Estimate `json:"baseline"`
	Value          Estimate `json:"value"`
	// ChangePercent is (value-baseline)/baseline·100; NoisePercent the 95 % half-width of that
	// difference from both sides' noise; WorsePercent the change in the bad direction.
	ChangePercent float64 `json:"changePercent"`
	NoisePercent  float64 `json:"noisePercent"`
	WorsePercent  float64 `json:"worsePercent"`
	Verdict       string  `json:"verdict"`
	// unit formats the values ("tpmC", "%", "warehouses", "latency").
	unit string
	// oneLoad: both sides are floors measured at one load, compared as that load's figures and
	// printed without "≥".
	oneLoad bool
}

// CompareFigure judges one figure against its baseline at tolerance percent.
func CompareFigure(figure, unit string, higherIsBetter bool, baseline, value Estimate, tolerance float64) FigureDelta {
	d := FigureDelta{Figure: figure, HigherIsBetter: higherIsBetter, Baseline: baseline, Value: value, unit: unit}
	if baseline.Value == 0 || math.IsNaN(baseline.Value) || math.IsNaN(value.Value) {
		d.Verdict = VerdictNoBaseline
		return d
	}
	base := math.Abs(baseline.Value)
	d.ChangePercent = (value.Value - baseline.Value) / base * 100
	d.NoisePercent = math.Hypot(baseline.Half95, value.Half95) / base * 100
	d.WorsePercent = -d.ChangePercent
	if !higherIsBetter {
		d.WorsePercent = d.ChangePercent
	}
	regressed, improved := d.WorsePercent > tolerance+d.NoisePercent, -d.WorsePercent > d.NoisePercent
	d.oneLoad = value.Floor && baseline.Floor && value.Load > 0 && value.Load == baseline.Load
	switch {
	case higherIsBetter && (value.Floor || baseline.Floor) && !d.oneLoad:
		// A floor says "at least": only a value floor above the baseline, or a baseline floor
		// above the value, decides anything, and two floors decide nothing — unless both were
		// measured at one load (the same fixed warehouse count), where the figures are what that
		// load gave and compare as such.
		switch {
		case value.Floor && !baseline.Floor && improved:
			d.Verdict = VerdictImproved
		case baseline.Floor && !value.Floor && regressed:
			d.Verdict = VerdictRegressed
		default:
			d.Verdict = VerdictFloor
		}
	case regressed:
		d.Verdict = VerdictRegressed
	case improved:
		d.Verdict = VerdictImproved
	default:
		d.Verdict = VerdictWithin
	}
	return d
}

// Figure names and units of a run's result.
const (
	FigureTpmC       = "tpmC"
	FigureEfficiency = "efficiency"
	FigureWarehouses = "maxCompliantWarehouses"

	unitTpmC       = "tpmC"
	unitPercent    = "%"
	unitWarehouses = "warehouses"
	unitLatency    = "latency"
)

// RunFigures are one run's figures at its result: tpmC, efficiency, the largest compliant
// warehouse count and, from the result step's histograms, each percentile its SLA bounds. A run
// without a result has none.
type RunFigures struct {
	// Run names it (namespace/name).
	Run     string
	Ended   time.Time
	Samples map[string]Sample
	// Order lists the figures in the order they are shown.
	Order []string
	units map[string]string
	lower map[string]bool
}

// TpmCSample is a single run's tpmC with its counting noise from n New-Orders counted.
func TpmCSample(tpmC, newOrders float64) Sample {
	if newOrders <= 0 {
		return Sample{Value: tpmC, Half95: math.Inf(1)}
	}
	return Sample{Value: tpmC, Half95: 1.96 * tpmC * countingNoisePercent(newOrders) / 100}
}

// FiguresOf is a run's figures at its result step; histograms are that step's merged
// histograms by transaction (nil: no latency figures). ok is false without a result.
func FiguresOf(run *benchv1.BenchmarkRun, histograms map[benchv1.Transaction]*hdr.Histogram) (RunFigures, bool) {
	f := RunFigures{Run: run.Namespace + "/" + run.Name, Samples: map[string]Sample{}, units: map[string]string{}, lower: map[string]bool{}}
	r := run.Status.Result
	if run.Status.Phase != benchv1.PhaseSucceeded || r == nil || r.Step == nil || int(*r.Step) >= len(run.Status.Steps) {
		return f, false
	}
	step := run.Status.Steps[*r.Step]
	n := measure.NewOrdersCounted(step)
	floor := r.EffectiveBound(run.Spec.Workload.Warehouses).Floor()
	load := float64(r.MaxCompliantWarehouses)
	tpmc := TpmCSample(r.TpmC, n)
	tpmc.Floor, tpmc.Load = floor, load
	f.add(FigureTpmC, unitTpmC, false, tpmc)
	f.add(FigureEfficiency, unitPercent, false, Sample{Value: r.Efficiency, Half95: r.Efficiency * tpmc.Half95 / math.Max(r.TpmC, 1e-9)})
	f.add(FigureWarehouses, unitWarehouses, false, Sample{Value: load, Half95: float64(max(1, r.Precision)), Floor: floor, Load: load})
	for _, b := range latencyBounds(run.Spec.SLA) {
		h := histograms[b.Transaction]
		p, err := strconv.ParseFloat(b.Percentile, 64)
		if h == nil || err != nil || h.TotalCount() == 0 {
			continue
		}
		f.add(fmt.Sprintf("%s p%s", b.Transaction, b.Percentile), unitLatency, true, PercentileSample(h, p))
	}
	return f, true
}

// latencyBounds are the SLA's latency bounds, the five TPC-C p90 bounds when it names none.
func latencyBounds(s benchv1.SLASpec) []benchv1.LatencyBound {
	if len(s.Latency) > 0 {
		return s.Latency
	}
	var out []benchv1.LatencyBound
	for _, t := range benchv1.Transactions {
		out = append(out, benchv1.LatencyBound{Transaction: t, Percentile: "90"})
	}
	return out
}

func (f *RunFigures) add(name, unit string, lowerIsBetter bool, s Sample) {
	f.Samples[name], f.units[name], f.lower[name] = s, unit, lowerIsBetter
	f.Order = append(f.Order, name)
}

// PercentileSample is the percentile p (0..100) of a histogram of microseconds by the nearest-rank
// method (snapshot.NearestRank), in milliseconds, with the half-width of its 95 % order-statistic
// band: the values at the nearest ranks of n·q ± 1.96·√(n·q·(1-q)), q = p/100.
func PercentileSample(h *hdr.Histogram, p float64) Sample {
	n := float64(h.TotalCount())
	q := p / 100
	spread := 1.96 * math.Sqrt(q*(1-q)/n)
	at := func(q float64) float64 {
		return float64(snapshot.ValueAtNearestRank(h, math.Min(100, math.Max(0, q*100)))) / 1000
	}
	v := at(q)
	return Sample{Value: v, Half95: math.Max(at(q+spread)-v, v-at(q-spread))}
}

// Regression is a result compared with its baseline, figure by figure.
type Regression struct {
	Value     string  `json:"value"`
	Baseline  string  `json:"baseline"`
	Tolerance float64 `json:"tolerancePercent"`
	// BaselineRuns counts the baseline's runs (several: repeats or a label's results).
	BaselineRuns int           `json:"baselineRuns"`
	Figures      []FigureDelta `json:"figures"`
}

// Regressed are the figures worse than the tolerance beyond their noise.
func (r Regression) Regressed() []FigureDelta {
	var out []FigureDelta
	for _, f := range r.Figures {
		if f.Verdict == VerdictRegressed {
			out = append(out, f)
		}
	}
	return out
}

// CompareRunFigures compares value's runs (one, or repeats) with the baseline's runs, figure by
// figure, at tolerance percent. Figures are the value's, in its order; a figure the baseline
// lacks is left out.
func CompareRunFigures(value, baseline []RunFigures, tolerance float64) Regression {
	r := Regression{Tolerance: tolerance, BaselineRuns: len(baseline), Value: names(value), Baseline: names(baseline)}
	if len(value) == 0 {
		return r
	}
	for _, name := range value[0].Order {
		vs, bs := samplesOf(value, name), samplesOf(baseline, name)
		if len(bs) == 0 || len(vs) == 0 {
			continue
		}
		unit, lower := value[0].units[name], value[0].lower[name]
		basis := basisOf(unit)
		r.Figures = append(r.Figures, CompareFigure(name, unit, !lower, EstimateOf(bs, basis), EstimateOf(vs, basis), tolerance))
	}
	return r
}

func samplesOf(runs []RunFigures, name string) []Sample {
	var out []Sample
	for _, f := range runs {
		if s, ok := f.Samples[name]; ok && !math.IsInf(s.Half95, 0) {
			out = append(out, s)
		}
	}
	return out
}

func names(runs []RunFigures) string {
	var out []string
	for _, f := range runs {
		out = append(out, f.Run)
	}
	return strings.Join(out, ", ")
}

func basisOf(unit string) string {
	switch unit {
	case unitWarehouses:
		return "search precision"
	case unitLatency:
		return "order statistics"
	}
	return "counting noise"
}

// SuiteFigures are a suite's per-database figures from its runs with a result: "<database> tpmC"
// (counting noise of each run) and "<database> maxCompliantWarehouses" (search precision).
// newOrders gives each run's New-Orders counted at its result step (by run name; absent: the
// counting noise is unknown and the figure rests on the repeats alone).
func SuiteFigures(runs []benchv1.SuiteRunRecord, newOrders map[string]float64, precision int32) map[string][]Sample {
	out := map[string][]Sample{}
	for _, r := range runs {
		if r.Phase != benchv1.PhaseSucceeded || r.Result == nil {
			continue
		}
		n, ok := newOrders[r.Name]
		tpmc := TpmCSample(r.Result.TpmC, n)
		if !ok {
			tpmc.Half95 = 0
		}
		load := float64(r.Result.MaxCompliantWarehouses)
		tpmc.Floor, tpmc.Load = r.Result.Bound.Floor(), load
		out[r.Database+" "+FigureTpmC] = append(out[r.Database+" "+FigureTpmC], tpmc)
		out[r.Database+" "+FigureWarehouses] = append(out[r.Database+" "+FigureWarehouses],
			Sample{Value: load, Half95: float64(max(1, precision)), Floor: tpmc.Floor, Load: load})
	}
	return out
}

// CompareSuiteFigures compares a suite's per-database figures with the baseline's, in the order
// of databases; a database the baseline lacks is left out.
func CompareSuiteFigures(databases []string, value, baseline map[string][]Sample, tolerance float64) []FigureDelta {
	var out []FigureDelta
	for _, db := range databases {
		for _, f := range []struct{ name, unit string }{{FigureTpmC, unitTpmC}, {FigureWarehouses, unitWarehouses}} {
			name := db + " " + f.name
			if len(value[name]) == 0 || len(baseline[name]) == 0 {
				continue
			}
			out = append(out, CompareFigure(name, f.unit, true, EstimateOf(baseline[name], basisOf(f.unit)), EstimateOf(value[name], basisOf(f.unit)), tolerance))
		}
	}
	return out
}

// FormatValue writes an estimate in its figure's unit, with its 95 % half-width.
func (d FigureDelta) FormatValue(e Estimate) string {
	v, h := e.Value, e.Half95
	floor := ""
	if e.Floor && !d.oneLoad {
		floor = "≥ "
	}
	switch d.unit {
	case unitLatency:
		return fmt.Sprintf("%s ± %s", Latency(msDuration(v)), Latency(msDuration(h)))
	case unitPercent:
		return fmt.Sprintf("%.2f %% ± %.2f", v, h)
	case unitWarehouses:
		return fmt.Sprintf("%s%.1f ± %.1f", floor, v, h)
	}
	return fmt.Sprintf("%s%.1f ± %.1f", floor, v, h)
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// Sentence says how a figure compares, naming it: "tpmC is 20.0 % worse than the baseline
// (1000.0 ± 19.6 → 800.0 ± 17.5; noise ±2.6 %, tolerance 5 %)".
func (d FigureDelta) Sentence(tolerance float64) string {
	if d.Verdict == VerdictNoBaseline {
		return fmt.Sprintf("%s has no baseline value to compare with", d.Figure)
	}
	if d.Verdict == VerdictFloor {
		return fmt.Sprintf("%s cannot be ranked against the baseline (%s → %s): a floor is not a capacity; load more warehouses or raise search.maxSteps on the side marked ≥",
			d.Figure, d.FormatValue(d.Baseline), d.FormatValue(d.Value))
	}
	word := "worse"
	change := d.WorsePercent
	if change < 0 {
		word, change = "better", -change
	}
	return fmt.Sprintf("%s is %.1f %% %s than the baseline (%s → %s; noise ±%.1f %%, tolerance %s %%)",
		d.Figure, change, word, d.FormatValue(d.Baseline), d.FormatValue(d.Value), d.NoisePercent, strconv.FormatFloat(tolerance, 'f', -1, 64))
}

// ParseTolerance reads a tolerance: "5%", "5", "0.5 %" (percent, 0..100).
func ParseTolerance(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || v < 0 || v > 100 || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a percentage between 0 and 100 (e.g. 5%%)", s)
	}
	return v, nil
}

// RegressionMarkdown renders a comparison with a baseline: the rule, then a row per figure.
func RegressionMarkdown(r Regression) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s against the baseline %s\n\n", r.Value, r.Baseline)
	runs := "1 run"
	if r.BaselineRuns != 1 {
		runs = fmt.Sprintf("%d runs (their mean)", r.BaselineRuns)
	}
	fmt.Fprintf(&b, "Baseline: %s. Tolerance %s %%: a figure has regressed when it is worse than the baseline by more than the tolerance plus the noise of the difference (95 %%: counting noise, search precision, a percentile's order-statistic band, or the repeats' Student's t interval).\n\n",
		runs, strconv.FormatFloat(r.Tolerance, 'f', -1, 64))
	b.WriteString("| figure | baseline | value | change | noise (95 %) | verdict |\n|---|---|---|---|---|---|\n")
	for _, f := range r.Figures {
		verdict := strings.ToLower(f.Verdict)
		if f.Verdict == VerdictRegressed {
			verdict = "**regressed**"
		}
		if f.Verdict == VerdictNoBaseline {
			fmt.Fprintf(&b, "| %s | - | %s | - | - | no baseline value |\n", f.Figure, f.FormatValue(f.Value))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %+.1f %% | ±%.1f %% | %s |\n", f.Figure, f.FormatValue(f.Baseline), f.FormatValue(f.Value), f.ChangePercent, f.NoisePercent, verdict)
	}
	if reg := r.Regressed(); len(reg) > 0 {
		b.WriteString("\nRegressed:\n\n")
		for _, f := range reg {
			fmt.Fprintf(&b, "- %s\n", f.Sentence(r.Tolerance))
		}
	} else {
		b.WriteString("\nNo figure is worse than the tolerance beyond its noise.\n")
	}
	return b.String()
}
