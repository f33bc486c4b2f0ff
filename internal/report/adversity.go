package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// adversityBlock is the account of the run's adversity step, built once for both renderers: the
// states walked, one row each, and the step's ledger and consistency verdicts.
type adversityBlock struct {
	Heading string
	Intro   string
	Header  []string
	Rows    [][]string
	Items   []string
}

// adversityStep is the run's last adversity step with its record, nil when none.
func adversityStep(run *benchv1.BenchmarkRun) *benchv1.StepResult {
	for i := len(run.Status.Steps) - 1; i >= 0; i-- {
		if s := &run.Status.Steps[i]; s.Kind == benchv1.StepAdversity && s.Adversity != nil {
			return s
		}
	}
	return nil
}

// adversityBlockOf is the run's resilience profile, nil without an adversity step.
func adversityBlockOf(run *benchv1.BenchmarkRun) *adversityBlock {
	s := adversityStep(run)
	if s == nil {
		return nil
	}
	a := s.Adversity
	b := &adversityBlock{Heading: fmt.Sprintf("Resilience profile (step %d, %d active warehouses)", s.Index, s.ActiveWarehouses),
		Intro: fmt.Sprintf("One step walked %d states, each held %s and followed by %s of recovery; each row's figures cover its state and the recovery after it. "+
			"Without a commit: the longest stretch in which no client got a writing transaction committed, from the commit ledger. "+
			"Recovered after: from the end of the disruption (a deletion, a network fault's heal) until New-Orders came back to 90 %% of the Baseline's rate.",
			len(a.States), a.Hold.Duration, a.Recovery.Duration),
		Header: []string{"<state", "from", "tpmC", "vs Baseline", "New-Order p90", "Payment p90", "errors", "without a commit", "recovered after", "<note"}}
	baseline := 0.0
	for _, st := range a.States {
		if st.State == benchv1.AdversityBaseline {
			baseline = st.TpmC
		}
	}
	for _, st := range a.States {
		vs := "—"
		if baseline > 0 && st.State != benchv1.AdversityBaseline {
			vs = fmt.Sprintf("%+.0f %%", (st.TpmC/baseline-1)*100)
		}
		p90 := func(t benchv1.Transaction) string {
			if d, ok := st.P90[t]; ok {
				return Latency(d.Duration)
			}
			return "—"
		}
		without, recovered := "—", "—"
		if st.Unavailability != nil {
			without = st.Unavailability.Duration.String()
		}
		if st.Recovery != nil {
			recovered = st.Recovery.Duration.String()
		} else if st.Injection != nil && baseline > 0 {
			recovered = "not within the state"
		}
		note := st.NotMeasured
		if st.Injection != nil && s.Fault != nil {
			for _, inj := range s.Fault.Injections {
				if inj.Fault == *st.Injection {
					note = strings.TrimSpace(strings.Join([]string{injectionWords(inj), note}, " "))
				}
			}
		}
		b.Rows = append(b.Rows, []string{string(st.State), st.Start.Duration.String(), fmt.Sprintf("%.1f", st.TpmC), vs,
			p90(benchv1.NewOrder), p90(benchv1.Payment), errorWords(st.Errors), without, recovered, note})
	}
	if f := s.Fault; f != nil {
		if l := f.Ledger; l != nil {
			verdict := "passed"
			if !l.Pass {
				verdict = "did not pass: " + strings.Join(append(l.Failures, l.NotChecked...), "; ")
			}
			b.Items = append(b.Items, fmt.Sprintf("New-Order ledger over the whole step: %s (%d acknowledged, %d unknown, d_next_o_id grew by %d)",
				verdict, l.Acknowledged, l.Unknown, l.Growth))
		}
		if f.Consistency != "" {
			b.Items = append(b.Items, "TPC-C consistency conditions after the step: "+f.Consistency)
		}
	}
	return b
}

// injectionWords says, briefly, what a state's fault did to which pods and how.
func injectionWords(inj benchv1.FaultInjection) string {
	pods := inj.Pod
	if len(inj.Pods) > 0 {
		pods = strings.Join(inj.Pods, ", ")
	}
	words := string(inj.Action)
	if pods != "" {
		words += " " + pods
	}
	if inj.Mechanism != "" {
		words += " (" + inj.Mechanism + ")"
	}
	if inj.PrimaryAfter != "" && inj.PromotedTime != nil && inj.Time != nil {
		words += fmt.Sprintf("; %s promoted after %s", inj.PrimaryAfter, inj.PromotedTime.Sub(inj.Time.Time).Round(time.Millisecond))
	}
	if inj.State != benchv1.FaultInjected {
		words += ": " + inj.State
	}
	return words + "."
}

// errorWords lists errors by transaction type, "0" when none.
func errorWords(m map[benchv1.Transaction]int64) string {
	var parts []string
	for t, n := range m {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", t, n))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// adversityMarkdown is the profile's Markdown section.
func adversityMarkdown(run *benchv1.BenchmarkRun) string {
	b := adversityBlockOf(run)
	if b == nil {
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "\n## %s\n\n%s\n\n| %s |\n|%s\n", b.Heading, b.Intro, strings.ReplaceAll(strings.Join(b.Header, " | "), "<", ""),
		strings.Repeat("---|", len(b.Header)))
	for _, r := range b.Rows {
		fmt.Fprintf(&out, "| %s |\n", strings.Join(r, " | "))
	}
	out.WriteString("\n")
	for _, it := range b.Items {
		out.WriteString("- " + it + "\n")
	}
	return out.String()
}

// adversityHTML adds the profile to the page.
func adversityHTML(p *page, run *benchv1.BenchmarkRun) {
	b := adversityBlockOf(run)
	if b == nil {
		return
	}
	p.h(2, b.Heading)
	p.para(b.Intro)
	p.table(b.Header, b.Rows, nil)
	p.list(b.Items)
}

// adversityBands are the states of an adversity step on its time axis (at: minutes of a moment).
func adversityBands(s benchv1.StepResult, at func(time.Time) float64) []band {
	if s.Adversity == nil || s.StartTime == nil {
		return nil
	}
	var out []band
	for _, st := range s.Adversity.States {
		from := s.StartTime.Add(st.Start.Duration)
		out = append(out, band{From: at(from), To: at(from.Add(s.Adversity.Hold.Duration)), Color: adversityColor, Vertical: true,
			Label: string(st.State), Title: fmt.Sprintf("%s: %.1f tpmC", st.State, st.TpmC)})
	}
	return out
}
