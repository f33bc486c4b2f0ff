package v1alpha1

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Phase is where a run is in its life.
// +kubebuilder:validation:Enum=Pending;Deploying;Loading;Running;Succeeded;Failed
type Phase string

const (
	PhasePending   Phase = "Pending"
	PhaseDeploying Phase = "Deploying"
	PhaseLoading   Phase = "Loading"
	PhaseRunning   Phase = "Running"
	PhaseSucceeded Phase = "Succeeded"
	PhaseFailed    Phase = "Failed"
)

// Condition types of a BenchmarkRun.
const (
	ConditionDatabaseReady = "DatabaseReady"
	ConditionDataLoaded    = "DataLoaded"
	ConditionSLACompliant  = "SLACompliant"
	ConditionComplete      = "Complete"
	ConditionFailed        = "Failed"
	// ConditionSustained: the database held the result through spec.sustain (runs with it only).
	ConditionSustained = "Sustained"
)

// Reasons of a True SLACompliant condition: the result is the capacity the search bracketed
// (ReasonCompliantStepFound, result.bound Bracketed), or only a floor under it — compliant at
// every loaded warehouse (ReasonFloorAllLoadedCompliant) or search.maxSteps ran out first
// (ReasonFloorStepsExhausted). SLACompliant says the SLA held at the published count, not that
// the count is the capacity. A False SLACompliant has NoCompliantStep or FaultStepNonCompliant.
const (
	ReasonCompliantStepFound      = "CompliantStepFound"
	ReasonFloorAllLoadedCompliant = "FloorAllLoadedCompliant"
	ReasonFloorStepsExhausted     = "FloorStepsExhausted"
)

// Reasons of DatabaseReady while a database deployed and loaded under postgres.loadResources
// switches to the resources its steps measure it with (the phase is still Loading).
const (
	ReasonSwitchingResources = "SwitchingResources"
	ReasonResourcesSwitched  = "ResourcesSwitched"
)

// Reasons of DatabaseReady while such a database, its steps over, returns to loadResources for the
// consistency check after the last step (the phase is still Running).
const (
	ReasonRestoringLoadResources = "RestoringLoadResources"
	ReasonLoadResourcesRestored  = "LoadResourcesRestored"
)

// Reasons of DatabaseReady between steps: the next step waits until the database's operator
// reports it ready again (a primary restarting after an overloaded step, a standby catching up
// after a fault), then DatabaseReady is True again with reason ReasonDatabaseReadyAgain.
const (
	ReasonDatabaseUnavailable = "DatabaseUnavailable"
	ReasonDatabaseReadyAgain  = "DatabaseReadyAgain"
)

// ResourceSwitchMessage is what the run is doing after a load under postgres.loadResources while
// its instances move to the measured resources (DatabaseReady's SwitchingResources message), or ""
// when it is not switching. The Ready condition and `kubectl tpcc status -w` both say it.
func (s *BenchmarkRunStatus) ResourceSwitchMessage() string {
	if s.Load == nil || s.Load.CompletionTime == nil {
		return ""
	}
	for _, c := range s.Conditions {
		if c.Type == ConditionDatabaseReady && c.Reason == ReasonSwitchingResources {
			return c.Message
		}
	}
	return ""
}

// ResourceRestoreMessage is what the run is doing after its last step while its database returns
// to postgres.loadResources for the check after the last step (DatabaseReady's
// RestoringLoadResources message), or "" when it is not. The Ready condition and
// `kubectl tpcc status -w` both say it.
func (s *BenchmarkRunStatus) ResourceRestoreMessage() string {
	if s.Phase != PhaseRunning {
		return ""
	}
	for _, c := range s.Conditions {
		if c.Type == ConditionDatabaseReady && c.Reason == ReasonRestoringLoadResources {
			return c.Message
		}
	}
	return ""
}

// DatabaseWaitMessage is why the next step has not started, while it waits for a database its
// operator no longer reports ready (DatabaseReady False, ReasonDatabaseUnavailable); "" otherwise.
// The Ready condition and kubectl tpcc status -w both say it.
func (s *BenchmarkRunStatus) DatabaseWaitMessage() string {
	if s.Phase != PhaseRunning {
		return ""
	}
	for _, c := range s.Conditions {
		if c.Type == ConditionDatabaseReady && c.Status == metav1.ConditionFalse && c.Reason == ReasonDatabaseUnavailable {
			return c.Message
		}
	}
	return ""
}

// Reasons a run fails with (condition Failed) that issue 20's integrity rules added; the others
// are named where the controller fails the run.
const (
	// ReasonObjectConflict: an object the run would create (its database's vendor objects, Jobs,
	// ConfigMaps, Secret) already exists and is not the run's: the run touches nothing of it.
	ReasonObjectConflict = "ObjectConflict"
	// ReasonDatabaseConflict is ReasonObjectConflict for the database's own objects.
	ReasonDatabaseConflict = "DatabaseConflict"
	// ReasonInfrastructureFailed: a step was inconclusive search.retries+1 times in a row: the
	// cluster (pods, Jobs, the operator's reach of the clients) failed, not the database under
	// test; no capacity is published from it.
	ReasonInfrastructureFailed = "InfrastructureFailed"
	// ReasonReuseMismatch: the database spec.database.reuse names holds other data (engine, schema
	// version, warehouses) or was deployed otherwise than the run asks for; nothing was touched.
	ReasonReuseMismatch = "ReuseMismatch"
	// ReasonReuseUnavailable: the run spec.database.reuse names kept no database (it is gone, or
	// was torn down).
	ReasonReuseUnavailable = "ReuseUnavailable"
)

// BenchmarkRunStatus is what the operator observed and measured. Steps are appended, never rewritten.
type BenchmarkRunStatus struct {
	// Phase is where the run is: Pending, Deploying, Loading, Running, Succeeded or Failed.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: DatabaseReady, DataLoaded, SLACompliant, Complete, Failed, ResultsRecorded.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Database is the deployed (or external) database the run uses.
	// +optional
	Database *DatabaseStatus `json:"database,omitempty"`

	// DatabaseOf names the run whose name the database's objects carry when the run reuses a
	// database (spec.database.reuse): the run that first deployed it, however many runs reused it
	// since (<DatabaseOf>-db). Empty: the run's own name.
	// +optional
	DatabaseOf string `json:"databaseOf,omitempty"`

	// Load is the progress of the data load and its consistency check.
	// +optional
	Load *LoadStatus `json:"load,omitempty"`

	// Current is the live progress of the step under way.
	// +optional
	Current *StepProgress `json:"current,omitempty"`

	// Steps are the measured steps, in the order they ran.
	// +listType=atomic
	// +optional
	Steps []StepResult `json:"steps,omitempty"`

	// Environment is what the figures were measured on (server, settings, nodes, storage, images),
	// read once when the first step starts.
	// +optional
	Environment *RunEnvironment `json:"environment,omitempty"`

	// FinalCheck is the consistency check after the run's last step, once it has ended; the
	// result carries it (result.consistencyCheck).
	// +optional
	FinalCheck *ConsistencyCheck `json:"finalCheck,omitempty"`

	// Result is the outcome of the search, once it has ended.
	// +optional
	Result *Result `json:"result,omitempty"`

	// Report names the ConfigMap holding the full report (JSON with merged histograms, Markdown tables).
	// +optional
	Report *ReportRef `json:"report,omitempty"`

	// ResultsDatabase is where the run's rows in the results database stand (docs/results.md).
	// +optional
	ResultsDatabase *ResultsRecording `json:"resultsDatabase,omitempty"`
}

// DatabaseStatus identifies the database under test. It never holds credentials.
type DatabaseStatus struct {
	// Kind of the vendor object deployed (Cluster, CrdbCluster, Database), empty for external.
	// +optional
	Kind string `json:"kind,omitempty"`
	// Name of the vendor object deployed, or of the Secret for external.
	// +optional
	Name string `json:"name,omitempty"`
	// Endpoint is the host:port (or grpc endpoint and database path) clients connect to.
	// +optional
	Endpoint string `json:"endpoint,omitempty"`
	// ReadyTime is when the database was first seen ready.
	// +optional
	ReadyTime *metav1.Time `json:"readyTime,omitempty"`
	// ResourcesSwitchTime is when every instance of a database deployed and loaded under
	// spec.database.postgres.loadResources was first seen running with its resources, the cluster
	// ready: the steps measure from then on.
	// +optional
	ResourcesSwitchTime *metav1.Time `json:"resourcesSwitchTime,omitempty"`
	// ResourcesRestoreTime is when, its steps over, such a database was set back to
	// spec.database.postgres.loadResources for the consistency check after the last step, which
	// reads the whole dataset; its operator rolls the instances onto them again.
	// +optional
	ResourcesRestoreTime *metav1.Time `json:"resourcesRestoreTime,omitempty"`
	// ResourcesRestoredTime is when every instance was first seen running with loadResources
	// again, the cluster ready: the check after the last step starts then.
	// +optional
	ResourcesRestoredTime *metav1.Time `json:"resourcesRestoredTime,omitempty"`
	// Sizing is the settings the operator sized from the database's memory (docs/sizing.md);
	// absent when the database has no memory request or limit, or is external.
	// +optional
	Sizing *DatabaseSizing `json:"sizing,omitempty"`
	// Description is the engine's account of the database as deployed: topology, durability,
	// pods and tuning (DatabaseDescription), which reports render.
	// +optional
	Description *DatabaseDescription `json:"description,omitempty"`
}

// DatabaseSizing is what the database's settings were sized from, and the values used.
type DatabaseSizing struct {
	// Memory of each instance or node the settings were sized from.
	Memory resource.Quantity `json:"memory"`
	// MemoryFrom says where Memory comes from: "limit" (the memory limit) or "request" (no limit set).
	MemoryFrom string `json:"memoryFrom"`
	// Connections is the most client connections the run's Jobs open at once, which
	// max_connections covers (PostgreSQL).
	// +optional
	Connections int32 `json:"connections,omitempty"`
	// Settings are the values in use, in the engine's own names and units: PostgreSQL parameters;
	// CockroachDB's cache and maxSQLMemory; YDB's memory_controller_config.hard_limit_bytes.
	Settings map[string]string `json:"settings"`
	// UserSet names the settings the run's own parameters gave, which win over the sized values.
	// +listType=atomic
	// +optional
	UserSet []string `json:"userSet,omitempty"`
}

// LoadStatus is the progress of the data load.
type LoadStatus struct {
	// Warehouses to load.
	Warehouses int32 `json:"warehouses"`
	// WarehousesLoaded so far.
	WarehousesLoaded int32 `json:"warehousesLoaded"`
	// Pods loading in parallel.
	// +optional
	Pods int32 `json:"pods,omitempty"`
	// RowsLoaded so far, an estimate: the finished loader pods' warehouses at RowsExpected's rate,
	// and the rows the running ones report.
	// +optional
	RowsLoaded int64 `json:"rowsLoaded,omitempty"`
	// RowsExpected is the rows the load writes: the item table and 499,011 rows a warehouse (an
	// expectation: the order lines of an order are 5 to 15).
	// +optional
	RowsExpected int64 `json:"rowsExpected,omitempty"`
	// Finish is the progress of the load's finish (keys, indexes, ANALYZE, VACUUM), read from the
	// check pod while it runs.
	// +optional
	Finish *LoadFinishStatus `json:"finish,omitempty"`
	// ProgressTime is when the running pods' progress was last read into this status.
	// +optional
	ProgressTime *metav1.Time `json:"progressTime,omitempty"`
	// StartTime of the load.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// CompletionTime of the load and its consistency check.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// ReusedFrom names the earlier run whose loaded database this run started from (nothing was
	// loaded; the dataset was checked instead).
	// +optional
	ReusedFrom string `json:"reusedFrom,omitempty"`
	// RestoredFrom names the earlier run whose snapshot of its freshly loaded data this run's
	// database was restored from (spec.database.restore; nothing was loaded, the dataset was
	// checked instead).
	// +optional
	RestoredFrom string `json:"restoredFrom,omitempty"`
	// Snapshot is the snapshot of the loaded data: the one this run took (spec.database.snapshot)
	// or the one it was restored from.
	// +optional
	Snapshot *DataSnapshotStatus `json:"snapshot,omitempty"`
	// Dataset is the data the database holds: the load's identity and what the workload grew since.
	// +optional
	Dataset *DatasetStatus `json:"dataset,omitempty"`

	// Placement is the node of every loader and check pod, read when the load was complete.
	// +listType=atomic
	// +optional
	Placement []PodPlacementRecord `json:"placement,omitempty"`
}

// LoadFinishStatus is how far the load's finish is.
type LoadFinishStatus struct {
	// Done of Total statements (Total may grow when a statement's need shows on the way).
	Done  int32 `json:"done"`
	Total int32 `json:"total"`
	// Running statements, abbreviated.
	// +listType=atomic
	// +optional
	Running []string `json:"running,omitempty"`
}

// StepVerdict is what a recorded step says about the SLA.
// +kubebuilder:validation:Enum=Compliant;NonCompliant;Inconclusive
type StepVerdict string

const (
	// VerdictCompliant: every criterion of the SLA held, each judged on data that was there.
	VerdictCompliant StepVerdict = "Compliant"
	// VerdictNonCompliant: the database broke a criterion (latency, efficiency, errors, lag…):
	// evidence the search uses.
	VerdictNonCompliant StepVerdict = "NonCompliant"
	// VerdictInconclusive: the step says nothing about the database — its infrastructure failed
	// (a client pod evicted or killed, a Job deadline, a snapshot that could not be read or merged,
	// a measured interval cut short from outside) or data a criterion needs is missing. It is never
	// search evidence nor a result's bound; the step is retried at the same count (search.retries).
	VerdictInconclusive StepVerdict = "Inconclusive"
)

// StepKind is a step's length class.
// +kubebuilder:validation:Enum=Full;Probe;Fault;Sustain;Adversity
type StepKind string

const (
	// StepFull measures the workload's whole duration; results rest on these.
	StepFull StepKind = "Full"
	// StepProbe measures search.probeDuration: the guided search narrows its bracket with these.
	StepProbe StepKind = "Probe"
	// StepFault is the full-length step after the search, at the largest compliant load, in which
	// the faults with in: ResultStep are applied. The search does not count it.
	StepFault StepKind = "Fault"
	// StepSustain is the long step after the search at spec.sustain.percent of the largest
	// compliant load, its SLA judged window by window. The search does not count it.
	StepSustain StepKind = "Sustain"
	// StepAdversity is the step after the search that walks spec.adversity's states at a share
	// of the largest compliant load. The search does not count it, nor does the result's SLA.
	StepAdversity StepKind = "Adversity"
)

// StepProgress is the live state of the step under way, refreshed while it runs.
type StepProgress struct {
	// Index of the step (0-based; the step's position in status.steps once recorded).
	Index int32 `json:"index"`
	// ActiveWarehouses driven by this step.
	ActiveWarehouses int32 `json:"activeWarehouses"`
	// Kind of step: Full or Probe.
	// +optional
	Kind StepKind `json:"kind,omitempty"`
	// Duration is the step's planned measured interval.
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`
	// Pods running the step's terminals.
	Pods int32 `json:"pods"`
	// StartTime of the measured interval; empty while pods start or ramp up.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// Elapsed measured time so far.
	// +optional
	Elapsed *metav1.Duration `json:"elapsed,omitempty"`
	// TpmC so far in the measured interval.
	// +optional
	TpmC float64 `json:"tpmC,omitempty"`
	// P90 so far per transaction type.
	// +optional
	P90 map[Transaction]metav1.Duration `json:"p90,omitempty"`
	// Faults applied in this step so far (recorded before each deletion, so a restarted operator
	// never applies one twice).
	// +listType=atomic
	// +optional
	Faults []FaultInjection `json:"faults,omitempty"`
}

// StepResult is one measured step.
type StepResult struct {
	// Index of the step, 0-based.
	Index int32 `json:"index"`
	// ActiveWarehouses driven by this step (10 terminals each).
	ActiveWarehouses int32 `json:"activeWarehouses"`
	// Kind of step: Full (the workload's duration; results rest on these) or Probe (a shorter step
	// the guided search narrows its bracket with).
	// +optional
	Kind StepKind `json:"kind,omitempty"`
	// Duration is the step's planned measured interval (a step ended early measured less).
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`
	// Pods that ran the terminals.
	// +optional
	Pods int32 `json:"pods,omitempty"`
	// StartTime of the measured interval.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// EndTime of the measured interval.
	// +optional
	EndTime *metav1.Time `json:"endTime,omitempty"`
	// StartSkew is how far apart the client pods began their measured intervals, as each pod's
	// snapshot reports its start in its own clock. A step whose skew exceeds one interval of its
	// time series is inconclusive: its pods did not start together. Absent when not every pod began.
	// +optional
	StartSkew *metav1.Duration `json:"startSkew,omitempty"`
	// Seed is the seed of the step's client input streams (every pod's: `tpcc run --seed`). Pod i
	// draws from streams of it keyed by its home warehouses and districts, so `tpcc run --seed SEED
	// --shard i --shards PODS` with the step's other flags replays pod i's deck and each terminal's
	// inputs.
	// +optional
	Seed int64 `json:"seed,omitempty"`
	// TpmC is New-Order transactions committed per measured minute.
	TpmC float64 `json:"tpmC"`
	// Efficiency is TpmC in percent of 12.86 per active warehouse.
	Efficiency float64 `json:"efficiency"`
	// Compliant is whether every SLA condition held (Verdict Compliant).
	Compliant bool `json:"compliant"`
	// Verdict is Compliant, NonCompliant (the database broke the SLA: search evidence) or
	// Inconclusive (the infrastructure failed or data is missing: not evidence; retried). Absent
	// in steps recorded before it existed, which read as Compliant or NonCompliant by Compliant.
	// +optional
	Verdict StepVerdict `json:"verdict,omitempty"`
	// Attempt numbers the tries at this step's count and kind: 1, or more after inconclusive
	// steps were retried.
	// +optional
	Attempt int32 `json:"attempt,omitempty"`
	// Reasons the step is not compliant, each naming what failed, measured against the bound; for
	// an inconclusive step, what failed or is missing.
	// +optional
	Reasons []string `json:"reasons,omitempty"`
	// Unjudged names the checks the step could not judge, one line per cause, each with what
	// judging it needs: "mix minimums and audit windows not checked (4120 transactions, 10000
	// needed)". A compliant step with unjudged checks is compliant on less evidence; a result that
	// rests on it says so (docs/snapshot-api.md, "Thin evidence").
	// +listType=atomic
	// +optional
	Unjudged []string `json:"unjudged,omitempty"`
	// Transactions holds response-time figures per transaction type.
	// +optional
	Transactions map[Transaction]TransactionStats `json:"transactions,omitempty"`
	// Mix is each transaction type's share of completed transactions, in percent.
	// +optional
	Mix map[Transaction]float64 `json:"mix,omitempty"`
	// Errors is the number of transactions that failed with an error.
	// +optional
	Errors int64 `json:"errors,omitempty"`
	// Retries counts the extra attempts inside the step's logical transactions (serialization
	// failures, deadlocks, connections lost before commit), all types together; each type's own
	// count is in transactions.
	// +optional
	Retries int64 `json:"retries,omitempty"`
	// Isolation is the isolation level the step's clients ran every transaction at, as each
	// read it back from the server before its terminals started.
	// +optional
	Isolation Isolation `json:"isolation,omitempty"`
	// LatencyRatio is the largest ratio of an sla.latency bound's measured percentile to its max
	// (above 1: that bound failed). The guided search estimates the boundary from it.
	// +optional
	LatencyRatio float64 `json:"latencyRatio,omitempty"`
	// Telemetry summarises what explains the step's figures: the database's own signals, resource
	// use and whether the clients held the step back. The full per-interval series is in the report.
	// +optional
	Telemetry *StepTelemetry `json:"telemetry,omitempty"`
	// Fault is what the step's faults did: the pods deleted, the engine's failover, the outage the
	// clients measured, the ledger and consistency checks.
	// +optional
	Fault *FaultRecord `json:"fault,omitempty"`
	// Sustain is what a sustained step showed window by window (kind Sustain).
	// +optional
	Sustain *SustainRecord `json:"sustain,omitempty"`
	// Adversity is what the adversity step showed state by state (kind Adversity).
	// +optional
	Adversity *AdversityRecord `json:"adversity,omitempty"`

	// NewOrders is the step's New-Order ledger summed over its pods: what the check after the
	// run's last step compares the orders the database gained with.
	// +optional
	NewOrders *StepLedger `json:"newOrders,omitempty"`

	// Placement is the node of every database and client pod of the step, and what in it
	// undermines the comparison (benchmarkrun_placement.go).
	// +optional
	Placement *StepPlacement `json:"placement,omitempty"`

	// DetailIn names the ConfigMap that holds this step's per-pod telemetry and placement
	// (step.json): a run's status keeps each measured step's summary, and its telemetry.pods and
	// placement.pods stay empty (docs/scale.md).
	// +optional
	DetailIn string `json:"detailIn,omitempty"`
}

// StepTelemetry is a step's time series boiled down to the figures a reader looks at first. A field
// that was not measured is absent (e.g. standbys on CockroachDB, pods without a metrics API).
type StepTelemetry struct {
	// Intervals of the step's time series that were collected.
	Intervals int32 `json:"intervals"`
	// IntervalsMissing were sealed by a client but never collected: dropped past the client's
	// retention, or their pod went before handing them over.
	// +optional
	IntervalsMissing int32 `json:"intervalsMissing,omitempty"`
	// Standbys are the largest replay lag each standby showed during the step (PostgreSQL).
	// +listType=atomic
	// +optional
	Standbys []StandbyLag `json:"standbys,omitempty"`
	// StandbysHidden are standbys whose positions the benchmark's role could not read (it lacks
	// pg_monitor): their lag is unknown, and a step with sla.maxReplicationLag fails for it.
	// +listType=atomic
	// +optional
	StandbysHidden []string `json:"standbysHidden,omitempty"`
	// Checkpoints started during the step (PostgreSQL).
	// +optional
	Checkpoints *int64 `json:"checkpoints,omitempty"`
	// MaxSyncRepWaiters is the most sessions found waiting for the synchronous standbys
	// (wait event SyncRep) at one sample (PostgreSQL).
	// +optional
	MaxSyncRepWaiters *int64 `json:"maxSyncRepWaiters,omitempty"`
	// WALBytesPerSecond is the mean WAL volume written per second over the step (PostgreSQL).
	// +optional
	WALBytesPerSecond *int64 `json:"walBytesPerSecond,omitempty"`
	// WALBytesPerTransaction is the WAL written per committed database transaction over the step
	// (PostgreSQL: WAL growth over pg_stat_database's commits).
	// +optional
	WALBytesPerTransaction *int64 `json:"walBytesPerTransaction,omitempty"`
	// ResourceMetrics says where Pods comes from: "metrics.k8s.io", or why it is absent.
	// +optional
	ResourceMetrics string `json:"resourceMetrics,omitempty"`
	// Pods are the peak CPU and memory of the database and client pods during the step.
	// +listType=atomic
	// +optional
	Pods []PodUsage `json:"pods,omitempty"`
	// ClientBound names each sign that the clients, not the database, limited the step: a client
	// pod's CPU near its limit, transactions starting late against their keying and think
	// schedule, or long waits for a pooled connection. Empty: the clients kept up.
	// +listType=atomic
	// +optional
	ClientBound []string `json:"clientBound,omitempty"`
	// IOMetrics says where the pods' disk and network figures come from ("kubelet cAdvisor"), or
	// why they are absent.
	// +optional
	IOMetrics string `json:"ioMetrics,omitempty"`
	// Bottleneck is the resource the step's signals show saturated, with the evidence.
	// +optional
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
}

// StandbyLag is the largest replay lag one standby showed during a step.
type StandbyLag struct {
	// Name is the standby's application_name.
	Name string `json:"name"`
	// MaxReplayLag is its largest replay lag at any sample of the step.
	MaxReplayLag metav1.Duration `json:"maxReplayLag"`
	// MaxWriteLag and MaxFlushLag are its largest write and flush lags: the time the WAL took
	// to reach the standby's operating system and its disk. A flush lag far above the write lag
	// is a slow standby disk.
	// +optional
	MaxWriteLag *metav1.Duration `json:"maxWriteLag,omitempty"`
	// +optional
	MaxFlushLag *metav1.Duration `json:"maxFlushLag,omitempty"`
}

// PodUsage is one pod's peak resource use during a step, from the cluster's resource metrics.
type PodUsage struct {
	// Name of the pod.
	Name string `json:"name"`
	// Role is Database or Client.
	Role string `json:"role"`
	// PeakCPU is the largest CPU use of any sample (cores).
	PeakCPU resource.Quantity `json:"peakCPU"`
	// PeakMemory is the largest working-set memory of any sample.
	PeakMemory resource.Quantity `json:"peakMemory"`
	// CPULimit of the pod, when it has one.
	// +optional
	CPULimit *resource.Quantity `json:"cpuLimit,omitempty"`
	// IO is the pod's disk and network traffic (kubelet cAdvisor metrics), when read.
	// +optional
	IO *PodIO `json:"io,omitempty"`
}

// RunEnvironment is what the run's figures were measured on, read once per run.
type RunEnvironment struct {
	// ReadAt is when it was read.
	ReadAt metav1.Time `json:"readAt"`
	// ServerVersion is the database server's version string.
	// +optional
	ServerVersion string `json:"serverVersion,omitempty"`
	// Settings are the server settings that differ from the server's defaults (name: value).
	// +optional
	Settings map[string]string `json:"settings,omitempty"`
	// Nodes that ran the database's pods.
	// +listType=atomic
	// +optional
	Nodes []NodeEnvironment `json:"nodes,omitempty"`
	// StorageClass of the database's volumes and its provisioner.
	// +optional
	StorageClass string `json:"storageClass,omitempty"`
	// +optional
	StorageProvisioner string `json:"storageProvisioner,omitempty"`
	// Images are the image references of every pod of the run, by pod (client and loader pods by
	// their Job's component).
	// +optional
	Images map[string]string `json:"images,omitempty"`
	// OperatorVersion and ClientVersion are the tpcc-operator manager's and client's versions.
	// +optional
	OperatorVersion string `json:"operatorVersion,omitempty"`
	// +optional
	ClientVersion string `json:"clientVersion,omitempty"`
	// Tuning is every engine setting the run asked for (its parameters, the sizing, cluster
	// settings, configuration sections, what the isolation level needs) beside the value the
	// database reports.
	// +listType=atomic
	// +optional
	Tuning []EngineSetting `json:"tuning,omitempty"`
	// StorageCalibration is what the database's storage class delivered to small synchronous
	// writes, measured before the load on each node of a database pod.
	// +listType=atomic
	// +optional
	StorageCalibration []StorageCalibration `json:"storageCalibration,omitempty"`
}

// NodeEnvironment is one node as its status describes it.
type NodeEnvironment struct {
	Name string `json:"name"`
	// +optional
	KernelVersion string `json:"kernelVersion,omitempty"`
	// +optional
	OSImage string `json:"osImage,omitempty"`
	// +optional
	ContainerRuntimeVersion string `json:"containerRuntimeVersion,omitempty"`
	// +optional
	KubeletVersion string `json:"kubeletVersion,omitempty"`
	// +optional
	Architecture string `json:"architecture,omitempty"`
	// CPU and Memory are the node's capacity.
	// +optional
	CPU *resource.Quantity `json:"cpu,omitempty"`
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`
	// Labels are the node's labels the run's pricing reads (spec.pricing.nodeLabel).
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// TransactionStats are one transaction type's counts and response-time percentiles.
type TransactionStats struct {
	// Count of completed transactions (commits and required rollbacks).
	Count int64 `json:"count"`
	// P50 response time.
	P50 metav1.Duration `json:"p50"`
	// P90 response time.
	P90 metav1.Duration `json:"p90"`
	// P95 response time.
	P95 metav1.Duration `json:"p95"`
	// P99 response time.
	P99 metav1.Duration `json:"p99"`
	// Max response time.
	Max metav1.Duration `json:"max"`
	// Retries are the extra attempts inside this type's transactions.
	// +optional
	Retries int64 `json:"retries,omitempty"`
}

// ResultBound says what a result's maxCompliantWarehouses is: a capacity the search bracketed,
// or only a floor under the capacity.
// +kubebuilder:validation:Enum=Bracketed;AllLoadedCompliant;StepsExhausted;NoneCompliant
type ResultBound string

const (
	// BoundBracketed: a compliant full-length step at maxCompliantWarehouses and a non-compliant
	// one at most one precision above it. The capacity is known within precision.
	BoundBracketed ResultBound = "Bracketed"
	// BoundAllLoadedCompliant: the step at the loaded warehouse count was compliant (a
	// MaxCompliant search that never failed, or a Fixed run that passed). A floor: the capacity
	// is at least maxCompliantWarehouses; loading more warehouses finds it.
	BoundAllLoadedCompliant ResultBound = "AllLoadedCompliant"
	// BoundStepsExhausted: search.maxSteps stopped the search with no non-compliant full-length
	// step within precision above its best compliant one. A floor: the capacity is at least
	// maxCompliantWarehouses (0 when no full-length step was compliant yet); a larger
	// search.maxSteps closes the bracket.
	BoundStepsExhausted ResultBound = "StepsExhausted"
	// BoundNoneCompliant: the search ended with no compliant step (1 active warehouse failed, or
	// a Fixed run's step failed); maxCompliantWarehouses is 0.
	BoundNoneCompliant ResultBound = "NoneCompliant"
)

// Floor says whether a result with this bound is only a lower bound of the capacity (printed
// "≥ N"), which comparisons never rank nor tie on.
func (b ResultBound) Floor() bool {
	return b == BoundAllLoadedCompliant || b == BoundStepsExhausted
}

// Warehouses writes a warehouse count with this bound: "≥ 120" for a floor, "120" otherwise.
func (b ResultBound) Warehouses(n int32) string {
	if b.Floor() {
		return fmt.Sprintf("≥ %d", n)
	}
	return fmt.Sprint(n)
}

// EffectiveBound is the result's Bound; for a result written before Bound existed, what its
// other fields say (loaded is spec.workload.warehouses, 0 when unknown): a search stopped by
// search.maxSteps says so in its message, a result of 0 warehouses is NoneCompliant, one at the
// loaded count AllLoadedCompliant, one resting on two steps Bracketed. "" when it cannot tell.
func (r *Result) EffectiveBound(loaded int32) ResultBound {
	switch {
	case r == nil:
		return ""
	case r.Bound != "":
		return r.Bound
	case strings.Contains(r.Message, "stopped after search.maxSteps"):
		return BoundStepsExhausted
	case r.MaxCompliantWarehouses == 0:
		return BoundNoneCompliant
	case loaded > 0 && r.MaxCompliantWarehouses >= loaded:
		return BoundAllLoadedCompliant
	case len(r.RestsOn) == 2:
		return BoundBracketed
	}
	return ""
}

// Result is the outcome of the search.
type Result struct {
	// MaxCompliantWarehouses is the largest active warehouse count whose step was compliant; 0 if none.
	// Bound says whether it is the capacity (Bracketed) or a floor under it.
	MaxCompliantWarehouses int32 `json:"maxCompliantWarehouses"`
	// Bound is what maxCompliantWarehouses is: Bracketed (the capacity, within precision),
	// AllLoadedCompliant or StepsExhausted (a floor: the capacity is at least that), or
	// NoneCompliant. Absent in results written before it existed: EffectiveBound derives it.
	// +optional
	Bound ResultBound `json:"bound,omitempty"`
	// TpmC of that step.
	TpmC float64 `json:"tpmC"`
	// Efficiency of that step, in percent.
	Efficiency float64 `json:"efficiency"`
	// Step is the index in status.steps of that step; absent when no step was compliant.
	// +optional
	Step *int32 `json:"step,omitempty"`
	// Precision of the search, in warehouses: max(1, warehouses/200). It brackets the result only
	// when Bound is Bracketed.
	// +optional
	Precision int32 `json:"precision,omitempty"`
	// RestsOn are the indexes in status.steps of the full-length steps the result rests on: the
	// compliant step at maxCompliantWarehouses and, below the loaded count, the non-compliant step
	// at most one precision above it.
	// +listType=atomic
	// +optional
	RestsOn []int32 `json:"restsOn,omitempty"`
	// SearchTime is the time the search's steps took to the answer: ramp-ups and measured
	// intervals, as planned.
	// +optional
	SearchTime *metav1.Duration `json:"searchTime,omitempty"`
	// PerResource divides tpmC by the database's CPU and memory: its pods' requests, limits and
	// measured peak at the result step.
	// +listType=atomic
	// +optional
	PerResource []PerResource `json:"perResource,omitempty"`
	// Bottleneck is the resource saturated at the result's bound, from the recorded signals of
	// the step that bounds it.
	// +optional
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
	// Message summarises the result.
	// +optional
	Message string `json:"message,omitempty"`
	// Sustained is whether the database held the result for spec.sustain.duration.
	// +optional
	Sustained *SustainedResult `json:"sustained,omitempty"`
	// ConsistencyCheck is the TPC-C consistency check over the whole dataset and the New-Order
	// ledger after the run's last step, before the result was published.
	// +optional
	ConsistencyCheck *ConsistencyCheck `json:"consistencyCheck,omitempty"`
	// PricePerformance is the database's monthly cost as spec.pricing prices it, and its cost per
	// tpmC; absent without spec.pricing. With a floor result (Bound not Bracketed) it is a floor
	// too: tpmC per currency at least, cost per tpmC at most.
	// +optional
	PricePerformance *PricePerformance `json:"pricePerformance,omitempty"`
}

// ReportRef names the report ConfigMap.
type ReportRef struct {
	// ConfigMapName in the run's namespace.
	ConfigMapName string `json:"configMapName"`
}
