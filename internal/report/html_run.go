package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// RunInput is what a run's HTML report is drawn from.
type RunInput struct {
	Run *benchv1.BenchmarkRun
	// Result is the run's result; for a run still under way, a partial one (PartialResult).
	Result benchv1.Result
	// Series is series.json.gz decoded; nil when it was not kept (SeriesNote says why).
	Series     *Series
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

// RunHTML is a run's report.html: the capacity curve, the steps, the latency percentiles per
// transaction per step and, where telemetry was recorded, each step's latency, replication lag
// and database CPU over time with checkpoints and fault outages on the time axis.
func RunHTML(in RunInput) string {
	head := runHead(in)
	tail := runTail(in)
	series := runSeriesSection(in)
	if in.MaxBytes > 0 && len(head)+len(series)+len(tail) > in.MaxBytes {
		series = fmt.Sprintf("<h2>Over time</h2>\n<p class=\"notice\">%s</p>\n", esc(fmt.Sprintf(
			"The time-series charts are left out: with them this page (%d KiB) would not fit the report ConfigMap. "+
				"kubectl tpcc report %s -o html draws them from series.json.gz.", (len(head)+len(series)+len(tail))>>10, in.Run.Name)))
	}
	return head + series + tail
}

func runHead(in RunInput) string {
	run, result := in.Run, in.Result
	p := newPage(fmt.Sprintf("BenchmarkRun %s/%s", run.Namespace, run.Name))
	p.h(1, fmt.Sprintf("BenchmarkRun %s/%s — %s", run.Namespace, run.Name, run.Spec.Database.Engine))
	p.muted(FairUse)
	if !Final(run.Status.Phase) {
		p.notice(fmt.Sprintf("The run is %s: this report shows what is recorded so far.", orDash(string(run.Status.Phase))))
	}
	p.para(result.Message)
	if s := restsOnSentence(result); s != "" {
		p.para(s + ".")
	}
	if s := precisionSentence(run, result); s != "" {
		p.para(s)
	}
	p.para(fmt.Sprintf("Workload: %s; %s.", workloadWords(run.Spec.Workload), slaWords(run.Spec.SLA)))
	p.para(DurabilitySentence(DescriptionOf(run)))
	if s := DataOrigin(run); s != "" {
		p.para(s)
	}

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
// standbys' replay lag, the database pods' CPU, on one time axis per step.
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
	p.para(fmt.Sprintf("Per step, minutes into the measured interval; p90 per transaction per interval (the largest of each bucket when a step has more than %d intervals; no point where none of the type completed). Dashed verticals: checkpoints (grey) and faults (red); shaded: the outage the clients saw.", maxSeriesPoints))
	for _, s := range in.Run.Status.Steps {
		st := in.Series.Step(s.Index)
		if st == nil || len(st.Series.Index) == 0 {
			continue
		}
		p.h(3, fmt.Sprintf("Step %d — %d active warehouses (%s)", s.Index, s.ActiveWarehouses, orDash(string(s.Kind))))
		length := st.Series.LengthSeconds
		if length <= 0 {
			length = st.LengthSeconds
		}
		if length <= 0 {
			length = 10
		}
		origin := st.Origin
		if origin.IsZero() {
			origin = st.Series.Start
		}
		xOf := func(index int) float64 { return float64(index+1) * length / 60 }
		// A point sits at its entry's end: a downsampled entry (docs/telemetry.md, "Long steps")
		// spans several intervals, and its last one is lasts[i].
		lasts := make([]int, len(st.Series.Index))
		for i := range lasts {
			lasts[i] = st.Series.End(i) - 1
		}
		lo, hi := 0.0, xOf(lasts[len(lasts)-1])
		if st.Series.Downsampled() {
			p.para(fmt.Sprintf("This step's older intervals are downsampled to keep its series bounded: a point there stands for up to %d intervals of %gs (its p90 the largest of theirs, an upper bound; replay lag the largest).",
				slices.Max(st.Series.Spans), length))
		}
		marks, bands := timeMarks(in.Run.Name, st, s, origin, length, xOf)
		var lat []line
		for i, t := range benchv1.Transactions {
			col := st.Series.Types[snapshot.Transaction(t)]
			if col == nil {
				continue
			}
			lat = append(lat, line{Name: string(t), Color: color(i), Points: p90Points(lasts, col, xOf)})
		}
		p.raw(chart{Title: fmt.Sprintf("Step %d: p90 response time over time", s.Index), XLabel: "minutes", YLabel: "p90 (ms)", Height: 220,
			Lines: lat, Marks: marks, Bands: bands, XMin: &lo, XMax: &hi, YZero: true}.svg())
		if lags := st.Series.ReplayLagMillis; len(lags) > 0 {
			var ll []line
			for i, name := range sortedKeys(lags) {
				ll = append(ll, line{Name: shortPod(in.Run.Name, name), Color: color(i), Points: reduce(lasts, lags[name], xOf, func(v int64) float64 { return float64(v) }, -1)})
			}
			p.raw(chart{Title: fmt.Sprintf("Step %d: standby replay lag", s.Index), XLabel: "minutes", YLabel: "replay lag (ms)", Height: 180,
				Lines: ll, Marks: marks, Bands: bands, XMin: &lo, XMax: &hi, YZero: true}.svg())
		}
		var cpu []line
		for i, name := range sortedKeys(st.Resources) {
			pod := st.Resources[name]
			if pod.Role != "Database" {
				continue
			}
			cpu = append(cpu, line{Name: shortPod(in.Run.Name, name), Color: color(i), Points: reduce(pod.Index, pod.CPUMillis, xOf, func(v int64) float64 { return float64(v) / 1000 }, -1)})
		}
		if len(cpu) > 0 {
			p.raw(chart{Title: fmt.Sprintf("Step %d: CPU of the database pods", s.Index), XLabel: "minutes", YLabel: "CPU (cores)", Height: 180,
				Lines: cpu, Marks: marks, Bands: bands, XMin: &lo, XMax: &hi, YZero: true}.svg())
		}
		for _, io := range []struct {
			what string
			of   func(p *PodSeries) ([]int64, []int64)
		}{
			{"disk read + write", func(p *PodSeries) ([]int64, []int64) { return p.DiskReadBytes, p.DiskWriteBytes }},
			{"network in + out", func(p *PodSeries) ([]int64, []int64) { return p.NetReceiveBytes, p.NetTransmitBytes }},
		} {
			var ll []line
			for i, name := range sortedKeys(st.Resources) {
				pod := st.Resources[name]
				if len(pod.IOIndex) == 0 {
					continue
				}
				a, b := io.of(pod)
				total := make([]int64, len(pod.IOIndex))
				for j := range total {
					total[j] = a[j] + b[j]
				}
				ll = append(ll, line{Name: fmt.Sprintf("%s (%s)", shortPod(in.Run.Name, name), strings.ToLower(pod.Role)), Color: color(i),
					Points: reduce(pod.IOIndex, total, xOf, func(v int64) float64 { return float64(v) / 1e6 }, -1)})
			}
			if len(ll) > 0 {
				p.raw(chart{Title: fmt.Sprintf("Step %d: disk and network of the pods: %s", s.Index, io.what), XLabel: "minutes", YLabel: "MB/s", Height: 180,
					Lines: ll, Marks: marks, Bands: bands, XMin: &lo, XMax: &hi, YZero: true}.svg())
			}
		}
	}
	return p.b.String()
}

// timeMarks are a step's checkpoints and faults (pods named as shortPod does) on its time axis,
// and its outage as a band.
func timeMarks(run string, st *StepSeries, s benchv1.StepResult, origin time.Time, length float64, xOf func(int) float64) ([]vmark, []band) {
	var marks []vmark
	for i, n := range st.Series.Checkpoints {
		if n > 0 && i < len(st.Series.Index) {
			// in the middle of the entry (of one interval, or of several when downsampled)
			marks = append(marks, vmark{X: xOf(st.Series.End(i)-1) - float64(st.Series.SpanOf(i))*length/120, Label: fmt.Sprintf("%d checkpoint(s)", n), Color: "#888"})
		}
	}
	var bands []band
	at := func(t time.Time) float64 { return t.Sub(origin).Minutes() }
	if f := s.Fault; f != nil && !origin.IsZero() {
		for _, inj := range f.Injections {
			if inj.Time != nil {
				marks = append(marks, vmark{X: at(inj.Time.Time), Label: fmt.Sprintf("%s %s", inj.Action, shortPod(run, inj.Pod)), Color: "#d55e00"})
			}
		}
		if m := f.Measurement; m != nil && m.UnavailableFrom != nil && m.Unavailability.Duration > 0 {
			from := at(m.UnavailableFrom.Time)
			bands = append(bands, band{From: from, To: from + m.Unavailability.Duration.Minutes(), Label: "outage " + m.Unavailability.Duration.String()})
		}
	}
	return marks, bands
}

// p90Points are a transaction type's p90 per interval in milliseconds. An interval in which none
// of the type completed has no p90: it gets no point, not 0 (an outage is not fast).
func p90Points(index []int, col *snapshot.CompactColumns, xOf func(int) float64) []point {
	p90 := make([]int64, len(col.P90))
	for j, v := range col.P90 {
		p90[j] = v
		if j < len(col.Completed) && col.Completed[j] == 0 {
			p90[j] = -1
		}
	}
	return reduce(index, p90, xOf, func(v int64) float64 { return float64(v) / 1000 }, -1)
}

// reduce turns a column into at most maxSeriesPoints points, keeping the largest value of each
// bucket; values equal to skip are gaps (not reported).
func reduce(index []int, values []int64, xOf func(int) float64, scale func(int64) float64, skip int64) []point {
	n := min(len(index), len(values))
	bucket := (n + maxSeriesPoints - 1) / maxSeriesPoints
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
