package v1alpha1

// ReuseSpec names the earlier run whose loaded database a run starts from: no deployment of its
// own and no load, a dataset check instead (docs/reuse.md).
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="reuse is immutable once the run is created"
type ReuseSpec struct {
	// Run is the name of the earlier BenchmarkRun, in this namespace, whose database this run uses.
	// That run must have kept it (database.teardown Retain) and ended; its database's engine and
	// deployment block (postgres, cockroach or ydb) must equal this run's, and the data it holds —
	// engine, schema version, loaded warehouses — must be what this run's workload asks for, or the
	// run fails (ReuseMismatch) naming both, having touched nothing. The database becomes this run's:
	// its own teardown decides its fate, and a later run may reuse it from this one.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Run string `json:"run"`
}

// DatasetStatus is what a run's database holds, as its check Job read it.
type DatasetStatus struct {
	// Engine, SchemaVersion, Warehouses and Seed identify the load that made the data: equal
	// identities are equal initial data.
	Engine        string `json:"engine"`
	SchemaVersion int32  `json:"schemaVersion"`
	Warehouses    int32  `json:"warehouses"`
	Seed          string `json:"seed"`
	// Growth is the rows the workload added since the load to the tables it grows (orders,
	// history, new_order; negative: fewer), when the run started measuring.
	// +optional
	Growth map[string]int64 `json:"growth,omitempty"`
}
