package postgres

import (
	"fmt"
	"strconv"
	"strings"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// MaxConnectionsField is the setting the connection budget is checked against, as the user writes it.
const MaxConnectionsField = "spec.database.postgres.parameters.max_connections"

// MaxConnections is the max_connections that holds connections client connections: the
// ConnectionHeadroom above them, never below PostgreSQL's default nor above its backend limit.
func MaxConnections(connections int) int {
	return min(max(connections+ConnectionHeadroom, MinMaxConnections), MaxMaxConnections)
}

// loadCPU is the CPU the run's load writes through (the primary's, as the run's Job sizes its
// loader pods from it: engines.LoadCPU).
func loadCPU(run *benchv1.BenchmarkRun) int64 { return engines.LoadCPU(Engine{}, run.Spec.Database) }

// peakConnections is what the run's Jobs open at once (workload.PeakConnections), its loader pods
// sized as its loader Job sizes them.
func peakConnections(run *benchv1.BenchmarkRun) int {
	return workload.PeakConnections(run, loadCPU(run))
}

// checkConnectionBudget refuses a run whose own max_connections cannot hold what its Jobs open at
// once (DatabaseConnections: the loaders, or a step's client pods and the telemetry sampler, or a
// pooler's server connections)
// plus the ConnectionHeadroom the instance manager and superusers keep, naming the field, both
// numbers and the ways out. A run that leaves max_connections to the operator gets it sized
// (MaxConnections), with or without a memory request.
func checkConnectionBudget(run *benchv1.BenchmarkRun) error {
	limit, set, err := userMaxConnections(run.Spec.Database.EffectivePostgres())
	if !set || err != nil {
		return err
	}
	peak := DatabaseConnections(run)
	if need := peak + ConnectionHeadroom; limit < need {
		origin, lower := peakOrigin(run)
		return fmt.Errorf("%s is %d, but the run opens up to %d connections at once (%s) and PostgreSQL keeps %d for superusers and CloudNativePG's instance manager: "+
			"set it to at least %d, remove it to have it sized, or lower %s",
			MaxConnectionsField, limit, peak, origin, ConnectionHeadroom, need, lower)
	}
	return nil
}

// peakOrigin says which of the run's Jobs open the peak connections, and which fields lower them.
func peakOrigin(run *benchv1.BenchmarkRun) (origin, lower string) {
	spec := run.Spec.Database.EffectivePostgres()
	step := workload.StepConnections(run, run.Spec.Workload.Warehouses)
	if spec.Pooler != nil {
		step = PoolerServerConnections(run)
	}
	if load := workload.LoadConnections(run, loadCPU(run)); load > step {
		return fmt.Sprintf("%d loader pods, %d connections each", workload.LoaderPods(run, loadCPU(run)), workload.LoaderThreads+1),
			"spec.workload.loader.pods"
	}
	if spec.Pooler != nil {
		return fmt.Sprintf("the pooler's server connections: %d PgBouncer instances × default_pool_size %d", max(spec.Pooler.Instances, 1), PoolSize(run)),
			"spec.database.postgres.pooler.defaultPoolSize or .instances"
	}
	pods := workload.ClientPods(run, run.Spec.Workload.Warehouses)
	return fmt.Sprintf("a step of all %d warehouses: %d client pods' pools and the telemetry sampler", run.Spec.Workload.Warehouses, pods),
		"spec.workload.clients.connections (each client pod's pool) or spec.workload.warehouses"
}

// userMaxConnections is the max_connections the run sets in postgres.parameters, if it sets one;
// a value that is not a positive whole number is an error naming the field.
func userMaxConnections(spec benchv1.PostgresSpec) (limit int, set bool, err error) {
	v, set := spec.Parameters["max_connections"]
	if !set {
		return 0, false, nil
	}
	limit, err = strconv.Atoi(strings.TrimSpace(v))
	if err != nil || limit < 1 {
		return 0, true, fmt.Errorf("%s: %q is not a positive whole number of connections", MaxConnectionsField, v)
	}
	return limit, true, nil
}
