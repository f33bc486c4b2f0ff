package workload

import (
	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/shard"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Connections the run's pods open, which the database's max_connections must cover. A client
// pod's pool is spec.workload.clients.connections, or the client's own default for its shard
// (snapshot.Connections, which the Jobs then leave to the client: they pass --connections only
// when the spec sets it).
const (
	// TelemetryConnections is pod 0's sampler of the database's own signals.
	TelemetryConnections = 1
)

// PodConnections is the pool of a client pod driving warehouses.
func PodConnections(run *benchv1.BenchmarkRun, warehouses int) int {
	if n := run.Spec.Workload.Clients.Connections; n > 0 {
		return int(n)
	}
	mode := snapshot.WaitSpec
	if run.Spec.Workload.Wait == benchv1.WaitNone {
		mode = snapshot.WaitNone
	}
	return snapshot.Connections(mode, warehouses)
}

// StepConnections is how many connections a step of active warehouses opens: every client pod's
// pool for its shard of the warehouse range, and the telemetry sampler.
func StepConnections(run *benchv1.BenchmarkRun, active int32) int {
	pods := int(ClientPods(run, active))
	total := TelemetryConnections
	for i := range pods {
		r, err := shard.Of(int(active), i, pods)
		if err != nil {
			continue
		}
		total += PodConnections(run, r.To-r.From+1)
	}
	return total
}

// LoadConnections is how many connections the load opens: every loader pod's pool (its threads
// and the schema connection); the finish and the check that follow use one pod's worth. loadCPU
// is LoaderPods'.
func LoadConnections(run *benchv1.BenchmarkRun, loadCPU int64) int {
	return int(LoaderPods(run, loadCPU)) * (LoaderThreads + 1)
}

// PeakConnections is the most connections the run's Jobs hold at once: the load and the steps
// never overlap, and no step activates more than the loaded warehouses. loadCPU is LoaderPods'.
func PeakConnections(run *benchv1.BenchmarkRun, loadCPU int64) int {
	return max(StepConnections(run, run.Spec.Workload.Warehouses), LoadConnections(run, loadCPU))
}
