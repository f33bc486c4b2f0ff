package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// Placement says on which nodes each role's pods may run. A comparison assumes that every
// database instance has a machine of its own (so the loss of one machine takes one instance) and
// that the TPC-C clients do not take the database's CPU; the defaults give both without any field
// set (docs/placement.md):
//   - database: one instance per node (required pod anti-affinity on kubernetes.io/hostname among
//     the run's database pods: CloudNativePG's enablePodAntiAffinity with podAntiAffinityType
//     required; the same term for CockroachDB's pods and for YDB's storage and database nodes);
//   - loader and clients: prefer nodes that run none of the run's database pods (preferred pod
//     anti-affinity on the run's database pod labels); client pods also spread across nodes.
//
// A role's block adds its fields to those defaults; an affinity.podAntiAffinity of its own
// replaces the default anti-affinity of that role (`podAntiAffinity: {}` removes it, e.g. to put
// three instances on a one-node cluster, which the report then flags).
type Placement struct {
	// Database places the database's pods: CloudNativePG's instances (spec.affinity,
	// spec.topologySpreadConstraints), CockroachDB's nodes (CrdbCluster nodeSelector, tolerations,
	// affinity, topologySpreadConstraints), YDB's storage and database nodes (Storage and Database
	// nodeSelector, tolerations, affinity; ydb-operator takes no topologySpreadConstraints).
	// Not with an external database.
	// +optional
	Database *PodPlacement `json:"database,omitempty"`

	// Loader places the loader pods and the consistency checks' pods.
	// +optional
	Loader *PodPlacement `json:"loader,omitempty"`

	// Clients places the TPC-C client pods of every step.
	// +optional
	Clients *PodPlacement `json:"clients,omitempty"`
}

// PodPlacement is the standard Kubernetes scheduling fields of a pod, for one role.
type PodPlacement struct {
	// NodeSelector: the pods run only on nodes with these labels.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Tolerations of the pods, e.g. for nodes tainted for databases.
	// +listType=atomic
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// Affinity: node affinity, pod affinity and pod anti-affinity. A podAntiAffinity here replaces
	// the role's default anti-affinity.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// TopologySpreadConstraints of the pods. For the clients they replace the default spread.
	// +listType=atomic
	// +optional
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
}

// Placement roles, as status.steps[].placement.pods[].role and status.load.placement[].role name them.
const (
	RoleDatabase = "Database"
	RoleClient   = "Client"
	RoleLoader   = "Loader"
	RoleCheck    = "Check"
)

// StepPlacement is where a step's pods ran, read when the step was recorded: each database and
// client pod's node, the database's primary where the engine names one, and what in that
// placement undermines the comparison.
type StepPlacement struct {
	// Pods are the database pods and the step's client pods with their nodes.
	// +listType=atomic
	Pods []PodPlacementRecord `json:"pods"`
	// Primary is the database pod that served writes (PostgreSQL: CloudNativePG's
	// status.currentPrimary); empty where the engine has no single writer or does not say.
	// +optional
	Primary string `json:"primary,omitempty"`
	// PrimaryNode is the node of Primary.
	// +optional
	PrimaryNode string `json:"primaryNode,omitempty"`
	// ClientsOnDatabaseNodes are the nodes that ran a client pod beside a database pod: the clients
	// took CPU and memory from the database they measured.
	// +listType=atomic
	// +optional
	ClientsOnDatabaseNodes []string `json:"clientsOnDatabaseNodes,omitempty"`
	// SharedDatabaseNodes are the nodes that ran two or more database instances of one kind: the
	// loss of that machine takes them together, so the database does not survive the loss of a
	// machine.
	// +listType=atomic
	// +optional
	SharedDatabaseNodes []string `json:"sharedDatabaseNodes,omitempty"`
	// Findings say the above in words, naming the pods.
	// +listType=atomic
	// +optional
	Findings []string `json:"findings,omitempty"`
}

// PodPlacementRecord is one pod and the node it ran on.
type PodPlacementRecord struct {
	// Name of the pod.
	Name string `json:"name"`
	// Role: Database, Client, Loader or Check.
	Role string `json:"role"`
	// Group is the kind of database pod where an engine runs several (YDB: storage, database);
	// instances of one group should each have a node.
	// +optional
	Group string `json:"group,omitempty"`
	// Node the pod was scheduled on; empty while it is not scheduled.
	// +optional
	Node string `json:"node,omitempty"`
}

// DatabasePlacement, LoaderPlacement and ClientsPlacement are the role's block of a placement,
// nil when the placement or the block is absent.
func (p *Placement) DatabasePlacement() *PodPlacement {
	if p == nil {
		return nil
	}
	return p.Database
}

func (p *Placement) LoaderPlacement() *PodPlacement {
	if p == nil {
		return nil
	}
	return p.Loader
}

func (p *Placement) ClientsPlacement() *PodPlacement {
	if p == nil {
		return nil
	}
	return p.Clients
}

// MergePlacement is a suite database's placement: role by role, the database's own block, else
// the suite's. An external database takes no database block from the suite (it has no pods to
// place). Nil when neither gives any block.
func MergePlacement(own, suite *Placement, external bool) *Placement {
	pick := func(a, b *PodPlacement) *PodPlacement {
		if a != nil {
			return a.DeepCopy()
		}
		return b.DeepCopy()
	}
	out := &Placement{
		Database: pick(own.DatabasePlacement(), suite.DatabasePlacement()),
		Loader:   pick(own.LoaderPlacement(), suite.LoaderPlacement()),
		Clients:  pick(own.ClientsPlacement(), suite.ClientsPlacement()),
	}
	if external && own.DatabasePlacement() == nil {
		out.Database = nil
	}
	if out.Database == nil && out.Loader == nil && out.Clients == nil {
		return nil
	}
	return out
}
