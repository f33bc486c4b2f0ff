package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// DatabaseDescription is the engine's own account of a run's database: its topology, what a commit
// waits for, its pods and what the run asks of the engine beyond the operator's sizing. The
// operator records it when the database is first deployed (status.database.description), and a
// suite's comparison describes each of its databases the same way, so that reports say what was
// measured without knowing any engine (internal/engines: each engine's Describe).
type DatabaseDescription struct {
	// Engine is the engine described.
	Engine Engine `json:"engine"`
	// Deployment summarises the topology: "PostgreSQL, 3 instances, 2 synchronous (remote_apply)".
	Deployment string `json:"deployment"`
	// Durability is what a commit waits for.
	Durability Durability `json:"durability"`
	// Pods are the database's pods by role, each with the resources its steps measure it with;
	// absent for a database the operator does not deploy.
	// +listType=atomic
	// +optional
	Pods []DatabasePodGroup `json:"pods,omitempty"`
	// Pooler says which connection pooler the steps' client pods went through, and how it pooled:
	// "through PgBouncer (CloudNativePG Pooler, 1 instance, transaction pooling, 20 server
	// connections each)"; empty when they connected directly.
	// +optional
	Pooler string `json:"pooler,omitempty"`
	// Tuning says what the spec asks the engine for beyond the operator's own sizing.
	Tuning DatabaseTuning `json:"tuning"`
	// DefaultIsolation is the level the engine's transactions run at when workload.isolation is
	// omitted.
	DefaultIsolation Isolation `json:"defaultIsolation"`
	// IsolationCaveat says, in the engine's terms, what its levels mean where that differs from
	// their names; empty when nothing needs saying.
	// +optional
	IsolationCaveat string `json:"isolationCaveat,omitempty"`
}

// Durability is what a commit of a database waits for.
type Durability struct {
	// Words say it: "both synchronous standbys applied it (remote_apply)", "a Raft majority of 3
	// replicas", "mirror-3-dc (3 replicas in 3 failure domains)".
	Words string `json:"words"`
	// Level orders the guarantee (comparisons of levels drive the suite's durability note).
	Level DurabilityLevel `json:"level"`
	// Loses says what an acknowledged commit does not survive, for levels below the best.
	// +optional
	Loses string `json:"loses,omitempty"`
}

// DurabilityLevel orders what a commit's acknowledgement guarantees.
// +kubebuilder:validation:Enum=NoCopy;Unknown;OneCopy;RemoteMemory;ReplicatedDisk
type DurabilityLevel string

const (
	// DurabilityNoCopy: the tables write no log at all, or no instance flushes it: below one copy,
	// since even the writer's own crash loses them.
	DurabilityNoCopy DurabilityLevel = "NoCopy"
	// DurabilityUnknown: an external database; the operator does not know how it is configured.
	DurabilityUnknown DurabilityLevel = "Unknown"
	// DurabilityOneCopy: the commit is on one server's disk (asynchronous or no replication).
	DurabilityOneCopy DurabilityLevel = "OneCopy"
	// DurabilityRemoteMemory: another server has received the commit but not yet flushed it.
	DurabilityRemoteMemory DurabilityLevel = "RemoteMemory"
	// DurabilityReplicatedDisk: the commit is on the disks of two or more servers.
	DurabilityReplicatedDisk DurabilityLevel = "ReplicatedDisk"
)

// DatabasePodGroup is a set of the database's pods with one role and one size.
type DatabasePodGroup struct {
	// Role names one pod of the group in the engine's words: "instance", "node", "storage node".
	Role string `json:"role"`
	// Count is how many pods the group has.
	Count int32 `json:"count"`
	// Resources each pod is measured with.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// LoadResources are what each pod is deployed and loaded with when that differs from
	// Resources (postgres.loadResources); the pods switch before the first step.
	// +optional
	LoadResources *corev1.ResourceRequirements `json:"loadResources,omitempty"`
	// Storage is the size of each pod's volumes together; absent for pods with none.
	// +optional
	Storage *resource.Quantity `json:"storage,omitempty"`
}

// DatabaseTuning is what a database's spec asks its engine for beyond the operator's sizing.
type DatabaseTuning struct {
	// Words say it: "sets 2 postgres.parameters", "sets no cluster settings".
	Words string `json:"words"`
	// Settings counts the settings asked for.
	// +optional
	Settings int32 `json:"settings,omitempty"`
}
