package run

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

func netPod(name, ip string, l map[string]string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l, UID: k8stypes.UID("uid-" + name)}, Status: corev1.PodStatus{PodIP: ip}}
}

func TestPeerPods(t *testing.T) {
	pods := []corev1.Pod{netPod("db-1", "10.0.0.1", nil), netPod("db-2", "10.0.0.2", nil), netPod("db-3", "10.0.0.3", nil)}
	for _, tc := range []struct {
		targets []string
		want    string
	}{
		{[]string{"db-2", "db-3"}, "db-1"},
		{[]string{"db-1"}, "db-2,db-3"},
		{[]string{"db-1", "db-2", "db-3"}, ""},
	} {
		if got := strings.Join(peerPods(pods, tc.targets), ","); got != tc.want {
			t.Errorf("targets %v: peers %q, want %q", tc.targets, got, tc.want)
		}
	}
}

type podTargets struct{ engines.FaultTargets }

func (podTargets) FaultPod(run *benchv1.BenchmarkRun, f benchv1.Fault, _ map[engines.Ref]*unstructured.Unstructured) (string, error) {
	return "node-" + string(rune('0'+*f.Ordinal)), nil
}

func TestNetworkTargets(t *testing.T) {
	pods := []corev1.Pod{netPod("db-1", "", nil), netPod("db-2", "", nil), netPod("db-3", "", nil)}
	one := int32(1)
	roles := engines.Roles{Primary: "db-2"}
	for _, tc := range []struct {
		name       string
		f          benchv1.Fault
		roles      engines.Roles
		pods       []corev1.Pod
		replicated bool
		want, err  string
	}{
		{"primary", benchv1.Fault{Target: benchv1.FaultTargetPrimary}, roles, pods, true, "db-2", ""},
		{"standbys are every pod but the primary", benchv1.Fault{Target: benchv1.FaultTargetStandbys}, roles, pods, true, "db-1,db-3", ""},
		{"pod by ordinal, as the engine names it", benchv1.Fault{Target: benchv1.FaultTargetPod, Ordinal: &one}, engines.Roles{}, pods, false, "node-1", ""},
		{"no primary reported", benchv1.Fault{Target: benchv1.FaultTargetPrimary}, engines.Roles{}, pods, true, "", "reports no primary"},
		{"standbys of an engine without", benchv1.Fault{Target: benchv1.FaultTargetStandbys}, roles, pods, false, "", "no primary and standbys"},
		{"a lone primary has no standby", benchv1.Fault{Target: benchv1.FaultTargetStandbys}, roles, pods[1:2], true, "", "no standby"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := networkTargets(&benchv1.BenchmarkRun{}, tc.f, podTargets{}, nil, tc.roles, tc.pods, tc.replicated)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || strings.Join(got, ",") != tc.want {
				t.Fatalf("got %v, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestNetworkSeen(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.MicroTime { return &metav1.MicroTime{Time: t0.Add(d)} }
	inj := benchv1.FaultInjection{State: benchv1.FaultInjected, Pods: []string{"db-1", "db-3"}, Time: at(0)}
	nf := func(pod, phase string, healed *metav1.MicroTime, msg string) benchv1.NetworkFault {
		return benchv1.NetworkFault{Spec: benchv1.NetworkFaultSpec{Pod: pod},
			Status: benchv1.NetworkFaultStatus{Phase: phase, Mechanism: "toxiproxy", HealedTime: healed, Message: msg}}
	}
	for _, tc := range []struct {
		name  string
		nfs   []benchv1.NetworkFault
		whole bool
		now   time.Duration
		check func(t *testing.T, got benchv1.FaultInjection)
	}{
		{"active: the mechanism, nothing healed", []benchv1.NetworkFault{nf("db-1", "Active", nil, ""), nf("db-3", "Active", nil, "")}, true, 5 * time.Second,
			func(t *testing.T, got benchv1.FaultInjection) {
				if got.Mechanism != "toxiproxy" || got.HealedTime != nil || got.ReadyTime != nil || got.State != benchv1.FaultInjected {
					t.Errorf("%+v", got)
				}
			}},
		{"healed on one pod only is not healed", []benchv1.NetworkFault{nf("db-1", "Healed", at(20*time.Second), ""), nf("db-3", "Active", nil, "")}, true, 21 * time.Second,
			func(t *testing.T, got benchv1.FaultInjection) {
				if got.HealedTime != nil {
					t.Errorf("healed at %v with one pod still faulted", got.HealedTime)
				}
			}},
		{"healed everywhere: the last heal; ready once whole", []benchv1.NetworkFault{nf("db-1", "Healed", at(20*time.Second), ""), nf("db-3", "Healed", at(21*time.Second), "")}, true, 25 * time.Second,
			func(t *testing.T, got benchv1.FaultInjection) {
				if !got.HealedTime.Time.Equal(t0.Add(21*time.Second)) || got.ReadyTime == nil || !got.ReadyTime.Time.Equal(t0.Add(25*time.Second)) {
					t.Errorf("healed %v ready %v", got.HealedTime, got.ReadyTime)
				}
			}},
		{"healed but the database not whole: not ready", []benchv1.NetworkFault{nf("db-1", "Healed", at(20*time.Second), ""), nf("db-3", "Healed", at(20*time.Second), "")}, false, 25 * time.Second,
			func(t *testing.T, got benchv1.FaultInjection) {
				if got.HealedTime == nil || got.ReadyTime != nil {
					t.Errorf("healed %v ready %v", got.HealedTime, got.ReadyTime)
				}
			}},
		{"a failure names the pod", []benchv1.NetworkFault{nf("db-1", "Active", nil, ""), nf("db-3", "Failed", nil, "no process of pod db-3")}, true, time.Second,
			func(t *testing.T, got benchv1.FaultInjection) {
				if got.State != benchv1.FaultFailed || got.Message != "pod db-3: no process of pod db-3" {
					t.Errorf("%s: %s", got.State, got.Message)
				}
			}},
		{"no injector within the wait", nil, true, injectorWait + time.Second,
			func(t *testing.T, got benchv1.FaultInjection) {
				if got.State != benchv1.FaultFailed || !strings.Contains(got.Message, "hack/fault-injector.sh install") || !strings.Contains(got.Message, "(0 of 2)") {
					t.Errorf("%s: %s", got.State, got.Message)
				}
			}},
		{"no injector yet, inside the wait", nil, true, injectorWait - time.Second,
			func(t *testing.T, got benchv1.FaultInjection) {
				if got.State != benchv1.FaultInjected {
					t.Errorf("%s: %s", got.State, got.Message)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, networkSeen(inj, tc.nfs, tc.whole, t0.Add(tc.now)))
		})
	}
}

func TestNetworkFaultObject(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"}}
	pod := netPod("r-db-2", "10.0.0.2", nil)
	until := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	delay := benchv1.Fault{Action: benchv1.FaultNetworkDelay, Delay: &metav1.Duration{Duration: 20 * time.Millisecond}}
	nf := networkFaultObject(run, 3, 1, delay, &pod, []string{"r-db-1"}, until)
	if nf.Name != "r-s3-f1-r-db-2" || nf.Spec.Action != benchv1.NetworkDelay || nf.Spec.Delay.Duration != 20*time.Millisecond ||
		nf.Spec.PodUID != "uid-r-db-2" || len(nf.Spec.PeerPods) != 1 || nf.Spec.PeerPods[0] != "r-db-1" || nf.Spec.Peers != nil || !nf.Spec.Until.Time.Equal(until) || nf.Labels["bench.oltp.io/step"] != "3" || nf.Labels[faultLabel] != "1" {
		t.Errorf("%+v", nf)
	}
	cut := networkFaultObject(run, 3, 0, benchv1.Fault{Action: benchv1.FaultPartition, Clients: benchv1.FaultClientsCut}, &pod, []string{"10.0.0.1"}, until)
	if cut.Spec.Action != benchv1.NetworkPartition || !cut.Spec.CutOthers || cut.Spec.Delay != nil {
		t.Errorf("%+v", cut.Spec)
	}
}
