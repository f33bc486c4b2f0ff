package workload

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// The default probe is a fifth of the step, but with spec waits never shorter than one New-Order
// cycle (benchv1.MinSpecProbeDuration), nor longer than the step.
func TestProbeDuration(t *testing.T) {
	cases := []struct {
		duration time.Duration
		wait     benchv1.Wait
		probe    *metav1.Duration
		want     time.Duration
	}{
		{10 * time.Minute, benchv1.WaitSpec, nil, 2 * time.Minute},
		{time.Minute, benchv1.WaitSpec, nil, 30 * time.Second},
		{time.Minute, "", nil, 30 * time.Second}, // unset: the API's default, Spec
		{time.Minute, benchv1.WaitNone, nil, 12 * time.Second},
		{20 * time.Second, benchv1.WaitSpec, nil, 20 * time.Second},
		{3 * time.Second, benchv1.WaitNone, nil, time.Second},
		{10 * time.Minute, benchv1.WaitSpec, &metav1.Duration{Duration: 45 * time.Second}, 45 * time.Second},
		{time.Minute, benchv1.WaitSpec, &metav1.Duration{Duration: 2 * time.Minute}, time.Minute},
	}
	for _, tc := range cases {
		run := testRun(10)
		run.Spec.Workload.Duration = &metav1.Duration{Duration: tc.duration}
		run.Spec.Workload.Wait = tc.wait
		run.Spec.Search.ProbeDuration = tc.probe
		if got := ProbeDuration(run); got != tc.want {
			t.Errorf("duration %v wait %q probe %v: %v, want %v", tc.duration, tc.wait, tc.probe, got, tc.want)
		}
	}
}
