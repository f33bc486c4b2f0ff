package jobs

import (
	"strconv"

	batchv1 "k8s.io/api/batch/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// MeasureFaults turns a step Job into one that measures a fault: one-second intervals, and (where
// the engine supports it: conn.Ledger) the New-Order ledger checked against the database before
// and after the step (--ledger-check).
func MeasureFaults(job *batchv1.Job, conn engines.Connection) {
	c := &job.Spec.Template.Spec.Containers[0]
	for i := 0; i+1 < len(c.Args); i++ {
		if c.Args[i] == "--interval" {
			c.Args[i+1] = workload.FaultInterval.String()
		}
	}
	if conn.Ledger {
		c.Args = append(c.Args, "--ledger-check")
	}
}

// FaultCheckJobName names the consistency check after step index.
func FaultCheckJobName(run *benchv1.BenchmarkRun, index int32) string {
	return CheckJobName(run) + "-step-" + itoa(index)
}

// FaultCheckJob checks the TPC-C consistency conditions 3.3.2.1–12 (not the load-time-only
// 3.3.2.11) after a step with faults: nothing half-applied survived the failover.
func FaultCheckJob(run *benchv1.BenchmarkRun, index int32, conn engines.Connection, cfg Config) *batchv1.Job {
	job := newJob(run, FaultCheckJobName(run, index), ComponentCheck, conn, cfg,
		[]string{"check", "--engine", conn.Engine, "--warehouses", itoa(run.Spec.Workload.Warehouses), "--threads", strconv.Itoa(workload.LoaderThreads)})
	job.Spec.BackoffLimit = ptr(int32(2))
	return job
}
