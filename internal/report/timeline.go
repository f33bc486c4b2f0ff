package report

import (
	"fmt"
	"strconv"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// The run's timeline leads its report: every step on one time axis, the run's wall clock in
// minutes from the first step's start, in four panels stacked on that axis — New-Order
// throughput, New-Order p90 against its bound, the standbys' replay lag (when recorded) and the
// database pods' CPU. Each step's measured interval is shaded and labelled; between two steps
// (loading, switching resources) the lines stop and nothing is drawn.

const (
	// maxTimelinePoints caps each timeline line over all steps, as maxSeriesPoints a step's; each
	// step gets its share in proportion to its entries.
	maxTimelinePoints = maxSeriesPoints
	// timelineWidth is each panel's width without its legend, wider than a step's chart.
	timelineWidth = 860
	// measuredColor shades a step's measured interval.
	measuredColor = "#56B4E9"
)

// timelineStep is one step placed on the run's clock: its series' axis shifted to the minute
// its origin falls at, its line points its share of the timeline's.
type timelineStep struct {
	step   benchv1.StepResult
	series *measure.IndexedSeries
	ax     stepAxis
}

// runTimeline is the timeline's layout: where zero is, the steps on it and the x range every
// panel shares.
type runTimeline struct {
	zero   time.Time
	steps  []timelineStep
	lo, hi float64
	bands  []band // the measured intervals, and the outages
	marks  []vmark
}

// newRunTimeline places the steps that have a series on one clock. Zero is the earliest of the
// steps' starts and their series' origins; each step's share of maxTimelinePoints is in
// proportion to its entries.
func newRunTimeline(run string, steps []benchv1.StepResult, series *measure.SeriesReport) runTimeline {
	var tl runTimeline
	total := 0
	for _, s := range steps {
		st := series.Step(s.Index)
		if st == nil || len(st.Series.Index) == 0 {
			continue
		}
		total += len(st.Series.Index)
		tl.steps = append(tl.steps, timelineStep{step: s, series: st, ax: newStepAxis(run, s, st)})
		for _, t := range []time.Time{seriesOrigin(st), startOf(s)} {
			if !t.IsZero() && (tl.zero.IsZero() || t.Before(tl.zero)) {
				tl.zero = t
			}
		}
	}
	for i := range tl.steps {
		ts := &tl.steps[i]
		offset := 0.0
		if o := seriesOrigin(ts.series); !o.IsZero() {
			offset = o.Sub(tl.zero).Minutes()
		}
		ts.ax = ts.ax.shifted(offset, maxTimelinePoints*len(ts.series.Series.Index)/total)
		tl.hi = max(tl.hi, ts.ax.hi)
		if s := ts.step; s.StartTime != nil && s.EndTime != nil {
			from, to := s.StartTime.Sub(tl.zero).Minutes(), s.EndTime.Sub(tl.zero).Minutes()
			tl.bands = append(tl.bands, band{From: from, To: to, Color: measuredColor, Vertical: true,
				Label: fmt.Sprintf("%d · %d wh", s.Index, s.ActiveWarehouses), Title: stepSummary(s)})
			tl.hi = max(tl.hi, to)
		}
		tl.bands = append(tl.bands, ts.ax.bands...)
		for _, m := range ts.ax.marks {
			if m.Color == faultColor {
				tl.marks = append(tl.marks, m)
			}
		}
	}
	return tl
}

// seriesOrigin is where a step's interval 0 starts: its origin, else its series' start.
func seriesOrigin(st *measure.IndexedSeries) time.Time {
	if !st.Origin.IsZero() {
		return st.Origin
	}
	return st.Series.Start
}

func startOf(s benchv1.StepResult) time.Time {
	if s.StartTime == nil {
		return time.Time{}
	}
	return s.StartTime.Time
}

// shifted is the axis moved offset minutes along, its marks and bands with it, its lines capped
// at points.
func (ax stepAxis) shifted(offset float64, points int) stepAxis {
	ax.offset, ax.points = ax.offset+offset, max(1, points)
	ax.lo, ax.hi = ax.lo+offset, ax.hi+offset
	marks := make([]vmark, len(ax.marks))
	for i, m := range ax.marks {
		m.X += offset
		marks[i] = m
	}
	bands := make([]band, len(ax.bands))
	for i, b := range ax.bands {
		b.From, b.To = b.From+offset, b.To+offset
		bands[i] = b
	}
	ax.marks, ax.bands = marks, bands
	return ax
}

// joinSteps joins each step's lines into one line per name over the whole run, in the order
// the names first appear and with the colour they first have. A step's first point breaks the
// line: nothing joins one step to the next.
func joinSteps(parts [][]line) []line {
	var out []line
	at := map[string]int{}
	for _, part := range parts {
		for _, l := range part {
			i, ok := at[l.Name]
			if !ok {
				i = len(out)
				at[l.Name] = i
				out = append(out, line{Name: l.Name, Color: l.Color, Dashed: l.Dashed})
			}
			for j, p := range l.Points {
				p.Break = j == 0 && len(out[i].Points) > 0
				out[i].Points = append(out[i].Points, p)
			}
		}
	}
	return out
}

// stepSummary names a step: its number, warehouses, kind, tpmC and verdict.
func stepSummary(s benchv1.StepResult) string {
	kind := s.Kind
	if kind == "" {
		kind = benchv1.StepFull
	}
	verdict := "not compliant"
	switch s.EffectiveVerdict() {
	case benchv1.VerdictCompliant:
		verdict = "compliant"
	case benchv1.VerdictInconclusive:
		verdict = "inconclusive"
	}
	return fmt.Sprintf("Step %d — %d active warehouses (%s): %.1f tpmC, %s", s.Index, s.ActiveWarehouses, kind, s.TpmC, verdict)
}

// newOrderRatePoints are New-Orders completed per minute per entry, the entries of a bucket
// (when there are more than limit) averaged. The ramp-up, the entries before the first with a
// New-Order completed, has no point.
func newOrderRatePoints(st *measure.IndexedSeries, ax stepAxis) []point {
	col := st.Series.Types[snapshot.NewOrder]
	if col == nil {
		return nil
	}
	first := 0
	for first < len(col.Completed) && col.Completed[first] == 0 {
		first++
	}
	n := min(len(col.Completed), len(ax.lasts))
	bucket := max(1, (n-first+ax.points-1)/max(1, ax.points))
	var out []point
	for i := first; i < n; i += bucket {
		var count int64
		minutes := 0.0
		end := min(n, i+bucket)
		for j := i; j < end; j++ {
			count += col.Completed[j]
			minutes += float64(st.Series.SpanOf(j)) * ax.length / 60
		}
		if minutes > 0 {
			out = append(out, point{X: ax.xOf(ax.lasts[end-1]), Y: float64(count) / minutes})
		}
	}
	return out
}

// newOrderBound is the SLA's bound on New-Order's 90th percentile: the spec's, else TPC-C's
// when the spec names no latency bound; false when the spec bounds New-Order on another
// percentile only.
func newOrderBound(spec benchv1.SLASpec) (time.Duration, bool) {
	if len(spec.Latency) == 0 {
		for _, b := range sla.TPCCLatencyBounds() {
			if b.Transaction == snapshot.NewOrder && b.Percentile == 90 {
				return b.Max, true
			}
		}
	}
	for _, b := range spec.Latency {
		if p, err := strconv.ParseFloat(b.Percentile, 64); err == nil && p == 90 && b.Transaction == benchv1.NewOrder {
			return b.Max.Duration, true
		}
	}
	return 0, false
}

// panel is one of the timeline's charts on its shared axis; the bands are labelled on the first
// panel only (the others' labels would run into their legends).
func (tl runTimeline) panel(title, ylabel string, height int, lines []line, labelled bool) string {
	bands := tl.bands
	if !labelled {
		bands = make([]band, len(tl.bands))
		for i, b := range tl.bands {
			if b.Color == measuredColor {
				b.Title = "" // named on the first panel
			} else if b.Title == "" {
				b.Title = b.Label // an outage: its label as hover text only
			}
			b.Label = ""
			bands[i] = b
		}
	}
	return chart{Title: "Run timeline: " + title, XLabel: fmt.Sprintf("minutes from %s UTC, the first step's start", tl.zero.UTC().Format("2006-01-02 15:04")),
		YLabel: ylabel, Width: timelineWidth, Height: height, Lines: lines, Marks: tl.marks, Bands: bands, XMin: &tl.lo, XMax: &tl.hi, YZero: true}.svg()
}

// runTimelineSection is the timeline: nothing when no step has a series (the per-step section
// says why), else its four panels, a panel whose lines all read zero as one sentence instead.
func runTimelineSection(in RunInput) string {
	if in.Series == nil {
		return ""
	}
	run := in.Run.Name
	tl := newRunTimeline(run, in.Run.Status.Steps, in.Series)
	if len(tl.steps) == 0 {
		return ""
	}
	var rate, p90, lag, cpu [][]line
	for _, ts := range tl.steps {
		st, ax := ts.series, ts.ax
		rate = append(rate, []line{{Name: "New-Order per minute", Color: color(0), Points: newOrderRatePoints(st, ax)}})
		var no []line
		for _, l := range latencyLines(st, ax) {
			if l.Name == string(benchv1.NewOrder) {
				no = append(no, line{Name: "NewOrder p90", Color: l.Color, Points: l.Points})
			}
		}
		p90 = append(p90, no)
		if lags := st.Series.ReplayLagMillis; len(lags) > 0 {
			lag = append(lag, replayLagLines(run, lags, ax))
		}
		cpu = append(cpu, databaseCPULines(run, st, ax))
	}
	p := &page{}
	p.h(2, "Timeline")
	p.para("Every step on the run's clock. Shaded blue: each step's measured interval, labelled with its step number and active warehouses (hover for its tpmC and verdict); between steps (loading, switching) nothing is drawn. " +
		"Throughput is New-Orders completed per minute of each interval; p90 is New-Order's per interval; red dashed verticals are faults, shaded orange the outage the clients saw.")
	p.raw(`<div class="timeline">` + "\n")
	p.raw(tl.panel("New-Order throughput", "New-Order / min", 200, joinSteps(rate), true) + "\n")
	noLines := joinSteps(p90)
	title := "New-Order p90"
	if b, ok := newOrderBound(in.Run.Spec.SLA); ok {
		title = fmt.Sprintf("New-Order p90 against its bound (%s)", Latency(b))
		noLines = append(noLines, line{Name: "bound " + Latency(b), Color: "#b00020", Dashed: true, Points: []point{{X: tl.lo, Y: ms(b)}, {X: tl.hi, Y: ms(b)}}})
	}
	p.raw(tl.panel(title, "p90 (ms)", 170, noLines, false) + "\n")
	if len(lag) > 0 {
		chartOrZero(p, joinSteps(lag), "Standby replay lag over the run", replayLagZeroReason, func(ll []line) string {
			return tl.panel("standby replay lag", "replay lag (ms)", 150, ll, false)
		})
	}
	if ll := joinSteps(cpu); len(ll) > 0 {
		chartOrZero(p, ll, "The database pods' CPU over the run", "", func(ll []line) string {
			return tl.panel("CPU of the database pods", "CPU (cores)", 150, ll, false)
		})
	}
	p.raw("</div>\n")
	return p.b.String()
}
