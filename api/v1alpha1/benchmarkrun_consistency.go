package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ConsistencyCheck is the TPC-C consistency check (Clause 3.3.2.1–12, 3.3.2.11 excepted: it holds
// only before the first Delivery) over the whole dataset after the run's last step, and the
// run's New-Order ledger: what the result rests on was measured on data the workload kept
// consistent, with every acknowledged New-Order present.
type ConsistencyCheck struct {
	// Passed: every condition checked held and the ledger, when it could be checked, passed. False
	// blocks SLACompliant and fails the run.
	Passed bool `json:"passed"`
	// Conditions checked and passed.
	Conditions int32 `json:"conditions"`
	// +optional
	ConditionsPassed int32 `json:"conditionsPassed,omitempty"`
	// FirstFailure names the first condition, in clause order, that did not hold, with its first
	// offending place and values.
	// +optional
	FirstFailure string `json:"firstFailure,omitempty"`
	// Duration is the check's wall time: what it adds to the run.
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`
	// Error says why the check gave no verdict (its Job failed without a summary, or the database
	// did not return to the load's resources to be checked); Passed is then false.
	// +optional
	Error string `json:"error,omitempty"`
	// Ledger compares the orders the database gained over the run with the New-Orders the run's
	// client pods acknowledged.
	// +optional
	Ledger *RunLedger `json:"ledger,omitempty"`
}

// RunLedger is the New-Order ledger over a whole run: every acknowledged New-Order adds one
// order, so the orders the database gained between the run's start (status.load.dataset.growth)
// and the check after its last step may not be fewer than the New-Orders acknowledged in all
// its steps (a lost commit), nor, when every step's count is complete, more than those plus the
// ones whose commit outcome the clients could not know.
type RunLedger struct {
	// Checked: false when the run's starting dataset or the final one was not read; Detail says
	// which. An unchecked ledger is no failure.
	Checked bool `json:"checked"`
	// Pass: the orders gained lie within the bounds.
	// +optional
	Pass bool `json:"pass,omitempty"`
	// Growth is the orders the database gained over the run.
	// +optional
	Growth int64 `json:"growth,omitempty"`
	// Acknowledged and Unknown New-Orders summed over the run's steps.
	// +optional
	Acknowledged int64 `json:"acknowledged,omitempty"`
	// +optional
	Unknown int64 `json:"unknown,omitempty"`
	// Exact: every step's counts are complete (each pod read after its terminals ended), so the
	// upper bound was checked too; otherwise only the lower bound (no acknowledged New-Order lost).
	// +optional
	Exact bool `json:"exact,omitempty"`
	// Detail says what was compared, or why it was not.
	// +optional
	Detail string `json:"detail,omitempty"`
}

// StepLedger is a step's New-Orders summed over its client pods, ramp-up and stopping included.
type StepLedger struct {
	// Acknowledged New-Orders whose COMMIT succeeded; Unknown those whose COMMIT's outcome the
	// client could not know (the connection broke).
	Acknowledged int64 `json:"acknowledged"`
	// +optional
	Unknown int64 `json:"unknown,omitempty"`
	// Complete: every pod's count was read after its terminals ended, in a step that was not
	// inconclusive; otherwise the counts are a lower bound (a pod not read, read while its
	// terminals still ran, or replaced mid-step).
	// +optional
	Complete bool `json:"complete,omitempty"`
}
