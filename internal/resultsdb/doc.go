// Package resultsdb records runs and suites into their results database through writer Jobs
// (the manager links no database driver).
//
// The results database is described in docs/results.md. The manager never
// opens a connection to it: for each write — a run's newly recorded steps, its end, a suite's
// end — it puts the record into a ConfigMap of the run or suite, <name>-results-<n>, and starts a
// Job of the client image, of the same name, that mounts that ConfigMap, the run's own step
// ConfigMaps and the results Secret (this pod alone sees the credentials) and runs `tpcc results
// write`. The rows have natural keys and are written with ON CONFLICT, so a record written twice
// changes nothing.
//
// What is written and what is under way is status (status.resultsDatabase), never memory: the
// writer to start is decided in the status write itself (optimistic locking), so a restarted
// manager finds the Job it had decided on and never starts a second for the same steps. A write
// that fails (the database is down, the Secret is wrong) is retried with backoff, doubling from
// Backoff to MaxBackoff; condition ResultsRecorded says what is pending and why; the run goes on
// and ends as it would have. When the database answers again, one Job writes the whole backlog.
package resultsdb

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=delete
