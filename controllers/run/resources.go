package run

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/podmetrics"
)

// sampleResources samples what the run's database pods and the step's client pods use now —
// CPU and memory, disk and network (internal/podmetrics) — into the step's series.
func (r *Reconciler) sampleResources(ctx context.Context, run *benchv1.BenchmarkRun, st *measure.StepSeries, clients []corev1.Pod) {
	if st.Origin.IsZero() {
		return
	}
	pods := podmetrics.Pods{Namespace: run.Namespace}
	pods.Add(measure.RoleClient, nil, clients...)
	if sel := r.backend(run).DatabasePods(run); sel != nil {
		list := &corev1.PodList{}
		if err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), client.MatchingLabels(sel)); err == nil {
			pods.Add(measure.RoleDatabase, sel, list.Items...)
		} else {
			pods.Selectors = append(pods.Selectors, sel)
		}
	}
	if len(clients) > 0 {
		pods.Selectors = append(pods.Selectors, client.MatchingLabels{jobs.StepLabel: clients[0].Labels[jobs.StepLabel],
			jobs.ComponentLabel: jobs.ComponentClient, "bench.oltp.io/run": run.Name})
	}
	podmetrics.Sampler{Reader: r.APIReader, Nodes: r.Config.NodeMetrics}.Sample(ctx, st, pods)
}
