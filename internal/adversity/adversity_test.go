package adversity

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestFaults(t *testing.T) {
	d := func(x time.Duration) *metav1.Duration { return &metav1.Duration{Duration: x} }
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Adversity: &benchv1.AdversitySpec{Hold: d(40 * time.Second), Recovery: d(20 * time.Second),
		States: []benchv1.AdversityState{"Baseline", "StandbyLost", "NetworkDelay", "Partition", "PrimaryLost", "NodeLost"}, Clients: benchv1.FaultClientsCut}}}
	if got := Measured(run); got != 6*time.Minute {
		t.Errorf("measured %s, want 6 states × 1m", got)
	}
	for _, tc := range []struct {
		name       string
		hasPrimary bool
		want       []string // action/target/at per fault
	}{
		{"an engine with a primary: its standbys and its primary", true, []string{
			"KillPod/Standby/1m0s", "NetworkDelay/Standbys/2m0s", "Partition/Standby/3m0s", "KillPrimary//4m0s", "Mark//5m0s"}},
		{"without one: the last pod and the first", false, []string{
			"KillPod/Standby/1m0s", "NetworkDelay/Standby/2m0s", "Partition/Standby/3m0s", "KillPod//4m0s", "Mark//5m0s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			faults, index := Faults(run, tc.hasPrimary)
			if len(faults) != len(tc.want) {
				t.Fatalf("%d faults, want %d", len(faults), len(tc.want))
			}
			for i, f := range faults {
				if got := string(f.Action) + "/" + string(f.Target) + "/" + f.At.Duration.String(); got != tc.want[i] {
					t.Errorf("fault %d: %s, want %s", i, got, tc.want[i])
				}
			}
			if want := []int{-1, 0, 1, 2, 3, 4}; len(index) != len(want) || index[0] != -1 || index[5] != 4 {
				t.Errorf("state → fault %v, want %v", index, want)
			}
			delay, part := faults[1], faults[2]
			if delay.Delay.Duration != DefaultDelay || delay.Duration.Duration != 40*time.Second || part.Duration.Duration != 40*time.Second ||
				part.Clients != benchv1.FaultClientsCut {
				t.Errorf("delay %+v, partition %+v: want the default delay, held 40s, the clients cut", delay, part)
			}
			if !tc.hasPrimary && (faults[3].Ordinal == nil || *faults[3].Ordinal != 0) {
				t.Errorf("PrimaryLost without a primary: %+v, want the first pod", faults[3])
			}
		})
	}
}
