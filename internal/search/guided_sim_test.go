package search_test

import (
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/search"
	"github.com/tpcc-operator/tpcc-operator/internal/search/searchsim"
)

// comparison runs both strategies over a population of simulated databases.
type comparison struct {
	cases          int
	agree          int
	floor          int       // line search from another start agreeing with the line search
	line, guided   []float64 // minutes to the answer
	probing        []float64 // minutes of Guided narrowing with probes whatever the domain
	lineSteps      []float64
	guidedSteps    []float64
	guidedProbes   []float64
	disagreements  []string
	structuralFail []string
}

func compare(t testing.TB, cases []searchsim.Case) comparison {
	var c comparison
	for _, cs := range cases {
		line, err := searchsim.Run(cs.Params(search.LineSearch), cs.DB, searchsim.StudyTiming)
		if err != nil {
			t.Fatalf("line search: %v", err)
		}
		guided, err := searchsim.Run(searchsim.StudyTiming.Times(cs.Params(search.Guided)), cs.DB, searchsim.StudyTiming)
		if err != nil {
			t.Fatalf("guided search: %v", err)
		}
		probing, err := searchsim.Run(cs.Params(search.Guided), cs.DB, searchsim.StudyTiming)
		if err != nil {
			t.Fatalf("guided search with probes: %v", err)
		}
		other := cs.Params(search.LineSearch)
		other.Start = max(1, cs.Warehouses/3)
		again, err := searchsim.Run(other, cs.DB, searchsim.StudyTiming)
		if err != nil {
			t.Fatalf("line search: %v", err)
		}
		c.cases++
		if diff := again.Decision.MaxCompliant - line.Decision.MaxCompliant; diff >= -search.DefaultPrecision(cs.Warehouses) && diff <= search.DefaultPrecision(cs.Warehouses) {
			c.floor++
		}
		precision := search.DefaultPrecision(cs.Warehouses)
		if diff := guided.Decision.MaxCompliant - line.Decision.MaxCompliant; diff >= -precision && diff <= precision {
			c.agree++
		} else if len(c.disagreements) < 10 {
			c.disagreements = append(c.disagreements, describe(cs, line, guided))
		}
		if msg := restsOnFullSteps(cs.Warehouses, guided.Decision, guided.Steps); msg != "" {
			c.structuralFail = append(c.structuralFail, msg+": "+describe(cs, line, guided))
		}
		c.line = append(c.line, line.Minutes)
		c.guided = append(c.guided, guided.Minutes)
		c.probing = append(c.probing, probing.Minutes)
		c.lineSteps = append(c.lineSteps, float64(len(line.Steps)))
		c.guidedSteps = append(c.guidedSteps, float64(len(guided.Steps)))
		c.guidedProbes = append(c.guidedProbes, float64(guided.Probes))
	}
	return c
}

// restsOnFullSteps checks the guided answer's evidence: a compliant
// full-length step at the answer and, unless it is the loaded count, a
// non-compliant full-length step at most one precision above it.
func restsOnFullSteps(warehouses int, d search.Decision, steps []search.StepOutcome) string {
	precision := search.DefaultPrecision(warehouses)
	if d.MaxCompliant > 0 {
		i := d.CompliantStep
		if i < 0 || steps[i].Kind != search.Full || !steps[i].Compliant || steps[i].ActiveWarehouses != d.MaxCompliant {
			return "answer not confirmed by a compliant full step"
		}
	}
	if d.MaxCompliant < warehouses {
		i := d.NonCompliantStep
		if i < 0 || steps[i].Kind != search.Full || steps[i].Compliant || steps[i].ActiveWarehouses-d.MaxCompliant > precision {
			return "answer not bounded by a non-compliant full step within precision"
		}
	}
	return ""
}

func describe(cs searchsim.Case, line, guided searchsim.Outcome) string {
	var g []int
	for _, s := range guided.Steps {
		w := s.ActiveWarehouses
		if s.Kind == search.Full {
			w = -w // full steps shown negative
		}
		g = append(g, w)
	}
	return cs.DB.Name + " " + string(cs.DB.Boundary) +
		" loaded=" + itoa(cs.Warehouses) + " true=" + itoa(cs.DB.TrueBoundary(cs.Warehouses)) +
		" line=" + itoa(line.Decision.MaxCompliant) + " guided=" + itoa(guided.Decision.MaxCompliant) +
		" guided steps (full negative) " + fmtInts(g)
}

func median(v []float64) float64 { return quantile(v, 0.5) }

func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[int(q*float64(len(s)-1)+0.5)]
}

// Over thousands of simulated databases — boundaries from 1 to 20 000
// warehouses, set by latency, efficiency or errors — at several levels of
// measurement noise, the guided search:
//   - never answers without a compliant full-length step at the answer and a
//     non-compliant one within precision above it (below the loaded count);
//   - answers what the line search answers, within the precision, in at least
//     99 % of cases wherever the line search itself is reproducible (from
//     another start it agrees with itself in at least 99.5 % of cases), and
//     elsewhere at least as often as the line search agrees with itself;
//   - takes at most half the line search's median measured time, and no
//     more than the guided search narrowing with probes whatever the domain.
func TestGuidedAgreesWithLineSearch(t *testing.T) {
	for _, noise := range []float64{0, 0.5, 1, 2} {
		t.Run(fmt.Sprintf("noise×%g", noise), func(t *testing.T) {
			c := compare(t, searchsim.Population(3000, 1, noise))
			for i, msg := range c.structuralFail {
				if i < 10 {
					t.Error(msg)
				}
			}
			share, floor := float64(c.agree)/float64(c.cases), float64(c.floor)/float64(c.cases)
			t.Logf("%d databases: same answer within precision in %.2f %% (the line search from a third of the loaded count agrees with itself in %.2f %%)",
				c.cases, 100*share, 100*floor)
			t.Logf("minutes to the answer: line median %.0f p90 %.0f; guided median %.0f p90 %.0f; guided/line %.2f",
				median(c.line), quantile(c.line, 0.9), median(c.guided), quantile(c.guided, 0.9), median(c.guided)/median(c.line))
			t.Logf("steps: line median %.0f; guided median %.0f (probes %.0f)", median(c.lineSteps), median(c.guidedSteps), median(c.guidedProbes))
			t.Logf("guided narrowing with probes whatever the domain: median %.0f p90 %.0f; probing/line %.2f",
				median(c.probing), quantile(c.probing, 0.9), median(c.probing)/median(c.line))
			want := 0.99
			if floor < 0.995 {
				want = floor
			}
			if share < want {
				for _, d := range c.disagreements {
					t.Log(d)
				}
				t.Errorf("guided and line search agree in %.2f %% of cases, want >= %.2f %%", 100*share, 100*want)
			}
			if median(c.guided) > median(c.probing) {
				t.Errorf("guided median %.0f minutes, narrowing with probes whatever the domain %.0f: the shape rule chose worse", median(c.guided), median(c.probing))
			}
			if ratio := median(c.guided) / median(c.line); ratio > 0.5 {
				t.Errorf("guided/line median minutes %.2f, want <= 0.5", ratio)
			}
		})
	}
}

// BenchmarkSearchStrategies prints, over the same 3000 simulated databases
// (noise ×1), the median and 90th percentile of measured minutes (ramp-up
// included) to the answer for both strategies, their ratio, step counts and
// how often they agree within precision.
func BenchmarkSearchStrategies(b *testing.B) {
	cases := searchsim.Population(3000, 1, 1)
	var c comparison
	for b.Loop() {
		c = compare(b, cases)
	}
	b.ReportMetric(median(c.guided)/median(c.line), "guided/line")
	b.ReportMetric(median(c.probing)/median(c.line), "probing/line")
	b.ReportMetric(median(c.line), "line-median-min")
	b.ReportMetric(quantile(c.line, 0.9), "line-p90-min")
	b.ReportMetric(median(c.guided), "guided-median-min")
	b.ReportMetric(quantile(c.guided, 0.9), "guided-p90-min")
	b.ReportMetric(median(c.lineSteps), "line-steps")
	b.ReportMetric(median(c.guidedSteps), "guided-steps")
	b.ReportMetric(float64(c.agree)/float64(c.cases)*100, "%agree")
}

func itoa(v int) string { return strconv.Itoa(v) }

func fmtInts(v []int) string {
	out := ""
	for i, x := range v {
		if i > 0 {
			out += ","
		}
		out += strconv.Itoa(x)
	}
	return out
}

// TestStudySize runs both strategies at the size of a study: 18 000 warehouses loaded, 10-minute
// steps and 2-minute probes after 2-minute ramp-ups (searchsim.StudyTiming), over 1000 simulated
// databases of the population's curve shapes whose boundaries lie at 1/4 to 1/1.15 of the loaded
// count, from the operator's default start (the middle of the domain) and from a start estimate
// 0.8–1.0× the boundary. It logs the steps and hours each takes; every guided answer rests on
// full-length steps, and the guided median takes no longer than the line search's.
func TestStudySize(t *testing.T) {
	const loaded = 18000
	cases := searchsim.AtLoaded(1000, 36, 1, loaded)
	for _, withStart := range []bool{false, true} {
		var lineH, guidedH, lineSteps, guidedSteps, guidedProbes []float64
		for i, cs := range cases {
			start := 0
			if withStart {
				start = max(1, int(float64(cs.DB.TrueBoundary(loaded))*(0.8+0.2*float64(i%21)/20)))
			}
			params := func(s search.Strategy) search.Params {
				p := searchsim.StudyTiming.Times(cs.Params(s))
				p.Start = start
				return p
			}
			line, err := searchsim.Run(params(search.LineSearch), cs.DB, searchsim.StudyTiming)
			if err != nil {
				t.Fatal(err)
			}
			guided, err := searchsim.Run(params(search.Guided), cs.DB, searchsim.StudyTiming)
			if err != nil {
				t.Fatal(err)
			}
			if msg := restsOnFullSteps(loaded, guided.Decision, guided.Steps); msg != "" {
				t.Errorf("%s: %s", msg, describe(cs, line, guided))
			}
			lineH, guidedH = append(lineH, line.Minutes/60), append(guidedH, guided.Minutes/60)
			lineSteps, guidedSteps = append(lineSteps, float64(len(line.Steps))), append(guidedSteps, float64(len(guided.Steps)))
			guidedProbes = append(guidedProbes, float64(guided.Probes))
		}
		from := "the default start (the middle, 9000)"
		if withStart {
			from = "a start estimate 0.8–1.0× the boundary"
		}
		t.Logf("%d warehouses loaded, %d databases, from %s:", loaded, len(cases), from)
		t.Logf("  guided: steps median %.0f (p90 %.0f; probes median %.0f), hours median %.1f (p90 %.1f)",
			median(guidedSteps), quantile(guidedSteps, 0.9), median(guidedProbes), median(guidedH), quantile(guidedH, 0.9))
		t.Logf("  line:   steps median %.0f (p90 %.0f), hours median %.1f (p90 %.1f)",
			median(lineSteps), quantile(lineSteps, 0.9), median(lineH), quantile(lineH, 0.9))
		if median(guidedH) > median(lineH) {
			t.Errorf("guided median %.1f h, line search %.1f h", median(guidedH), median(lineH))
		}
	}
}

// TestShapeByDomain holds the guided search's choice of shape (search.Params: probes only where
// the domain has more than 2^(2·c_F/(c_F − c_P)) precisions) to the simulated population, binned
// by the domain's size in precisions, at three sets of step lengths: the operator's defaults
// (probes a fifth of a step), the recorded sweep's (20 s ramp-up, 2-minute steps, 30 s probes) and
// probes half a step long. In every bin the default's median time per database, relative to the
// line search's, is at most the line search's own and at most that of the guided search narrowing
// with probes whatever the domain.
func TestShapeByDomain(t *testing.T) {
	timings := []struct {
		name string
		t    searchsim.Timing
	}{
		{"operator's defaults (2 min ramp-up, 10 min steps, 2 min probes)", searchsim.StudyTiming},
		{"the sweep's (20 s ramp-up, 2 min steps, 30 s probes)", searchsim.Timing{RampUp: 20 * time.Second, Duration: 2 * time.Minute, Probe: 30 * time.Second}},
		{"probes half a step (2 min ramp-up, 10 min steps, 5 min probes)", searchsim.Timing{RampUp: 2 * time.Minute, Duration: 10 * time.Minute, Probe: 5 * time.Minute}},
	}
	cases := searchsim.Population(4000, 7, 1)
	for _, tm := range timings {
		guided, probing := map[int][]float64{}, map[int][]float64{}
		for _, cs := range cases {
			bin := bits.Len(uint(cs.Warehouses / search.DefaultPrecision(cs.Warehouses))) // [2^(bin−1), 2^bin) precisions
			run := func(p search.Params) float64 {
				o, err := searchsim.Run(p, cs.DB, tm.t)
				if err != nil {
					t.Fatal(err)
				}
				if msg := restsOnFullSteps(cs.Warehouses, o.Decision, o.Steps); msg != "" {
					t.Fatalf("%s: %s: %s", cs.DB.Name, msg, fmtSteps(o.Steps))
				}
				return o.Minutes
			}
			line := run(cs.Params(search.LineSearch))
			guided[bin] = append(guided[bin], run(tm.t.Times(cs.Params(search.Guided)))/line)
			probing[bin] = append(probing[bin], run(cs.Params(search.Guided))/line)
		}
		t.Logf("step lengths: %s; guided/line and probing/line, median per database:", tm.name)
		for bin := 1; bin <= slices.Max(slices.Collect(maps.Keys(guided))); bin++ {
			g, p := guided[bin], probing[bin]
			if len(g) == 0 {
				continue
			}
			t.Logf("  %4d–%4d precisions: %4d databases, guided/line %.2f, probing/line %.2f", 1<<(bin-1), 1<<bin-1, len(g), median(g), median(p))
			if median(g) > 1 || median(g) > median(p) {
				t.Errorf("%s, %d–%d precisions: guided/line %.2f, probing/line %.2f", tm.name, 1<<(bin-1), 1<<bin-1, median(g), median(p))
			}
		}
	}
}
