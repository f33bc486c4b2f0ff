package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// JSON is comparison.json: the Comparison, indented.
func JSON(c Comparison) ([]byte, error) {
	return json.MarshalIndent(c, "", "  ")
}

// Markdown is comparison.md: the study's tables — the result per database, the fairness notes,
// the response times per database at the result step, and every run with its report.
func Markdown(c Comparison) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n*%s*\n\n", comparisonTitle(c), FairUse)
	status := fmt.Sprintf("%d of %d runs ended", c.RunsDone, c.RunsPlanned)
	if !c.Complete {
		status += " (in progress)"
	}
	fmt.Fprintf(&b, "%s.", status)
	for _, r := range c.Results {
		if r.Leader {
			fmt.Fprintf(&b, " Leader: **%s** (%s).", r.Database, orDash(r.Versus))
		}
	}
	if s := noLeaderSentence(c); s != "" {
		b.WriteString(" " + s)
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "Every database: %s; %s; %s; %d %s each, interleaved.\n\n",
		workloadWords(c.Workload), slaWords(c.SLA), searchWords(c.Search), c.Repeats, pluralWord(int(c.Repeats), "run", "runs"))

	b.WriteString("## Results\n\n")
	b.WriteString("| database | deployment | runs | max compliant warehouses | tpmC | efficiency % | a commit waits for | vs leader |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---|---|\n")
	for i, r := range c.Results {
		runs := fmt.Sprintf("%d/%d", r.RunsSucceeded, r.Runs)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Database, cell(c.Databases[i].Deployment), runs,
			floorCell(r.Bound, statCell(r.MaxCompliantWarehouses, "%.0f")), floorCell(r.Bound, statCell(r.TpmC, "%.1f")), statCell(r.Efficiency, "%.2f"), cell(r.Durability), cell(orDash(r.Versus)))
	}
	b.WriteString("\nruns: with a result / planned. A figure is the mean over the runs with a result, then (min–max)")
	b.WriteString(fmt.Sprintf(" and, from %d runs on, the 95 %% confidence interval of the mean (Student's t).", MinRunsForInterval))
	b.WriteString(" ≥ marks a floor (a run compliant at every loaded warehouse, or stopped by search.maxSteps): the capacity is at least that, so it is not ranked.\n")

	b.WriteString("\n## Equal terms\n\n")
	header, rows := equalTermsRows(c)
	align := make([]string, len(header))
	for i, h := range header {
		align[i] = "---:"
		if strings.HasPrefix(h, "<") {
			header[i], align[i] = h[1:], "---"
		}
	}
	fmt.Fprintf(&b, "| %s |\n|%s|\n", strings.Join(header, " | "), strings.Join(align, "|"))
	for _, r := range rows {
		for i := range r {
			r[i] = cell(r[i])
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
	}
	b.WriteString("\nisolation: the level every transaction runs at (workload.isolation, or the engine's default). tpmC per vCPU and per GiB divide each run's result by its database pods' requests, or by the sum of their peak use at the result step; the bottleneck is the resource the recorded signals show saturated at each run's result bound.\n")

	if c.priced() {
		b.WriteString("\n## Price-performance\n\n")
		writeMarkdownTable(&b, priceComparisonHeader, priceComparisonRows(c))
		b.WriteString("\n" + priceComparisonWords + PriceDisclaimer + "\n")
	}

	if len(c.Notes) > 0 {
		b.WriteString("\n## Fairness notes\n\n")
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}

	b.WriteString(adversityComparisonMarkdown(c))
	b.WriteString("\n## Response times at the result step\n")
	for _, r := range c.Results {
		fmt.Fprintf(&b, "\n### %s\n\n", r.Database)
		if len(r.Latency) == 0 {
			b.WriteString("No run with a result yet.\n")
			continue
		}
		if r.RunsSucceeded > 1 {
			fmt.Fprintf(&b, "Mean over %d runs of each run's figure at its result step.\n\n", r.RunsSucceeded)
		}
		b.WriteString("| transaction | p50 | p95 | p99 |\n|---|---:|---:|---:|\n")
		for _, t := range benchv1.Transactions {
			l, ok := r.Latency[t]
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t, Latency(l.P50.Duration), Latency(l.P95.Duration), Latency(l.P99.Duration))
		}
	}

	b.WriteString("\n## Runs\n\n")
	b.WriteString("| run | database | repeat | phase | warehouses | tpmC | efficiency % | report | reason |\n")
	b.WriteString("|---|---|---:|---|---:|---:|---:|---|---|\n")
	for _, r := range c.Runs {
		cells := runCells(r)
		cells[len(cells)-1] = cell(cells[len(cells)-1])
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}
	return b.String()
}

// runCells are a suite run's cells of the Runs table (Markdown and HTML): name, database,
// repeat, phase, warehouses, tpmC, efficiency, report, reason.
func runCells(r Run) []string {
	w, t, e := "-", "-", "-"
	if r.Result != nil {
		b := r.Result.Bound
		w, t, e = b.Warehouses(r.Result.MaxCompliantWarehouses), floorCell(b, fmt.Sprintf("%.1f", r.Result.TpmC)), fmt.Sprintf("%.2f", r.Result.Efficiency)
	}
	reason := r.Reason
	if r.Message != "" {
		reason += ": " + r.Message
	}
	return []string{r.Name, r.Database, fmt.Sprint(r.Repeat), orDash(string(r.Phase)), w, t, e, orDash(r.Report), orDash(reason)}
}

// floorCell prefixes a figure of a floor result with "≥".
func floorCell(b benchv1.ResultBound, figure string) string {
	if b.Floor() && figure != "-" {
		return "≥ " + figure
	}
	return figure
}

// noLeaderSentence says why a comparison with results names no leader: a database's result is
// a floor. "" otherwise.
func noLeaderSentence(c Comparison) string {
	if c.Leader != "" {
		return ""
	}
	var floors []string
	for _, r := range c.Results {
		if r.TpmC != nil && r.Bound.Floor() {
			floors = append(floors, fmt.Sprintf("%s (%s)", r.Database, floorWords(r)))
		}
	}
	if len(floors) == 0 {
		return ""
	}
	return fmt.Sprintf("No leader: %s %s a floor, not a capacity, which may be above any other's.", strings.Join(floors, ", "), pluralWord(len(floors), "is", "are"))
}

// statCell is "mean" for one value, "mean (min–max)" for several, and with an interval
// "mean ± half (95 % CI low–high; min–max)".
func statCell(s *benchv1.Statistic, format string) string {
	if s == nil {
		return "-"
	}
	f := func(v float64) string { return fmt.Sprintf(format, v) }
	switch {
	case s.CI95 != nil:
		return fmt.Sprintf("%s ± %s (95 %% CI %s–%s; %s–%s)", f(s.Mean), f((s.CI95.High-s.CI95.Low)/2), f(s.CI95.Low), f(s.CI95.High), f(s.Min), f(s.Max))
	case s.Min != s.Max:
		return fmt.Sprintf("%s (%s–%s)", f(s.Mean), f(s.Min), f(s.Max))
	default:
		return f(s.Mean)
	}
}

// Latency formats a response time: milliseconds below a second, seconds above; "-" for none.
func Latency(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}

func workloadWords(w benchv1.WorkloadSpec) string {
	s := fmt.Sprintf("%d warehouses", w.Warehouses)
	if w.Duration != nil {
		s += ", steps of " + w.Duration.Duration.String()
	}
	if w.RampUp != nil {
		s += " after a " + w.RampUp.Duration.String() + " ramp-up"
	}
	if w.Wait != "" {
		s += ", wait " + string(w.Wait)
	}
	return s
}

func slaWords(s benchv1.SLASpec) string {
	var parts []string
	if s.MinEfficiencyPercent != nil {
		parts = append(parts, fmt.Sprintf("efficiency ≥ %d %%", *s.MinEfficiencyPercent))
	}
	for _, l := range s.Latency {
		parts = append(parts, fmt.Sprintf("%s p%s ≤ %s", l.Transaction, l.Percentile, l.Max.Duration))
	}
	if s.MaxReplicationLag != nil {
		parts = append(parts, "standby replay lag ≤ "+s.MaxReplicationLag.Duration.String())
	}
	if len(parts) == 0 {
		return "the default SLA"
	}
	return "SLA " + strings.Join(parts, ", ")
}

func searchWords(s benchv1.SearchSpec) string {
	if s.Mode == benchv1.SearchFixed {
		return "one step at the loaded warehouses"
	}
	w := "search MaxCompliant"
	if s.Strategy != "" {
		w += " (" + string(s.Strategy) + ")"
	}
	return w
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cell keeps a Markdown table cell on its row.
func cell(s string) string { return strings.ReplaceAll(OneLine(s), "|", "/") }

// OneLine is s on one line, every run of white space (newlines, tabs) one space: a reason quoted
// from a driver's error (pgx names each host it tried on a line of its own) in a cell of a table.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// comparisonTitle names a suite's comparison, or a comparison of runs (no suite).
func comparisonTitle(c Comparison) string {
	if c.Suite == "" {
		names := make([]string, len(c.Runs))
		for i, r := range c.Runs {
			names[i] = r.Name
		}
		return fmt.Sprintf("Comparison of BenchmarkRuns %s/%s", c.Namespace, strings.Join(names, ", "))
	}
	return fmt.Sprintf("BenchmarkSuite %s/%s", c.Namespace, c.Suite)
}
