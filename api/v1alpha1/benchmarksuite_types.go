package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkSuite measures several databases the same way, one BenchmarkRun at a time, and compares
// them: the same workload, SLA and search for every database, repeated and interleaved so drift
// hits every database alike.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=bs,categories=tpcc
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Runs",type=string,JSONPath=`.status.progress`,description="Runs ended / planned"
// +kubebuilder:printcolumn:name="Leader",type=string,JSONPath=`.status.leader`,description="Database with the highest mean tpmC; empty while any database's result is a floor (results[].bound)"
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1,description="The Ready condition's reason: the phase under way, Succeeded, or why the suite failed"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 24 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS label of at most 24 characters starting with a letter: it prefixes the names of the suite's runs"
// +kubebuilder:validation:XValidation:rule="self.spec.databases.all(d, self.metadata.name.size() + d.name.size() <= 36)",message="spec.databases[].name: the run name <suite>-<database>-<repeat> must fit a BenchmarkRun name (40 characters), so metadata.name and each database name may have at most 36 characters together"
type BenchmarkSuite struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BenchmarkSuiteSpec   `json:"spec"`
	Status BenchmarkSuiteStatus `json:"status,omitempty"`
}

// BenchmarkSuiteList is a list of BenchmarkSuites.
//
// +kubebuilder:object:root=true
type BenchmarkSuiteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BenchmarkSuite `json:"items"`
}

// BenchmarkSuiteSpec is which databases to compare and how each is measured. It is fixed once the
// suite exists: its runs are only comparable when measured under one specification.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable once the suite is created"
// +kubebuilder:validation:XValidation:rule="!has(self.search.startWarehouses) || self.search.startWarehouses <= self.workload.warehouses",fieldPath=".search.startWarehouses",message="search.startWarehouses must not exceed workload.warehouses"
// +kubebuilder:validation:XValidation:rule="!has(self.search.probeDuration) || !has(self.workload.duration) || duration(self.search.probeDuration) <= duration(self.workload.duration)",fieldPath=".search.probeDuration",message="search.probeDuration must not exceed workload.duration"
// +kubebuilder:validation:XValidation:rule="!has(self.search.probeDuration) || (has(self.workload.wait) && self.workload.wait == 'None') || duration(self.search.probeDuration) >= duration('30s')",fieldPath=".search.probeDuration",message="search.probeDuration must be at least 30s with workload.wait Spec: one New-Order cycle (18s keying + 12s mean think time) must fit in a probe"
// +kubebuilder:validation:XValidation:rule="!has(self.sla.maxReplicationLag) || self.databases.all(d, d.database.engine == 'PostgreSQL')",fieldPath=".sla.maxReplicationLag",message="sla.maxReplicationLag applies only when every database has engine PostgreSQL: CockroachDB and YDB replicate by consensus and expose no standby lag"
// +kubebuilder:validation:XValidation:rule="!has(self.placement) || !has(self.placement.database) || !has(self.placement.database.topologySpreadConstraints) || self.databases.all(d, d.database.engine != 'YDB' || (has(d.placement) && has(d.placement.database)))",fieldPath=".placement.database.topologySpreadConstraints",message="placement.database.topologySpreadConstraints is not supported with engine YDB, and the suite's default would apply to a YDB database: give that database a placement.database of its own, or use affinity"
// +kubebuilder:validation:XValidation:rule="!has(self.workload.isolation) || self.workload.isolation != 'ReadCommitted' || self.databases.all(d, d.database.engine != 'YDB')",fieldPath=".workload.isolation",message="workload.isolation ReadCommitted is not offered by YDB: its read-write transactions are Serializable or, from YDB 25.1, snapshot isolation (RepeatableRead)"
// +kubebuilder:validation:XValidation:rule="!has(self.dataReuse) || self.dataReuse != 'Snapshot' || self.databases.all(d, d.database.engine == 'PostgreSQL' && !has(d.database.external))",fieldPath=".dataReuse",message="dataReuse Snapshot restores every repeat from a VolumeSnapshot through CloudNativePG: every database must have engine PostgreSQL and be deployed by the operator (not external); use Repeats or None with CockroachDB, YDB or external databases"
// +kubebuilder:validation:XValidation:rule="!has(self.snapshot) || (has(self.dataReuse) && self.dataReuse == 'Snapshot')",fieldPath=".snapshot",message="snapshot configures dataReuse Snapshot's volume snapshots: set dataReuse: Snapshot, or drop it"
type BenchmarkSuiteSpec struct {
	// Databases are the databases compared, each measured by its own BenchmarkRuns.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +listType=map
	// +listMapKey=name
	Databases []SuiteDatabase `json:"databases"`

	// Workload is the TPC-C data set and how each measured step runs, for every database.
	Workload WorkloadSpec `json:"workload"`

	// SLA decides whether a step is compliant, for every database.
	// +kubebuilder:default={}
	// +optional
	SLA SLASpec `json:"sla,omitempty"`

	// Search decides which active warehouse counts are measured, for every database.
	// +kubebuilder:default={}
	// +optional
	Search SearchSpec `json:"search,omitempty"`

	// Repeats is how many whole runs each database gets (ordered by dataReuse); with 3 or more,
	// results carry a 95 % confidence interval.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:default=1
	// +optional
	Repeats int32 `json:"repeats,omitempty"`

	// DataReuse: Repeats (default) loads each database once; its repeats run one after the other
	// (A1 A2 A3 B1 B2 B3), each on the data the repeat before kept (spec.database.reuse), and the
	// comparison says how much the data grew. Snapshot loads each database once too, snapshots
	// the loaded data (spec.database.snapshot) and restores every later repeat from that snapshot
	// into a database of its own (spec.database.restore): every repeat starts from the same data,
	// and the repeats interleave (A1 B1 C1 A2 B2 C2). PostgreSQL only, on a storage class with
	// VolumeSnapshots. None loads every run afresh, interleaved too, so that drift over time hits
	// every database alike. A repeat whose previous repeat failed before its data was kept loads
	// afresh either way.
	// +kubebuilder:default=Repeats
	// +optional
	DataReuse DataReuse `json:"dataReuse,omitempty"`

	// Snapshot configures the volume snapshots of dataReuse Snapshot (their VolumeSnapshotClass).
	// +optional
	Snapshot *SnapshotSpec `json:"snapshot,omitempty"`

	// Sustain is every run's sustained phase (BenchmarkRun spec.sustain).
	// +optional
	Sustain *SustainSpec `json:"sustain,omitempty"`

	// Adversity is every run's adversity phase (BenchmarkRun spec.adversity): the comparison
	// shows each database's profile side by side.
	// +optional
	Adversity *AdversitySpec `json:"adversity,omitempty"`

	// Placement is every database's placement unless the database gives its own: for each role
	// (database, loader, clients) a database's block wins over this one. Its database block does
	// not apply to external databases.
	// +optional
	Placement *Placement `json:"placement,omitempty"`

	// Results names the results database the suite and its runs are recorded into
	// (docs/results.md); every run of the suite gets it.
	// +optional
	Results *ResultsSpec `json:"results,omitempty"`

	// RetainReports keeps the comparison ConfigMap and every run's report ConfigMap when the
	// suite (and with it its runs) is deleted.
	// +optional
	RetainReports bool `json:"retainReports,omitempty"`

	// Baseline is an earlier suite in the results database this one is compared with once it
	// ends: the verdict is status.regression and condition BaselineHeld.
	// +optional
	Baseline *SuiteBaseline `json:"baseline,omitempty"`

	// Pricing is every run's spec.pricing unless the database gives its own; the comparison then
	// ranks the databases by price-performance too (docs/price-performance.md).
	// +optional
	Pricing *PricingSpec `json:"pricing,omitempty"`
}

// DataReuse says whether a suite's repeats reuse the data of the repeat before.
// +kubebuilder:validation:Enum=Repeats;Snapshot;None
type DataReuse string

const (
	DataReuseRepeats  DataReuse = "Repeats"
	DataReuseSnapshot DataReuse = "Snapshot"
	DataReuseNone     DataReuse = "None"
)

// SuiteDatabase is one database of a suite.
//
// +kubebuilder:validation:XValidation:rule="!has(self.database.reuse)",fieldPath=".database.reuse",message="database.reuse is set by the suite for its repeats (dataReuse), not in its databases"
// +kubebuilder:validation:XValidation:rule="!has(self.database.snapshot) && !has(self.database.restore)",fieldPath=".database",message="database.snapshot and database.restore are set by the suite for its repeats (dataReuse Snapshot), not in its databases"
// +kubebuilder:validation:XValidation:rule="!has(self.database.teardown) || self.database.teardown == 'Delete'",fieldPath=".database.teardown",message="database.teardown must be Delete in a suite: its databases share the cluster's nodes, so each is torn down before the next run starts"
// +kubebuilder:validation:XValidation:rule="!has(self.placement) || !has(self.placement.database) || !has(self.database.external)",fieldPath=".placement.database",message="placement.database applies only to a database the operator deploys: an external database has no pods of the run to place"
// +kubebuilder:validation:XValidation:rule="!has(self.placement) || !has(self.placement.database) || !has(self.placement.database.topologySpreadConstraints) || self.database.engine != 'YDB'",fieldPath=".placement.database.topologySpreadConstraints",message="placement.database.topologySpreadConstraints is not supported with engine YDB: ydb-operator's Storage and Database take nodeSelector, tolerations and affinity (the Storage sets its own spread); use affinity"
type SuiteDatabase struct {
	// Name identifies the database in the suite's results and names its runs
	// (<suite>-<name>-<repeat>).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// Database is what to deploy (or use), as in a BenchmarkRun.
	Database DatabaseSpec `json:"database"`

	// Placement of this database's runs, role by role over the suite's spec.placement.
	// +optional
	Placement *Placement `json:"placement,omitempty"`

	// Pricing of this database's runs, instead of the suite's spec.pricing.
	// +optional
	Pricing *PricingSpec `json:"pricing,omitempty"`
}

func init() {
	SchemeBuilder.Register(&BenchmarkSuite{}, &BenchmarkSuiteList{})
}
