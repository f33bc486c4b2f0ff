package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FaultAction is what a fault does to the run's database.
// +kubebuilder:validation:Enum=KillPrimary;KillPod;Mark;NetworkDelay;Partition
type FaultAction string

const (
	// FaultKillPrimary deletes the pod that holds the primary role as the engine's operator reports
	// it (CloudNativePG: status.currentPrimary). PostgreSQL only: CockroachDB and YDB have no
	// single writer whose loss a pod deletion names.
	FaultKillPrimary FaultAction = "KillPrimary"
	// FaultKillPod deletes one database pod by ordinal: PostgreSQL instance ordinal+1 (CloudNativePG
	// names its instances <cluster>-1..N), CockroachDB node pod <cluster>-<ordinal>, YDB storage
	// pod <storage>-<ordinal>.
	FaultKillPod FaultAction = "KillPod"
	// FaultMark disrupts nothing: at `at` the operator marks the moment in the client pods' clocks
	// and records the database's roles, and the step is measured as a fault step (outage from the
	// acknowledged commits, recovery, ledger, consistency after it). The disruption is yours:
	// switch a machine off, cut a network, restart a zone — with your own tooling, after the mark
	// (docs/failover.md). The only fault allowed on an external database: it touches nothing.
	FaultMark FaultAction = "Mark"
	// FaultNetworkDelay adds latency (delay ± jitter) to the traffic between the target pods and
	// the database's other pods for the fault's duration, then heals: every TCP connection between
	// them gets delay added to its round trip, the clients' connections none (docs/failover.md,
	// "Network faults"). Needs the fault injector (hack/fault-injector.sh).
	FaultNetworkDelay FaultAction = "NetworkDelay"
	// FaultPartition cuts the target pods off from the database's other pods (their packets
	// dropped both ways) for the fault's duration, then heals. clients says whether the clients
	// still reach them. Needs the fault injector (hack/fault-injector.sh).
	FaultPartition FaultAction = "Partition"
)

// FaultTarget names the database pods a network fault applies to.
// +kubebuilder:validation:Enum=Primary;Standbys;Standby;Pod
type FaultTarget string

const (
	// FaultTargetPrimary: the pod serving writes (PostgreSQL: CloudNativePG's currentPrimary).
	FaultTargetPrimary FaultTarget = "Primary"
	// FaultTargetStandbys: every instance but the primary (PostgreSQL).
	FaultTargetStandbys FaultTarget = "Standbys"
	// FaultTargetStandby: one pod that does not serve writes — the first instance by name that
	// is not the primary, or, on an engine whose operator reports no primary, the last pod.
	FaultTargetStandby FaultTarget = "Standby"
	// FaultTargetPod: the database pod of ordinal, named as KillPod names it.
	FaultTargetPod FaultTarget = "Pod"
)

// FaultClients says whether a Partition also cuts the clients off.
// +kubebuilder:validation:Enum=Reach;Cut
type FaultClients string

const (
	// FaultClientsReach: the clients still reach the partitioned pods (a partition between the
	// database's own pods only).
	FaultClientsReach FaultClients = "Reach"
	// FaultClientsCut: the partitioned pods reach nothing but their node (whose kubelet probes
	// them), the clients included.
	FaultClientsCut FaultClients = "Cut"
)

// FaultScope says which steps a fault is applied in.
// +kubebuilder:validation:Enum=ResultStep;EveryStep
type FaultScope string

const (
	// FaultInResultStep: after the search, one extra full-length step (kind Fault) at the largest
	// compliant load, with the fault applied; the search itself is not disturbed.
	FaultInResultStep FaultScope = "ResultStep"
	// FaultInEveryStep applies the fault in every step of the search: the capacity found is the
	// capacity under that fault.
	FaultInEveryStep FaultScope = "EveryStep"
)

// Fault is one disruption injected into a step's measured interval.
//
// +kubebuilder:validation:XValidation:rule="self.action != 'KillPod' || has(self.ordinal)",fieldPath=".ordinal",message="ordinal is required with action KillPod"
// +kubebuilder:validation:XValidation:rule="!has(self.target) || self.target != 'Pod' || has(self.ordinal)",fieldPath=".ordinal",message="ordinal is required with target Pod"
// +kubebuilder:validation:XValidation:rule="self.action == 'KillPod' || (has(self.target) && self.target == 'Pod') || !has(self.ordinal)",fieldPath=".ordinal",message="ordinal applies only to action KillPod and target Pod"
// +kubebuilder:validation:XValidation:rule="!(self.action in ['NetworkDelay', 'Partition']) || has(self.target)",fieldPath=".target",message="target is required with actions NetworkDelay and Partition"
// +kubebuilder:validation:XValidation:rule="self.action in ['NetworkDelay', 'Partition'] || !has(self.target)",fieldPath=".target",message="target applies only to actions NetworkDelay and Partition"
// +kubebuilder:validation:XValidation:rule="!(self.action in ['NetworkDelay', 'Partition']) || has(self.duration)",fieldPath=".duration",message="duration is required with actions NetworkDelay and Partition"
// +kubebuilder:validation:XValidation:rule="self.action in ['NetworkDelay', 'Partition'] || !has(self.duration)",fieldPath=".duration",message="duration applies only to actions NetworkDelay and Partition"
// +kubebuilder:validation:XValidation:rule="self.action != 'NetworkDelay' || has(self.delay)",fieldPath=".delay",message="delay is required with action NetworkDelay"
// +kubebuilder:validation:XValidation:rule="self.action == 'NetworkDelay' || (!has(self.delay) && !has(self.jitter))",fieldPath=".delay",message="delay and jitter apply only to action NetworkDelay"
// +kubebuilder:validation:XValidation:rule="!has(self.jitter) || !has(self.delay) || duration(self.jitter) <= duration(self.delay)",fieldPath=".jitter",message="jitter must not exceed delay"
// +kubebuilder:validation:XValidation:rule="self.action == 'Partition' || !has(self.clients)",fieldPath=".clients",message="clients applies only to action Partition"
type Fault struct {
	// Action: KillPrimary, KillPod, Mark, NetworkDelay or Partition.
	Action FaultAction `json:"action"`

	// At is the offset into the measured interval at which the pod is deleted; it must be shorter
	// than workload.duration, and leave time after it to measure the recovery.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s')",message="at must not be negative"
	At metav1.Duration `json:"at"`

	// In is where the fault applies: ResultStep (default) or EveryStep.
	// +kubebuilder:default=ResultStep
	// +optional
	In FaultScope `json:"in,omitempty"`

	// Ordinal of the database pod KillPod deletes, or target Pod names (0-based; below the
	// engine's instance, node or storage node count).
	// +kubebuilder:validation:Minimum=0
	// +optional
	Ordinal *int32 `json:"ordinal,omitempty"`

	// Target is the database pods NetworkDelay and Partition apply to: Primary, Standbys
	// (PostgreSQL), Standby (one of them) or Pod (with ordinal).
	// +optional
	Target FaultTarget `json:"target,omitempty"`

	// Duration of a NetworkDelay or Partition: it heals at at + duration, which must end inside
	// the measured interval, leaving time to measure the recovery.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="duration must be at least 1s"
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`

	// Delay a NetworkDelay adds to the round trip of every connection between the target pods and
	// the database's other pods (1ms to 10s).
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1ms') && duration(self) <= duration('10s')",message="delay must be between 1ms and 10s"
	// +optional
	Delay *metav1.Duration `json:"delay,omitempty"`

	// Jitter: each delay is drawn uniformly within delay ± jitter (default 0; at most delay).
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s')",message="jitter must not be negative"
	// +optional
	Jitter *metav1.Duration `json:"jitter,omitempty"`

	// Clients, for a Partition: Reach (default: the clients still reach the target pods) or Cut.
	// +optional
	Clients FaultClients `json:"clients,omitempty"`
}

// FaultRecord is what a step's fault did and what the measurements around it show.
type FaultRecord struct {
	// Injections are the faults applied in the step, in spec.faults order.
	// +listType=atomic
	Injections []FaultInjection `json:"injections"`
	// Measurement is what the clients' per-second series shows around the first injection.
	// +optional
	Measurement *FaultMeasurement `json:"measurement,omitempty"`
	// Ledger is the New-Order ledger check over the step: every acknowledged commit present.
	// +optional
	Ledger *LedgerCheck `json:"ledger,omitempty"`
	// Consistency is the TPC-C consistency check (3.3.2.1–12) run after the step: "passed", or
	// the failing condition.
	// +optional
	Consistency string `json:"consistency,omitempty"`
}

// FaultInjection is one fault applied (or not) in a step.
type FaultInjection struct {
	// Fault is the index of the fault in spec.faults.
	Fault int32 `json:"fault"`
	// Action as in spec.faults.
	Action FaultAction `json:"action"`
	// Pod is the database pod deleted.
	// +optional
	Pod string `json:"pod,omitempty"`
	// PodUID is the UID of the pod instance deleted: the deletion is made with it as a
	// precondition, so a restarted operator repeating it deletes nothing else.
	// +optional
	PodUID string `json:"podUID,omitempty"`
	// PlannedTime is when the fault was due (start of the measured interval + at). Times of an
	// injection are in microseconds: the outage is measured against them.
	// +optional
	PlannedTime *metav1.MicroTime `json:"plannedTime,omitempty"`
	// Time is when the operator deleted the pod (or, for Mark, marked the moment), in the
	// operator's clock.
	// +optional
	Time *metav1.MicroTime `json:"time,omitempty"`
	// ClientTime is the same moment in the clock of the step's first client pod, which the
	// outage is measured in: every client pod records the mark in its own clock right before the
	// deletion, so skew between the operator's clock and the pods' cannot shift the outage.
	// +optional
	ClientTime *metav1.MicroTime `json:"clientTime,omitempty"`
	// State: Injecting (decided and recorded, deletion under way), Injected, Skipped (not applied,
	// Message says why) or Failed (the deletion failed, Message says why).
	State string `json:"state"`
	// Message explains a Skipped or Failed injection.
	// +optional
	Message string `json:"message,omitempty"`
	// PrimaryBefore is the instance that served writes when the fault was applied (PostgreSQL).
	// +optional
	PrimaryBefore string `json:"primaryBefore,omitempty"`
	// PrimaryAfter is the instance the engine's operator made primary after it, and PromotedTime
	// when (CloudNativePG: status.currentPrimary and currentPrimaryTimestamp).
	// +optional
	PrimaryAfter string `json:"primaryAfter,omitempty"`
	// +optional
	PromotedTime *metav1.MicroTime `json:"promotedTime,omitempty"`
	// DegradedTime is, for Mark, when the engine's operator was first seen reporting fewer
	// instances ready than desired after the mark (polled: up to a poll late).
	// +optional
	DegradedTime *metav1.MicroTime `json:"degradedTime,omitempty"`
	// Pods are the database pods a NetworkDelay or Partition applied to.
	// +listType=atomic
	// +optional
	Pods []string `json:"pods,omitempty"`
	// Mechanism says how a network fault was applied: "netem" (the kernel's netem qdisc on the
	// pods' interface), "toxiproxy" (a proxy in the pods' network namespace with a latency toxic,
	// where the kernel has no netem), "iptables" (packets dropped, for a Partition).
	// +optional
	Mechanism string `json:"mechanism,omitempty"`
	// HealedTime is when the fault injector removed a network fault from every target pod.
	// +optional
	HealedTime *metav1.MicroTime `json:"healedTime,omitempty"`
	// ReadyTime is when every instance of the database was ready again, as its operator reports:
	// the deleted pod replaced and ready, or, for Mark, whole again after DegradedTime.
	// +optional
	ReadyTime *metav1.MicroTime `json:"readyTime,omitempty"`
}

// Fault injection states.
const (
	FaultInjecting = "Injecting"
	FaultInjected  = "Injected"
	FaultSkipped   = "Skipped"
	FaultFailed    = "Failed"
)

// FaultMeasurement is the outage as the clients saw it: from the acknowledged commits of every
// client pod, in the clients' clock, and their per-second series.
type FaultMeasurement struct {
	// Unavailability is the longest time around or after the fault in which no client pod got a
	// writing transaction (New-Order, Payment, Delivery) committed: from the last commit
	// acknowledged before the outage to the first one after it, to the millisecond.
	Unavailability metav1.Duration `json:"unavailability"`
	// UnavailableFrom is the last commit acknowledged before the outage, and UnavailableTo the
	// first one after it (absent when none came before the step ended), in the clock of
	// injections[].clientTime.
	// +optional
	UnavailableFrom *metav1.MicroTime `json:"unavailableFrom,omitempty"`
	// +optional
	UnavailableTo *metav1.MicroTime `json:"unavailableTo,omitempty"`
	// UnavailableAtEnd: nothing committed from that point to the end of the step, so the outage
	// lasted at least Unavailability (a lower bound, not its length).
	// +optional
	UnavailableAtEnd bool `json:"unavailableAtEnd,omitempty"`
	// UnavailabilityMethod says how Unavailability was measured: "commits" (the clients'
	// acknowledged commits, as above), or, from clients that do not report them, "intervals"
	// (whole empty series intervals: a resolution of workload.interval). Absent when it could
	// not be measured (NotMeasured says why).
	// +optional
	UnavailabilityMethod string `json:"unavailabilityMethod,omitempty"`
	// NotMeasured says why the outage could not be measured (a client pod without its mark or
	// commit record); Unavailability is then 0 and means nothing.
	// +optional
	NotMeasured string `json:"notMeasured,omitempty"`
	// Recovery is the time from the fault until the first second whose New-Order commits reach
	// 90 % of the mean of the minute before the fault; absent when throughput never came back.
	// +optional
	Recovery *metav1.Duration `json:"recovery,omitempty"`
	// BaselineNewOrdersPerSecond is the mean of the minute before the fault (or as much of it as
	// was measured).
	BaselineNewOrdersPerSecond float64 `json:"baselineNewOrdersPerSecond"`
	// Errors per transaction type from the fault until throughput recovered (or the step ended).
	// +optional
	Errors map[Transaction]int64 `json:"errors,omitempty"`
	// CommitsUnknown counts New-Orders whose connection broke while COMMIT was in flight during the
	// step: the ledger check allows for them.
	// +optional
	CommitsUnknown int64 `json:"commitsUnknown,omitempty"`
	// LatencyAfter are the percentiles of each transaction type's response times in the minute
	// after the fault (exact: merged histograms of those seconds).
	// +optional
	LatencyAfter map[Transaction]TransactionStats `json:"latencyAfter,omitempty"`
}

// LedgerCheck is the verdict of the New-Order ledger over a step, summed over its client pods.
type LedgerCheck struct {
	// Pass: for every district the orders added equal the acknowledged New-Orders, plus at most
	// those whose commit outcome is unknown. False with NotChecked set means some districts could
	// not be checked, which is not a lost commit.
	Pass bool `json:"pass"`
	// NotChecked says why some districts could not be checked (a client pod failed before its
	// reading, a reading failed); a lost commit is in Failures, never here.
	// +listType=atomic
	// +optional
	NotChecked []string `json:"notChecked,omitempty"`
	// Districts checked.
	Districts int32 `json:"districts"`
	// Acknowledged and Unknown New-Orders, and the growth of d_next_o_id, over every district.
	Acknowledged int64 `json:"acknowledged"`
	Unknown      int64 `json:"unknown"`
	Growth       int64 `json:"growth"`
	// Failures name failing districts with their counts (at most 10).
	// +listType=atomic
	// +optional
	Failures []string `json:"failures,omitempty"`
}
