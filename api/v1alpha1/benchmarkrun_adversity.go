package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// AdversityState is one state of the adversity phase.
// +kubebuilder:validation:Enum=Baseline;StandbyLost;NetworkDelay;Partition;PrimaryLost;NodeLost
type AdversityState string

const (
	// AdversityBaseline disturbs nothing: the figures the other states are read against.
	AdversityBaseline AdversityState = "Baseline"
	// AdversityStandbyLost deletes one pod that does not serve writes (PostgreSQL: a standby;
	// engines without a single writer: the last pod), as KillPod does.
	AdversityStandbyLost AdversityState = "StandbyLost"
	// AdversityNetworkDelay delays the traffic between database pods by adversity.delay for the
	// state's hold (PostgreSQL: the standbys' with the primary; otherwise the last pod's with the
	// others), as NetworkDelay does.
	AdversityNetworkDelay AdversityState = "NetworkDelay"
	// AdversityPartition cuts one pod off from the others for the hold (PostgreSQL: a standby;
	// otherwise the last pod), as Partition does, the clients as adversity.clients says.
	AdversityPartition AdversityState = "Partition"
	// AdversityPrimaryLost deletes the pod that serves writes (PostgreSQL: the primary;
	// otherwise the first pod).
	AdversityPrimaryLost AdversityState = "PrimaryLost"
	// AdversityNodeLost marks the moment, as Mark does: the loss of a node is yours to cause
	// (docs/failover.md, "The loss of a machine").
	AdversityNodeLost AdversityState = "NodeLost"
)

// DefaultAdversityStates is the sequence a phase walks when adversity.states is omitted.
var DefaultAdversityStates = []AdversityState{AdversityBaseline, AdversityStandbyLost, AdversityNetworkDelay, AdversityPartition, AdversityPrimaryLost}

// AdversitySpec asks how the database behaves when things go wrong: after the search, one
// sustained step (kind Adversity) at a share of the capacity found, or at a given load, walks a
// sequence of states — baseline, a standby lost, a network delay, a partition, the primary lost —
// each held for a while with recovery in between, and records per state the throughput, the
// latency, the errors, the outage and the recovery (docs/adversity.md).
//
// +kubebuilder:validation:XValidation:rule="!has(self.states) || self.states.all(s, self.states.exists_one(t, t == s))",fieldPath=".states",message="adversity.states must not repeat a state"
type AdversitySpec struct {
	// Percent of the largest compliant active warehouse count the phase drives (rounded, at
	// least 1); default 70.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	Percent int32 `json:"percent,omitempty"`

	// Warehouses drives the phase at this many active warehouses instead (at most
	// workload.warehouses): the phase then runs whatever the search found.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Warehouses *int32 `json:"warehouses,omitempty"`

	// States the phase walks, in order (default Baseline, StandbyLost, NetworkDelay, Partition,
	// PrimaryLost).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=6
	// +listType=atomic
	// +optional
	States []AdversityState `json:"states,omitempty"`

	// Hold is how long each state lasts (default 2m): a network fault is applied for it, a lost
	// pod is measured through it.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('20s') && duration(self) <= duration('1h')",message="adversity.hold must be between 20s and 1h"
	// +optional
	Hold *metav1.Duration `json:"hold,omitempty"`

	// Recovery follows each state before the next begins (default 1m).
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('10s') && duration(self) <= duration('1h')",message="adversity.recovery must be between 10s and 1h"
	// +optional
	Recovery *metav1.Duration `json:"recovery,omitempty"`

	// Delay of the NetworkDelay state (default 20ms).
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1ms') && duration(self) <= duration('10s')",message="adversity.delay must be between 1ms and 10s"
	// +optional
	Delay *metav1.Duration `json:"delay,omitempty"`

	// Clients of the Partition state: Reach (default) or Cut.
	// +optional
	Clients FaultClients `json:"clients,omitempty"`
}

// AdversityRecord is what the adversity step showed, state by state (kind Adversity).
type AdversityRecord struct {
	// Hold and Recovery of each state.
	Hold     metav1.Duration `json:"hold"`
	Recovery metav1.Duration `json:"recovery"`
	// States in the order walked.
	// +listType=atomic
	States []AdversityStateRecord `json:"states"`
}

// AdversityStateRecord is one state's figures, over its hold and the recovery after it.
type AdversityStateRecord struct {
	State AdversityState `json:"state"`
	// Start is the state's offset into the measured interval.
	Start metav1.Duration `json:"start"`
	// Injection is the state's fault in status.steps[].fault.injections (absent for Baseline).
	// +optional
	Injection *int32 `json:"injection,omitempty"`
	// TpmC over the state's hold and recovery, and each type's p90 there (exact: the merged
	// histograms of those intervals) and errors.
	TpmC float64 `json:"tpmC"`
	// +optional
	P90 map[Transaction]metav1.Duration `json:"p90,omitempty"`
	// +optional
	Errors map[Transaction]int64 `json:"errors,omitempty"`
	// Unavailability is the longest stretch in the state without a writing commit in any client,
	// from the commit ledger, from the state's mark (absent for Baseline).
	// +optional
	Unavailability *metav1.Duration `json:"unavailability,omitempty"`
	// Recovery is the time from the end of the disruption (the pod's deletion; a network fault's
	// heal) until the first interval whose New-Orders reach 90 % of the Baseline state's rate;
	// absent when it did not within the state, or without a Baseline state.
	// +optional
	Recovery *metav1.Duration `json:"recovery,omitempty"`
	// NotMeasured says what could not be measured and why.
	// +optional
	NotMeasured string `json:"notMeasured,omitempty"`
}
