package plan

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/pricing"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// SLACompliance is the SLACompliant condition of a finished run: true when the search found a
// compliant load and every step that applied the run's faults (after the search, at that load)
// held the SLA too — sla.maxUnavailability and the rest. Its reason says whether that load is
// the capacity or a floor under it (result.bound); its message names what failed, or what finds
// the capacity above a floor.
func SLACompliance(run *benchv1.BenchmarkRun, result benchv1.Result) (metav1.ConditionStatus, string, string) {
	if result.Step == nil {
		return metav1.ConditionFalse, "NoCompliantStep", result.Message
	}
	var broken []string
	for _, s := range run.Status.Steps {
		if s.Kind == benchv1.StepFault && s.EffectiveVerdict() == benchv1.VerdictNonCompliant {
			broken = append(broken, fmt.Sprintf("fault step %d at %d active warehouses is not compliant: %s", s.Index, s.ActiveWarehouses, strings.Join(s.Reasons, "; ")))
		}
	}
	if len(broken) > 0 {
		return metav1.ConditionFalse, "FaultStepNonCompliant", result.Message + "; but " + strings.Join(broken, "; ")
	}
	switch result.Bound {
	case benchv1.BoundAllLoadedCompliant:
		return metav1.ConditionTrue, benchv1.ReasonFloorAllLoadedCompliant, result.Message
	case benchv1.BoundStepsExhausted:
		return metav1.ConditionTrue, benchv1.ReasonFloorStepsExhausted, result.Message
	}
	return metav1.ConditionTrue, benchv1.ReasonCompliantStepFound, result.Message
}

// Result is the run's result from the search's decision over its Evidence and the recorded
// steps of run (described: registry.Described). It always rests on conclusive full-length steps: the decision's, or, when
// search.maxSteps stopped the search, the highest compliant full-length step so far.
func Result(run *benchv1.BenchmarkRun, d search.Decision, e Evidence) benchv1.Result {
	warehouses := run.Spec.Workload.Warehouses
	result := benchv1.Result{Precision: benchv1.SearchPrecision(warehouses), MaxCompliantWarehouses: int32(d.MaxCompliant)}
	steps := run.Status.Steps
	best := e.Step(d.CompliantStep)
	if !d.Done { // stopped by search.maxSteps: report the best compliant full step so far
		best = -1
		for _, i := range e.At {
			if s := steps[i]; s.Kind != benchv1.StepProbe && s.EffectiveVerdict() == benchv1.VerdictCompliant &&
				(best < 0 || s.ActiveWarehouses > steps[best].ActiveWarehouses) {
				best = i
			}
		}
	}
	// The search's time: every step it ran, inconclusive ones and their Retries included.
	var searchTime time.Duration
	_, rampUp := workload.Durations(run)
	for _, s := range steps {
		if s.Kind == benchv1.StepFault || s.Kind == benchv1.StepSustain || s.Kind == benchv1.StepAdversity {
			continue
		}
		searchTime += rampUp
		if s.Duration != nil {
			searchTime += s.Duration.Duration
		}
	}
	result.SearchTime = &metav1.Duration{Duration: searchTime}
	switch {
	case best >= 0:
		s := steps[best]
		result.MaxCompliantWarehouses, result.TpmC, result.Efficiency = s.ActiveWarehouses, s.TpmC, s.Efficiency
		result.Step = ptr(s.Index)
		result.RestsOn = append(result.RestsOn, s.Index)
		result.Message = fmt.Sprintf("%d active warehouses compliant: %.1f tpmC, %.2f%% efficiency", s.ActiveWarehouses, s.TpmC, s.Efficiency)
	default:
		result.MaxCompliantWarehouses = 0
		result.Message = "no step was compliant"
	}
	if i := e.Step(d.NonCompliantStep); d.Done && i >= 0 {
		result.RestsOn = append(result.RestsOn, steps[i].Index)
	}
	switch {
	case !d.Done:
		result.Bound = benchv1.BoundStepsExhausted
	case best < 0:
		result.Bound = benchv1.BoundNoneCompliant
	case result.MaxCompliantWarehouses >= warehouses:
		result.Bound = benchv1.BoundAllLoadedCompliant
	default:
		result.Bound = benchv1.BoundBracketed
	}
	if d.Done {
		result.Message += " (" + d.Reason + ")"
	} else {
		result.Message += fmt.Sprintf(" (stopped after search.maxSteps=%d steps, full-length bracket %d..%d)", len(steps), d.HighestCompliant, d.LowestNonCompliant)
	}
	result.Message += floorAdvice(run, result)
	if best >= 0 {
		result.Message += unjudgedClause(steps[best])
	}
	resultEqualTerms(run, &result)
	result.PricePerformance = pricing.ForRun(run, report.DescriptionOf(run), result.TpmC)
	return result
}

// floorAdvice is what a result's message adds when its count is only a floor: that it is one,
// and what finds the capacity. "" for a bracketed result or none.
func floorAdvice(run *benchv1.BenchmarkRun, result benchv1.Result) string {
	switch {
	case result.Bound == benchv1.BoundStepsExhausted && result.Step == nil:
		return "; raise search.maxSteps to let the search find a compliant full-length step"
	case result.Bound == benchv1.BoundStepsExhausted:
		return fmt.Sprintf("; a floor, not a capacity: %s warehouses, no non-compliant full-length step within precision above; raise search.maxSteps to close the bracket",
			result.Bound.Warehouses(result.MaxCompliantWarehouses))
	case result.Bound == benchv1.BoundAllLoadedCompliant && run.Spec.Search.Mode == benchv1.SearchFixed:
		return fmt.Sprintf("; a floor, not a capacity: %s warehouses; load more warehouses and search with mode MaxCompliant to find the limit",
			result.Bound.Warehouses(result.MaxCompliantWarehouses))
	case result.Bound == benchv1.BoundAllLoadedCompliant:
		return fmt.Sprintf("; a floor, not a capacity: %s warehouses", result.Bound.Warehouses(result.MaxCompliantWarehouses))
	}
	return ""
}

// Issue 22, "equal terms": what a step and a result record beside their tpmC — the isolation the
// clients ran at, the Retries inside their transactions, the resource that bounded them, and the
// result divided by the database's resources. Pure functions over what the step recorded.
// resultEqualTerms adds to a result its tpmC per database vCPU and GiB (of the pods the run's
// description counts: run is described, registry.Described) and the resource that
// bounded it: the bottleneck of the step that bounds the result — the non-compliant step above
// it when the search found one, else the result's own step (a Fixed run, or a result at the
// loaded warehouses).
func resultEqualTerms(run *benchv1.BenchmarkRun, result *benchv1.Result) {
	steps := run.Status.Steps
	stepAt := func(index int32) *benchv1.StepResult {
		for i := range steps {
			if steps[i].Index == index {
				return &steps[i]
			}
		}
		return nil
	}
	var own *benchv1.StepResult
	if result.Step != nil {
		own = stepAt(*result.Step)
	}
	result.PerResource = report.PerResourceOf(report.DescriptionOf(run), result.TpmC, own)
	bound := own
	for _, i := range result.RestsOn {
		if s := stepAt(i); s != nil && (own == nil || s.Index != own.Index) {
			bound = s
		}
	}
	switch {
	case bound == nil:
		result.Bottleneck = nil
	case bound.Telemetry == nil || bound.Telemetry.Bottleneck == nil:
		result.Bottleneck = &benchv1.Bottleneck{Resource: benchv1.BottleneckNotDetermined, Step: ptr(bound.Index),
			Evidence: []string{fmt.Sprintf("step %d recorded no telemetry to read", bound.Index)}}
	default:
		result.Bottleneck = bound.Telemetry.Bottleneck.DeepCopy()
		result.Bottleneck.Step = ptr(bound.Index)
	}
}

func ptr[T any](v T) *T { return &v }
