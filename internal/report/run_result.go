package report

import (
	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// RunResult is a succeeded run's result with each transaction's p50/p95/p99 at its result step.
func RunResult(run *benchv1.BenchmarkRun) *benchv1.SuiteRunResult {
	r := run.Status.Result
	if r == nil {
		return nil
	}
	out := &benchv1.SuiteRunResult{MaxCompliantWarehouses: r.MaxCompliantWarehouses, Bound: r.EffectiveBound(run.Spec.Workload.Warehouses), TpmC: r.TpmC, Efficiency: r.Efficiency, Sustained: r.Sustained,
		PerResource: r.PerResource, Bottleneck: r.Bottleneck, PricePerformance: r.PricePerformance}
	if s := adversityStep(run); s != nil {
		out.Adversity = s.Adversity
	}
	if r.Step == nil || int(*r.Step) >= len(run.Status.Steps) {
		return out
	}
	step := run.Status.Steps[*r.Step]
	out.Isolation = step.Isolation
	if len(step.Transactions) > 0 {
		out.Latency = map[benchv1.Transaction]benchv1.LatencyPercentiles{}
		for t, s := range step.Transactions {
			out.Latency[t] = benchv1.LatencyPercentiles{P50: s.P50, P95: s.P95, P99: s.P99}
		}
	}
	return out
}
