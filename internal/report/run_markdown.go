package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// RunMarkdown is a run's report.md: every step, then the result step's latency table, the
// price-performance (with spec.pricing), the fault steps, the environment and the sizing. It reads
// only the run's status (result may be a partial one for a run still under way).
func RunMarkdown(run *benchv1.BenchmarkRun, result benchv1.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# BenchmarkRun %s/%s — %s\n\n*%s*\n\n%s\n\n", run.Namespace, run.Name, run.Spec.Database.Engine, FairUse, result.Message)
	if s := boundSentence(run, result); s != "" {
		fmt.Fprintf(&b, "%s\n\n", s)
	}
	if s := restsOnSentence(result); s != "" {
		b.WriteString(s)
		if result.SearchTime != nil {
			fmt.Fprintf(&b, "; the search took %s of steps (ramp-ups included)", result.SearchTime.Duration)
		}
		fmt.Fprintf(&b, ".\n\n")
	}
	if s := precisionSentence(run, result); s != "" {
		fmt.Fprintf(&b, "%s\n\n", s)
	}
	if s := SustainedSentence(result.Sustained, run.Status.Steps); s != "" {
		fmt.Fprintf(&b, "%s\n\n", s)
	}
	if s := ConsistencySentence(run.Status.Phase, result.ConsistencyCheck); s != "" {
		fmt.Fprintf(&b, "%s\n\n", s)
	}
	fmt.Fprintf(&b, "%s\n\n", DurabilitySentence(DescriptionOf(run)))
	if s := PoolerSentence(DescriptionOf(run)); s != "" {
		fmt.Fprintf(&b, "%s\n\n", s)
	}
	fmt.Fprintf(&b, "%s\n\n", IsolationSentence(run, result))
	if s := DataOrigin(run); s != "" {
		fmt.Fprintf(&b, "%s\n\n", s)
	}
	fmt.Fprintf(&b, "| step | kind | measured | active warehouses | tpmC | efficiency %% | compliant | NewOrder p90 | Payment p90 | OrderStatus p90 | Delivery p90 | StockLevel p90 | reasons |\n")
	fmt.Fprintf(&b, "|---:|---|---:|---:|---:|---:|:-:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range run.Status.Steps {
		cells := stepCells(s)
		cells[len(cells)-1] = strings.ReplaceAll(cells[len(cells)-1], "|", "/")
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
	}
	if rows := telemetryRows(run.Name, run.Status.Steps); len(rows) > 0 {
		fmt.Fprintf(&b, "\n## Replication, checkpoints and CPU per step\n\n")
		fmt.Fprintf(&b, "| %s |\n|---:|---:|---|---:|---|---|\n", strings.ReplaceAll(strings.Join(telemetryHeader, " | "), "<", ""))
		for _, cells := range rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	if result.Step != nil {
		s := run.Status.Steps[*result.Step]
		fmt.Fprintf(&b, "\n## Response times at %d active warehouses\n\n", s.ActiveWarehouses)
		fmt.Fprintf(&b, "| transaction | count | p50 | p90 | p95 | p99 | max |\n|---|---:|---:|---:|---:|---:|---:|\n")
		for _, t := range benchv1.Transactions {
			ts := s.Transactions[t]
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s |\n", t, ts.Count, Latency(ts.P50.Duration),
				Latency(ts.P90.Duration), Latency(ts.P95.Duration), Latency(ts.P99.Duration), Latency(ts.Max.Duration))
		}
	}
	b.WriteString(equalTermsMarkdown(equalTermsBlocks(run, result)))
	b.WriteString(priceMarkdown(priceBlockOf(run, result)))
	b.WriteString(adversityMarkdown(run))
	b.WriteString(faultSection(run))
	b.WriteString(placementMarkdown(run))
	b.WriteString(environmentSection(run.Status.Environment))
	if run.Status.Database != nil {
		b.WriteString(sizingLine(run.Status.Database.Sizing))
	}
	b.WriteString(resourceSwitchLine(run))
	return b.String()
}

// sizingLine is the Markdown report's line on the settings sized from the database's memory.
func sizingLine(s *benchv1.DatabaseSizing) string {
	if s == nil {
		return ""
	}
	names := make([]string, 0, len(s.Settings))
	for k := range s.Settings {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + "=" + s.Settings[k]
		if slices.Contains(s.UserSet, k) {
			parts[i] += " (the run's)"
		}
	}
	return fmt.Sprintf("- sized from %s of memory (%s) per instance (docs/sizing.md): %s\n", s.Memory.String(), s.MemoryFrom, strings.Join(parts, ", "))
}

// telemetryCells are a step's cells of the database table (Markdown and HTML): index, active
// warehouses, each standby's largest replay lag, checkpoints started, and each database pod's and
// each client pod's peak CPU. ok is false for a step without telemetry.
func telemetryCells(run string, s benchv1.StepResult) (cells []string, ok bool) {
	t := s.Telemetry
	if t == nil {
		return nil, false
	}
	lag, checkpoints, dbCPU, clientCPU := "-", "-", "-", "-"
	var parts []string
	for _, sb := range t.Standbys {
		parts = append(parts, fmt.Sprintf("%s %s", shortPod(run, sb.Name), Latency(sb.MaxReplayLag.Duration)))
	}
	if len(parts) > 0 {
		lag = strings.Join(parts, ", ")
	}
	if t.Checkpoints != nil {
		checkpoints = fmt.Sprint(*t.Checkpoints)
	}
	var db, clients []string
	for _, p := range t.Pods {
		cell := fmt.Sprintf("%s %s", shortPod(run, p.Name), cores(p.PeakCPU))
		if p.Role == "Client" {
			clients = append(clients, cell)
		} else {
			db = append(db, cell)
		}
	}
	if len(db) > 0 {
		dbCPU = strings.Join(db, ", ")
	}
	if len(clients) > 0 {
		clientCPU = strings.Join(clients, ", ")
	}
	return []string{fmt.Sprint(s.Index), fmt.Sprint(s.ActiveWarehouses), lag, checkpoints, dbCPU, clientCPU}, true
}

// telemetryHeader heads the database table; a leading "<" left-aligns a column in HTML.
var telemetryHeader = []string{"step", "active warehouses", "<max replay lag", "checkpoints", "<database pods' peak CPU (cores)", "<client pods' peak CPU (cores)"}

// telemetryRows are the database table's rows, for the steps with telemetry.
func telemetryRows(run string, steps []benchv1.StepResult) [][]string {
	var rows [][]string
	for _, s := range steps {
		if cells, ok := telemetryCells(run, s); ok {
			rows = append(rows, cells)
		}
	}
	return rows
}

// environmentSection is the Markdown report's account of what the figures were measured on.
func environmentSection(env *benchv1.RunEnvironment) string {
	if env == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Environment\n\n- server: %s\n- client %s, operator %s\n", env.ServerVersion, env.ClientVersion, env.OperatorVersion)
	for _, n := range env.Nodes {
		cpu, memory := "", ""
		if n.CPU != nil {
			cpu = n.CPU.String() + " CPU"
		}
		if n.Memory != nil {
			memory = n.Memory.String()
		}
		fmt.Fprintf(&b, "- node %s: kernel %s, %s, %s, %s %s\n", n.Name, n.KernelVersion, n.OSImage, n.ContainerRuntimeVersion, cpu, memory)
	}
	if env.StorageClass != "" {
		fmt.Fprintf(&b, "- storage class %s (%s)\n", env.StorageClass, env.StorageProvisioner)
	}
	if len(env.Settings) > 0 {
		names := make([]string, 0, len(env.Settings))
		for k := range env.Settings {
			names = append(names, k)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, k := range names {
			parts[i] = k + "=" + env.Settings[k]
		}
		fmt.Fprintf(&b, "- settings that differ from the server's defaults: %s\n", strings.Join(parts, ", "))
	}
	return b.String()
}

// VerdictWord is a step's verdict in the reports' "compliant" column: yes, no, or inconclusive (the
// infrastructure failed or data is missing: not evidence either way).
func VerdictWord(s benchv1.StepResult) string {
	if s.EffectiveVerdict() == benchv1.VerdictInconclusive {
		return "inconclusive"
	}
	return yesNo(s.Compliant)
}

// verdictPhrase is a step's verdict in a chart's tooltip.
func verdictPhrase(s benchv1.StepResult) string {
	switch s.EffectiveVerdict() {
	case benchv1.VerdictCompliant:
		return "compliant"
	case benchv1.VerdictInconclusive:
		return "inconclusive: " + strings.Join(s.Reasons, "; ")
	}
	return "not compliant"
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

func joinInt32(v []int32) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, " and ")
}

// shortPod names a database pod in a table cell without the run's name, which every pod's name
// starts with (pg-capacity-db-2 is db-2 in run pg-capacity's report).
func shortPod(run, pod string) string {
	if short, ok := strings.CutPrefix(pod, run+"-"); ok && short != "" {
		return short
	}
	return pod
}

// cores writes a CPU quantity in cores with two decimals (3.90, 0.25).
func cores(q resource.Quantity) string {
	return strconv.FormatFloat(float64(q.MilliValue())/1000, 'f', 2, 64)
}

// stepCells are a step's cells of the Steps table (Markdown and HTML): index, kind, measured,
// active warehouses, tpmC, efficiency, compliant, p90 per transaction and the reasons with the
// client-bound signs; for a compliant step, the checks it left unjudged, each with what judging
// it needs (a compliant verdict on thin evidence says so where it is read).
func stepCells(s benchv1.StepResult) []string {
	measured := ""
	if s.Duration != nil {
		measured = s.Duration.Duration.String()
	}
	kind := s.Kind
	if kind == "" {
		kind = benchv1.StepFull
	}
	row := []string{fmt.Sprint(s.Index), string(kind), measured, fmt.Sprint(s.ActiveWarehouses), fmt.Sprintf("%.1f", s.TpmC), fmt.Sprintf("%.2f", s.Efficiency), VerdictWord(s)}
	for _, t := range benchv1.Transactions {
		row = append(row, Latency(s.Transactions[t].P90.Duration))
	}
	reasons := s.Reasons
	if s.EffectiveVerdict() == benchv1.VerdictCompliant {
		reasons = append(append([]string(nil), reasons...), s.Unjudged...)
	}
	if s.Telemetry != nil {
		reasons = append(append([]string(nil), reasons...), s.Telemetry.ClientBound...)
	}
	return append(row, strings.Join(reasons, "; "))
}

// SustainedSentence says whether the database held the result through its sustained phase, when
// it first broke and with what signals, and the trends: "" without a sustained phase.
func SustainedSentence(r *benchv1.SustainedResult, steps []benchv1.StepResult) string {
	if r == nil {
		return ""
	}
	var rec *benchv1.SustainRecord
	if int(r.Step) < len(steps) {
		rec = steps[r.Step].Sustain
	}
	out := ""
	if r.Held {
		out = fmt.Sprintf("Sustained: the SLA held for %s at %d active warehouses (step %d, %.1f tpmC)", r.Duration.Duration, r.ActiveWarehouses, r.Step, r.TpmC)
	} else {
		out = fmt.Sprintf("Sustained: NOT held — at %d active warehouses (step %d) the SLA first broke %s into the %s phase: %s",
			r.ActiveWarehouses, r.Step, r.BrokeAfter.Duration, r.Duration.Duration, r.Reason)
		if rec != nil && rec.FirstBreach != nil && len(rec.FirstBreach.Signals) > 0 {
			out += "; the database then: " + strings.Join(rec.FirstBreach.Signals, ", ")
		}
		if rec != nil {
			out += fmt.Sprintf("; %d of %d windows of %s broke it", rec.BrokenWindows, rec.Windows, rec.Window.Duration)
		}
	}
	if rec != nil {
		out += fmt.Sprintf(". Trend over the phase: tpmC %+.1f per hour", rec.TpmCSlopePerHour)
		if v, ok := rec.P90SlopeMillisPerHour[benchv1.NewOrder]; ok {
			out += fmt.Sprintf(", New-Order p90 %+.1f ms per hour", v)
		}
	}
	return out + "."
}
