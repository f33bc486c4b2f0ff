package plan

import (
	"math"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/adversity"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
)

// StepFaults are the faults a step of this kind draws its indices from: the adversity step's
// own, or spec.faults.
func StepFaults(run *benchv1.BenchmarkRun, kind benchv1.StepKind, hasPrimary bool) []benchv1.Fault {
	if kind == benchv1.StepAdversity {
		faults, _ := adversity.Faults(run, hasPrimary)
		return faults
	}
	return run.Spec.Faults
}

// AdversityStepPlan says whether the adversity step comes next, and at how many active
// warehouses: adversity.warehouses, or adversity.percent of the largest compliant load (none
// found: no phase), once no conclusive adversity step has run.
func AdversityStepPlan(run *benchv1.BenchmarkRun, d search.Decision) (int32, bool) {
	a := run.Spec.Adversity
	if a == nil {
		return 0, false
	}
	for _, s := range run.Status.Steps {
		if s.Kind == benchv1.StepAdversity && s.EffectiveVerdict() != benchv1.VerdictInconclusive {
			return 0, false
		}
	}
	if a.Warehouses != nil {
		return *a.Warehouses, true
	}
	result := Result(run, d, SearchEvidence(run.Status.Steps))
	if result.Step == nil || result.MaxCompliantWarehouses < 1 {
		return 0, false
	}
	percent := a.Percent
	if percent == 0 {
		percent = adversity.DefaultPercent
	}
	return max(1, int32(math.Round(float64(result.MaxCompliantWarehouses)*float64(percent)/100))), true
}
