package plan

import (
	"reflect"
	"testing"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestFaultScope(t *testing.T) {
	for _, tc := range []struct {
		in   benchv1.FaultScope
		want benchv1.FaultScope
	}{
		{"", benchv1.FaultInResultStep},
		{benchv1.FaultInResultStep, benchv1.FaultInResultStep},
		{benchv1.FaultInEveryStep, benchv1.FaultInEveryStep},
	} {
		if got := FaultScope(benchv1.Fault{Action: benchv1.FaultKillPrimary, In: tc.in}); got != tc.want {
			t.Errorf("FaultScope(in %q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAppliedFaults(t *testing.T) {
	// killPrimary (0) and markResultStep (2) apply in the result step, killPodEveryStep (1) and
	// markEveryStep (3) in every step of the search.
	all := withFaults(newRun(100, guided), killPrimary, killPodEveryStep, markResultStep, markEveryStep)
	resultOnly := withFaults(newRun(100, guided), killPrimary, markResultStep)
	everyOnly := withFaults(newRun(100, guided), markEveryStep)
	for _, tc := range []struct {
		name string
		run  *benchv1.BenchmarkRun
		kind benchv1.StepKind
		want []int
	}{
		{"full step", all, benchv1.StepFull, []int{1, 3}},
		{"probe", all, benchv1.StepProbe, []int{1, 3}},
		{"fault step", all, benchv1.StepFault, []int{0, 2}},
		{"sustained step: none", all, benchv1.StepSustain, nil},
		{"full step, result-step faults only", resultOnly, benchv1.StepFull, nil},
		{"fault step, result-step faults only", resultOnly, benchv1.StepFault, []int{0, 1}},
		{"fault step, every-step faults only", everyOnly, benchv1.StepFault, nil},
		{"probe, every-step faults only", everyOnly, benchv1.StepProbe, []int{0}},
		{"sustained step, every-step faults only", everyOnly, benchv1.StepSustain, nil},
		{"no faults", newRun(100, guided), benchv1.StepFull, nil},
		{"no faults, fault step", newRun(100, guided), benchv1.StepFault, nil},
	} {
		if got := AppliedFaults(tc.run, tc.kind); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: AppliedFaults(%s) = %v, want %v", tc.name, tc.kind, got, tc.want)
		}
	}
}

func TestFaultStepPlan(t *testing.T) {
	for _, tc := range []struct {
		name   string
		run    *benchv1.BenchmarkRun
		want   int32
		wantOK bool
	}{
		{name: "no faults", run: newRun(100, fixed, full(100, pass))},
		{name: "only faults in every step", run: withFaults(newRun(100, fixed, full(100, pass)), killPodEveryStep, markEveryStep)},
		{name: "a result-step fault: at the result's load", run: withFaults(newRun(100, fixed, full(100, pass)), killPodEveryStep, killPrimary), want: 100, wantOK: true},
		{name: "at the line search's answer", run: withFaults(newRun(100, lineFrom(50), full(50, pass), full(51, fail)), markResultStep), want: 50, wantOK: true},
		{
			name: "at the best full step when search.maxSteps stopped the search",
			run:  withFaults(newRun(100, benchv1.SearchSpec{Strategy: benchv1.SearchLineSearch, MaxSteps: 3}, full(50, pass), full(51, pass), full(53, fail)), killPrimary),
			want: 51, wantOK: true,
		},
		{name: "no compliant load", run: withFaults(newRun(100, fixed, full(100, fail)), killPrimary)},
		{name: "only a probe compliant", run: withFaults(newRun(100, benchv1.SearchSpec{MaxSteps: 2}, probe(50, pass), probe(100, fail)), killPrimary)},
		{name: "a compliant fault step ran", run: withFaults(newRun(100, fixed, full(100, pass), faultStep(100, pass)), killPrimary)},
		{name: "a non-compliant fault step ran", run: withFaults(newRun(100, fixed, full(100, pass), faultStep(100, fail)), killPrimary)},
		{name: "an inconclusive fault step is tried again", run: withFaults(newRun(100, fixed, full(100, pass), faultStep(100, inconclusive)), killPrimary), want: 100, wantOK: true},
		{
			name: "after the sustained step",
			run:  withFaults(sustained(newRun(100, fixed, full(100, pass), sustainStep(70, pass)), 70, time.Hour), killPrimary),
			want: 100, wantOK: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := FaultStepPlan(tc.run, decide(t, tc.run))
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("FaultStepPlan = %d, %v; want %d, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
