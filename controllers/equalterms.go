package controllers

import (
	"fmt"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

// Issue 22, "equal terms": what a step and a result record beside their tpmC — the isolation the
// clients ran at, the retries inside their transactions, the resource that bounded them, and the
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
