package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Issue 22, "equal terms": what a comparison of engines must state and measure beside its tpmC —
// the isolation level, the engine's tuning, the storage it runs on, disk and network per pod, and
// the results divided by the resources that produced them, with the resource that bounded them
// named. The fields live in the structs of benchmarkrun_types.go and benchmarkrun_status.go; their
// types are here.

// Isolation is the isolation level of a run's transactions.
// +kubebuilder:validation:Enum=ReadCommitted;RepeatableRead;Serializable
type Isolation string

const (
	// IsolationReadCommitted: each statement sees what was committed before it began. The
	// PostgreSQL dialect's default: explicit row locks in one global order keep TPC-C's
	// read-modify-writes correct.
	IsolationReadCommitted Isolation = "ReadCommitted"
	// IsolationRepeatableRead: one snapshot for the whole transaction (PostgreSQL's and YDB's
	// snapshot isolation; CockroachDB's REPEATABLE READ); a concurrent update of a row the
	// transaction writes aborts it with a serialization failure, which is retried.
	IsolationRepeatableRead Isolation = "RepeatableRead"
	// IsolationSerializable: equivalent to some serial order. CockroachDB's and YDB's default.
	IsolationSerializable Isolation = "Serializable"
)

// Each engine's default level, and the levels it refuses, are its own (internal/engines: an
// engine's Capabilities, which the registry answers for); admission rejects the refused
// combinations with the engine's words (CEL on BenchmarkRunSpec and BenchmarkSuiteSpec), and a
// test holds the two alike.

// IsolationYDBReadCommittedMessage is admission's message for YDB with ReadCommitted.
const IsolationYDBReadCommittedMessage = "workload.isolation ReadCommitted is not offered by YDB: its read-write transactions are Serializable or, from YDB 25.1, snapshot isolation (RepeatableRead)"

// YDBConfigSection is one top-level section of YDB's configuration (an object: its own keys as YDB
// documents them), merged into the configuration the operator renders.
// +kubebuilder:validation:Type=object
// +kubebuilder:pruning:PreserveUnknownFields
type YDBConfigSection struct {
	apiextensionsv1.JSON `json:",inline"`
}

// EngineSetting is one setting of the database's engine that the run asked for, beside the value
// the database reports for it.
type EngineSetting struct {
	// Name in the engine's own terms: a PostgreSQL parameter, a CockroachDB cluster setting, a
	// YDB configuration path (memory_controller_config.hard_limit_bytes).
	Name string `json:"name"`
	// Source says what asked for it: postgres.parameters, postgres.synchronousCommit, sizing
	// (docs/sizing.md), cockroach.clusterSettings, workload.isolation, ydb.config.
	Source string `json:"source"`
	// Requested is the value the run asked for.
	Requested string `json:"requested"`
	// Effective is the value the database reported once it ran (pg_settings, SHOW CLUSTER
	// SETTING); absent when it could not be read, and Note says why.
	// +optional
	Effective string `json:"effective,omitempty"`
	// Note says why Effective is absent, or that it differs from Requested.
	// +optional
	Note string `json:"note,omitempty"`
}

// PerResource is a result divided by the database's resources on one basis.
type PerResource struct {
	// Basis: Requests (the database pods' requests, summed), Limits (their limits) or Peak (the
	// sum of each database pod's peak use during the result step).
	Basis ResourceBasis `json:"basis"`
	// CPU and Memory are the totals on that basis; absent when not set or not measured.
	// +optional
	CPU *resource.Quantity `json:"cpu,omitempty"`
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`
	// TpmCPerVCPU is tpmC per core of CPU, TpmCPerGiB per GiB of memory (absent without the
	// denominator).
	// +optional
	TpmCPerVCPU *float64 `json:"tpmCPerVCPU,omitempty"`
	// +optional
	TpmCPerGiB *float64 `json:"tpmCPerGiB,omitempty"`
}

// ResourceBasis is what a PerResource divides by.
// +kubebuilder:validation:Enum=Requests;Limits;Peak
type ResourceBasis string

const (
	BasisRequests ResourceBasis = "Requests"
	BasisLimits   ResourceBasis = "Limits"
	BasisPeak     ResourceBasis = "Peak"
)

// BottleneckResource names what bounded a step.
// +kubebuilder:validation:Enum=DatabaseCPU;ClientCPU;DiskLatency;LockWaits;Replication;NotDetermined
type BottleneckResource string

const (
	BottleneckDatabaseCPU   BottleneckResource = "DatabaseCPU"
	BottleneckClientCPU     BottleneckResource = "ClientCPU"
	BottleneckDiskLatency   BottleneckResource = "DiskLatency"
	BottleneckLockWaits     BottleneckResource = "LockWaits"
	BottleneckReplication   BottleneckResource = "Replication"
	BottleneckNotDetermined BottleneckResource = "NotDetermined"
)

// Bottleneck is the resource that was saturated in a step, read from its recorded signals only
// (internal/sla/bottleneck.go): NotDetermined when the signals are missing or none was saturated.
type Bottleneck struct {
	// Resource is the saturated resource, or NotDetermined.
	Resource BottleneckResource `json:"resource"`
	// Step is the index in status.steps whose signals were read (for a result: the step that
	// bounds it, the non-compliant step above it when there is one, else the result's own step).
	// +optional
	Step *int32 `json:"step,omitempty"`
	// Evidence are the recorded figures behind the verdict, or what is missing.
	// +listType=atomic
	// +optional
	Evidence []string `json:"evidence,omitempty"`
	// Also names other resources that crossed their threshold in the same step.
	// +listType=atomic
	// +optional
	Also []BottleneckResource `json:"also,omitempty"`
}

// PodIO is one pod's disk and network traffic during a step, from the kubelet's cAdvisor
// metrics: the largest per-second mean of any interval.
type PodIO struct {
	// +optional
	DiskReadBytesPerSecond int64 `json:"diskReadBytesPerSecond,omitempty"`
	// +optional
	DiskWriteBytesPerSecond int64 `json:"diskWriteBytesPerSecond,omitempty"`
	// +optional
	DiskReadsPerSecond int64 `json:"diskReadsPerSecond,omitempty"`
	// +optional
	DiskWritesPerSecond int64 `json:"diskWritesPerSecond,omitempty"`
	// +optional
	NetworkReceiveBytesPerSecond int64 `json:"networkReceiveBytesPerSecond,omitempty"`
	// +optional
	NetworkTransmitBytesPerSecond int64 `json:"networkTransmitBytesPerSecond,omitempty"`
	// +optional
	NetworkReceivePacketsPerSecond int64 `json:"networkReceivePacketsPerSecond,omitempty"`
	// +optional
	NetworkTransmitPacketsPerSecond int64 `json:"networkTransmitPacketsPerSecond,omitempty"`
}

// StorageCalibration is what the database's storage class delivers to the operation a commit
// waits for: small writes each followed by fdatasync, measured before the load by a Job on a
// volume of the database's class and size, on the node of a database pod.
type StorageCalibration struct {
	// Node the calibration pod ran on.
	// +optional
	Node string `json:"node,omitempty"`
	// StorageClass and Size of the calibrated volume.
	// +optional
	StorageClass string `json:"storageClass,omitempty"`
	// +optional
	Size string `json:"size,omitempty"`
	// Tool that measured, with its version ("fio-3.33").
	// +optional
	Tool string `json:"tool,omitempty"`
	// BlockSize of each write, in bytes (8192: a WAL page).
	// +optional
	BlockSize int64 `json:"blockSize,omitempty"`
	// SyncP50, SyncP99 are the latency percentiles of the fdatasync after each write (fio's sync
	// latency; the write into the page cache before it, microseconds, is not included).
	// +optional
	SyncP50 *metav1.Duration `json:"syncP50,omitempty"`
	// +optional
	SyncP99 *metav1.Duration `json:"syncP99,omitempty"`
	// WritesPerSecond and BytesPerSecond are the throughput of those synchronous writes, one at
	// a time (queue depth 1, as a commit's WAL flush).
	// +optional
	WritesPerSecond float64 `json:"writesPerSecond,omitempty"`
	// +optional
	BytesPerSecond int64 `json:"bytesPerSecond,omitempty"`
	// Error says why the calibration failed (the run goes on without it).
	// +optional
	Error string `json:"error,omitempty"`
}
