package snapshot

import "time"

// CheckSummary is what `tpcc check --summary-json` writes after the TPC-C consistency check
// (Clause 3.3.2): how many conditions it checked and passed, the first that failed, how long it
// took, and the dataset it read afterwards. A run's check Job writes it as its termination
// message (at most 4096 bytes), which bounds FirstFailure.Detail.
type CheckSummary struct {
	// Conditions checked (a load-time-only condition skipped is not counted) and passed.
	Conditions int `json:"conditions"`
	Passed     int `json:"passed"`
	// FirstFailure is the first condition, in clause order, that did not hold; nil when all did.
	FirstFailure *CheckFailure `json:"firstFailure,omitempty"`
	// Elapsed is the check's wall time, conditions and dataset reading together.
	Elapsed time.Duration `json:"elapsedNanos"`
	// Dataset is the dataset read after the check: its growth since the load is what the
	// workload's New-Orders are compared with.
	Dataset *Dataset `json:"dataset,omitempty"`
}

// CheckFailure names a condition that did not hold and its first offending place and values.
type CheckFailure struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Detail string `json:"detail,omitempty"`
}

// MaxCheckDetail bounds CheckFailure.Detail so that a summary fits a termination message.
const MaxCheckDetail = 1024

// Pass reports whether every checked condition held.
func (s CheckSummary) Pass() bool { return s.FirstFailure == nil && s.Passed == s.Conditions }
