package cockroach

import (
	"fmt"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// Operator RBAC for the objects this engine writes and reads: the CrdbCluster, and the StatefulSet
// cockroach-operator makes of it.
// +kubebuilder:rbac:groups=crdb.cockroachlabs.com,resources=crdbclusters,verbs=get;create;patch;delete
// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get

// Engine is CockroachDB, deployed through cockroach-operator.
type Engine struct{}

var _ engines.Engine = Engine{}

// Name implements engines.Engine.
func (Engine) Name() benchv1.Engine { return benchv1.EngineCockroachDB }

// Dialect implements engines.Engine: the client speaks PostgreSQL's wire protocol, CockroachDB's
// flavour of it.
func (Engine) Dialect() string { return "cockroach" }

// Backend implements engines.Engine.
func (Engine) Backend(image string) engines.Backend { return Backend{DefaultImage: image} }

// Capabilities implements engines.Engine: node pods to kill (no single primary), the New-Order
// ledger read through SQL, SERIALIZABLE by default.
func (Engine) Capabilities() engines.Capabilities {
	return engines.Capabilities{
		Faults:    []benchv1.FaultAction{benchv1.FaultKillPod, benchv1.FaultNetworkDelay, benchv1.FaultPartition},
		Ledger:    true,
		Isolation: engines.IsolationSupport{Default: benchv1.IsolationSerializable},
	}
}

// Describe implements engines.Engine: the nodes, the Raft majority a commit waits for, the node
// pods' resources and volumes and the cluster settings the run sets.
func (Engine) Describe(db benchv1.DatabaseSpec) benchv1.DatabaseDescription {
	c := db.EffectiveCockroach()
	durability := benchv1.Durability{Words: fmt.Sprintf("a Raft majority of %d replicas", min(3, c.Nodes)), Level: benchv1.DurabilityReplicatedDisk}
	if c.Nodes <= 1 {
		durability = benchv1.Durability{Words: "a single replica (1 node: nothing is replicated)", Level: benchv1.DurabilityOneCopy,
			Loses: "it loses acknowledged commits with its node's disk"}
	}
	tuning := benchv1.DatabaseTuning{Words: "sets no cluster settings"}
	if n := len(c.ClusterSettings); n > 0 {
		tuning = benchv1.DatabaseTuning{Words: fmt.Sprintf("sets %d cluster settings", n), Settings: int32(n)}
	}
	return benchv1.DatabaseDescription{
		Deployment: fmt.Sprintf("CockroachDB, %d nodes", c.Nodes),
		Durability: durability,
		Pods:       []benchv1.DatabasePodGroup{{Role: "node", Count: c.Nodes, Resources: c.Resources, Storage: engines.VolumeSize(c.Storage)}},
		Tuning:     tuning,
	}
}

// Representative implements engines.Engine.
func (Engine) Representative(db *benchv1.DatabaseSpec) {
	db.Cockroach = &benchv1.CockroachSpec{Storage: benchv1.StorageSpec{StorageClass: "standard"},
		Resources: engines.RepresentativeResources(), Image: "cockroachdb/cockroach:v25.2.0"}
}

// WithoutLoad implements engines.Engine: nothing of a CrdbCluster applies only while loading.
func (Engine) WithoutLoad(*benchv1.DatabaseSpec) {}

// LegacyImageFlag implements engines.Engine.
func (Engine) LegacyImageFlag() (string, string) { return "cockroach-image", "TPCC_COCKROACH_IMAGE" }

// SourceClusterSettings is the source of the cluster settings a run asks for
// (benchv1.EngineSetting.Source), beside the sizing and workload.isolation.
const SourceClusterSettings = "cockroach.clusterSettings"

// SeparateNodes implements engines.Engine: every node pod on a node of its own.
func (Engine) SeparateNodes(db benchv1.DatabaseSpec) int {
	return int(db.EffectiveCockroach().Nodes)
}
