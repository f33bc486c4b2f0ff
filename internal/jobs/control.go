package jobs

import (
	"path"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// A client pod's snapshot port starts, stops and reads its step, so two things guard it:
//
//   - a per-run control token: a random value the operator puts into the Secret <run>-control
//     (owned by the run, created once), mounted into every client pod as a read-only file and
//     passed as --control-token-file; the pod serves nothing but /healthz to a request that does
//     not present it, and the operator presents it on every request. This holds on any cluster,
//     whether or not its network plugin enforces NetworkPolicy.
//   - a NetworkPolicy <run>-client-ingress (owned by the run) that admits to the client pods only
//     the operator's own pods, on the snapshot port: on a cluster whose network plugin enforces
//     NetworkPolicy, nobody else even reaches the port. (Traffic from the pod's own node, the
//     kubelet's probes among it, is always allowed by NetworkPolicy.)

// ControlTokenKey is the key of the token in the run's control Secret.
const ControlTokenKey = "token"

// controlVolume and ControlTokenDir are where a client pod finds the token:
// ControlTokenDir/ControlTokenKey, passed to tpcc run as --control-token-file.
const (
	controlVolume   = "control-token"
	ControlTokenDir = "/var/run/tpcc/control"
)

// ControlSecretName names the run's control Secret.
func ControlSecretName(run *benchv1.BenchmarkRun) string { return run.Name + "-control" }

// ClientNetworkPolicyName names the NetworkPolicy guarding the run's client pods.
func ClientNetworkPolicyName(run *benchv1.BenchmarkRun) string { return run.Name + "-client-ingress" }

// ControlSecret is the run's control Secret holding token. It is immutable: the token of a run
// never changes, so a client pod started before an operator restart accepts the token the
// restarted operator reads back.
func ControlSecret(run *benchv1.BenchmarkRun, token string) *corev1.Secret {
	labels := engines.Labels(run)
	labels[ComponentLabel] = ComponentClient
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: ControlSecretName(run), Namespace: run.Namespace, Labels: labels},
		Type:       corev1.SecretTypeOpaque,
		Immutable:  ptr(true),
		Data:       map[string][]byte{ControlTokenKey: []byte(token)},
	}
}

// mountControlToken gives a client pod the run's control token as a file readable by the pod's
// group only (the Secret volume's files belong to root and the pod's fsGroup), and tells tpcc run
// to require it.
func mountControlToken(run *benchv1.BenchmarkRun, spec *corev1.PodSpec) {
	addControlVolume(run, spec)
	mountControlTokenIn(&spec.Containers[0])
}

// addControlVolume adds the volume of the run's control Secret to a pod.
func addControlVolume(run *benchv1.BenchmarkRun, spec *corev1.PodSpec) {
	// Cloned first: the connection's own volumes may share their backing array with other Jobs'.
	spec.Volumes = append(slices.Clone(spec.Volumes), corev1.Volume{Name: controlVolume, VolumeSource: corev1.VolumeSource{
		Secret: &corev1.SecretVolumeSource{SecretName: ControlSecretName(run), DefaultMode: ptr(int32(0o440)),
			Items: []corev1.KeyToPath{{Key: ControlTokenKey, Path: ControlTokenKey}}}}})
}

// mountControlTokenIn mounts the control volume (addControlVolume) into one container and passes
// the token's file as --control-token-file.
func mountControlTokenIn(c *corev1.Container) {
	c.VolumeMounts = append(slices.Clone(c.VolumeMounts), corev1.VolumeMount{Name: controlVolume, MountPath: ControlTokenDir, ReadOnly: true})
	c.Args = append(c.Args, "--control-token-file", path.Join(ControlTokenDir, ControlTokenKey))
}

// OperatorPods are the pods the client NetworkPolicy admits: the operator's, by namespace and
// labels (the manager's --operator-namespace and --operator-pod-labels).
type OperatorPods struct {
	Namespace string
	Labels    map[string]string
}

// ClientNetworkPolicy admits to the run's pods that serve the operator — every step's client pods,
// the loader pods and the check pods' finish (their progress) — only the operator's pods, and only
// on the snapshot port. Selecting the pods isolates them for ingress: anything the policy does not
// admit — another pod, another port — is refused by a network plugin that enforces NetworkPolicy.
// It leaves their egress (to the database) alone.
func ClientNetworkPolicy(run *benchv1.BenchmarkRun, operator OperatorPods) *networkingv1.NetworkPolicy {
	served := metav1.LabelSelector{MatchLabels: engines.Labels(run), MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: ComponentLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{ComponentClient, ComponentLoader, ComponentCheck},
	}}}
	labels := engines.Labels(run)
	labels[ComponentLabel] = ComponentClient
	tcp := corev1.ProtocolTCP
	port := intstr.FromInt32(SnapshotPort)
	return &networkingv1.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: ClientNetworkPolicyName(run), Namespace: run.Namespace, Labels: labels},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: served,
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				From: []networkingv1.NetworkPolicyPeer{{
					// Both selectors in one peer: the operator's pods, in the operator's namespace.
					NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: operator.Namespace}},
					PodSelector:       &metav1.LabelSelector{MatchLabels: operator.Labels},
				}},
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}},
			}},
		},
	}
}
