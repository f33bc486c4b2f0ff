package plan

import (
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
)

func TestAdversityStepFaults(t *testing.T) {
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Adversity: &benchv1.AdversitySpec{}}}
	if got := AppliedFaults(run, benchv1.StepAdversity); len(got) != 4 || got[3] != 3 {
		t.Errorf("applied %v: want the default states' four faults", got)
	}
	if got := StepFaults(run, benchv1.StepFull, true); len(got) != 0 {
		t.Errorf("a search step draws from spec.faults: %v", got)
	}
	if got := StepFaults(run, benchv1.StepAdversity, true); len(got) != 4 || got[3].Action != benchv1.FaultKillPrimary {
		t.Errorf("the adversity step draws from its own: %v", got)
	}
}

func TestAdversityStepPlan(t *testing.T) {
	five := int32(5)
	compliant := func(active int32) benchv1.StepResult {
		return benchv1.StepResult{Kind: benchv1.StepFull, ActiveWarehouses: active, Verdict: benchv1.VerdictCompliant, Compliant: true}
	}
	for _, tc := range []struct {
		name   string
		spec   *benchv1.AdversitySpec
		steps  []benchv1.StepResult
		d      search.Decision
		want   int32
		wantOK bool
	}{
		{"none asked", nil, nil, search.Decision{Done: true}, 0, false},
		{"70 % of the capacity by default", &benchv1.AdversitySpec{}, []benchv1.StepResult{compliant(10)}, search.Decision{Done: true, MaxCompliant: 10, CompliantStep: 0}, 7, true},
		{"a given count, whatever the search found", &benchv1.AdversitySpec{Warehouses: &five}, nil, search.Decision{Done: true}, 5, true},
		{"nothing compliant: no phase", &benchv1.AdversitySpec{}, nil, search.Decision{Done: true, CompliantStep: -1}, 0, false},
		{"once", &benchv1.AdversitySpec{}, []benchv1.StepResult{compliant(10), {Kind: benchv1.StepAdversity, Verdict: benchv1.VerdictNonCompliant}},
			search.Decision{Done: true, MaxCompliant: 10, CompliantStep: 0}, 0, false},
		{"an inconclusive one again", &benchv1.AdversitySpec{Percent: 50}, []benchv1.StepResult{compliant(10), {Kind: benchv1.StepAdversity, Verdict: benchv1.VerdictInconclusive}},
			search.Decision{Done: true, MaxCompliant: 10, CompliantStep: 0}, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Adversity: tc.spec, Workload: benchv1.WorkloadSpec{Warehouses: 10}}}
			run.Status.Steps = tc.steps
			got, ok := AdversityStepPlan(run, tc.d)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("got %d %v, want %d %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
