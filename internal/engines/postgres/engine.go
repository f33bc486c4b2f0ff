package postgres

import (
	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// Operator RBAC for the objects this engine writes and reads: CloudNativePG's Cluster, its
// volume-snapshot Backups, its Pooler and the Deployment CloudNativePG runs PgBouncer in.
// +kubebuilder:rbac:groups=postgresql.cnpg.io,resources=clusters,verbs=get;create;patch;delete
// +kubebuilder:rbac:groups=postgresql.cnpg.io,resources=backups,verbs=get;create
// +kubebuilder:rbac:groups=postgresql.cnpg.io,resources=poolers,verbs=get;create;patch;delete
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get

// Engine is PostgreSQL with synchronous replicas, deployed through CloudNativePG.
type Engine struct{}

var _ engines.Engine = Engine{}

// Name implements engines.Engine.
func (Engine) Name() benchv1.Engine { return benchv1.EnginePostgreSQL }

// Dialect implements engines.Engine: the client speaks PostgreSQL's wire protocol.
func (Engine) Dialect() string { return "postgres" }

// Backend implements engines.Backend.
func (Engine) Backend(image string) engines.Backend { return Backend{DefaultImage: image} }

// Capabilities implements engines.Engine: volume snapshots through CloudNativePG, a primary to
// kill, standbys the primary reports, the New-Order ledger read through SQL, unlogged tables,
// READ COMMITTED (with explicit row locks) by default, and every write on the primary.
func (Engine) Capabilities() engines.Capabilities {
	return engines.Capabilities{
		Snapshot:       true,
		Faults:         []benchv1.FaultAction{benchv1.FaultKillPrimary, benchv1.FaultKillPod, benchv1.FaultNetworkDelay, benchv1.FaultPartition},
		Replication:    true,
		Ledger:         true,
		UnloggedTables: true,
		SingleWriter:   true,
		Isolation: engines.IsolationSupport{
			Default: benchv1.IsolationReadCommitted,
			Caveat:  "PostgreSQL's READ COMMITTED takes explicit row locks in one global order, its REPEATABLE READ is snapshot isolation",
		},
	}
}

// Representative implements engines.Engine.
func (Engine) Representative(db *benchv1.DatabaseSpec) {
	db.Postgres = &benchv1.PostgresSpec{Parameters: map[string]string{"shared_buffers": "128MB"},
		Storage: benchv1.StorageSpec{StorageClass: "standard"}, Resources: engines.RepresentativeResources(), Image: "postgres:17"}
}

// WithoutLoad implements engines.Engine: loadResources apply while the run loads; a kept database
// already runs with the measured resources, a restored one is deployed with them.
func (Engine) WithoutLoad(db *benchv1.DatabaseSpec) {
	if db.Postgres != nil {
		db.Postgres.LoadResources = nil
	}
}

// AddToScheme implements engines.SchemeAdder: CloudNativePG's typed API.
func (Engine) AddToScheme(s *runtime.Scheme) error { return cnpgv1.AddToScheme(s) }

// LegacyImageFlag implements engines.Engine.
func (Engine) LegacyImageFlag() (string, string) { return "postgres-image", "TPCC_POSTGRES_IMAGE" }

// Sources of the settings a run asks PostgreSQL for (benchv1.EngineSetting.Source), beside the
// sizing.
const (
	SourceParameters        = "postgres.parameters"
	SourceSynchronousCommit = "postgres.synchronousCommit"
	SourcePooler            = "postgres.pooler"
)

// SeparateNodes implements engines.Engine: CloudNativePG's required anti-affinity keeps every
// instance on a node of its own.
func (Engine) SeparateNodes(db benchv1.DatabaseSpec) int {
	return int(db.EffectivePostgres().Instances)
}
