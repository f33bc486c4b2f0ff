package run

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete

// reconcileLoad loads the warehouses with the loader Job, then finishes the load and checks
// consistency with the check Job. Both are created once; their status drives everything.
func (r *Reconciler) reconcileLoad(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	if meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionDataLoaded) {
		return true, ctrl.Result{}, nil
	}
	if run.Spec.Database.Reuse != nil || run.Spec.Database.Restore != nil {
		return r.reconcileReusedData(ctx, run) // loaded by an earlier run: checked, not loaded
	}
	// The loader and check pods serve their progress behind the run's control token: its Secret
	// exists before their Jobs, which mount it.
	ctx, err := r.controlContext(ctx, run)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	conn := r.connection(run)
	loader := jobs.LoaderJob(run, conn, r.loadCPU(run), r.Config.Jobs)
	if err := r.createOnce(ctx, run, loader); err != nil {
		return false, ctrl.Result{}, err
	}
	if err := r.Get(ctx, client.ObjectKeyFromObject(loader), loader); err != nil {
		return false, ctrl.Result{}, client.IgnoreNotFound(err) // the cache catches up; the Job event requeues
	}
	warehouses, pods := run.Spec.Workload.Warehouses, *loader.Spec.Completions
	completed, err := parseIndexes(loader.Status.CompletedIndexes)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	loaderDone := kube.JobCondition(loader, batchv1.JobComplete) != nil
	if progressDue(run.Status.Load, time.Now(), r.Config.PollInterval) || loaderDone {
		var running map[int]snapshot.LoadProgress
		if !loaderDone {
			running, _ = r.readLoadProgress(ctx, run, jobs.ComponentLoader)
		}
		figures, err := sumLoadProgress(warehouses, pods, completed, running)
		if err != nil {
			return false, ctrl.Result{}, err
		}
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			s.Phase = benchv1.PhaseLoading
			if s.Load == nil {
				s.Load = &benchv1.LoadStatus{StartTime: ptr(metav1.Now())}
			}
			f := figures.atLeast(s.Load)
			if s.Load.WarehousesLoaded != f.warehousesLoaded || s.Load.RowsLoaded != f.rowsLoaded || s.Load.ProgressTime == nil {
				s.Load.ProgressTime = ptr(metav1.Now())
			}
			s.Load.Warehouses, s.Load.Pods = warehouses, pods
			s.Load.WarehousesLoaded, s.Load.RowsLoaded, s.Load.RowsExpected = f.warehousesLoaded, f.rowsLoaded, f.rowsExpected
			if !loaderDone {
				setCondition(s, run.Generation, benchv1.ConditionDataLoaded, metav1.ConditionFalse, "Loading", loadMessage(f, warehouses, pods))
			}
		}); err != nil {
			return false, ctrl.Result{}, err
		}
	}
	if failed := kube.JobCondition(loader, batchv1.JobFailed); failed != nil {
		return false, ctrl.Result{}, r.fail(ctx, run, "LoadFailed", fmt.Sprintf("Job %s failed: %s", loader.Name, failed.Message))
	}
	if !loaderDone {
		// The Job's next status change requeues; the running pods' progress is read every poll.
		return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, nil
	}

	check := jobs.CheckJob(run, conn, r.Config.Jobs)
	if err := r.createOnce(ctx, run, check); err != nil {
		return false, ctrl.Result{}, err
	}
	if err := r.Get(ctx, client.ObjectKeyFromObject(check), check); err != nil {
		return false, ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if failed := kube.JobCondition(check, batchv1.JobFailed); failed != nil {
		return false, ctrl.Result{}, r.fail(ctx, run, "ConsistencyCheckFailed",
			fmt.Sprintf("Job %s failed (its log names the TPC-C condition): %s", check.Name, failed.Message))
	}
	if kube.JobCondition(check, batchv1.JobComplete) == nil {
		if progressDue(run.Status.Load, time.Now(), r.Config.PollInterval) {
			if err := r.recordFinishProgress(ctx, run); err != nil {
				return false, ctrl.Result{}, err
			}
		}
		return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, nil
	}
	r.recordLoadedDataset(ctx, run, check)
	placement := r.loadPlacement(ctx, run) // placement.go: while the Jobs' pods exist
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		s.Load.WarehousesLoaded, s.Load.RowsLoaded = warehouses, s.Load.RowsExpected
		if f := s.Load.Finish; f != nil {
			f.Done, f.Running = max(f.Done, f.Total), nil
		}
		s.Load.Placement = placement
		s.Load.CompletionTime = ptr(metav1.Now())
		setCondition(s, run.Generation, benchv1.ConditionDataLoaded, metav1.ConditionTrue, "Loaded",
			fmt.Sprintf("%d warehouses loaded and consistent (TPC-C 3.3.2.1-12)", warehouses))
	}); err != nil {
		return false, ctrl.Result{}, err
	}
	r.deleteJob(ctx, run, loader)
	r.deleteJob(ctx, run, check)
	return true, ctrl.Result{}, nil
}

// recordFinishProgress writes the finish's progress, read from the check pod, into status.load.finish
// and the DataLoaded condition, when it changed.
func (r *Reconciler) recordFinishProgress(ctx context.Context, run *benchv1.BenchmarkRun) error {
	progress, finished := r.readLoadProgress(ctx, run, jobs.ComponentCheck)
	var finish *benchv1.LoadFinishStatus
	if p, ok := progress[0]; ok {
		finish = finishStatus(p.Finish)
	}
	return r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if s.Load == nil {
			return
		}
		if finish == nil {
			finish = s.Load.Finish.DeepCopy() // not answering: as last read
		}
		if finished && finish != nil {
			finish.Done, finish.Running = max(finish.Done, finish.Total), nil
		}
		if !equality.Semantic.DeepEqual(finish, s.Load.Finish) {
			s.Load.Finish, s.Load.ProgressTime = finish, ptr(metav1.Now())
		}
		setCondition(s, run.Generation, benchv1.ConditionDataLoaded, metav1.ConditionFalse, "Finishing", finishMessage(s.Load.Warehouses, s.Load.Finish))
	})
}

// parseIndexes reads a Job's completedIndexes: comma-separated indexes and inclusive ranges.
func parseIndexes(list string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(list, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		from, to, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(from)
		if err != nil {
			return nil, fmt.Errorf("completed indexes %q: %w", list, err)
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(to); err != nil {
				return nil, fmt.Errorf("completed indexes %q: %w", list, err)
			}
		}
		if first < 0 || last < first {
			return nil, fmt.Errorf("completed indexes %q: bad range %q", list, part)
		}
		for i := first; i <= last; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// deleteJob removes a finished Job and its pods; a failure only leaves it for garbage collection
// with the run.
func (r *Reconciler) deleteJob(ctx context.Context, run *benchv1.BenchmarkRun, job *batchv1.Job) {
	if _, err := kube.DeleteOwned(ctx, r.Client, run, job, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "deleting a finished Job", "job", job.Name)
	}
}

func ptr[T any](v T) *T { return &v }
