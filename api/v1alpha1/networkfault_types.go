package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NetworkFaultAction is what a NetworkFault does to its pod's network.
// +kubebuilder:validation:Enum=Delay;Partition
type NetworkFaultAction string

const (
	// NetworkDelay adds delay ± jitter to the round trip of every TCP connection between the pod
	// and its peers.
	NetworkDelay NetworkFaultAction = "Delay"
	// NetworkPartition drops every packet between the pod and its peers (with cutOthers, between
	// the pod and everything but its node).
	NetworkPartition NetworkFaultAction = "Partition"
)

// NetworkFault phases.
const (
	// NetworkFaultActive: applied to the pod's network; it heals at spec.until.
	NetworkFaultActive = "Active"
	// NetworkFaultHealed: removed again (at spec.until, or when the object was deleted first).
	NetworkFaultHealed = "Healed"
	// NetworkFaultFailed: not applied (status.message says why); nothing of it is left behind.
	NetworkFaultFailed = "Failed"
)

// NetworkFaultSpec is one network fault on one pod, as the manager asks the fault injector for it.
// The manager creates it for a run's spec.faults (owned by the run); the injector on the pod's
// node applies it inside the pod's network namespace and heals it at until, or when the object is
// deleted before (its finalizer holds the object until then).
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a NetworkFault's spec is immutable"
// +kubebuilder:validation:XValidation:rule="self.action == 'Delay' || !has(self.delay)",fieldPath=".delay",message="delay applies only to action Delay"
// +kubebuilder:validation:XValidation:rule="self.action != 'Delay' || has(self.delay)",fieldPath=".delay",message="delay is required with action Delay"
// +kubebuilder:validation:XValidation:rule="has(self.peers) || has(self.peerPods)",fieldPath=".peers",message="peers or peerPods is required: the fault applies between the pod and them"
type NetworkFaultSpec struct {
	// Pod is the target pod, in the NetworkFault's namespace, and PodUID the instance: a pod
	// re-created under the name is not touched.
	// +kubebuilder:validation:MinLength=1
	Pod string `json:"pod"`
	// +kubebuilder:validation:MinLength=1
	PodUID string `json:"podUID"`

	// Action: Delay or Partition.
	Action NetworkFaultAction `json:"action"`

	// PeerPods are the pods, in the NetworkFault's namespace, the fault applies between the pod
	// and: the injector takes their IPs and the ClusterIPs of the Services that select any of them
	// (status.peers). The manager names the database's other pods here.
	// +kubebuilder:validation:MaxItems=256
	// +listType=atomic
	// +optional
	PeerPods []string `json:"peerPods,omitempty"`

	// Peers are further IPv4 addresses the fault applies between the pod and.
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:Pattern=`^[0-9]{1,3}(\.[0-9]{1,3}){3}$`
	// +listType=atomic
	// +optional
	Peers []string `json:"peers,omitempty"`

	// Delay added to each round trip (Delay), and Jitter: delay is drawn within delay ± jitter.
	// +optional
	Delay *metav1.Duration `json:"delay,omitempty"`
	// +optional
	Jitter *metav1.Duration `json:"jitter,omitempty"`

	// CutOthers (Partition): the pod also loses everything but its node and loopback, clients
	// included.
	// +optional
	CutOthers bool `json:"cutOthers,omitempty"`

	// Until is when the injector heals the fault, whether or not the manager is there to ask.
	Until metav1.Time `json:"until"`
}

// NetworkFaultStatus is written by the fault injector that applied the fault.
type NetworkFaultStatus struct {
	// Phase: Active, Healed or Failed (empty: no injector has taken it yet).
	// +optional
	Phase string `json:"phase,omitempty"`
	// Node the pod runs on, whose injector applied the fault.
	// +optional
	Node string `json:"node,omitempty"`
	// Peers are the addresses the fault was applied between the pod and: spec.peers, and the IPs
	// of spec.peerPods with the ClusterIPs of the Services that select any of them.
	// +listType=atomic
	// +optional
	Peers []string `json:"peers,omitempty"`
	// Mechanism: netem, toxiproxy (Delay where the kernel has no netem qdisc) or iptables
	// (Partition).
	// +optional
	Mechanism string `json:"mechanism,omitempty"`
	// AppliedTime and HealedTime: when the fault took effect and when it was removed.
	// +optional
	AppliedTime *metav1.MicroTime `json:"appliedTime,omitempty"`
	// +optional
	HealedTime *metav1.MicroTime `json:"healedTime,omitempty"`
	// Message says why a fault failed, or what healing found.
	// +optional
	Message string `json:"message,omitempty"`
}

// NetworkFault is a network fault the opt-in fault injector applies to one pod
// (hack/fault-injector.sh installs it; docs/failover.md, "Network faults").
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=nf
// +kubebuilder:printcolumn:name="Pod",type=string,JSONPath=`.spec.pod`
// +kubebuilder:printcolumn:name="Action",type=string,JSONPath=`.spec.action`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Mechanism",type=string,JSONPath=`.status.mechanism`
// +kubebuilder:printcolumn:name="Until",type=string,JSONPath=`.spec.until`
type NetworkFault struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NetworkFaultSpec   `json:"spec"`
	Status NetworkFaultStatus `json:"status,omitempty"`
}

// NetworkFaultList is a list of NetworkFaults.
//
// +kubebuilder:object:root=true
type NetworkFaultList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NetworkFault `json:"items"`
}

func init() {
	SchemeBuilder.Register(&NetworkFault{}, &NetworkFaultList{})
}
