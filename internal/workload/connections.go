package workload

import benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"

// Connections the run's pods open, which the database's max_connections must cover. They mirror
// the client's own defaults (k6ext.DefaultConnections; connections_test.go checks they agree): the
// Jobs pass no --connections.
const (
	// SpecConnectionsPerWarehouse with TPC-C keying and think times: a terminal spends > 99 % of
	// its time keying or thinking, so two pooled connections serve a warehouse's ten terminals.
	SpecConnectionsPerWarehouse = 2
	// NoWaitConnectionsPerWarehouse without waits: one per terminal, each always in a transaction.
	NoWaitConnectionsPerWarehouse = 10
	// TelemetryConnections is pod 0's sampler of the database's own signals.
	TelemetryConnections = 1
)

// StepConnections is how many connections a step of active warehouses opens: every client pod's
// pool for its warehouse range, and the telemetry sampler.
func StepConnections(run *benchv1.BenchmarkRun, active int32) int {
	perWarehouse := SpecConnectionsPerWarehouse
	if run.Spec.Workload.Wait == benchv1.WaitNone {
		perWarehouse = NoWaitConnectionsPerWarehouse
	}
	return int(active)*perWarehouse + TelemetryConnections
}

// LoadConnections is how many connections the load opens: every loader pod's pool (its threads
// and the schema connection); the finish and the check that follow use one pod's worth.
func LoadConnections(run *benchv1.BenchmarkRun) int {
	return int(LoaderPods(run)) * (LoaderThreads + 1)
}

// PeakConnections is the most connections the run's Jobs hold at once: the load and the steps
// never overlap, and no step activates more than the loaded warehouses.
func PeakConnections(run *benchv1.BenchmarkRun) int {
	return max(StepConnections(run, run.Spec.Workload.Warehouses), LoadConnections(run))
}
