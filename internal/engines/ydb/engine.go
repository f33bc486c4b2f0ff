package ydb

import (
	"fmt"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// Operator RBAC for the objects this engine writes and reads: ydb-operator's Storage and Database.
// +kubebuilder:rbac:groups=ydb.tech,resources=storages;databases,verbs=get;create;patch;delete

// Engine is YDB, deployed through ydb-operator.
type Engine struct{}

var _ engines.Engine = Engine{}

// Name implements engines.Engine.
func (Engine) Name() benchv1.Engine { return benchv1.EngineYDB }

// Dialect implements engines.Engine: the client speaks YDB's gRPC query service.
func (Engine) Dialect() string { return "ydb" }

// Backend implements engines.Engine.
func (Engine) Backend(image string) engines.Backend { return Backend{DefaultImage: image} }

// Capabilities implements engines.Engine: storage pods to kill, SERIALIZABLE by default and no
// READ COMMITTED for read-write transactions.
func (Engine) Capabilities() engines.Capabilities {
	return engines.Capabilities{
		Faults: []benchv1.FaultAction{benchv1.FaultKillPod, benchv1.FaultNetworkDelay, benchv1.FaultPartition},
		Isolation: engines.IsolationSupport{
			Default: benchv1.IsolationSerializable,
			Refused: map[benchv1.Isolation]string{benchv1.IsolationReadCommitted: benchv1.IsolationYDBReadCommittedMessage},
			Caveat:  "YDB reports no level to read back: its executor asks for SerializableReadWrite, or SnapshotReadWrite for RepeatableRead",
		},
	}
}

// Describe implements engines.Engine: the storage and database nodes, what the erasure keeps of a
// commit, the nodes' resources, the storage nodes' volumes (database nodes have none) and the ydb.config sections the run sets.
func (Engine) Describe(db benchv1.DatabaseSpec) benchv1.DatabaseDescription {
	y := db.EffectiveYDB()
	var durability benchv1.Durability
	switch y.Erasure {
	case benchv1.ErasureMirror3DC:
		durability = benchv1.Durability{Words: "mirror-3-dc (3 replicas in 3 failure domains)", Level: benchv1.DurabilityReplicatedDisk}
	case benchv1.ErasureBlock42:
		durability = benchv1.Durability{Words: "block-4-2 (erasure-coded over 6 parts, any 2 may be lost)", Level: benchv1.DurabilityReplicatedDisk}
	default:
		durability = benchv1.Durability{Words: "none (erasure none: a single copy)", Level: benchv1.DurabilityOneCopy,
			Loses: "it loses acknowledged commits with a storage node's disk"}
	}
	tuning := benchv1.DatabaseTuning{Words: "sets no ydb.config sections"}
	if n := len(y.Config); n > 0 {
		tuning = benchv1.DatabaseTuning{Words: fmt.Sprintf("sets %d ydb.config sections", n), Settings: int32(n)}
	}
	return benchv1.DatabaseDescription{
		Deployment: fmt.Sprintf("YDB, %d storage + %d database nodes, erasure %s", y.StorageNodes, y.DatabaseNodes, y.Erasure),
		Durability: durability,
		Pods: []benchv1.DatabasePodGroup{
			{Role: "storage node", Count: y.StorageNodes, Resources: y.Resources, Storage: engines.VolumeSize(y.Storage)},
			{Role: "database node", Count: y.DatabaseNodes, Resources: y.Resources},
		},
		Tuning: tuning,
	}
}

// Representative implements engines.Engine.
func (Engine) Representative(db *benchv1.DatabaseSpec) {
	db.YDB = &benchv1.YDBSpec{Storage: benchv1.StorageSpec{StorageClass: "standard"},
		Resources: engines.RepresentativeResources(), Image: "ydb:24.4"}
}

// WithoutLoad implements engines.Engine: nothing of YDB's objects applies only while loading.
func (Engine) WithoutLoad(*benchv1.DatabaseSpec) {}

// LegacyImageFlag implements engines.Engine.
func (Engine) LegacyImageFlag() (string, string) { return "ydb-image", "TPCC_YDB_IMAGE" }

// SourceYDBConfig is the source of the configuration a run asks YDB for
// (benchv1.EngineSetting.Source), beside the sizing.
const SourceYDBConfig = "ydb.config"

// SeparateNodes implements engines.Engine: storage nodes each on a node of their own, and database
// nodes each on a node of their own, a storage and a database node may share one: the larger
// count.
func (Engine) SeparateNodes(db benchv1.DatabaseSpec) int {
	y := db.EffectiveYDB()
	return int(max(y.StorageNodes, y.DatabaseNodes))
}
