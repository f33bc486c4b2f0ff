package controllers

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Metrics the manager exports for every run, derived from its status each time status is written.
var (
	runPhase = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_phase", Help: "1 for the phase a BenchmarkRun is in, 0 for the others.",
	}, []string{"namespace", "run", "phase"})
	runSteps = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_steps", Help: "Measured steps recorded in a BenchmarkRun's status.",
	}, []string{"namespace", "run"})
	lastStepTpmC = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_last_step_tpmc", Help: "tpmC of the last recorded step.",
	}, []string{"namespace", "run"})
	lastStepEfficiency = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_last_step_efficiency_percent", Help: "Efficiency of the last recorded step, percent of 12.86 tpmC per active warehouse.",
	}, []string{"namespace", "run"})
	lastStepP90 = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_last_step_p90_seconds", Help: "90th-percentile response time of the last recorded step, per transaction type.",
	}, []string{"namespace", "run", "transaction"})
	maxCompliantWarehouses = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_max_compliant_warehouses", Help: "The result: the largest SLA-compliant active warehouse count (0 if none).",
	}, []string{"namespace", "run"})
)

var allPhases = []benchv1.Phase{benchv1.PhasePending, benchv1.PhaseDeploying, benchv1.PhaseLoading, benchv1.PhaseRunning, benchv1.PhaseSucceeded, benchv1.PhaseFailed}

func init() {
	metrics.Registry.MustRegister(runPhase, runSteps, lastStepTpmC, lastStepEfficiency, lastStepP90, maxCompliantWarehouses)
}

// recordMetrics sets a run's metrics from its status.
func recordMetrics(run *benchv1.BenchmarkRun) {
	ns, name := run.Namespace, run.Name
	for _, p := range allPhases {
		value := 0.0
		if run.Status.Phase == p {
			value = 1
		}
		runPhase.WithLabelValues(ns, name, string(p)).Set(value)
	}
	runSteps.WithLabelValues(ns, name).Set(float64(len(run.Status.Steps)))
	if n := len(run.Status.Steps); n > 0 {
		last := run.Status.Steps[n-1]
		lastStepTpmC.WithLabelValues(ns, name).Set(last.TpmC)
		lastStepEfficiency.WithLabelValues(ns, name).Set(last.Efficiency)
		for t, stats := range last.Transactions {
			lastStepP90.WithLabelValues(ns, name, string(t)).Set(stats.P90.Seconds())
		}
	}
	if r := run.Status.Result; r != nil {
		maxCompliantWarehouses.WithLabelValues(ns, name).Set(float64(r.MaxCompliantWarehouses))
	}
}

// forgetMetrics drops a deleted run's series.
func forgetMetrics(namespace, name string) {
	labels := prometheus.Labels{"namespace": namespace, "run": name}
	for _, v := range []*prometheus.GaugeVec{runPhase, runSteps, lastStepTpmC, lastStepEfficiency, lastStepP90, maxCompliantWarehouses} {
		v.DeletePartialMatch(labels)
	}
}
