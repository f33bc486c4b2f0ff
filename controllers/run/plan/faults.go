package plan

import (
	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/adversity"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
)

// Faults (spec.faults) are planned with the steps: which steps apply which faults (AppliedFaults),
// and the extra full-length step at the result's load that applies the result step's faults
// (FaultStepPlan). faults_apply.go injects them, faults_observe.go follows what the engine's
// operator did and checks the data after them.

// FaultScope is the scope of a fault with the default applied.
func FaultScope(f benchv1.Fault) benchv1.FaultScope {
	if f.In == "" {
		return benchv1.FaultInResultStep
	}
	return f.In
}

// AppliedFaults are the indices of the faults a step of this kind applies: in spec.faults, or, for
// the adversity step, in its own (AdversityFaults).
func AppliedFaults(run *benchv1.BenchmarkRun, kind benchv1.StepKind) []int {
	if kind == benchv1.StepSustain { // the sustained phase measures the load alone
		return nil
	}
	if kind == benchv1.StepAdversity { // its own faults, one per state but Baseline
		faults, _ := adversity.Faults(run, false)
		out := make([]int, len(faults))
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	for i, f := range run.Spec.Faults {
		if (kind == benchv1.StepFault) == (FaultScope(f) == benchv1.FaultInResultStep) {
			out = append(out, i)
		}
	}
	return out
}

// FaultStepPlan says whether the search's end calls for the fault step, and at how many active
// warehouses: the result's, when some fault applies in the result step, no conclusive fault step
// has run yet, and a compliant load was found.
func FaultStepPlan(run *benchv1.BenchmarkRun, d search.Decision) (int32, bool) {
	if len(AppliedFaults(run, benchv1.StepFault)) == 0 {
		return 0, false
	}
	for _, s := range run.Status.Steps {
		if s.Kind == benchv1.StepFault && s.EffectiveVerdict() != benchv1.VerdictInconclusive {
			return 0, false // an inconclusive one is retried
		}
	}
	result := Result(run, d, SearchEvidence(run.Status.Steps))
	if result.Step == nil || result.MaxCompliantWarehouses < 1 {
		return 0, false
	}
	return result.MaxCompliantWarehouses, true
}
