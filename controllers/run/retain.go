package run

import (
	"context"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
)

// A run's report outlives it when spec.retainReports says so (kube.ApplyConfigMap, kube.SetRetained).

// applyReport writes the run's report ConfigMap, retained or owned as spec.retainReports says.
func (r *Reconciler) applyReport(ctx context.Context, run *benchv1.BenchmarkRun, data map[string]string, binary map[string][]byte) error {
	return kube.ApplyConfigMap(ctx, r.Client, r.APIReader, r.Scheme, run, ReportConfigMapName(run), engines.Labels(run), data, binary, run.Spec.RetainReports)
}

// retainReport brings a finished run's report ConfigMap in line with spec.retainReports, which
// may change after the run ended.
func (r *Reconciler) retainReport(ctx context.Context, run *benchv1.BenchmarkRun) error {
	return kube.SetRetained(ctx, r.Client, r.APIReader, r.Scheme, run, ReportConfigMapName(run), run.Spec.RetainReports)
}
