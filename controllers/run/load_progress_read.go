package run

import (
	"context"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// readLoadProgress reads the progress the run's pods of component (the loader's, or the check's
// finish-load) serve (`tpcc load --listen`), by the pod's completion index (0 for a Job that is not
// indexed), all pods together (Config.PodFanOut at once, each within the per-pod timeout). ctx
// carries the run's control token (controlContext). A pod that does not answer is left out; when
// two pods of one index answer (a retry beside a terminating one) the further one counts. finished
// says the check pod's finish-load container has ended successfully.
func (r *Reconciler) readLoadProgress(ctx context.Context, run *benchv1.BenchmarkRun, component string) (progress map[int]snapshot.LoadProgress, finished bool) {
	list := &corev1.PodList{}
	selector := client.MatchingLabels(engines.Labels(run))
	selector[jobs.ComponentLabel] = component
	if err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), selector); err != nil {
		ctrl.LoggerFrom(ctx).Info("listing the load's pods for their progress", "error", err.Error())
		return nil, false
	}
	var urls []string
	var indexes []int
	for _, p := range list.Items {
		for _, s := range p.Status.InitContainerStatuses {
			if t := s.State.Terminated; s.Name == jobs.FinishContainerName && t != nil && t.ExitCode == 0 {
				finished = true
			}
		}
		if p.DeletionTimestamp != nil || p.Status.PodIP == "" || (p.Status.Phase != corev1.PodPending && p.Status.Phase != corev1.PodRunning) {
			continue
		}
		index, err := strconv.Atoi(p.Annotations[batchv1.JobCompletionIndexAnnotation])
		if err != nil {
			index = 0
		}
		urls = append(urls, r.snapshotURL(p.Status.PodIP))
		indexes = append(indexes, index)
	}
	read, _ := snapshot.FetchLoadAll(ctx, urls, r.poll())
	progress = map[int]snapshot.LoadProgress{}
	for i, p := range read {
		if p == nil {
			continue
		}
		if prev, ok := progress[indexes[i]]; !ok || p.WarehousesDone > prev.WarehousesDone || p.Rows > prev.Rows {
			progress[indexes[i]] = *p
		}
	}
	return progress, finished
}
