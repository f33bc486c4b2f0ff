package report

import (
	"fmt"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// faultSection is the run report's account of every step that applied faults: what was deleted, what
// the engine's operator did, the outage the clients saw, and the ledger and consistency checks.
func faultSection(run *benchv1.BenchmarkRun) string {
	var b strings.Builder
	for _, s := range run.Status.Steps {
		f := s.Fault
		if f == nil {
			continue
		}
		fmt.Fprintf(&b, "\n## Faults in step %d (%s, %d active warehouses)\n\n", s.Index, s.Kind, s.ActiveWarehouses)
		for _, inj := range f.Injections {
			line := fmt.Sprintf("- %s: %s", inj.Action, inj.State)
			if inj.Pod != "" {
				line += " pod " + inj.Pod
			}
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
			b.WriteString(line + "\n")
		}
		if m := f.Measurement; m != nil {
			recovery := "not within the step"
			if m.Recovery != nil {
				recovery = m.Recovery.Duration.String()
			}
			outage := m.Unavailability.Duration.String()
			if m.UnavailableAtEnd {
				outage = "at least " + outage + " (nothing committed again before the step ended)"
			}
			fmt.Fprintf(&b, "- unavailability (longest stretch without a commit): %s; recovery to 90 %% of %.2f New-Orders/s: %s; New-Orders with an unknown commit outcome: %d\n",
				outage, m.BaselineNewOrdersPerSecond, recovery, m.CommitsUnknown)
			if len(m.Errors) > 0 {
				var parts []string
				for _, t := range benchv1.Transactions {
					if n := m.Errors[t]; n > 0 {
						parts = append(parts, fmt.Sprintf("%s %d", t, n))
					}
				}
				fmt.Fprintf(&b, "- errors until recovery: %s\n", strings.Join(parts, ", "))
			}
			if len(m.LatencyAfter) > 0 {
				fmt.Fprintf(&b, "\n| minute after the fault | count | p50 | p90 | p99 | max |\n|---|---:|---:|---:|---:|---:|\n")
				for _, t := range benchv1.Transactions {
					if ts, ok := m.LatencyAfter[t]; ok {
						fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", t, ts.Count, Latency(ts.P50.Duration), Latency(ts.P90.Duration),
							Latency(ts.P99.Duration), Latency(ts.Max.Duration))
					}
				}
				b.WriteString("\n")
			}
		}
		if l := f.Ledger; l != nil {
			verdict := "passed"
			if !l.Pass {
				verdict = "FAILED: " + strings.Join(l.Failures, "; ")
			}
			fmt.Fprintf(&b, "- ledger check over %d districts: %s (%d acknowledged New-Orders, %d unknown, d_next_o_id grew by %d)\n",
				l.Districts, verdict, l.Acknowledged, l.Unknown, l.Growth)
		}
		if f.Consistency != "" {
			fmt.Fprintf(&b, "- TPC-C consistency conditions after the step: %s\n", f.Consistency)
		}
	}
	return b.String()
}
