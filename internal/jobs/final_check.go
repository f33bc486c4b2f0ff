package jobs

import (
	"strconv"

	batchv1 "k8s.io/api/batch/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// FinalCheckJobName names the consistency check after the run's last step.
func FinalCheckJobName(run *benchv1.BenchmarkRun) string { return CheckJobName(run) + "-final" }

// FinalCheckJob checks the TPC-C consistency conditions 3.3.2.1–12 (not the load-time-only
// 3.3.2.11) over every loaded warehouse after the run's last step, and writes its summary with
// the dataset read afterwards as the container's termination message (--summary-json), whether
// the conditions hold or not: the operator reads the verdict from the first pod that ends.
func FinalCheckJob(run *benchv1.BenchmarkRun, conn engines.Connection, cfg Config) *batchv1.Job {
	job := newJob(run, FinalCheckJobName(run), ComponentCheck, conn, cfg,
		[]string{"check", "--engine", conn.Engine, "--warehouses", itoa(run.Spec.Workload.Warehouses), "--threads", strconv.Itoa(workload.LoaderThreads),
			"--summary-json", TerminationMessagePath})
	job.Spec.BackoffLimit = ptr(int32(2)) // a pod that ended without a summary (the connection broke) is retried
	return job
}
