package report

import (
	"fmt"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// faultBlock is the account of one step that applied faults, built once for both renderers:
// what was deleted and what the engine's operator did, the outage the clients saw, the latency in
// the minute after the fault, and the ledger and consistency checks.
type faultBlock struct {
	Heading string
	Items   []string
	// Header and Rows are the latency in the minute after the fault (none when not measured).
	Header []string
	Rows   [][]string
}

// faultBlocks are the run's fault steps, in step order.
func faultBlocks(run *benchv1.BenchmarkRun) []faultBlock {
	var out []faultBlock
	for _, s := range run.Status.Steps {
		f := s.Fault
		if f == nil {
			continue
		}
		fb := faultBlock{Heading: fmt.Sprintf("Faults in step %d (%s, %d active warehouses)", s.Index, s.Kind, s.ActiveWarehouses)}
		for _, inj := range f.Injections {
			line := fmt.Sprintf("%s: %s", inj.Action, inj.State)
			if inj.Pod != "" {
				line += " pod " + inj.Pod
			}
			line += networkFaultText(run, s.Kind, inj)
			if inj.Time != nil && inj.PlannedTime != nil {
				line += fmt.Sprintf(" at %s (planned %s)", inj.Time.UTC().Format(time.RFC3339), inj.PlannedTime.UTC().Format(time.RFC3339))
			}
			if inj.PrimaryAfter != "" && inj.PromotedTime != nil && inj.Time != nil {
				line += fmt.Sprintf("; %s promoted %s after the deletion", inj.PrimaryAfter, inj.PromotedTime.Sub(inj.Time.Time).Round(time.Millisecond))
			}
			if inj.ReadyTime != nil && inj.Time != nil {
				line += fmt.Sprintf("; every instance ready again after %s", inj.ReadyTime.Sub(inj.Time.Time).Round(time.Second))
			}
			if inj.Message != "" {
				line += " — " + inj.Message
			}
			fb.Items = append(fb.Items, line)
		}
		if m := f.Measurement; m != nil && m.NotMeasured != "" {
			fb.Items = append(fb.Items, "unavailability: not measured — "+m.NotMeasured)
		} else if m != nil {
			recovery := "not within the step"
			if m.Recovery != nil {
				recovery = m.Recovery.Duration.String()
			}
			outage := m.Unavailability.Duration.String()
			if m.UnavailableAtEnd {
				outage = "at least " + outage + " (nothing committed again before the step ended)"
			}
			if m.UnavailabilityMethod == "commits" {
				outage += ", from the last commit acknowledged before it to the first after it"
			}
			fb.Items = append(fb.Items, fmt.Sprintf("unavailability (longest stretch without a commit): %s; recovery to 90 %% of %.2f New-Orders/s: %s; New-Orders with an unknown commit outcome: %d",
				outage, m.BaselineNewOrdersPerSecond, recovery, m.CommitsUnknown))
			if len(m.Errors) > 0 {
				var parts []string
				for _, t := range benchv1.Transactions {
					if n := m.Errors[t]; n > 0 {
						parts = append(parts, fmt.Sprintf("%s %d", t, n))
					}
				}
				fb.Items = append(fb.Items, "errors until recovery: "+strings.Join(parts, ", "))
			}
			if len(m.LatencyAfter) > 0 {
				fb.Header = []string{"<minute after the fault", "count", "p50", "p90", "p99", "max"}
				for _, t := range benchv1.Transactions {
					if ts, ok := m.LatencyAfter[t]; ok {
						fb.Rows = append(fb.Rows, []string{string(t), fmt.Sprint(ts.Count), Latency(ts.P50.Duration), Latency(ts.P90.Duration),
							Latency(ts.P99.Duration), Latency(ts.Max.Duration)})
					}
				}
			}
		}
		if l := f.Ledger; l != nil {
			verdict := "passed"
			switch {
			case len(l.Failures) > 0:
				verdict = "FAILED: " + strings.Join(l.Failures, "; ")
			case len(l.NotChecked) > 0:
				verdict = "not checked everywhere (no commit is known lost): " + strings.Join(l.NotChecked, "; ")
			case !l.Pass:
				verdict = "FAILED"
			}
			fb.Items = append(fb.Items, fmt.Sprintf("ledger check over %d districts: %s (%d acknowledged New-Orders, %d unknown, d_next_o_id grew by %d)",
				l.Districts, verdict, l.Acknowledged, l.Unknown, l.Growth))
		}
		if f.Consistency != "" {
			fb.Items = append(fb.Items, "TPC-C consistency conditions after the step: "+f.Consistency)
		}
		out = append(out, fb)
	}
	return out
}

// faultSection is the Markdown of the run's fault steps.
func faultSection(run *benchv1.BenchmarkRun) string {
	var b strings.Builder
	for _, fb := range faultBlocks(run) {
		fmt.Fprintf(&b, "\n## %s\n\n", fb.Heading)
		for _, it := range fb.Items {
			b.WriteString("- " + it + "\n")
		}
		if len(fb.Rows) > 0 {
			fmt.Fprintf(&b, "\n| %s |\n|---|---:|---:|---:|---:|---:|\n", strings.ReplaceAll(strings.Join(fb.Header, " | "), "<", ""))
			for _, r := range fb.Rows {
				fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
