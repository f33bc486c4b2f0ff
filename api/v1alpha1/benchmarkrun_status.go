package v1alpha1

import (
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
)

// BenchmarkRunStatus is what the operator observed and measured. Steps are appended, never rewritten.
type BenchmarkRunStatus struct {
	// Phase is where the run is: Pending, Deploying, Loading, Running, Succeeded or Failed.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: DatabaseReady, DataLoaded, SLACompliant, Complete, Failed.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Database is the deployed (or external) database the run uses.
	// +optional
	Database *DatabaseStatus `json:"database,omitempty"`

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

	// Result is the outcome of the search, once it has ended.
	// +optional
	Result *Result `json:"result,omitempty"`

	// Report names the ConfigMap holding the full report (JSON with merged histograms, Markdown tables).
	// +optional
	Report *ReportRef `json:"report,omitempty"`
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
	// StartTime of the load.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// CompletionTime of the load and its consistency check.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
}

// StepKind is a step's length class.
// +kubebuilder:validation:Enum=Full;Probe
type StepKind string

const (
	// StepFull measures the workload's whole duration; results rest on these.
	StepFull StepKind = "Full"
	// StepProbe measures search.probeDuration: the guided search narrows its bracket with these.
	StepProbe StepKind = "Probe"
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
	// TpmC is New-Order transactions committed per measured minute.
	TpmC float64 `json:"tpmC"`
	// Efficiency is TpmC in percent of 12.86 per active warehouse.
	Efficiency float64 `json:"efficiency"`
	// Compliant is whether every SLA condition held.
	Compliant bool `json:"compliant"`
	// Reasons the step is not compliant, each naming what failed, measured against the bound.
	// +optional
	Reasons []string `json:"reasons,omitempty"`
	// Transactions holds response-time figures per transaction type.
	// +optional
	Transactions map[Transaction]TransactionStats `json:"transactions,omitempty"`
	// Mix is each transaction type's share of completed transactions, in percent.
	// +optional
	Mix map[Transaction]float64 `json:"mix,omitempty"`
	// Errors is the number of transactions that failed with an error.
	// +optional
	Errors int64 `json:"errors,omitempty"`
	// LatencyRatio is the largest ratio of an sla.latency bound's measured percentile to its max
	// (above 1: that bound failed). The guided search estimates the boundary from it.
	// +optional
	LatencyRatio float64 `json:"latencyRatio,omitempty"`
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
}

// Result is the outcome of the search.
type Result struct {
	// MaxCompliantWarehouses is the largest active warehouse count whose step was compliant; 0 if none.
	MaxCompliantWarehouses int32 `json:"maxCompliantWarehouses"`
	// TpmC of that step.
	TpmC float64 `json:"tpmC"`
	// Efficiency of that step, in percent.
	Efficiency float64 `json:"efficiency"`
	// Step is the index in status.steps of that step; absent when no step was compliant.
	// +optional
	Step *int32 `json:"step,omitempty"`
	// Precision of the search, in warehouses: max(1, warehouses/200).
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
	// Message summarises the result.
	// +optional
	Message string `json:"message,omitempty"`
}

// ReportRef names the report ConfigMap.
type ReportRef struct {
	// ConfigMapName in the run's namespace.
	ConfigMapName string `json:"configMapName"`
}
