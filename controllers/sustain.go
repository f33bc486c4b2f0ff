package controllers

import (
	"math"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
)

// A sustained phase (spec.sustain, docs/sustain.md): after the search, one long step at a share of
// the capacity found. Its SLA is judged over each window of it as the intervals arrive — from the
// exact merged histograms of the window's intervals, which are then dropped — so the operator
// keeps a few numbers per window, not the phase's histograms, however long the phase.

// sustainStepPlan says whether the search's end calls for the sustained step, and at how many
// active warehouses: spec.sustain.percent of the result's, when a compliant load was found and no
// conclusive sustained step has run.
func sustainStepPlan(run *benchv1.BenchmarkRun, d search.Decision) (int32, bool) {
	sp := run.Spec.Sustain
	if sp == nil {
		return 0, false
	}
	for _, s := range run.Status.Steps {
		if s.Kind == benchv1.StepSustain && s.EffectiveVerdict() != benchv1.VerdictInconclusive {
			return 0, false
		}
	}
	result := resultOf(run, d, searchEvidence(run.Status.Steps))
	if result.Step == nil || result.MaxCompliantWarehouses < 1 {
		return 0, false
	}
	percent := sp.Percent
	if percent == 0 {
		percent = measure.DefaultSustainPercent
	}
	return max(1, int32(math.Round(float64(result.MaxCompliantWarehouses)*float64(percent)/100))), true
}
