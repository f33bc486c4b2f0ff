package report

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestNetworkFaultText(t *testing.T) {
	d := func(x time.Duration) *metav1.Duration { return &metav1.Duration{Duration: x} }
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Faults: []benchv1.Fault{
		{Action: benchv1.FaultNetworkDelay, Target: benchv1.FaultTargetStandbys, Delay: d(20 * time.Millisecond), Duration: d(50 * time.Second)},
		{Action: benchv1.FaultPartition, Target: benchv1.FaultTargetPod, Duration: d(25 * time.Second), Clients: benchv1.FaultClientsCut},
		{Action: benchv1.FaultKillPrimary},
	}, Adversity: &benchv1.AdversitySpec{Hold: d(40 * time.Second), Delay: d(30 * time.Millisecond)}}}
	for _, tc := range []struct {
		name string
		kind benchv1.StepKind
		inj  benchv1.FaultInjection
		want string
	}{
		{"a delay through the proxy, healed", benchv1.StepFault, benchv1.FaultInjection{Fault: 0, Pods: []string{"db-2", "db-3"}, Mechanism: "toxiproxy",
			Time: &metav1.MicroTime{Time: t0}, HealedTime: &metav1.MicroTime{Time: t0.Add(50*time.Second + 130*time.Millisecond)}},
			" db-2, db-3 (Standbys): 20ms added to each round trip with the database's other pods for 50s, by a Toxiproxy latency toxic in the pods' network namespace (the kernel has no netem); healed 50.1s after it was applied"},
		{"a partition cutting the clients, not yet healed", benchv1.StepFault, benchv1.FaultInjection{Fault: 1, Pods: []string{"db-3"}, Mechanism: "iptables"},
			" db-3 (Pod): cut off from everything but its node, the clients included for 25s, by iptables rules dropping the packets"},
		{"a pod kill says nothing here", benchv1.StepFault, benchv1.FaultInjection{Fault: 2, Pod: "db-1"}, ""},
		{"an index beyond spec.faults", benchv1.StepFault, benchv1.FaultInjection{Fault: 7, Pods: []string{"db-1"}}, ""},
		{"an adversity step's delay is its own fault 1, on an engine with a primary", benchv1.StepAdversity,
			benchv1.FaultInjection{Fault: 1, Pods: []string{"db-2", "db-3"}, PrimaryBefore: "db-1", Mechanism: "netem"},
			" db-2, db-3 (Standbys): 30ms added to each round trip with the database's other pods for 40s, by the kernel's netem qdisc on the pods' interface"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := networkFaultText(run, tc.kind, tc.inj); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
