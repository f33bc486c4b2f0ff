package sla

import (
	"fmt"
	"slices"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Status is the outcome of one check.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	// Skipped: a TPC-C mix minimum or audit window not judged for too few transactions (Clause
	// 9.2's statistical windows need a sample size), or a mix share below its minimum by no more
	// than the deck's sampling. It never makes a step non-compliant; it makes the step not
	// spec-compliant, and Verdict.Unjudged names it with what judging it needs.
	Skipped Status = "skipped"
	// Inconclusive: a criterion the run asked for could not be judged because its data is
	// missing (a latency bound with no sample of its type in a full-length step, a replication
	// bound with no telemetry sample, a standby's lag unknown). Missing data never passes: the
	// step is not compliant, and unless another check failed it is no evidence either way.
	Inconclusive Status = "inconclusive"
)

// Check is one rule applied to a step, with a detail that names the measured
// figure and its bound, e.g. "NewOrder p90 6.2s > 5s".
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	// unjudged is a Skipped check's line in Verdict.Unjudged: what was not judged and what
	// judging it needs. Checks skipped for one cause share one line.
	unjudged string
}

// Verdict is the judgement of a step.
//
// Compliant is the SLA answer the search uses: every check passed or was
// skipped. Inconclusive says no check failed but at least one could not be
// judged for missing data: the step is then neither compliant nor evidence of
// non-compliance (Reasons name what is missing). A failed check wins over a
// missing one: what was measured already breaks the SLA. SpecCompliant
// additionally requires what a TPC-C result needs and an SLA search does not:
// spec waits, a measured interval of at least two hours (Clause 5.5) and every
// audit judged; Notes says which of those are missing. Reasons are the details
// of the failed checks (or, when Inconclusive, of the unjudged ones), in check
// order.
//
// Unjudged names, one line per cause, the checks that were skipped — a step
// compliant with them skipped rests on less evidence than one that passed
// them all — each with what judging it needs: "mix minimums and audit windows
// not checked (4120 transactions, 10000 needed)". A result that rests on the
// step repeats them (docs/snapshot-api.md, "Thin evidence").
type Verdict struct {
	Compliant     bool     `json:"compliant"`
	Inconclusive  bool     `json:"inconclusive,omitempty"`
	SpecCompliant bool     `json:"specCompliant"`
	Reasons       []string `json:"reasons"`
	Notes         []string `json:"notes,omitempty"`
	Unjudged      []string `json:"unjudged,omitempty"`
	Checks        []Check  `json:"checks"`
}

// SpecMeasurementInterval is the shortest measured interval of a reportable
// TPC-C result (Clause 5.5).
const SpecMeasurementInterval = 2 * time.Hour

// Judge applies c to the merged snapshots of a step.
func Judge(m *snapshot.Merged, c Criteria) (Verdict, error) {
	if err := c.Validate(); err != nil {
		return Verdict{}, fmt.Errorf("sla criteria: %w", err)
	}
	if err := checkMerged(m); err != nil {
		return Verdict{}, err
	}
	sum := m.Summarize()
	var checks []Check
	checks = append(checks, runChecks(m, sum)...)
	for _, b := range c.Latency {
		mt := m.Transactions[b.Transaction]
		ch := latencyCheck(mt, b)
		if mt.Completed()+mt.Errors == 0 && sum.TotalCompleted < c.MinAuditTransactions {
			// A short or small step may not attempt a 4 % type at all. The bound was asked
			// for and cannot be judged: the step is inconclusive, never compliant — unless the
			// step only narrows a search (a probe), where an unjudged bound is no evidence
			// either way and the full-length step that confirms it judges it.
			ch = unmeasured(ch.Name, b.Transaction, c.UnmeasuredBoundsSkipped)
		}
		checks = append(checks, ch)
	}
	checks = append(checks, efficiencyCheck(sum, c.MinEfficiencyPercent))
	checks = append(checks, errorCheck(sum, c.MaxErrorPercent))
	checks = append(checks, typeErrorChecks(sum, c.MaxErrorPercent)...)
	checks = append(checks, mixChecks(m, sum, c.MinAuditTransactions)...)
	checks = append(checks, auditChecks(sum, c.MinAuditTransactions)...)
	checks = append(checks, constantsCheck(m.Constants))
	return verdictOf(m, checks), nil
}

// checkMerged rejects a merge Judge cannot read; snapshot.Merge never builds one.
func checkMerged(m *snapshot.Merged) error {
	if m.ActiveWarehouses < 1 {
		return fmt.Errorf("merged snapshot: activeWarehouses %d, must be >= 1", m.ActiveWarehouses)
	}
	for _, t := range snapshot.Transactions {
		if mt := m.Transactions[t]; mt == nil || mt.Histogram == nil {
			return fmt.Errorf("merged snapshot: transactions.%s is missing", t)
		}
	}
	return nil
}

func verdictOf(m *snapshot.Merged, checks []Check) Verdict {
	v := tally(checks)
	skipped := 0
	for _, ch := range checks {
		if ch.Status == Skipped {
			skipped++
		}
	}
	if m.Wait != snapshot.WaitSpec {
		v.SpecCompliant = false
		v.Notes = append(v.Notes, "wait mode none: no keying or think times, not a TPC-C spec-compliant run")
	}
	if m.Measured < SpecMeasurementInterval {
		v.SpecCompliant = false
		v.Notes = append(v.Notes, fmt.Sprintf("measured interval %s is shorter than the %s of a reportable TPC-C result (Clause 5.5)",
			formatDuration(m.Measured), formatDuration(SpecMeasurementInterval)))
	}
	if skipped > 0 {
		v.SpecCompliant = false
		v.Notes = append(v.Notes, fmt.Sprintf("%d checks skipped for too few samples", skipped))
	}
	v.Unjudged = unjudgedLines(checks)
	return v
}

// unjudgedLines are the Unjudged lines of the skipped checks, in check order, each cause once.
func unjudgedLines(checks []Check) []string {
	var out []string
	for _, ch := range checks {
		if ch.Status == Skipped && ch.unjudged != "" && !slices.Contains(out, ch.unjudged) {
			out = append(out, ch.unjudged)
		}
	}
	return out
}

// runChecks covers what makes the figures meaningless whatever the bounds:
// failed pods, missing pods, an empty interval, no New-Order at all.
func runChecks(m *snapshot.Merged, sum snapshot.Summary) []Check {
	var checks []Check
	for _, f := range m.Failures {
		checks = append(checks, Check{Name: "pod " + f.Pod, Status: Fail, Detail: fmt.Sprintf("pod %s failed: %s", f.Pod, f.Message)})
	}
	if m.DrivenWarehouses < m.ActiveWarehouses {
		checks = append(checks, Check{Name: "pods", Status: Fail,
			Detail: fmt.Sprintf("snapshots cover %d of %d active warehouses: pods are missing", m.DrivenWarehouses, m.ActiveWarehouses)})
	} else {
		checks = append(checks, Check{Name: "pods", Status: Pass,
			Detail: fmt.Sprintf("%d pods cover all %d active warehouses", m.Pods, m.ActiveWarehouses)})
	}
	if m.Wait == snapshot.WaitSpec {
		// Clause 4.1: 10 terminals per warehouse. More would raise the
		// ceiling that efficiency is measured against.
		want := snapshot.TerminalsPerWarehouse * m.DrivenWarehouses
		if m.Terminals != want {
			checks = append(checks, Check{Name: "terminals", Status: Fail,
				Detail: fmt.Sprintf("%d terminals drive %d warehouses: spec waits need %d per warehouse (%d)", m.Terminals, m.DrivenWarehouses, snapshot.TerminalsPerWarehouse, want)})
		} else {
			checks = append(checks, Check{Name: "terminals", Status: Pass,
				Detail: fmt.Sprintf("%d terminals, %d per warehouse", m.Terminals, snapshot.TerminalsPerWarehouse)})
		}
	}
	newOrders := sum.Transactions[snapshot.NewOrder].Completed
	switch {
	case m.Measured <= 0:
		checks = append(checks, Check{Name: "measured interval", Status: Fail, Detail: "no measured interval"})
	case newOrders == 0:
		checks = append(checks, Check{Name: "measured interval", Status: Fail,
			Detail: fmt.Sprintf("no New-Order completed in the %s measured interval", formatDuration(m.Measured))})
	default:
		checks = append(checks, Check{Name: "measured interval", Status: Pass,
			Detail: fmt.Sprintf("%d New-Orders in %s", newOrders, formatDuration(m.Measured))})
	}
	return checks
}

// tally is the verdict of a list of checks: compliant when every check passed or was skipped;
// otherwise the failed checks are the reasons, or, when none failed, the inconclusive ones.
func tally(checks []Check) Verdict {
	v := Verdict{Compliant: true, Checks: checks, Reasons: []string{}}
	var missing []string
	for _, ch := range checks {
		switch ch.Status {
		case Fail:
			v.Compliant = false
			v.Reasons = append(v.Reasons, ch.Detail)
		case Inconclusive:
			v.Compliant = false
			missing = append(missing, ch.Detail)
		}
	}
	if !v.Compliant && len(v.Reasons) == 0 {
		v.Inconclusive, v.Reasons = true, missing
	}
	v.SpecCompliant = v.Compliant
	return v
}

func efficiencyCheck(sum snapshot.Summary, minPercent float64) Check {
	detail := fmt.Sprintf("efficiency %.2f%% (%.1f tpmC on %d warehouses)", sum.EfficiencyPercent, sum.TpmC, sum.ActiveWarehouses)
	if sum.EfficiencyPercent >= minPercent {
		return Check{Name: "efficiency", Status: Pass, Detail: fmt.Sprintf("%s ≥ %g%%", detail, minPercent)}
	}
	return Check{Name: "efficiency", Status: Fail, Detail: fmt.Sprintf("%s < %g%%", detail, minPercent)}
}

func errorCheck(sum snapshot.Summary, maxPercent float64) Check {
	detail := fmt.Sprintf("errors %.3f%% (%d of %d transactions)", sum.ErrorPercent, sum.TotalErrors, sum.TotalErrors+sum.TotalCompleted)
	if sum.ErrorPercent <= maxPercent {
		return Check{Name: "errors", Status: Pass, Detail: fmt.Sprintf("%s ≤ %g%%", detail, maxPercent)}
	}
	return Check{Name: "errors", Status: Fail, Detail: fmt.Sprintf("%s > %g%%", detail, maxPercent)}
}

// MixMinimumPercent is the TPC-C minimum share of each type (Clause 5.2.3);
// New-Order has none.
var MixMinimumPercent = map[snapshot.Transaction]float64{
	snapshot.Payment: 43, snapshot.OrderStatus: 4, snapshot.Delivery: 4, snapshot.StockLevel: 4,
}

// mixSamplingSDs is how many standard deviations of the deck's sampling a share below its minimum
// must also be below the deck's own share to fail: a false failure about once in 30 000 checks.
const mixSamplingSDs = 4

// mixChecks applies the mix minimums (Clause 5.2.3) once the step has MinAuditTransactions
// completed transactions. A driver meets them with a deck that has a margin above the minimums
// (research/tpcc-rules.md §7 item 8; snapshot.DeckCards), but a step's counted draws are not whole
// passes: each pod's window cuts a partial pass at both ends, so a share lands below its deck's
// by sampling alone — below the minimum in 4.7 % of 10 000-transaction steps of four pods. A
// share below the minimum therefore fails only when it is also more than mixSamplingSDs standard
// deviations of that sampling below the deck's share (the database or the driver skewed the mix);
// within them it is not judged (Skipped, naming the sampling), as too few transactions are not.
func mixChecks(m *snapshot.Merged, sum snapshot.Summary, minTransactions int64) []Check {
	var checks []Check
	for _, t := range snapshot.Transactions {
		minimum, ok := MixMinimumPercent[t]
		if !ok {
			continue
		}
		name := fmt.Sprintf("mix %s", t)
		share := sum.MixPercent[t]
		deck := snapshot.DeckShare(t)
		sd := snapshot.DeckSamplingSD(t, sum.TotalCompleted, m.Pods, m.Terminals)
		switch {
		case sum.TotalCompleted < minTransactions:
			checks = append(checks, gated(name, sum.TotalCompleted, minTransactions))
		case share >= minimum:
			checks = append(checks, Check{Name: name, Status: Pass, Detail: fmt.Sprintf("%s %.2f%% ≥ %g%%", name, share, minimum)})
		case share >= deck-mixSamplingSDs*sd:
			checks = append(checks, Check{Name: name, Status: Skipped, Detail: fmt.Sprintf(
				"%s %.2f%% < %g%%: skipped: within %d standard deviations (%.2f points each) of the deck's %.1f%% over %d transactions from %d pods: the deck's sampling, not a skewed mix; a longer step judges it",
				name, share, minimum, mixSamplingSDs, sd, deck, sum.TotalCompleted, max(m.Pods, 1)),
				unjudged: fmt.Sprintf("%s not judged (%.2f%% < %g%%, within the deck's sampling over %d transactions)", name, share, minimum, sum.TotalCompleted)})
		default:
			checks = append(checks, Check{Name: name, Status: Fail, Detail: fmt.Sprintf("%s %.2f%% < %g%%", name, share, minimum)})
		}
	}
	return checks
}

// constantsCheck applies Clause 2.1.6.1 to the C_LAST constants: the run's C
// must differ from the load's by 65..119, excluding 96 and 112, so that
// last-name lookups at run time do not replay the load's name distribution.
func constantsCheck(c snapshot.Constants) Check {
	delta := c.CLastRun - c.CLastLoad
	if delta < 0 {
		delta = -delta
	}
	detail := fmt.Sprintf("C_LAST C-Run %d, C-Load %d: delta %d", c.CLastRun, c.CLastLoad, delta)
	if delta >= 65 && delta <= 119 && delta != 96 && delta != 112 {
		return Check{Name: "C-Run constant", Status: Pass, Detail: detail + " in 65..119, not 96 or 112"}
	}
	return Check{Name: "C-Run constant", Status: Fail, Detail: detail + " violates Clause 2.1.6.1 (65..119, not 96 or 112)"}
}
