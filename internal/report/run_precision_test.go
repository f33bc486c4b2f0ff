package report

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestPrecisionSentence(t *testing.T) {
	step := func(tpmC, efficiency float64, d time.Duration) benchv1.StepResult {
		return benchv1.StepResult{Index: 0, ActiveWarehouses: 8, TpmC: tpmC, Efficiency: efficiency, Duration: &metav1.Duration{Duration: d}}
	}
	zero := int32(0)
	start := metav1.NewTime(time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC))
	end := metav1.NewTime(start.Add(90 * time.Second))
	stopped := step(112.5, 109.34, 2*time.Minute)
	stopped.StartTime, stopped.EndTime = &start, &end // stopped early: 1m30s measured of 2m planned
	rounded := step(100.5, 97.68, 2*time.Minute)
	end121 := metav1.NewTime(start.Add(121 * time.Second))
	rounded.StartTime, rounded.EndTime = &start, &end121 // whole seconds: 2m0.4s can read 2m1s
	cases := map[string]struct {
		step   benchv1.StepResult
		wait   benchv1.Wait
		noStep bool
		want   []string // substrings, in order; none: ""
	}{
		"no result step": {step: step(112.5, 109.34, 2*time.Minute), noStep: true},
		// The CI demo: 225 New-Orders in 2 min, 109.34 %: 1.4 times the noise.
		"demo above 100 % by chance": {step: step(112.5, 109.34, 2*time.Minute), wait: benchv1.WaitSpec,
			want: []string{"step 0 counted 225 New-Orders in 2m0s", "±6.7 %", "±13.1 % at 95 %", "109.34 % is above 100 % by 1.4 times that noise: chance"}},
		"below 100 %: no efficiency words": {step: step(97, 94.28, 2*time.Minute), wait: benchv1.WaitSpec,
			want: []string{"counted 194 New-Orders", "±7.2 %", "narrows it."}},
		"above by more than three times the noise": {step: step(135, 131.2, 2*time.Minute), wait: benchv1.WaitSpec,
			want: []string{"270 New-Orders", "131.20 % is above 100 % by 5.1 times that noise: more than chance explains"}},
		"wait None is not bounded": {step: step(900, 874.8, 2*time.Minute), wait: benchv1.WaitNone,
			want: []string{"1800 New-Orders", "wait None sends transactions without keying or think times"}},
		"measured interval, not the planned one": {step: stopped, wait: benchv1.WaitSpec, want: []string{"169 New-Orders in 1m30s"}},
		"a second off the plan is rounding":      {step: rounded, wait: benchv1.WaitSpec, want: []string{"201 New-Orders in 2m0s"}},
		// The 20-step fixture's 1625.8 tpmC over 5 min: 8129 New-Orders, ±1.1 %.
		"large run just above 1 %":             {step: step(1625.8, 96.51, 5*time.Minute), wait: benchv1.WaitSpec, want: []string{"8129 New-Orders in 5m0s", "±1.1 %"}},
		"more than 10 000 New-Orders: nothing": {step: step(2100, 97, 5*time.Minute), wait: benchv1.WaitSpec},
		"no New-Order: nothing":                {step: step(0, 0, 2*time.Minute), wait: benchv1.WaitSpec},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			run := &benchv1.BenchmarkRun{}
			run.Spec.Workload.Wait = tc.wait
			run.Status.Steps = []benchv1.StepResult{tc.step}
			result := benchv1.Result{Step: &zero}
			if tc.noStep {
				result.Step = nil
			}
			got := precisionSentence(run, result)
			if len(tc.want) == 0 {
				if got != "" {
					t.Fatalf("got %q, want nothing", got)
				}
				return
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%q lacks %q (in order)", got, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestRestsOnSentence(t *testing.T) {
	if got := restsOnSentence(benchv1.Result{RestsOn: []int32{0}}); got != "The result rests on the full-length step 0" {
		t.Errorf("one step: %q", got)
	}
	if got := restsOnSentence(benchv1.Result{RestsOn: []int32{15, 8}}); got != "The result rests on the full-length steps 15 and 8" {
		t.Errorf("two steps: %q", got)
	}
	if got := restsOnSentence(benchv1.Result{}); got != "" {
		t.Errorf("none: %q", got)
	}
}
