package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// RunInput is what a run's HTML report is drawn from.
type RunInput struct {
	Run *benchv1.BenchmarkRun
	// Result is the run's result; for a run still under way, a partial one (PartialResult).
	Result benchv1.Result
	// Series is series.json.gz decoded; nil when it was not kept (SeriesNote says why).
	Series     *measure.SeriesReport
	SeriesNote string
	Generated  time.Time
	// MaxBytes bounds the page (0: none). Over it the time-series charts are left out and the page
	// says so: the other sections are a few tens of KiB even for many steps.
	MaxBytes int
}

// PartialResult is the result line of a run that has not ended: what is recorded so far.
func PartialResult(run *benchv1.BenchmarkRun) benchv1.Result {
	if run.Status.Result != nil {
		return *run.Status.Result
	}
	phase := run.Status.Phase
	if phase == "" {
		phase = benchv1.PhasePending
	}
	return benchv1.Result{Message: fmt.Sprintf("the run is %s: %d %s recorded so far; no result yet",
		phase, len(run.Status.Steps), pluralWord(len(run.Status.Steps), "step", "steps"))}
}

// maxSeriesPoints caps each time-series line; longer series are reduced to the largest value of
// each bucket (a latency or lag peak stays visible).
const maxSeriesPoints = 240

// RunHTML is a run's report.html: the summary, the run's timeline (every step on one time axis),
// the capacity curve, the steps, the latency percentiles per transaction per step and, where
// telemetry was recorded, each step's latency, replication lag and database CPU over time with
// checkpoints and fault outages on the time axis, folded under the step's name.
func RunHTML(in RunInput) string {
	summary := runSummary(in)
	timeline := runTimelineSection(in)
	head := runHead(in)
	tail := runTail(in)
	series := runSeriesSection(in)
	size := len(summary) + len(timeline) + len(head) + len(series) + len(tail)
	if in.MaxBytes > 0 && size > in.MaxBytes {
		timeline = ""
		series = fmt.Sprintf("<h2>Over time</h2>\n<p class=\"notice\">%s</p>\n", esc(fmt.Sprintf(
			"The time-series charts are left out (the run's timeline and each step's): with them this page (%d KiB) would not fit the report ConfigMap. "+
				"kubectl tpcc report %s -o html draws them from series.json.gz.", size>>10, in.Run.Name)))
	}
	return summary + timeline + head + series + tail
}

// runSummary opens the page: the run, its result and the terms it was measured on.
func runSummary(in RunInput) string {
	run, result := in.Run, in.Result
	p := newPage(fmt.Sprintf("BenchmarkRun %s/%s", run.Namespace, run.Name))
	p.h(1, fmt.Sprintf("BenchmarkRun %s/%s — %s", run.Namespace, run.Name, run.Spec.Database.Engine))
	p.muted(FairUse)
	if !Final(run.Status.Phase) {
		p.notice(fmt.Sprintf("The run is %s: this report shows what is recorded so far.", orDash(string(run.Status.Phase))))
	}
	p.para(result.Message)
	if s := boundSentence(run, result); s != "" {
		p.para(s)
	}
	if s := restsOnSentence(result); s != "" {
		p.para(s + ".")
	}
	if s := precisionSentence(run, result); s != "" {
		p.para(s)
	}
	if s := ConsistencySentence(run.Status.Phase, result.ConsistencyCheck); s != "" {
		p.para(s)
	}
	p.para(fmt.Sprintf("Workload: %s; %s.", workloadWords(run.Spec.Workload), slaWords(run.Spec.SLA)))
	p.para(DurabilitySentence(DescriptionOf(run)))
	if s := PoolerSentence(DescriptionOf(run)); s != "" {
		p.para(s)
	}
	p.para(IsolationSentence(run, result))
	if s := DataOrigin(run); s != "" {
		p.para(s)
	}
	return p.b.String()
}

// runHead is what follows the timeline: the capacity curve, the steps and their response times.
func runHead(in RunInput) string {
	run, result := in.Run, in.Result
	p := &page{}
	steps := run.Status.Steps
	p.h(2, "Capacity")
	if len(steps) == 0 {
		p.para("No step recorded yet.")
	} else {
		p.raw(capacityChart("tpmC against active warehouses", "tpmC", steps, func(s benchv1.StepResult) float64 { return s.TpmC }, true))
		p.raw(capacityChart("Efficiency against active warehouses", "efficiency %", steps, func(s benchv1.StepResult) float64 { return s.Efficiency }, false))
		p.para("Filled markers: compliant steps; hollow: not compliant. The dashed line is the spec's ceiling of 12.86 tpmC per active warehouse.")
	}

	p.h(2, "Steps")
	var rows [][]string
	for _, s := range steps {
		rows = append(rows, stepCells(s))
	}
	header := []string{"step", "<kind", "measured", "active warehouses", "tpmC", "efficiency %", "compliant"}
	for _, t := range benchv1.Transactions {
		header = append(header, string(t)+" p90")
	}
	header = append(header, "<reasons")
	p.table(header, rows, func(i int) string { return VerdictWord(steps[i]) })
	if rows := telemetryRows(run.Name, steps); len(rows) > 0 {
		p.h(2, "Replication, checkpoints and CPU per step")
		p.table(telemetryHeader, rows, nil)
	}

	if len(steps) > 0 {
		p.h(2, "Response times per step")
		var lines []line
		for i, t := range benchv1.Transactions {
			l := line{Name: string(t), Color: color(i), Markers: true}
			for _, s := range steps {
				if d := s.Transactions[t].P90.Duration; d > 0 {
					l.Points = append(l.Points, point{X: float64(s.Index), Y: ms(d), Marked: s.Compliant,
						Title: fmt.Sprintf("step %d, %s p90 %s", s.Index, t, Latency(d))})
				}
			}
			lines = append(lines, l)
		}
		p.raw(chart{Title: "p90 response time per step", XLabel: "step", YLabel: "p90 (ms)", Lines: lines, YZero: true, XWhole: true}.svg())
		var prow [][]string
		for _, s := range steps {
			row := []string{fmt.Sprint(s.Index), fmt.Sprint(s.ActiveWarehouses)}
			for _, t := range benchv1.Transactions {
				ts := s.Transactions[t]
				row = append(row, fmt.Sprintf("%s / %s / %s / %s", Latency(ts.P50.Duration), Latency(ts.P90.Duration), Latency(ts.P95.Duration), Latency(ts.P99.Duration)))
			}
			prow = append(prow, row)
		}
		ph := []string{"step", "active warehouses"}
		for _, t := range benchv1.Transactions {
			ph = append(ph, string(t)+" p50 / p90 / p95 / p99")
		}
		p.table(ph, prow, nil)
	}
	if result.Step != nil && int(*result.Step) < len(steps) {
		s := steps[*result.Step]
		p.h(2, fmt.Sprintf("Response times at %d active warehouses", s.ActiveWarehouses))
		var rrows [][]string
		for _, t := range benchv1.Transactions {
			ts := s.Transactions[t]
			rrows = append(rrows, []string{string(t), fmt.Sprint(ts.Count), Latency(ts.P50.Duration), Latency(ts.P90.Duration), Latency(ts.P95.Duration), Latency(ts.P99.Duration), Latency(ts.Max.Duration)})
		}
		p.table([]string{"<transaction", "count", "p50", "p90", "p95", "p99", "max"}, rrows, nil)
	}
	return p.b.String()
}

// runTail is the faults, environment and sizing (the Markdown report's words), then the end.
func runTail(in RunInput) string {
	p := &page{}
	equalTermsHTML(p, equalTermsBlocks(in.Run, in.Result))
	priceHTML(p, priceBlockOf(in.Run, in.Result))
	adversityHTML(p, in.Run)
	if blocks := faultBlocks(in.Run); len(blocks) > 0 {
		p.h(2, "Faults")
		for _, fb := range blocks {
			p.h(3, fb.Heading)
			p.list(fb.Items)
			if len(fb.Rows) > 0 {
				p.table(fb.Header, fb.Rows, nil)
			}
		}
	}
	placementHTML(p, in.Run)
	if env := environmentSection(in.Run.Status.Environment); env != "" {
		p.h(2, "Environment")
		p.list(bullets(env))
	}
	if in.Run.Status.Database != nil {
		if s := sizingLine(in.Run.Status.Database.Sizing); s != "" {
			p.list(bullets(s))
		}
	}
	if s := resourceSwitchLine(in.Run); s != "" {
		p.list(bullets(s))
	}
	return p.end(in.Generated)
}

// bullets are the "- " lines of a Markdown fragment.
func bullets(md string) []string {
	var out []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "- ") {
			out = append(out, l[2:])
		}
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// capacityChart is a figure against active warehouses: full steps joined by a line, probe and
// fault steps as points; compliant steps filled.
func capacityChart(title, ylabel string, steps []benchv1.StepResult, value func(benchv1.StepResult) float64, ceiling bool) string {
	groups := map[benchv1.StepKind]*line{
		benchv1.StepFull:    {Name: "full steps", Color: color(0), Markers: true},
		benchv1.StepProbe:   {Name: "probe steps", Color: color(1), Markers: true, NoLine: true},
		benchv1.StepFault:   {Name: "fault step", Color: color(5), Markers: true, NoLine: true},
		benchv1.StepSustain: {Name: "sustained phase", Color: color(3), Markers: true, NoLine: true},
	}
	maxW := 0.0
	for _, s := range steps {
		kind := s.Kind
		if kind == "" {
			kind = benchv1.StepFull
		}
		g := groups[kind]
		if g == nil {
			continue
		}
		g.Points = append(g.Points, point{X: float64(s.ActiveWarehouses), Y: value(s), Marked: s.Compliant,
			Title: fmt.Sprintf("step %d (%s): %d active warehouses, %s %s, %s", s.Index, kind, s.ActiveWarehouses, num(value(s)), ylabel, verdictPhrase(s))})
		maxW = max(maxW, float64(s.ActiveWarehouses))
	}
	var lines []line
	for _, k := range []benchv1.StepKind{benchv1.StepFull, benchv1.StepProbe, benchv1.StepFault, benchv1.StepSustain} {
		g := groups[k]
		sort.SliceStable(g.Points, func(i, j int) bool { return g.Points[i].X < g.Points[j].X })
		if len(g.Points) > 0 {
			lines = append(lines, *g)
		}
	}
	if ceiling {
		lines = append(lines, line{Name: "12.86 × warehouses", Color: "#999", Dashed: true, Points: []point{{X: 0, Y: 0}, {X: maxW, Y: 12.86 * maxW}}})
	}
	zero := 0.0
	return chart{Title: title, XLabel: "active warehouses", YLabel: ylabel, Lines: lines, XMin: &zero, YZero: true, XWhole: true}.svg()
}

// runSeriesSection draws each step's time series: latency with checkpoints and faults, the
// standbys' replay lag, the database pods' CPU, the pods' disk and network, on one time axis per
// step.
func runSeriesSection(in RunInput) string {
	p := &page{}
	p.h(2, "Over time")
	if in.Series == nil || len(in.Series.Steps) == 0 {
		note := in.SeriesNote
		if note == "" {
			note = "No time series was recorded for this run."
		}
		p.para(note)
		return p.b.String()
	}
	p.para(fmt.Sprintf("Each step's own charts, folded under its name (click to open). Per step, minutes into the measured interval; p90 per transaction per interval (the largest of each bucket when a step has more than %d intervals; no point where none of the type completed). Dashed verticals: checkpoints (grey) and faults (red); shaded: the outage the clients saw.", maxSeriesPoints))
	for _, s := range in.Run.Status.Steps {
		st := in.Series.Step(s.Index)
		if st == nil || len(st.Series.Index) == 0 {
			continue
		}
		stepSeriesCharts(p, in.Run.Name, s, st)
	}
	return p.b.String()
}

// stepSeriesCharts is one step's part of the section, folded (a closed <details>) under the
// step's name, number, warehouses, tpmC and verdict: a note when its series is downsampled, and
// its charts: p90 per transaction, the standbys' replay lag (when recorded), the database pods'
// CPU and the pods' disk and network (when there are any). A chart whose lines all read zero is
// one sentence instead.
func stepSeriesCharts(p *page, run string, s benchv1.StepResult, st *measure.IndexedSeries) {
	p.printf("<details class=\"step\"><summary>%s</summary>\n", esc(stepSummary(s)))
	defer p.raw("</details>\n")
	ax := newStepAxis(run, s, st)
	if st.Series.Downsampled() {
		p.para(fmt.Sprintf("This step's older intervals are downsampled to keep its series bounded: a point there stands for up to %d intervals of %gs (its p90 the largest of theirs, an upper bound; replay lag the largest).",
			slices.Max(st.Series.Spans), ax.length))
	}
	p.raw(ax.chart("p90 response time over time", "p90 (ms)", 220, latencyLines(st, ax)) + "\n")
	if lags := st.Series.ReplayLagMillis; len(lags) > 0 {
		chartOrZero(p, replayLagLines(run, lags, ax), fmt.Sprintf("Step %d: the standbys' replay lag", s.Index), replayLagZeroReason, func(ll []line) string {
			return ax.chart("standby replay lag", "replay lag (ms)", 180, ll)
		})
	}
	if cpu := databaseCPULines(run, st, ax); len(cpu) > 0 {
		chartOrZero(p, cpu, fmt.Sprintf("Step %d: the database pods' CPU", s.Index), "", func(ll []line) string {
			return ax.chart("CPU of the database pods", "CPU (cores)", 180, ll)
		})
	}
	disk := podIOLines(run, st, ax, func(p *snapshot.PodSeries) ([]int64, []int64) { return p.DiskReadBytes, p.DiskWriteBytes })
	network := podIOLines(run, st, ax, func(p *snapshot.PodSeries) ([]int64, []int64) { return p.NetReceiveBytes, p.NetTransmitBytes })
	for _, io := range []struct {
		what, sentence, why string
		lines               []line
	}{
		{"disk read + write", "per-pod disk I/O", diskZeroReason(network), disk},
		{"network in + out", "per-pod network I/O", "", network},
	} {
		if len(io.lines) > 0 {
			chartOrZero(p, io.lines, fmt.Sprintf("Step %d: %s", s.Index, io.sentence), io.why, func(ll []line) string {
				return ax.chart("disk and network of the pods: "+io.what, "MB/s", 180, ll)
			})
		}
	}
}

// stepAxis is a step's time axis, shared by its charts: minutes from the start of its series,
// its checkpoints and faults as marks and its outage as a band.
type stepAxis struct {
	step   int32
	length float64 // seconds per interval
	// offset is the minute at which the axis places the series' origin (0 on the step's own
	// charts, the step's start on the run's timeline); points the most points a line gets.
	offset float64
	points int
	// lasts are the last interval of each entry of the series.
	lasts  []int
	lo, hi float64
	marks  []vmark
	bands  []band
}

// newStepAxis lays out a step's time axis. An interval is the series' length, else the step's,
// else 10 s; the axis starts at the series' origin (else its start) and ends with its last entry.
func newStepAxis(run string, s benchv1.StepResult, st *measure.IndexedSeries) stepAxis {
	ax := stepAxis{step: s.Index, length: st.Series.LengthSeconds, points: maxSeriesPoints}
	if ax.length <= 0 {
		ax.length = st.LengthSeconds
	}
	if ax.length <= 0 {
		ax.length = 10
	}
	origin := st.Origin
	if origin.IsZero() {
		origin = st.Series.Start
	}
	// A point sits at its entry's end: a downsampled entry (docs/telemetry.md, "Long steps")
	// spans several intervals, and its last one is lasts[i].
	ax.lasts = make([]int, len(st.Series.Index))
	for i := range ax.lasts {
		ax.lasts[i] = st.Series.End(i) - 1
	}
	ax.lo, ax.hi = 0.0, ax.xOf(ax.lasts[len(ax.lasts)-1])
	ax.marks, ax.bands = timeMarks(run, st, s, origin, ax.length, ax.xOf)
	return ax
}

// xOf is the minute at which interval index ends.
func (ax stepAxis) xOf(index int) float64 { return ax.offset + float64(index+1)*ax.length/60 }

// chart is one of the step's charts over its time axis, with its marks and bands, from 0 up.
func (ax stepAxis) chart(what, ylabel string, height int, lines []line) string {
	return chart{Title: fmt.Sprintf("Step %d: %s", ax.step, what), XLabel: "minutes", YLabel: ylabel, Height: height,
		Lines: lines, Marks: ax.marks, Bands: ax.bands, XMin: &ax.lo, XMax: &ax.hi, YZero: true}.svg()
}

// latencyLines are one line per transaction type in the series: its p90 per entry.
func latencyLines(st *measure.IndexedSeries, ax stepAxis) []line {
	var lat []line
	for i, t := range benchv1.Transactions {
		col := st.Series.Types[snapshot.Transaction(t)]
		if col == nil {
			continue
		}
		lat = append(lat, line{Name: string(t), Color: color(i), Points: p90Points(ax.lasts, col, ax.xOf, ax.points)})
	}
	return lat
}

// replayLagLines are one line per standby (by name): its replay lag per entry.
func replayLagLines(run string, lags map[string][]int64, ax stepAxis) []line {
	var ll []line
	for i, name := range sortedKeys(lags) {
		ll = append(ll, line{Name: shortPod(run, name), Color: color(i), Points: reduce(ax.lasts, lags[name], ax.xOf, func(v int64) float64 { return float64(v) }, -1, ax.points)})
	}
	return ll
}

// databaseCPULines are one line per database pod: its CPU in cores per interval. A pod keeps its
// colour by its place among all the step's pods.
func databaseCPULines(run string, st *measure.IndexedSeries, ax stepAxis) []line {
	var cpu []line
	for i, name := range sortedKeys(st.Resources) {
		pod := st.Resources[name]
		if pod.Role != "Database" {
			continue
		}
		cpu = append(cpu, line{Name: shortPod(run, name), Color: color(i), Points: reduce(pod.Index, pod.CPUMillis, ax.xOf, func(v int64) float64 { return float64(v) / 1000 }, -1, ax.points)})
	}
	return cpu
}

// podIOLines are one line per pod with disk and network figures: the sum of the two columns of
// one kind (of) in MB/s per interval.
func podIOLines(run string, st *measure.IndexedSeries, ax stepAxis, of func(p *snapshot.PodSeries) ([]int64, []int64)) []line {
	var ll []line
	for i, name := range sortedKeys(st.Resources) {
		pod := st.Resources[name]
		if len(pod.IOIndex) == 0 {
			continue
		}
		a, b := of(pod)
		total := make([]int64, len(pod.IOIndex))
		for j := range total {
			total[j] = a[j] + b[j]
		}
		ll = append(ll, line{Name: fmt.Sprintf("%s (%s)", shortPod(run, name), strings.ToLower(pod.Role)), Color: color(i),
			Points: reduce(pod.IOIndex, total, ax.xOf, func(v int64) float64 { return float64(v) / 1e6 }, -1, ax.points)})
	}
	return ll
}

// The marks' colours: a checkpoint grey, a fault red.
const checkpointColor, faultColor = "#888", "#d55e00"

// adversityColor shades an adversity step's states.
const adversityColor = "#CC79A7"

// timeMarks are a step's checkpoints and faults (pods named as shortPod does) on its time axis,
// and its outage as a band.
func timeMarks(run string, st *measure.IndexedSeries, s benchv1.StepResult, origin time.Time, length float64, xOf func(int) float64) ([]vmark, []band) {
	var marks []vmark
	for i, n := range st.Series.Checkpoints {
		if n > 0 && i < len(st.Series.Index) {
			// in the middle of the entry (of one interval, or of several when downsampled)
			marks = append(marks, vmark{X: xOf(st.Series.End(i)-1) - float64(st.Series.SpanOf(i))*length/120, Label: fmt.Sprintf("%d checkpoint(s)", n), Color: checkpointColor})
		}
	}
	var bands []band
	at := func(t time.Time) float64 { return t.Sub(origin).Minutes() }
	if f := s.Fault; f != nil && !origin.IsZero() {
		for _, inj := range f.Injections {
			if inj.Time != nil {
				marks = append(marks, vmark{X: at(inj.Time.Time), Label: fmt.Sprintf("%s %s", inj.Action, shortPod(run, inj.Pod)), Color: faultColor})
			}
			if inj.Time != nil && inj.HealedTime != nil && s.Adversity == nil { // a network fault, from applied to healed (an adversity state has its own band)
				bands = append(bands, band{From: at(inj.Time.Time), To: at(inj.HealedTime.Time), Color: faultColor,
					Label: string(inj.Action), Title: strings.TrimSpace(fmt.Sprintf("%s on %s, %s", inj.Action, strings.Join(inj.Pods, ", "), mechanismText(inj.Mechanism)))})
			}
		}
		bands = append(bands, adversityBands(s, at)...)
		if m := f.Measurement; m != nil && m.UnavailableFrom != nil && m.Unavailability.Duration > 0 {
			from := at(m.UnavailableFrom.Time)
			bands = append(bands, band{From: from, To: from + m.Unavailability.Duration.Minutes(), Label: "outage " + m.Unavailability.Duration.String()})
		}
	}
	return marks, bands
}

// p90Points are a transaction type's p90 per interval in milliseconds. An interval in which none
// of the type completed has no p90: it gets no point, not 0 (an outage is not fast).
func p90Points(index []int, col *snapshot.CompactColumns, xOf func(int) float64, limit int) []point {
	p90 := make([]int64, len(col.P90))
	for j, v := range col.P90 {
		p90[j] = v
		if j < len(col.Completed) && col.Completed[j] == 0 {
			p90[j] = -1
		}
	}
	return reduce(index, p90, xOf, func(v int64) float64 { return float64(v) / 1000 }, -1, limit)
}

// reduce turns a column into at most limit points (at least one), keeping the largest value of
// each bucket; values equal to skip are gaps (not reported).
func reduce(index []int, values []int64, xOf func(int) float64, scale func(int64) float64, skip int64, limit int) []point {
	n := min(len(index), len(values))
	limit = max(1, limit)
	bucket := (n + limit - 1) / limit
	bucket = max(1, bucket)
	var out []point
	for i := 0; i < n; i += bucket {
		best, at, ok := int64(0), index[i], false
		for j := i; j < min(n, i+bucket); j++ {
			if values[j] == skip && skip < 0 {
				continue
			}
			if !ok || values[j] > best {
				best, at, ok = values[j], index[j], true
			}
		}
		if ok {
			out = append(out, point{X: xOf(at), Y: scale(best)})
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
