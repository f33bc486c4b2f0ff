package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/failure"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

// The status views are pure: they render an object as read at now.

// runStatus is `kubectl tpcc status RUN`: the phase, the load, the current step with elapsed and
// remaining time, its live tpmC and p90 per transaction, the steps so far and the result with its
// price-performance.
func runStatus(run *benchv1.BenchmarkRun, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BenchmarkRun %s/%s (%s): %s\n", run.Namespace, run.Name, run.Spec.Database.Engine, phaseOf(run.Status.Phase))
	if l := run.Status.Load; l != nil {
		fmt.Fprintf(&b, "load: %s\n", loadWords(l, now))
	}
	if s := report.DataOrigin(run); s != "" {
		fmt.Fprintf(&b, "%s\n", strings.TrimSuffix(strings.Replace(s, "Data: ", "data: ", 1), "."))
	}
	if c := run.Status.Current; c != nil {
		fmt.Fprintf(&b, "current: %s\n", currentWords(c, now))
		if p90 := p90Words(c.P90); p90 != "" {
			fmt.Fprintf(&b, "  p90 %s\n", p90)
		}
	}
	if len(run.Status.Steps) > 0 {
		fmt.Fprintf(&b, "steps so far:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  STEP\tKIND\tWAREHOUSES\tTPMC\tEFFICIENCY\tCOMPLIANT\tNEWORDER P90\tREASONS\n")
		for _, s := range run.Status.Steps {
			kind := s.Kind
			if kind == "" {
				kind = benchv1.StepFull
			}
			compliant := report.VerdictWord(s)
			fmt.Fprintf(tw, "  %d\t%s\t%d\t%.1f\t%.2f%%\t%s\t%s\t%s\n", s.Index, kind, s.ActiveWarehouses, s.TpmC, s.Efficiency, compliant,
				report.Latency(s.Transactions[benchv1.NewOrder].P90.Duration), report.OneLine(strings.Join(s.Reasons, "; ")))
		}
		_ = tw.Flush()
	}
	if r := run.Status.Result; r != nil {
		fmt.Fprintf(&b, "result: %s\n", r.Message)
		fmt.Fprintf(&b, "bound: %s\n", boundWords(r, run.Spec.Workload.Warehouses))
		if s := report.ConsistencySentence(run.Status.Phase, r.ConsistencyCheck); s != "" {
			fmt.Fprintf(&b, "check: %s\n", s)
		}
		if s := report.PriceSentence(run, *r); s != "" {
			fmt.Fprintf(&b, "price-performance: %s\n", s)
		}
	}
	if words := placementWords(run); words != "" {
		fmt.Fprintf(&b, "placement: %s\n", words)
	}
	for _, flag := range report.PlacementFlags(run) {
		fmt.Fprintf(&b, "warning: %s\n", flag)
	}
	if run.Status.Phase == benchv1.PhaseFailed {
		for _, c := range run.Status.Conditions {
			if c.Type == benchv1.ConditionFailed && c.Status == "True" {
				fmt.Fprintf(&b, "failed: %s: %s\n", c.Reason, c.Message)
				if hint := failure.Hint(c.Reason, run.Name); hint != "" {
					fmt.Fprintf(&b, "hint: %s (docs/troubleshooting.md)\n", hint)
				}
			}
		}
	}
	if r := run.Status.Report; r != nil {
		fmt.Fprintf(&b, "report: ConfigMap %s (kubectl tpcc report %s -o html -f %s.html)\n", r.ConfigMapName, run.Name, run.Name)
	}
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionResultsRecorded); c != nil {
		fmt.Fprintf(&b, "results database: %s\n", c.Message)
	}
	return b.String()
}

// placementWords is where the latest step that recorded its placement ran: each database pod's
// node (the primary marked) and the client pods' nodes.
func placementWords(run *benchv1.BenchmarkRun) string {
	for i := len(run.Status.Steps) - 1; i >= 0; i-- {
		p := run.Status.Steps[i].Placement
		if p == nil {
			continue
		}
		var db, clients []string
		for _, pod := range p.Pods {
			w := pod.Name + " on " + orDash(pod.Node)
			if pod.Name == p.Primary {
				w += " (primary)"
			}
			if pod.Role == benchv1.RoleClient {
				clients = append(clients, w)
			} else {
				db = append(db, w)
			}
		}
		return fmt.Sprintf("step %d: database %s; clients %s", run.Status.Steps[i].Index, orDash(strings.Join(db, ", ")), orDash(strings.Join(clients, ", ")))
	}
	return ""
}

// runLine is the one-line progress of a run that status -w prints on each change: phase, load,
// the running step with its live figures, the steps recorded.
func runLine(run *benchv1.BenchmarkRun, now time.Time) string {
	parts := []string{phaseOf(run.Status.Phase)}
	if l := run.Status.Load; l != nil && run.Status.Phase == benchv1.PhaseLoading {
		parts = append(parts, loadWords(l, now))
		// Loaded under postgres.loadResources: the instances restart onto the measured resources.
		if switching := run.Status.ResourceSwitchMessage(); switching != "" {
			parts = append(parts, switching)
		}
	}
	// Between steps: the next one waits for the database to be ready again.
	if waiting := run.Status.DatabaseWaitMessage(); waiting != "" {
		parts = append(parts, waiting)
	}
	// After the last step: back onto postgres.loadResources for the consistency check.
	if restoring := run.Status.ResourceRestoreMessage(); restoring != "" {
		parts = append(parts, restoring)
	}
	if c := run.Status.Current; c != nil {
		s := currentWords(c, now)
		if p90 := p90Words(c.P90); p90 != "" {
			s += ", p90 " + p90
		}
		parts = append(parts, s)
	}
	if n := len(run.Status.Steps); n > 0 {
		parts = append(parts, fmt.Sprintf("%d step(s) recorded", n))
	}
	return strings.Join(parts, " — ")
}

// runKey is what makes a change worth a line at once (phase, step, steps recorded); live figures
// only refresh the line every so often.
func runKey(run *benchv1.BenchmarkRun) string {
	key := fmt.Sprintf("%s|%d|%t|%t", run.Status.Phase, len(run.Status.Steps), run.Status.DatabaseWaitMessage() != "", run.Status.ResourceRestoreMessage() != "")
	if c := run.Status.Current; c != nil {
		key += fmt.Sprintf("|%d|%t", c.Index, c.StartTime != nil)
	}
	return key
}

func phaseOf(p benchv1.Phase) string {
	if p == "" {
		return string(benchv1.PhasePending)
	}
	return string(p)
}

func loadWords(l *benchv1.LoadStatus, now time.Time) string {
	s := fmt.Sprintf("%d/%d warehouses loaded", l.WarehousesLoaded, l.Warehouses)
	switch {
	case l.CompletionTime != nil && l.StartTime != nil:
		s += fmt.Sprintf(" in %s", l.CompletionTime.Sub(l.StartTime.Time).Round(time.Second))
	case l.StartTime != nil:
		s += fmt.Sprintf(", %s so far", now.Sub(l.StartTime.Time).Round(time.Second))
	}
	return s
}

// currentWords describes the step under way: elapsed of planned, remaining, live tpmC.
func currentWords(c *benchv1.StepProgress, now time.Time) string {
	kind := c.Kind
	if kind == "" {
		kind = benchv1.StepFull
	}
	s := fmt.Sprintf("step %d (%s, %d active warehouses, %d pods)", c.Index, kind, c.ActiveWarehouses, c.Pods)
	if c.StartTime == nil {
		return s + ": starting (pods starting or ramping up)"
	}
	elapsed := now.Sub(c.StartTime.Time)
	if c.Elapsed != nil && elapsed < c.Elapsed.Duration {
		elapsed = c.Elapsed.Duration
	}
	elapsed = max(0, elapsed).Round(time.Second)
	if c.Duration != nil {
		remaining := max(0, c.Duration.Duration-elapsed).Round(time.Second)
		s += fmt.Sprintf(": %s of %s elapsed, %s remaining", elapsed, c.Duration.Duration, remaining)
	} else {
		s += fmt.Sprintf(": %s elapsed", elapsed)
	}
	if c.TpmC > 0 {
		s += fmt.Sprintf(", tpmC %.1f", c.TpmC)
	}
	return s
}

func p90Words(p90 map[benchv1.Transaction]metav1.Duration) string {
	var parts []string
	for _, t := range benchv1.Transactions {
		if d, ok := p90[t]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", t, report.Latency(d.Duration)))
		}
	}
	return strings.Join(parts, ", ")
}

// suiteStatus is `kubectl tpcc status SUITE`: phase, progress, leader, each run, and the current
// run's own status when it is under way.
func suiteStatus(suite *benchv1.BenchmarkSuite, current *benchv1.BenchmarkRun, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BenchmarkSuite %s/%s: %s, %s runs ended", suite.Namespace, suite.Name, phaseOf(suite.Status.Phase), orDash(suite.Status.Progress))
	if suite.Status.Leader != "" {
		fmt.Fprintf(&b, ", leader %s", suite.Status.Leader)
	}
	b.WriteString("\n")
	if len(suite.Status.Runs) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  RUN\tDATABASE\tREPEAT\tPHASE\tWAREHOUSES\tTPMC\tREASON\n")
		for _, r := range suite.Status.Runs {
			w, t := "-", "-"
			if r.Result != nil {
				bound := report.RunBound(r.Result, suite.Spec.Workload.Warehouses)
				w, t = bound.Warehouses(r.Result.MaxCompliantWarehouses), fmt.Sprintf("%.1f", r.Result.TpmC)
				if bound.Floor() {
					t = "≥ " + t
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Name, r.Database, r.Repeat, orDash(string(r.Phase)), w, t, orDash(r.Reason))
		}
		_ = tw.Flush()
	}
	for _, n := range suite.Status.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	hinted := map[string]bool{}
	for _, r := range suite.Status.Runs {
		if r.Phase == benchv1.PhaseFailed && !hinted[r.Reason] {
			hinted[r.Reason] = true
			if hint := failure.Hint(r.Reason, r.Name); hint != "" {
				fmt.Fprintf(&b, "hint for %s (%s): %s\n", r.Name, r.Reason, hint)
			}
		}
	}
	if suite.Status.Phase == benchv1.PhaseFailed {
		for _, c := range suite.Status.Conditions {
			if c.Type == benchv1.ConditionFailed && c.Status == "True" {
				fmt.Fprintf(&b, "failed: %s: %s\n", c.Reason, c.Message)
				if hint := failure.Hint(c.Reason, suite.Name); hint != "" {
					fmt.Fprintf(&b, "hint: %s (docs/troubleshooting.md)\n", hint)
				}
			}
		}
	}
	if current != nil {
		b.WriteString("\n")
		b.WriteString(runStatus(current, now))
	}
	return b.String()
}

// suiteLine is the one-line progress of a suite, with its current run's line.
func suiteLine(suite *benchv1.BenchmarkSuite, current *benchv1.BenchmarkRun, now time.Time) string {
	s := fmt.Sprintf("%s — %s runs ended", phaseOf(suite.Status.Phase), orDash(suite.Status.Progress))
	if current != nil {
		s += " — " + current.Name + ": " + runLine(current, now)
	}
	return s
}

// currentRun is the suite's run under way, if any.
func currentRunName(suite *benchv1.BenchmarkSuite) string {
	for _, r := range suite.Status.Runs {
		if r.StartTime != nil && !report.Final(r.Phase) {
			return r.Name
		}
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// boundWords says what a result's warehouse count is: its bound and, for a floor, what finds the
// capacity; "unknown" for a result recorded before bounds whose figures do not show it.
func boundWords(r *benchv1.Result, loaded int32) string {
	b := r.EffectiveBound(loaded)
	switch b {
	case "":
		return "unknown (recorded before results named their bound)"
	case benchv1.BoundAllLoadedCompliant:
		return fmt.Sprintf("%s — a floor: %s warehouses; load more warehouses to find the capacity", b, b.Warehouses(r.MaxCompliantWarehouses))
	case benchv1.BoundStepsExhausted:
		return fmt.Sprintf("%s — a floor: %s warehouses; raise search.maxSteps to close the bracket", b, b.Warehouses(r.MaxCompliantWarehouses))
	}
	return string(b)
}
