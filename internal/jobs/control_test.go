package jobs

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// A step's client pods get the run's control token as a read-only file from the run's Secret —
// never as a literal in the pod spec — and tpcc run is told to require it.
func TestStepJobMountsTheControlToken(t *testing.T) {
	run := testRun(10)
	spec := StepJob(run, 0, 10, 0, secretConn, Config{}).Spec.Template.Spec
	c := spec.Containers[0]
	if got := arg(t, c.Args, "--control-token-file"); got != "/var/run/tpcc/control/token" {
		t.Errorf("--control-token-file %s", got)
	}
	i := slices.IndexFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == "control-token" })
	if i < 0 || spec.Volumes[i].Secret == nil || spec.Volumes[i].Secret.SecretName != "r-control" || *spec.Volumes[i].Secret.DefaultMode != 0o440 {
		t.Fatalf("volumes %+v: want Secret r-control, mode 0440", spec.Volumes)
	}
	m := slices.IndexFunc(c.VolumeMounts, func(v corev1.VolumeMount) bool { return v.Name == "control-token" })
	if m < 0 || !c.VolumeMounts[m].ReadOnly || c.VolumeMounts[m].MountPath != ControlTokenDir {
		t.Fatalf("mounts %+v", c.VolumeMounts)
	}
	for _, e := range c.Env {
		if e.Name != "TPCC_URL" {
			t.Errorf("unexpected env %s", e.Name)
		}
	}
	// Loader and check pods: load_progress_test.go.
}

func TestControlSecret(t *testing.T) {
	s := ControlSecret(testRun(1), "0123456789abcdef0123456789abcdef")
	if s.Name != "r-control" || s.Namespace != "bench" || !*s.Immutable || string(s.Data[ControlTokenKey]) != "0123456789abcdef0123456789abcdef" {
		t.Errorf("secret %+v", s)
	}
	if s.Labels["bench.oltp.io/run"] != "r" || s.Labels[ComponentLabel] != ComponentClient {
		t.Errorf("labels %v", s.Labels)
	}
}

// The policy selects every pod of the run that serves the operator — client, loader and check
// pods, nothing else of it, nothing of another run — and admits only the operator's pods, in the
// operator's namespace, on the snapshot port.
func TestClientNetworkPolicy(t *testing.T) {
	run := testRun(10)
	np := ClientNetworkPolicy(run, OperatorPods{Namespace: "tpcc-operator-system",
		Labels: map[string]string{"app.kubernetes.io/name": "tpcc-operator", "app.kubernetes.io/component": "manager"}})
	if np.Name != "r-client-ingress" || np.Namespace != "bench" {
		t.Errorf("name %s/%s", np.Namespace, np.Name)
	}
	selector, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil {
		t.Fatal(err)
	}
	for name, pod := range map[string]map[string]string{
		"step":   StepJob(run, 3, 10, 0, secretConn, Config{}).Spec.Template.Labels,
		"loader": LoaderJob(run, secretConn, 0, Config{}).Spec.Template.Labels,
		"check":  CheckJob(run, secretConn, Config{}).Spec.Template.Labels,
	} {
		if !selector.Matches(labels.Set(pod)) {
			t.Errorf("selector %s does not select the %s pods (%v)", selector, name, pod)
		}
	}
	other := engines.Labels(testRun(10))
	other[ComponentLabel] = "storage-probe"
	if selector.Matches(labels.Set(other)) {
		t.Errorf("selector %s selects the run's other pods", selector)
	}
	otherRun := StepJob(&benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "other"}, Spec: run.Spec}, 3, 10, 0, secretConn, Config{}).Spec.Template.Labels
	if selector.Matches(labels.Set(otherRun)) {
		t.Errorf("selector %s selects another run's client pods", selector)
	}
	if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) || len(np.Spec.Ingress) != 1 || len(np.Spec.Egress) != 0 {
		t.Fatalf("spec %+v: want one ingress rule and egress left alone", np.Spec)
	}
	rule := np.Spec.Ingress[0]
	if len(rule.From) != 1 || len(rule.Ports) != 1 || rule.Ports[0].Port.IntValue() != SnapshotPort || *rule.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Fatalf("rule %+v", rule)
	}
	peer := rule.From[0]
	if peer.NamespaceSelector == nil || peer.NamespaceSelector.MatchLabels[corev1.LabelMetadataName] != "tpcc-operator-system" ||
		peer.PodSelector == nil || peer.PodSelector.MatchLabels["app.kubernetes.io/component"] != "manager" || peer.IPBlock != nil {
		t.Fatalf("peer %+v: want the operator's pods in its namespace, in one peer", peer)
	}
}
