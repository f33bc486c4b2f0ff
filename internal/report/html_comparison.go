package report

import (
	"fmt"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Curve is one run's steps, for the capacity curves overlaid in a comparison.
type Curve struct {
	Run      string
	Database string
	Steps    []benchv1.StepResult
}

// ComparisonHTML is a suite's (or a comparison of runs') report.html: tpmC per database with its
// spread, the results, the equal terms and fairness notes, the per-transaction p50/p95/p99 table,
// the runs' capacity curves overlaid (curves may be empty: the section then says so) and every run.
func ComparisonHTML(c Comparison, curves []Curve) string {
	title := comparisonTitle(c)
	p := newPage(title)
	p.h(1, title)
	p.muted(FairUse)
	p.para(comparisonStatus(c))
	p.para(fmt.Sprintf("Every database: %s; %s; %s; %d %s each.", workloadWords(c.Workload), slaWords(c.SLA), searchWords(c.Search),
		c.Repeats, pluralWord(int(c.Repeats), "run", "runs")))
	comparisonTpmCBars(p, c)
	comparisonResults(p, c)
	comparisonPrices(p, c)
	comparisonEqualTerms(p, c)
	comparisonLatencies(p, c)
	comparisonAdversity(p, c)
	comparisonCurves(p, c, curves)
	comparisonRuns(p, c)
	return p.end(c.Generated)
}

// comparisonStatus says how many of the runs ended and which database leads.
func comparisonStatus(c Comparison) string {
	status := fmt.Sprintf("%d of %d runs ended", c.RunsDone, c.RunsPlanned)
	if !c.Complete {
		status += " (in progress: the figures are those of the runs ended so far)"
	}
	if c.Leader != "" {
		status += ". Leader: " + c.Leader
	}
	if s := noLeaderSentence(c); s != "" {
		return status + ". " + s
	}
	return status + "."
}

// comparisonTpmCBars is the "tpmC per database" section: one bar per database, its mean tpmC
// with whiskers (the 95 % confidence interval where there is one, else min–max).
func comparisonTpmCBars(p *page, c Comparison) {
	p.h(2, "tpmC per database")
	var bars []bar
	withCI := false
	for i, r := range c.Results {
		br := bar{Label: r.Database, Color: color(i), Leader: r.Leader, NoResult: r.TpmC == nil}
		if s := r.TpmC; s != nil {
			br.Value, br.Low, br.High = s.Mean, s.Min, s.Max
			br.Title = fmt.Sprintf("%s: %s tpmC", r.Database, floorCell(r.Bound, statCell(s, "%.1f")))
			br.Floor = r.Bound.Floor()
			if s.CI95 != nil {
				br.Low, br.High, withCI = s.CI95.Low, s.CI95.High, true
			}
		} else {
			br.Title = r.Database + ": no result"
		}
		bars = append(bars, br)
	}
	p.raw(barChart("Mean tpmC per database", "tpmC", bars))
	whisker := "Whiskers: min–max over the runs with a result."
	if withCI {
		whisker = fmt.Sprintf("Whiskers: the 95 %% confidence interval of the mean (Student's t) where a database has %d or more runs with a result, else min–max.", MinRunsForInterval)
	}
	p.para(whisker + " ★ marks the leader; ≥ a floor, not ranked.")
}

// comparisonResults is the "Results" table: one row per database.
func comparisonResults(p *page, c Comparison) {
	p.h(2, "Results")
	var rows [][]string
	for i, r := range c.Results {
		deployment := ""
		if i < len(c.Databases) {
			deployment = c.Databases[i].Deployment
		}
		rows = append(rows, []string{r.Database, deployment, fmt.Sprintf("%d/%d", r.RunsSucceeded, r.Runs), floorCell(r.Bound, statCell(r.MaxCompliantWarehouses, "%.0f")),
			floorCell(r.Bound, statCell(r.TpmC, "%.1f")), statCell(r.Efficiency, "%.2f"), r.Durability, orDash(r.Versus)})
	}
	p.table([]string{"<database", "<deployment", "runs", "max compliant warehouses", "tpmC", "efficiency %", "<a commit waits for", "<vs leader"}, rows, nil)
}

// comparisonEqualTerms is the "Equal terms" table and what its columns mean, then the fairness
// notes when there are any.
func comparisonEqualTerms(p *page, c Comparison) {
	p.h(2, "Equal terms")
	eh, er := equalTermsRows(c)
	p.table(eh, er, nil)
	p.para("isolation: the level every transaction runs at (workload.isolation, or the engine's default). tpmC per vCPU and per GiB divide each run's result by its database pods' requests, or by the sum of their peak use at the result step; the bottleneck is the resource the recorded signals show saturated at each run's result bound.")
	if len(c.Notes) > 0 {
		p.h(2, "Fairness notes")
		p.list(c.Notes)
	}
}

// comparisonLatencies is the "Response times at the result step" table: per transaction type,
// each database's p50, p95 and p99.
func comparisonLatencies(p *page, c Comparison) {
	p.h(2, "Response times at the result step")
	header := []string{"<transaction"}
	for _, r := range c.Results {
		header = append(header, r.Database+" p50", r.Database+" p95", r.Database+" p99")
	}
	var rows [][]string
	for _, t := range benchv1.Transactions {
		row := []string{string(t)}
		for _, r := range c.Results {
			l, ok := r.Latency[t]
			if !ok {
				row = append(row, "-", "-", "-")
				continue
			}
			row = append(row, Latency(l.P50.Duration), Latency(l.P95.Duration), Latency(l.P99.Duration))
		}
		rows = append(rows, row)
	}
	p.table(header, rows, nil)
	p.para("A database's figure is the mean over its runs with a result of each run's figure at its result step.")
}

// comparisonCurves is the "Capacity curves" section: the runs' tpmC and efficiency against
// active warehouses, overlaid, or a note that the runs' steps are gone.
func comparisonCurves(p *page, c Comparison, curves []Curve) {
	p.h(2, "Capacity curves")
	if len(curves) == 0 {
		p.para("The runs' steps are not available (their BenchmarkRuns are gone): no curves.")
		return
	}
	tl, el := curveLines(c, curves)
	zero := 0.0
	p.raw(chart{Title: "tpmC against active warehouses (full-length steps)", XLabel: "active warehouses", YLabel: "tpmC", Height: 300, Lines: tl, XMin: &zero, YZero: true, XWhole: true}.svg())
	p.raw(chart{Title: "Efficiency against active warehouses (full-length steps)", XLabel: "active warehouses", YLabel: "efficiency %", Height: 260, Lines: el, XMin: &zero, YZero: true, XWhole: true}.svg())
	p.para("One line per run, coloured by database; filled markers: compliant steps.")
}

// curveLines are one tpmC line and one efficiency line per run through its full-length steps,
// coloured by database (the colour of its bar; a run of a database without one takes the next
// colour), dashed when the run before it is of the same database; compliant steps marked.
func curveLines(c Comparison, curves []Curve) (tpmC, efficiency []line) {
	dbColor := map[string]string{}
	for i, d := range c.Results {
		dbColor[d.Database] = color(i)
	}
	for i, cv := range curves {
		col := dbColor[cv.Database]
		if col == "" {
			col = color(len(c.Results) + i)
		}
		t := line{Name: cv.Run, Color: col, Markers: true, Dashed: i > 0 && curves[i-1].Database == cv.Database}
		e := line{Name: t.Name, Color: t.Color, Markers: true, Dashed: t.Dashed}
		for _, s := range sortedFull(cv.Steps) {
			title := fmt.Sprintf("%s step %d: %d active warehouses, %.1f tpmC, %.2f%%, %s", cv.Run, s.Index, s.ActiveWarehouses, s.TpmC, s.Efficiency,
				verdictPhrase(s))
			t.Points = append(t.Points, point{X: float64(s.ActiveWarehouses), Y: s.TpmC, Marked: s.Compliant, Title: title})
			e.Points = append(e.Points, point{X: float64(s.ActiveWarehouses), Y: s.Efficiency, Marked: s.Compliant, Title: title})
		}
		tpmC, efficiency = append(tpmC, t), append(efficiency, e)
	}
	return tpmC, efficiency
}

// comparisonRuns is the "Runs" table: every run of the comparison.
func comparisonRuns(p *page, c Comparison) {
	p.h(2, "Runs")
	var rows [][]string
	for _, r := range c.Runs {
		rows = append(rows, runCells(r))
	}
	p.table([]string{"<run", "<database", "repeat", "<phase", "warehouses", "tpmC", "efficiency %", "<report", "<reason"}, rows, nil)
}

// sortedFull are a run's full-length steps by active warehouses (the last step at a count wins).
func sortedFull(steps []benchv1.StepResult) []benchv1.StepResult {
	byW := map[int32]benchv1.StepResult{}
	for _, s := range steps {
		if s.Kind == "" || s.Kind == benchv1.StepFull {
			byW[s.ActiveWarehouses] = s
		}
	}
	out := make([]benchv1.StepResult, 0, len(byW))
	for _, s := range byW {
		out = append(out, s)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].ActiveWarehouses < out[j-1].ActiveWarehouses; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
