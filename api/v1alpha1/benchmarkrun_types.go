package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkRun finds the highest TPC-C throughput (tpmC) a database sustains inside a latency SLA.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=br,categories=tpcc
// +kubebuilder:printcolumn:name="Engine",type=string,JSONPath=`.spec.database.engine`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Step",type=integer,JSONPath=`.status.current.index`,description="Index of the step under way"
// +kubebuilder:printcolumn:name="Active",type=integer,JSONPath=`.status.current.activeWarehouses`,description="Active warehouses of the step under way"
// +kubebuilder:printcolumn:name="Live-TpmC",type=number,JSONPath=`.status.current.tpmC`,description="tpmC so far in the step under way"
// +kubebuilder:printcolumn:name="Warehouses",type=integer,JSONPath=`.status.result.maxCompliantWarehouses`,description="Largest SLA-compliant active warehouse count"
// +kubebuilder:printcolumn:name="Bound",type=string,JSONPath=`.status.result.bound`,description="Bracketed: Warehouses is the capacity within precision; AllLoadedCompliant or StepsExhausted: only a floor (the capacity is at least Warehouses)"
// +kubebuilder:printcolumn:name="TpmC",type=number,JSONPath=`.status.result.tpmC`
// +kubebuilder:printcolumn:name="Efficiency",type=number,JSONPath=`.status.result.efficiency`,description="Percent of the 12.86 tpmC per warehouse ceiling"
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1,description="The Ready condition's reason: the phase under way, Succeeded, or why the run failed (docs/troubleshooting.md)"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 40 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS label of at most 40 characters starting with a letter: it names the database's Services, Jobs and pods"
type BenchmarkRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BenchmarkRunSpec   `json:"spec"`
	Status BenchmarkRunStatus `json:"status,omitempty"`
}

// BenchmarkRunList is a list of BenchmarkRuns.
//
// +kubebuilder:object:root=true
type BenchmarkRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BenchmarkRun `json:"items"`
}

// BenchmarkRunSpec is what to benchmark and how. Every part but database.teardown is fixed once the
// run exists: the recorded steps are only comparable when measured under one specification.
//
// +kubebuilder:validation:XValidation:rule="!has(self.search.startWarehouses) || self.search.startWarehouses <= self.workload.warehouses",fieldPath=".search.startWarehouses",message="search.startWarehouses must not exceed workload.warehouses"
// +kubebuilder:validation:XValidation:rule="!has(self.search.probeDuration) || !has(self.workload.duration) || duration(self.search.probeDuration) <= duration(self.workload.duration)",fieldPath=".search.probeDuration",message="search.probeDuration must not exceed workload.duration"
// +kubebuilder:validation:XValidation:rule="!has(self.search.probeDuration) || (has(self.workload.wait) && self.workload.wait == 'None') || duration(self.search.probeDuration) >= duration('30s')",fieldPath=".search.probeDuration",message="search.probeDuration must be at least 30s with workload.wait Spec: one New-Order cycle (18s keying + 12s mean think time) must fit in a probe"
// +kubebuilder:validation:XValidation:rule="!has(self.sla.maxReplicationLag) || self.database.engine == 'PostgreSQL'",fieldPath=".sla.maxReplicationLag",message="sla.maxReplicationLag applies only to engine PostgreSQL: CockroachDB and YDB replicate by consensus and expose no standby lag"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.database.external) || self.faults.all(f, f.action == 'Mark')",fieldPath=".faults",message="faults: only action Mark applies to an external database: the operator deletes pods only of a database it deployed"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || self.faults.all(f, f.action != 'KillPrimary' || self.database.engine == 'PostgreSQL')",fieldPath=".faults",message="faults: action KillPrimary applies only to engine PostgreSQL (CloudNativePG's status.currentPrimary); use KillPod with an ordinal for CockroachDB and YDB"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.workload.duration) || self.faults.all(f, duration(f.at) < duration(self.workload.duration))",fieldPath=".faults",message="faults: at must be inside the measured interval (shorter than workload.duration)"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.workload.duration) || self.faults.all(f, !has(f.duration) || duration(f.at) + duration(f.duration) < duration(self.workload.duration))",fieldPath=".faults",message="faults: a network fault must heal inside the measured interval (at + duration shorter than workload.duration)"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || self.faults.all(f, !has(f.target) || f.target == 'Pod' || self.database.engine == 'PostgreSQL')",fieldPath=".faults",message="faults: targets Primary and Standbys apply only to engine PostgreSQL; use target Pod with an ordinal for CockroachDB and YDB"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.database.postgres) || self.faults.all(f, !has(f.ordinal) || f.ordinal < self.database.postgres.instances)",fieldPath=".faults",message="faults: ordinal must be below database.postgres.instances"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.database.cockroach) || self.faults.all(f, !has(f.ordinal) || f.ordinal < self.database.cockroach.nodes)",fieldPath=".faults",message="faults: ordinal must be below database.cockroach.nodes"
// +kubebuilder:validation:XValidation:rule="!has(self.faults) || !has(self.database.ydb) || self.faults.all(f, !has(f.ordinal) || f.ordinal < self.database.ydb.storageNodes)",fieldPath=".faults",message="faults: ordinal must be below database.ydb.storageNodes"
// +kubebuilder:validation:XValidation:rule="!has(self.adversity) || !has(self.database.external)",fieldPath=".adversity",message="adversity applies only to a database the operator deploys: its states delete and cut the database's own pods"
// +kubebuilder:validation:XValidation:rule="!has(self.adversity) || !has(self.adversity.warehouses) || self.adversity.warehouses <= self.workload.warehouses",fieldPath=".adversity.warehouses",message="adversity.warehouses must not exceed workload.warehouses"
// +kubebuilder:validation:XValidation:rule="!has(self.sla.maxUnavailability) || has(self.faults) || has(self.adversity)",fieldPath=".sla.maxUnavailability",message="sla.maxUnavailability needs faults: it bounds the outage a fault causes"
// +kubebuilder:validation:XValidation:rule="has(self.placement) == has(oldSelf.placement)",message="placement cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="!has(self.placement) || !has(self.placement.database) || !has(self.database.external)",fieldPath=".placement.database",message="placement.database applies only to a database the operator deploys: an external database has no pods of the run to place"
// +kubebuilder:validation:XValidation:rule="!has(self.placement) || !has(self.placement.database) || !has(self.placement.database.topologySpreadConstraints) || self.database.engine != 'YDB'",fieldPath=".placement.database.topologySpreadConstraints",message="placement.database.topologySpreadConstraints is not supported with engine YDB: ydb-operator's Storage and Database take nodeSelector, tolerations and affinity (the Storage sets its own spread); use affinity"
// +kubebuilder:validation:XValidation:rule="!has(self.workload.isolation) || self.workload.isolation != 'ReadCommitted' || self.database.engine != 'YDB'",fieldPath=".workload.isolation",message="workload.isolation ReadCommitted is not offered by YDB: its read-write transactions are Serializable or, from YDB 25.1, snapshot isolation (RepeatableRead)"
type BenchmarkRunSpec struct {
	// Database names the engine and how to deploy it, or an existing database to use.
	Database DatabaseSpec `json:"database"`

	// Workload is the TPC-C data set and how each measured step runs.
	Workload WorkloadSpec `json:"workload"`

	// SLA decides whether a step is compliant.
	// +kubebuilder:default={}
	// +optional
	SLA SLASpec `json:"sla,omitempty"`

	// Search decides which active warehouse counts are measured.
	// +kubebuilder:default={}
	// +optional
	Search SearchSpec `json:"search,omitempty"`

	// Faults are disruptions injected into the database's pods during a step: what a node's loss
	// costs under load (the outage, the errors, the recovery), and proof that no acknowledged
	// commit was lost. KillPrimary and KillPod act on deployed databases only; Mark (the
	// disruption is the user's own) also on an external one, which is never touched.
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="faults are immutable once the run is created"
	// +listType=atomic
	// +optional
	Faults []Fault `json:"faults,omitempty"`

	// Sustain, after the search, runs one long step at a share of the capacity found and says
	// whether the SLA held through it (docs/sustain.md).
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="sustain is immutable once the run is created"
	// +optional
	Sustain *SustainSpec `json:"sustain,omitempty"`

	// Adversity, after the search (and the sustained phase), runs one step that walks a sequence
	// of failure states at a share of the capacity found and records the database's profile under
	// them (docs/adversity.md). Its network states need the fault injector.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="adversity is immutable once the run is created"
	// +optional
	Adversity *AdversitySpec `json:"adversity,omitempty"`

	// Placement says on which nodes the database, loader and client pods may run. Without it
	// every database instance gets a node of its own, and the loader and client pods prefer nodes
	// without a database pod of the run (docs/placement.md).
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="placement is immutable once the run is created"
	// +optional
	Placement *Placement `json:"placement,omitempty"`

	// Results names the results database the run's steps and result are recorded into
	// (docs/results.md, api/v1alpha1/results.go). It may change: a run given one after it ended
	// records everything it has.
	// +optional
	Results *ResultsSpec `json:"results,omitempty"`

	// RetainReports keeps the report ConfigMap (<run>-report) when the run is deleted: it is then
	// annotated with the run's UID but not owned by it.
	// +optional
	RetainReports bool `json:"retainReports,omitempty"`

	// Pricing prices the database's resources for status.result.pricePerformance
	// (docs/price-performance.md). It may change: the price is computed when the result is.
	// +optional
	Pricing *PricingSpec `json:"pricing,omitempty"`
}

// Engine is a database engine.
// +kubebuilder:validation:Enum=PostgreSQL;CockroachDB;YDB
type Engine string

const (
	EnginePostgreSQL  Engine = "PostgreSQL"
	EngineCockroachDB Engine = "CockroachDB"
	EngineYDB         Engine = "YDB"
)

// TeardownPolicy says what happens to a deployed database when the run ends.
// +kubebuilder:validation:Enum=Delete;Retain
type TeardownPolicy string

const (
	// TeardownDelete deletes the database (and its data) when the run ends or is deleted.
	TeardownDelete TeardownPolicy = "Delete"
	// TeardownRetain keeps the database, not owned by the run, for inspection or a later run.
	TeardownRetain TeardownPolicy = "Retain"
)

// DatabaseSpec describes the database under test.
//
// +kubebuilder:validation:XValidation:rule="!has(self.postgres) || self.engine == 'PostgreSQL'",fieldPath=".postgres",message="postgres is only allowed with engine PostgreSQL"
// +kubebuilder:validation:XValidation:rule="!has(self.cockroach) || self.engine == 'CockroachDB'",fieldPath=".cockroach",message="cockroach is only allowed with engine CockroachDB"
// +kubebuilder:validation:XValidation:rule="!has(self.ydb) || self.engine == 'YDB'",fieldPath=".ydb",message="ydb is only allowed with engine YDB"
// +kubebuilder:validation:XValidation:rule="!has(self.external) || !(has(self.postgres) || has(self.cockroach) || has(self.ydb))",fieldPath=".external",message="external deploys nothing and cannot be combined with postgres, cockroach or ydb"
// +kubebuilder:validation:XValidation:rule="!has(self.external) || !has(self.external.tables) || self.engine == 'PostgreSQL'",fieldPath=".external.tables",message="external.tables applies only to engine PostgreSQL: CockroachDB and YDB have no unlogged tables"
// +kubebuilder:validation:XValidation:rule="[has(self.postgres), has(self.cockroach), has(self.ydb), has(self.external), has(self.reuse), has(self.snapshot), has(self.restore)] == [has(oldSelf.postgres), has(oldSelf.cockroach), has(oldSelf.ydb), has(oldSelf.external), has(oldSelf.reuse), has(oldSelf.snapshot), has(oldSelf.restore)]",message="the database blocks (postgres, cockroach, ydb, external, reuse, snapshot, restore) cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="!has(self.reuse) || !has(self.postgres) || !has(self.postgres.loadResources)",fieldPath=".postgres.loadResources",message="postgres.loadResources applies while this run loads its data; with reuse the kept database is not loaded again"
// +kubebuilder:validation:XValidation:rule="!has(self.reuse) || !has(self.postgres) || !has(self.postgres.pooler)",fieldPath=".postgres.pooler",message="postgres.pooler is deployed with the database; with reuse the kept database is taken over as it was deployed"
// +kubebuilder:validation:XValidation:rule="!has(self.reuse) || !has(self.external)",fieldPath=".reuse",message="reuse applies to a database an earlier run deployed and kept, not to an external one (an external database keeps its data anyway)"
// +kubebuilder:validation:XValidation:rule="!has(self.snapshot) || self.engine == 'PostgreSQL'",fieldPath=".snapshot",message="snapshot is supported with engine PostgreSQL only: CloudNativePG takes and restores volume snapshots; cockroach-operator and ydb-operator have no such API"
// +kubebuilder:validation:XValidation:rule="!has(self.restore) || self.engine == 'PostgreSQL'",fieldPath=".restore",message="restore is supported with engine PostgreSQL only: CloudNativePG takes and restores volume snapshots; cockroach-operator and ydb-operator have no such API"
// +kubebuilder:validation:XValidation:rule="!(has(self.snapshot) || has(self.restore)) || !has(self.external)",fieldPath=".external",message="snapshot and restore apply to a database the operator deploys, not to an external one"
// +kubebuilder:validation:XValidation:rule="!has(self.reuse) || !(has(self.snapshot) || has(self.restore))",fieldPath=".reuse",message="reuse takes over a kept database as it is; snapshot and restore start from freshly loaded data: choose one"
// +kubebuilder:validation:XValidation:rule="!has(self.snapshot) || !has(self.restore)",fieldPath=".snapshot",message="snapshot keeps data this run loads; a run with restore loads nothing (the snapshot it restores is already kept)"
// +kubebuilder:validation:XValidation:rule="!has(self.restore) || !has(self.postgres) || !has(self.postgres.loadResources)",fieldPath=".postgres.loadResources",message="postgres.loadResources applies while this run loads its data; with restore nothing is loaded"
type DatabaseSpec struct {
	// Engine is the database engine. It cannot change after creation.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="engine is immutable"
	Engine Engine `json:"engine"`

	// Postgres deploys PostgreSQL with synchronous replicas through CloudNativePG. Only with engine
	// PostgreSQL; when omitted, the defaults of its fields apply.
	// +optional
	Postgres *PostgresSpec `json:"postgres,omitempty"`

	// Cockroach deploys CockroachDB through cockroach-operator. Only with engine CockroachDB; when
	// omitted, the defaults of its fields apply.
	// +optional
	Cockroach *CockroachSpec `json:"cockroach,omitempty"`

	// YDB deploys YDB through ydb-operator. Only with engine YDB; when omitted, the defaults of its
	// fields apply.
	// +optional
	YDB *YDBSpec `json:"ydb,omitempty"`

	// External benchmarks an existing database of any engine; nothing is deployed.
	// +optional
	External *ExternalSpec `json:"external,omitempty"`

	// Teardown says what happens to a deployed database when the run ends.
	// +kubebuilder:default=Delete
	// +optional
	Teardown TeardownPolicy `json:"teardown,omitempty"`

	// Reuse starts the run from the loaded database an earlier run kept (docs/reuse.md).
	// +optional
	Reuse *ReuseSpec `json:"reuse,omitempty"`

	// Snapshot keeps the freshly loaded data as VolumeSnapshots for later runs to restore from
	// (spec.database.restore): taken after the load's consistency check, before the first step.
	// PostgreSQL only (docs/reuse.md).
	// +optional
	Snapshot *SnapshotSpec `json:"snapshot,omitempty"`

	// Restore deploys the database from the snapshot an earlier run took (spec.database.snapshot)
	// instead of loading it: every run restored from one snapshot starts from the same data.
	// PostgreSQL only (docs/reuse.md).
	// +optional
	Restore *RestoreSpec `json:"restore,omitempty"`
}

// SynchronousCommit is PostgreSQL's synchronous_commit level on a cluster with synchronous replicas.
// +kubebuilder:validation:Enum=on;remote_write;remote_apply
type SynchronousCommit string

// PostgresSpec is a CloudNativePG cluster: a primary and streaming standbys, some of them synchronous.
//
// +kubebuilder:validation:XValidation:rule="self.synchronousReplicas < self.instances",fieldPath=".synchronousReplicas",message="synchronousReplicas must be less than instances"
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="postgres is immutable once the run is created"
type PostgresSpec struct {
	// Instances is the number of PostgreSQL instances: the primary plus its standbys.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=3
	// +optional
	Instances int32 `json:"instances,omitempty"`

	// SynchronousReplicas is how many standbys must confirm each commit (CloudNativePG
	// spec.postgresql.synchronous with method any). 0 means asynchronous replication.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=2
	// +optional
	SynchronousReplicas *int32 `json:"synchronousReplicas,omitempty"`

	// SynchronousCommit is the synchronous_commit level.
	// +kubebuilder:default=remote_apply
	// +optional
	SynchronousCommit SynchronousCommit `json:"synchronousCommit,omitempty"`

	// Parameters are extra postgresql.conf parameters. Names are matched as PostgreSQL does,
	// ignoring case. synchronous_commit and synchronous_standby_names are set by the fields above
	// and cannot be given here. Nor can the parameters that would let a commit be acknowledged
	// without being durable behind the run's back: full_page_writes (off, a crash in the middle of
	// a page write leaves a torn page WAL replay cannot repair; CloudNativePG keeps it on) and
	// data_sync_retry (on, PostgreSQL carries on after a failed fsync, and the writes the kernel
	// dropped are lost; CloudNativePG blocks it). fsync is accepted, because switching it off is a
	// measurement people make on purpose, like tables: Unlogged: then every report says a commit
	// reaches no disk, never "remote_apply", and a suite names it in its fairness notes.
	// wal_sync_method is accepted: each of its values flushes (they differ in the system call),
	// and commit_delay only delays a flush. wal_level is CloudNativePG's (it rejects it).
	// +kubebuilder:validation:MaxProperties=128
	// +kubebuilder:validation:XValidation:rule="!self.exists(k, k.lowerAscii() == 'synchronous_commit')",message="set synchronous_commit with postgres.synchronousCommit, not in parameters"
	// +kubebuilder:validation:XValidation:rule="!self.exists(k, k.lowerAscii() == 'synchronous_standby_names')",message="synchronous_standby_names is derived from postgres.synchronousReplicas and cannot be set in parameters"
	// +kubebuilder:validation:XValidation:rule="!self.exists(k, k.lowerAscii() == 'full_page_writes')",message="full_page_writes cannot be set in parameters: it stays on (off, a crash during a page write leaves a torn page that WAL replay cannot repair, so acknowledged commits can be lost; CloudNativePG fixes it on)"
	// +kubebuilder:validation:XValidation:rule="!self.exists(k, k.lowerAscii() == 'data_sync_retry')",message="data_sync_retry cannot be set in parameters: it stays off (on, PostgreSQL carries on after a failed fsync and the writes the kernel dropped are lost; CloudNativePG blocks it)"
	// +optional
	Parameters map[string]string `json:"parameters,omitempty"`

	// Storage is the data volume of each instance.
	// +kubebuilder:default={}
	// +optional
	Storage StorageSpec `json:"storage,omitempty"`

	// Resources are each instance's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// LoadResources, when set, are each instance's compute resources from deployment until the
	// data is loaded; before the first step the Cluster is set to Resources and CloudNativePG rolls
	// the instances onto them (each restarted once; the run waits until every instance runs with
	// Resources and the cluster is ready, then records status.database.resourcesSwitchTime). It lets
	// a run measure under a small CPU limit without deploying and loading under it. Only cpu may
	// differ from Resources: memory sizes the PostgreSQL settings, which must not change between
	// the load and the steps. Not with database.reuse (a kept database is not loaded again).
	// +optional
	LoadResources *corev1.ResourceRequirements `json:"loadResources,omitempty"`

	// Image overrides the PostgreSQL operand image.
	// +optional
	Image string `json:"image,omitempty"`

	// Tables is how the loader creates the TPC-C tables: Logged (default) or Unlogged. Unlogged
	// tables write no WAL (the study's "NoWAL" variant): they are not replicated, so the standbys
	// hold none of their rows and a failover or a crash of the primary loses them (PostgreSQL
	// truncates unlogged tables in crash recovery). synchronousReplicas then only delays commits
	// by what little WAL remains. A measurement of the engine without durability, not a
	// deployment to copy.
	// +kubebuilder:default=Logged
	// +optional
	Tables TablePersistence `json:"tables,omitempty"`

	// Pooler puts CloudNativePG's Pooler (PgBouncer) in front of the primary: the steps' client
	// pods connect through it, the loaders and the checks directly. Reports and a suite's fairness
	// notes say that a pooler stood in front of the database.
	// +optional
	Pooler *PostgresPooler `json:"pooler,omitempty"`
}

// PostgresPooler is a CloudNativePG Pooler of type rw in front of the run's Cluster.
type PostgresPooler struct {
	// Instances is the number of PgBouncer pods.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	// +kubebuilder:default=1
	// +optional
	Instances int32 `json:"instances,omitempty"`

	// PoolMode is when PgBouncer hands a server connection back to its pool: Transaction (default;
	// at each transaction's end, so a few server connections serve many clients) or Session (when
	// the client disconnects, so every client connection holds one server connection).
	// +kubebuilder:default=Transaction
	// +optional
	PoolMode PoolMode `json:"poolMode,omitempty"`

	// DefaultPoolSize is each PgBouncer's server connections to the primary (default_pool_size).
	// 0 sizes it: in Transaction mode 4 per vCPU of an instance (its CPU limit, else its request),
	// divided among the Pooler's instances, at least 5, and 20 when the instances declare no CPU;
	// in Session mode each PgBouncer's share of a step's client connections at every loaded
	// warehouse (a smaller pool is refused: the clients beyond it would wait).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +optional
	DefaultPoolSize int32 `json:"defaultPoolSize,omitempty"`

	// Resources of each PgBouncer container.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
}

// PoolMode is PgBouncer's pool_mode.
// +kubebuilder:validation:Enum=Transaction;Session
type PoolMode string

const (
	PoolModeTransaction PoolMode = "Transaction"
	PoolModeSession     PoolMode = "Session"
)

// TablePersistence is whether the TPC-C tables are written to PostgreSQL's WAL.
// +kubebuilder:validation:Enum=Logged;Unlogged
type TablePersistence string

const (
	// TablesLogged are ordinary tables: durable and replicated.
	TablesLogged TablePersistence = "Logged"
	// TablesUnlogged are CREATE UNLOGGED TABLEs: no WAL, not replicated, emptied by crash recovery.
	TablesUnlogged TablePersistence = "Unlogged"
)

// CockroachSpec is a CockroachDB cluster managed by cockroach-operator, with TLS on.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="cockroach is immutable once the run is created"
type CockroachSpec struct {
	// Nodes is the number of CockroachDB nodes (3 for fault tolerance).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=3
	// +optional
	Nodes int32 `json:"nodes,omitempty"`

	// Storage is the data volume of each node.
	// +kubebuilder:default={}
	// +optional
	Storage StorageSpec `json:"storage,omitempty"`

	// Resources are each node's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// Image overrides the CockroachDB image.
	// +optional
	Image string `json:"image,omitempty"`

	// ClusterSettings are CockroachDB cluster settings (name: value, as SET CLUSTER SETTING
	// takes them, e.g. kv.snapshot_rebalance.max_rate: 64MiB), applied with SET CLUSTER SETTING
	// by the loader before it loads; the values CockroachDB then reports (SHOW CLUSTER SETTING)
	// are recorded in status.environment.tuning. A workload.isolation below Serializable adds the
	// setting that enables it unless given here.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^[a-z][a-z0-9_]*([.][a-z0-9_]+)+$'))",message="cockroach.clusterSettings: names are CockroachDB cluster setting names, lower-case and dotted (kv.snapshot_rebalance.max_rate)"
	// +kubebuilder:validation:XValidation:rule="self.all(k, self[k].size() >= 1 && self[k].size() <= 256)",message="cockroach.clusterSettings: each value must have 1 to 256 characters"
	// +optional
	ClusterSettings map[string]string `json:"clusterSettings,omitempty"`
}

// Erasure is YDB's storage redundancy scheme.
// +kubebuilder:validation:Enum=none;block-4-2;mirror-3-dc
type Erasure string

const (
	ErasureNone      Erasure = "none"
	ErasureBlock42   Erasure = "block-4-2"
	ErasureMirror3DC Erasure = "mirror-3-dc"
)

// YDBSpec is a YDB Storage plus Database managed by ydb-operator.
//
// +kubebuilder:validation:XValidation:rule="self.erasure != 'block-4-2' || self.storageNodes >= 8",fieldPath=".storageNodes",message="erasure block-4-2 needs at least 8 storageNodes"
// +kubebuilder:validation:XValidation:rule="self.erasure != 'mirror-3-dc' || self.storageNodes >= 3",fieldPath=".storageNodes",message="erasure mirror-3-dc needs at least 3 storageNodes"
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="ydb is immutable once the run is created"
type YDBSpec struct {
	// Erasure is the storage redundancy scheme.
	// +kubebuilder:default=mirror-3-dc
	// +optional
	Erasure Erasure `json:"erasure,omitempty"`

	// StorageNodes is the number of YDB storage nodes.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=3
	// +optional
	StorageNodes int32 `json:"storageNodes,omitempty"`

	// DatabaseNodes is the number of YDB database (compute) nodes.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=3
	// +optional
	DatabaseNodes int32 `json:"databaseNodes,omitempty"`

	// Storage is the data volume of each storage node.
	// +kubebuilder:default={}
	// +optional
	Storage StorageSpec `json:"storage,omitempty"`

	// Resources are each node's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// Image overrides the YDB image.
	// +optional
	Image string `json:"image,omitempty"`

	// Config are YDB configuration sections merged into the configuration the operator renders
	// for the Storage (ydb-operator builds the database nodes' on it): maps merge key by key, any
	// other value replaces the operator's, e.g. {table_service_config: {…}}. The sections the
	// operator derives from erasure, storageNodes and the volumes cannot be given. What was merged
	// is recorded in status.environment.tuning (YDB has no view of its configuration to read back).
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^[a-z][a-z0-9_]*$'))",message="ydb.config: section names are YDB configuration keys, lower-case with underscores (table_service_config)"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !(k in ['static_erasure', 'host_configs', 'domains_config', 'blob_storage_config', 'channel_profile_config', 'grpc_config']))",message="ydb.config: static_erasure, host_configs, domains_config, blob_storage_config, channel_profile_config and grpc_config are derived by the operator from erasure, storageNodes and the volumes and cannot be given"
	// +optional
	Config map[string]YDBConfigSection `json:"config,omitempty"`
}

// ExternalSpec points at an existing database.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="external is immutable once the run is created"
type ExternalSpec struct {
	// SecretRef names a Secret in the run's namespace whose key holds the connection URI
	// (postgres://… for PostgreSQL and CockroachDB, grpc://…/database for YDB).
	SecretRef SecretKeyRef `json:"secretRef"`

	// Tables is how the loader creates the TPC-C tables in an external PostgreSQL: Logged (when
	// omitted) or Unlogged, as postgres.tables. Only with engine PostgreSQL. Tables that already
	// exist keep their persistence: the load then fails, saying so.
	// +optional
	Tables TablePersistence `json:"tables,omitempty"`
}

// SecretKeyRef names a key of a Secret in the run's namespace.
type SecretKeyRef struct {
	// Name is the Secret's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Key is the key holding the URI.
	// +kubebuilder:default=uri
	// +kubebuilder:validation:MinLength=1
	// +optional
	Key string `json:"key,omitempty"`
}

// StorageSpec is a persistent volume per database node.
type StorageSpec struct {
	// Size of each volume.
	// +kubebuilder:default="10Gi"
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).isGreaterThan(quantity('0'))",message="storage.size must be positive"
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Size resource.Quantity `json:"size,omitempty"`

	// StorageClass of each volume; empty means the cluster's default StorageClass.
	// +optional
	StorageClass string `json:"storageClass,omitempty"`
}

// Wait selects the terminals' keying and think times.
// +kubebuilder:validation:Enum=Spec;None
type Wait string

const (
	// WaitSpec applies TPC-C keying times and negative-exponential think times (spec-compliant).
	WaitSpec Wait = "Spec"
	// WaitNone sends the next transaction at once: a stress test, never spec-compliant.
	WaitNone Wait = "None"
)

// WorkloadSpec is the TPC-C data set and the shape of each measured step.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="workload is immutable once the run is created"
type WorkloadSpec struct {
	// Warehouses is the number of warehouses loaded, once; steps use up to this many. At most
	// 100 000: about 10 TB of TPC-C data driven by a million terminals, more than five times the
	// 18 000 of the largest run of the study this operator automates; beyond it lies a typo, not a
	// benchmark.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	Warehouses int32 `json:"warehouses"`

	// Duration is the measured interval of each step, at most 24h: an audited TPC-C result measures
	// two hours or more, and a search runs many steps, so a longer step would hold the database
	// for days.
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="duration must be positive"
	// +kubebuilder:validation:XValidation:rule="duration(self) <= duration('24h')",message="workload.duration must be at most 24h"
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`

	// RampUp is the unmeasured time in which each step's terminals start, before Duration begins;
	// at most 2h. The terminals start in the steady state of their keying and think times, so a
	// few minutes settle even a large database's caches and connection pools; hours of ramp-up
	// per step are a typo.
	// +kubebuilder:default="2m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) <= duration('2h')",message="workload.rampUp must be at most 2h"
	// +optional
	RampUp *metav1.Duration `json:"rampUp,omitempty"`

	// Interval is the length of one interval of each step's time series — per-interval latency and
	// counters, the database's own signals, resource use — counted from the start of ramp-up.
	// +kubebuilder:default="10s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s') && duration(self) <= duration('1h')",message="interval must be between 1s and 1h"
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`

	// Wait selects keying and think times: Spec (TPC-C) or None (not spec-compliant).
	// +kubebuilder:default=Spec
	// +optional
	Wait Wait `json:"wait,omitempty"`

	// Isolation is the isolation level of every transaction: ReadCommitted, RepeatableRead or
	// Serializable. When omitted each engine runs its dialect's default: ReadCommitted with
	// explicit row locks on PostgreSQL, Serializable on CockroachDB and YDB. Each step records the
	// level its clients ran (read back from the server), and reports say when a suite's databases
	// differ. YDB does not offer ReadCommitted.
	// +optional
	Isolation Isolation `json:"isolation,omitempty"`

	// Clients sizes the TPC-C client pods of each step.
	// +kubebuilder:default={}
	// +optional
	Clients ClientsSpec `json:"clients,omitempty"`

	// Loader sizes the data-loading pods.
	// +kubebuilder:default={}
	// +optional
	Loader LoaderSpec `json:"loader,omitempty"`
}

// ClientsSpec sizes the client pods.
type ClientsSpec struct {
	// Pods is the number of client pods per step; 0 sizes it from the active warehouses (500 per
	// pod, at most 64 pods). At most 256: the operator reads every pod's snapshot at each poll, and
	// 256 pods already drive 100 000 warehouses at about 400 each.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=256
	// +kubebuilder:default=0
	// +optional
	Pods int32 `json:"pods,omitempty"`

	// Connections is each client pod's connection pool; 0 sizes it from the pod's warehouses by
	// Little's law: with Spec waits the rate its terminals start transactions at times a 1 s mean
	// hold, plus three standard deviations (286 for 500 warehouses, where one per terminal would
	// be 5 000); with None waits one per terminal. A smaller pool makes terminals wait for a
	// connection (recorded per interval as poolWaits); the database's max_connections must hold
	// every pod's pool, which the run checks before it deploys anything.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Connections int32 `json:"connections,omitempty"`

	// Resources of each client pod; empty uses sizes derived from its terminals.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
}

// LoaderSpec sizes the loader pods.
type LoaderSpec struct {
	// Pods is the number of loader pods; 0 sizes it from the database's CPU and the warehouses: a
	// load stream per vCPU of the pods the load writes through (PostgreSQL's primary, every node
	// of a distributed engine; the load resources' CPU request, else limit, else the measured
	// ones'), 4 streams a pod, at most one pod a warehouse and 256 pods. A database that declares
	// no CPU (or an external one) gets one pod per 50 warehouses, at most 16. At most 256: each pod
	// loads over 4 connections, and more than a thousand concurrent bulk loads only queue on the
	// database.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=256
	// +kubebuilder:default=0
	// +optional
	Pods int32 `json:"pods,omitempty"`
}

// Transaction is a TPC-C transaction type.
// +kubebuilder:validation:Enum=NewOrder;Payment;OrderStatus;Delivery;StockLevel
type Transaction string

const (
	NewOrder    Transaction = "NewOrder"
	Payment     Transaction = "Payment"
	OrderStatus Transaction = "OrderStatus"
	Delivery    Transaction = "Delivery"
	StockLevel  Transaction = "StockLevel"
)

// Transactions lists the five TPC-C transaction types in the specification's order.
var Transactions = []Transaction{NewOrder, Payment, OrderStatus, Delivery, StockLevel}

// SLASpec is what a compliant step must achieve.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="sla is immutable once the run is created"
type SLASpec struct {
	// MinEfficiencyPercent is the least efficiency, in percent of the 12.86 tpmC per active
	// warehouse ceiling, a compliant step reaches.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=85
	// +optional
	MinEfficiencyPercent *int32 `json:"minEfficiencyPercent,omitempty"`

	// MaxErrorPercent is the largest share of transactions, in percent, that may fail with an error
	// (rolled-back New-Orders required by TPC-C are not errors): of all types' attempts together,
	// and of each type's own attempts, where one error is always tolerated above 0.
	// +kubebuilder:default="1"
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]+)?$`
	// +kubebuilder:validation:XValidation:rule="double(self) <= 100.0",message="maxErrorPercent must be between 0 and 100"
	// +optional
	MaxErrorPercent string `json:"maxErrorPercent,omitempty"`

	// Latency bounds response-time percentiles per transaction type. The default is the five TPC-C
	// 90th-percentile limits.
	// +kubebuilder:default={{transaction: NewOrder, percentile: "90", max: "5s"}, {transaction: Payment, percentile: "90", max: "5s"}, {transaction: OrderStatus, percentile: "90", max: "5s"}, {transaction: Delivery, percentile: "90", max: "5s"}, {transaction: StockLevel, percentile: "90", max: "20s"}}
	// +kubebuilder:validation:MaxItems=32
	// +listType=map
	// +listMapKey=transaction
	// +listMapKey=percentile
	// +optional
	Latency []LatencyBound `json:"latency,omitempty"`

	// MaxReplicationLag bounds the replay lag of every standby during a step (PostgreSQL only): a
	// step in which any standby's largest replay lag exceeds it is non-compliant, the reason naming
	// the standby and its lag. The lag is recorded in every PostgreSQL step whether or not this is
	// set (status.steps[].telemetry.standbys).
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="maxReplicationLag must be positive"
	// +optional
	MaxReplicationLag *metav1.Duration `json:"maxReplicationLag,omitempty"`

	// MaxUnavailability bounds the outage a fault causes: a step with faults whose longest run of
	// seconds without a commit exceeds it is non-compliant, the reason naming the outage.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="maxUnavailability must be positive"
	// +optional
	MaxUnavailability *metav1.Duration `json:"maxUnavailability,omitempty"`
}

// LatencyBound bounds one response-time percentile of one transaction type.
type LatencyBound struct {
	// Transaction is the transaction type.
	Transaction Transaction `json:"transaction"`

	// Percentile is a number strictly between 0 and 100, e.g. "90" or "99.9".
	// +kubebuilder:validation:Pattern=`^[0-9]{1,2}(\.[0-9]+)?$`
	// +kubebuilder:validation:XValidation:rule="double(self) > 0.0 && double(self) < 100.0",message="percentile must be strictly between 0 and 100"
	Percentile string `json:"percentile"`

	// Max is the largest allowed response time at that percentile.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="max must be positive"
	Max metav1.Duration `json:"max"`
}

// SearchMode selects how active warehouse counts are chosen.
// +kubebuilder:validation:Enum=MaxCompliant;Fixed
type SearchMode string

const (
	// SearchMaxCompliant finds the largest compliant active warehouse count by adaptive line search.
	SearchMaxCompliant SearchMode = "MaxCompliant"
	// SearchFixed runs one step at workload.warehouses.
	SearchFixed SearchMode = "Fixed"
)

// SearchStrategy selects how MaxCompliant chooses the active warehouse counts.
// +kubebuilder:validation:Enum=Guided;LineSearch
type SearchStrategy string

const (
	// SearchGuided estimates where compliance ends from what each step measured (efficiency, the
	// worst latency bound's ratio to its limit, errors), narrows the bracket there with short probe
	// steps, and confirms the answer with full-length steps.
	SearchGuided SearchStrategy = "Guided"
	// SearchLineSearch is CockroachDB tpccbench's adaptive line search over full-length steps.
	SearchLineSearch SearchStrategy = "LineSearch"
)

// SearchSpec configures the capacity search.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="search is immutable once the run is created"
// +kubebuilder:validation:XValidation:rule="!has(self.probeDuration) || (self.mode == 'MaxCompliant' && self.strategy == 'Guided')",fieldPath=".probeDuration",message="search.probeDuration applies only to mode MaxCompliant with strategy Guided"
type SearchSpec struct {
	// Mode: MaxCompliant searches; Fixed runs one step at workload.warehouses.
	// +kubebuilder:default=MaxCompliant
	// +optional
	Mode SearchMode `json:"mode,omitempty"`

	// Strategy of MaxCompliant: Guided (default) or LineSearch. Either way the result rests on
	// full-length steps: a compliant one at the answer and, below the loaded count, a non-compliant
	// one at most one precision above it.
	// +kubebuilder:default=Guided
	// +optional
	Strategy SearchStrategy `json:"strategy,omitempty"`

	// ProbeDuration is the measured interval of the guided search's probe steps, which narrow the
	// bracket before full-length steps confirm the answer; default a fifth of workload.duration
	// (with wait Spec at least 30s, at most workload.duration). Equal to workload.duration, every
	// step is full-length. Probes ramp up like every step. With workload.wait Spec it must be at
	// least 30s (MinSpecProbeDuration): one New-Order cycle of a terminal, 18 s keying plus 12 s
	// mean think time (TPC-C Clause 5.2.5), the longest of the five, must fit in a probe, or its
	// terminals measure less than one New-Order each on average; with wait None, at least 1s.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="probeDuration must be at least 1s"
	// +optional
	ProbeDuration *metav1.Duration `json:"probeDuration,omitempty"`

	// StartWarehouses is the first active warehouse count tried; default half of workload.warehouses.
	// +kubebuilder:validation:Minimum=1
	// +optional
	StartWarehouses *int32 `json:"startWarehouses,omitempty"`

	// MaxSteps bounds the number of measured steps the search counts (inconclusive steps and their
	// retries are not counted: search.retries bounds those).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=20
	// +optional
	MaxSteps int32 `json:"maxSteps,omitempty"`

	// Retries is how many times an inconclusive step — one whose infrastructure failed (a client
	// pod evicted or OOM-killed, a Job deadline, a snapshot that could not be read or merged, a
	// measured interval cut short) or whose data is missing — is run again at the same count
	// before the run fails with reason InfrastructureFailed. An inconclusive step is never search
	// evidence nor a result's bound.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:default=2
	// +optional
	Retries *int32 `json:"retries,omitempty"`
}

func init() {
	SchemeBuilder.Register(&BenchmarkRun{}, &BenchmarkRunList{})
}
