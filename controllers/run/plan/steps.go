// Package plan is what a run's steps and result are, from its spec and its recorded steps alone:
// the next step of the search (steps.go), the faults each step applies (faults.go), and the result
// the steps support (result.go). It is pure; the run reconciler (controllers/run) applies and
// observes what it plans.
package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/adversity"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// Step is the step the search asks for next.
type Step struct {
	Index    int32
	Active   int32
	Kind     benchv1.StepKind
	Measured time.Duration
	// Attempt numbers its try (1 + the inconclusive steps recorded last, in a row).
	Attempt int32
	// Faults are the spec.faults it applies (AppliedFaults).
	Faults []int
}

// Next is the run's next step: the search's next over the recorded steps that are evidence
// or, once the search is over (or search.maxSteps reached), a sustained phase at a share of the
// load found (spec.sustain), the adversity phase (spec.adversity) and then the result step's
// faults at its load. done says no step is
// left. A run that cannot go on gets the reason and message it fails with: its SLA or search
// cannot be read, or the same step was inconclusive more than search.retries times in a row.
func Next(run *benchv1.BenchmarkRun) (p Step, done bool, reason, message string) {
	params, err := SearchParams(run)
	if err != nil {
		return p, false, "InvalidSLA", err.Error()
	}
	evidence := SearchEvidence(run.Status.Steps)
	decision, err := search.Next(params, evidence.Outcomes)
	if err != nil {
		return p, false, "SearchInconsistent", err.Error()
	}
	p.Index = int32(len(run.Status.Steps))
	if decision.Done || int32(len(evidence.Outcomes)) >= maxSteps(run) {
		if warehouses, ok := SustainStepPlan(run, decision); ok {
			p.Active, p.Kind, p.Measured = warehouses, benchv1.StepSustain, run.Spec.Sustain.Duration.Duration
		} else if warehouses, ok := AdversityStepPlan(run, decision); ok {
			p.Active, p.Kind, p.Measured = warehouses, benchv1.StepAdversity, adversity.Measured(run)
		} else if warehouses, ok := FaultStepPlan(run, decision); ok {
			p.Active, p.Kind = warehouses, benchv1.StepFault
			p.Measured, _ = workload.Durations(run)
		} else {
			return p, true, "", ""
		}
	} else {
		p.Active = int32(decision.Run)
		p.Kind, p.Measured = stepLength(run, decision.Kind)
	}
	p.Attempt = attemptOf(run.Status.Steps)
	if p.Attempt > Retries(run)+1 {
		return p, false, benchv1.ReasonInfrastructureFailed, infrastructureFailure(run)
	}
	p.Faults = AppliedFaults(run, p.Kind)
	return p, false, "", ""
}

// SearchParams maps spec.search (and the SLA thresholds the guided search estimates with, and the
// steps' lengths it chooses its shape from) onto the search's parameters.
func SearchParams(run *benchv1.BenchmarkRun) (search.Params, error) {
	p := search.Params{Mode: search.MaxCompliant, Strategy: search.Guided, Warehouses: int(run.Spec.Workload.Warehouses)}
	if run.Spec.Search.Mode == benchv1.SearchFixed {
		p.Mode = search.Fixed
	}
	if run.Spec.Search.Strategy == benchv1.SearchLineSearch {
		p.Strategy = search.LineSearch
	}
	if s := run.Spec.Search.StartWarehouses; s != nil {
		p.Start = int(*s)
	}
	duration, rampUp := workload.Durations(run)
	p.Probes = workload.ProbeDuration(run) < duration
	p.StepTime, p.ProbeTime = rampUp+duration, rampUp+workload.ProbeDuration(run)
	criteria, err := SLACriteria(run)
	if err != nil {
		return p, err
	}
	p.MinEfficiencyPercent, p.MaxErrorPercent = criteria.MinEfficiencyPercent, criteria.MaxErrorPercent
	return p, nil
}

// stepLength is the kind and measured length of a step the search chose.
func stepLength(run *benchv1.BenchmarkRun, kind search.Kind) (benchv1.StepKind, time.Duration) {
	if kind == search.Probe {
		return benchv1.StepProbe, workload.ProbeDuration(run)
	}
	duration, _ := workload.Durations(run)
	return benchv1.StepFull, duration
}

func maxSteps(run *benchv1.BenchmarkRun) int32 {
	if run.Spec.Search.MaxSteps > 0 {
		return run.Spec.Search.MaxSteps
	}
	return 20
}

// Evidence is what the search replays: the conclusive steps it counts (all but inconclusive
// steps and the fault step after it), as outcomes, and the index in status.steps of each.
type Evidence struct {
	Outcomes []search.StepOutcome
	At       []int
}

// Step is the index in status.steps of the evidence's i-th step, -1 for -1.
func (e Evidence) Step(i int) int {
	if i < 0 || i >= len(e.At) {
		return -1
	}
	return e.At[i]
}

// SearchEvidence picks the search's Evidence from the recorded steps.
func SearchEvidence(steps []benchv1.StepResult) Evidence {
	var e Evidence
	for i, s := range steps {
		if s.Kind == benchv1.StepFault || s.Kind == benchv1.StepSustain || s.Kind == benchv1.StepAdversity || s.EffectiveVerdict() == benchv1.VerdictInconclusive {
			continue
		}
		e.Outcomes = append(e.Outcomes, outcomes(steps[i : i+1])[0])
		e.At = append(e.At, i)
	}
	return e
}

// attemptOf numbers the next step's try: 1 + the inconclusive steps recorded last, in a row (the
// next step repeats theirs: they were no Evidence).
func attemptOf(steps []benchv1.StepResult) int32 {
	n := int32(1)
	for i := len(steps) - 1; i >= 0 && steps[i].EffectiveVerdict() == benchv1.VerdictInconclusive; i-- {
		n++
	}
	return n
}

// Retries is search.retries with its default.
func Retries(run *benchv1.BenchmarkRun) int32 {
	if r := run.Spec.Search.Retries; r != nil {
		return *r
	}
	return 2
}

// infrastructureFailure says why the run fails after its Retries: the causes of the inconclusive
// steps in a row.
func infrastructureFailure(run *benchv1.BenchmarkRun) string {
	steps := run.Status.Steps
	var causes []string
	for i := len(steps) - 1; i >= 0 && steps[i].EffectiveVerdict() == benchv1.VerdictInconclusive; i-- {
		causes = append([]string{fmt.Sprintf("step %d: %s", steps[i].Index, strings.Join(steps[i].Reasons, "; "))}, causes...)
	}
	last := steps[len(steps)-1]
	return fmt.Sprintf("the infrastructure failed, not the database: the step at %d active warehouses (%s) was inconclusive %d times in a row (search.retries %d), so no capacity is published: %s",
		last.ActiveWarehouses, last.Kind, len(causes), Retries(run), strings.Join(causes, " | "))
}

func outcomes(steps []benchv1.StepResult) []search.StepOutcome {
	out := make([]search.StepOutcome, len(steps))
	for i, s := range steps {
		out[i] = search.StepOutcome{ActiveWarehouses: int(s.ActiveWarehouses), Compliant: s.Compliant, Kind: search.Full}
		if s.Kind == benchv1.StepProbe {
			out[i].Kind = search.Probe
		}
		var completed int64
		for _, t := range s.Transactions {
			completed += t.Count
		}
		if completed > 0 { // a step that failed to measure has no figures
			out[i].Measured = true
			out[i].EfficiencyPercent, out[i].LatencyRatio = s.Efficiency, s.LatencyRatio
			out[i].ErrorPercent = 100 * float64(s.Errors) / float64(completed+s.Errors)
		}
	}
	return out
}

// SLACriteria maps spec.sla onto the verdict's criteria.
func SLACriteria(run *benchv1.BenchmarkRun) (sla.Criteria, error) {
	c := sla.DefaultCriteria()
	spec := run.Spec.SLA
	if spec.MinEfficiencyPercent != nil {
		c.MinEfficiencyPercent = float64(*spec.MinEfficiencyPercent)
	}
	if spec.MaxErrorPercent != "" {
		v, err := strconv.ParseFloat(spec.MaxErrorPercent, 64)
		if err != nil {
			return c, fmt.Errorf("spec.sla.maxErrorPercent %q: %w", spec.MaxErrorPercent, err)
		}
		c.MaxErrorPercent = v
	}
	if len(spec.Latency) > 0 {
		c.Latency = nil
		for i, b := range spec.Latency {
			p, err := strconv.ParseFloat(b.Percentile, 64)
			if err != nil {
				return c, fmt.Errorf("spec.sla.latency[%d].percentile %q: %w", i, b.Percentile, err)
			}
			c.Latency = append(c.Latency, sla.LatencyBound{Transaction: snapshot.Transaction(b.Transaction), Percentile: p, Max: b.Max.Duration})
		}
	}
	return c, c.Validate()
}

// A sustained phase (spec.sustain, docs/sustain.md): after the search, one long step at a share of
// the capacity found; internal/measure judges it window by window.

// SustainStepPlan says whether the search's end calls for the sustained step, and at how many
// active warehouses: spec.sustain.percent of the result's, when a compliant load was found and no
// conclusive sustained step has run.
func SustainStepPlan(run *benchv1.BenchmarkRun, d search.Decision) (int32, bool) {
	sp := run.Spec.Sustain
	if sp == nil {
		return 0, false
	}
	for _, s := range run.Status.Steps {
		if s.Kind == benchv1.StepSustain && s.EffectiveVerdict() != benchv1.VerdictInconclusive {
			return 0, false
		}
	}
	result := Result(run, d, SearchEvidence(run.Status.Steps))
	if result.Step == nil || result.MaxCompliantWarehouses < 1 {
		return 0, false
	}
	percent := sp.Percent
	if percent == 0 {
		percent = measure.DefaultSustainPercent
	}
	return max(1, int32(math.Round(float64(result.MaxCompliantWarehouses)*float64(percent)/100))), true
}
