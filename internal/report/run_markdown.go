package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// RunMarkdown is a run's report.md: every step, then the result step's latency table, the fault
// steps, the environment and the sizing. It reads only the run's status (result may be a partial
// one for a run still under way).
func RunMarkdown(run *benchv1.BenchmarkRun, result benchv1.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# BenchmarkRun %s/%s — %s\n\n%s\n\n", run.Namespace, run.Name, run.Spec.Database.Engine, result.Message)
	if len(result.RestsOn) > 0 {
		fmt.Fprintf(&b, "The result rests on the full-length steps %s", joinInt32(result.RestsOn))
		if result.SearchTime != nil {
			fmt.Fprintf(&b, "; the search took %s of steps (ramp-ups included)", result.SearchTime.Duration)
		}
		fmt.Fprintf(&b, ".\n\n")
	}
	fmt.Fprintf(&b, "| step | kind | measured | active warehouses | tpmC | efficiency %% | compliant | NewOrder p90 | Payment p90 | OrderStatus p90 | Delivery p90 | StockLevel p90 | max replay lag | checkpoints | peak CPU | reasons |\n")
	fmt.Fprintf(&b, "|---:|---|---:|---:|---:|---:|:-:|---:|---:|---:|---:|---:|---|---:|---|---|\n")
	for _, s := range run.Status.Steps {
		cells := stepCells(s)
		cells[len(cells)-1] = strings.ReplaceAll(cells[len(cells)-1], "|", "/")
		fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
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
	b.WriteString(faultSection(run))
	b.WriteString(environmentSection(run.Status.Environment))
	if run.Status.Database != nil {
		b.WriteString(sizingLine(run.Status.Database.Sizing))
	}
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

// telemetryCells are a step's telemetry columns of the Markdown report: each standby's largest
// replay lag, checkpoints started, each pod's peak CPU, and the reasons with the client-bound signs.
func telemetryCells(s benchv1.StepResult) (lag, checkpoints, cpu string, reasons []string) {
	lag, checkpoints, cpu, reasons = "-", "-", "-", s.Reasons
	t := s.Telemetry
	if t == nil {
		return lag, checkpoints, cpu, reasons
	}
	var parts []string
	for _, sb := range t.Standbys {
		parts = append(parts, fmt.Sprintf("%s %s", sb.Name, Latency(sb.MaxReplayLag.Duration)))
	}
	if len(parts) > 0 {
		lag = strings.Join(parts, ", ")
	}
	if t.Checkpoints != nil {
		checkpoints = fmt.Sprint(*t.Checkpoints)
	}
	parts = nil
	for _, p := range t.Pods {
		parts = append(parts, fmt.Sprintf("%s %s", p.Name, p.PeakCPU.String()))
	}
	if len(parts) > 0 {
		cpu = strings.Join(parts, ", ")
	}
	return lag, checkpoints, cpu, append(append([]string(nil), reasons...), t.ClientBound...)
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

// stepCells are a step's cells of the Steps table (Markdown and HTML): index, kind, measured,
// active warehouses, tpmC, efficiency, compliant, p90 per transaction, the telemetry columns and
// the reasons.
func stepCells(s benchv1.StepResult) []string {
	measured := ""
	if s.Duration != nil {
		measured = s.Duration.Duration.String()
	}
	kind := s.Kind
	if kind == "" {
		kind = benchv1.StepFull
	}
	row := []string{fmt.Sprint(s.Index), string(kind), measured, fmt.Sprint(s.ActiveWarehouses), fmt.Sprintf("%.1f", s.TpmC), fmt.Sprintf("%.2f", s.Efficiency), yesNo(s.Compliant)}
	for _, t := range benchv1.Transactions {
		row = append(row, Latency(s.Transactions[t].P90.Duration))
	}
	lag, checkpoints, cpu, reasons := telemetryCells(s)
	return append(row, lag, checkpoints, cpu, strings.Join(reasons, "; "))
}
