package run

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/controllers/run/plan"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Snapshots of the loaded data (docs/reuse.md). A run with spec.database.snapshot, once its data is
// loaded and checked and before anything else, asks its database's operator for a cold snapshot
// (engines.Snapshotter: CloudNativePG's volume-snapshot Backup), waits for it, and marks each
// VolumeSnapshot as its own with what it holds — the annotations a kept database carries (the run,
// the deployment's hash, the dataset's identity) and an owner reference, so that deleting the run
// deletes them. A run with spec.database.restore checks those annotations before it deploys
// anything, deploys its database from the snapshots (Desired), and checks the restored data in
// place of a load, as a reusing run does.

// +kubebuilder:rbac:groups=postgresql.cnpg.io,resources=backups,verbs=get;create
// +kubebuilder:rbac:groups=snapshot.storage.k8s.io,resources=volumesnapshots,verbs=get;patch

// reconcileSnapshot takes the snapshot of the loaded data a run with spec.database.snapshot asks
// for: the database operator's request, created once, followed until every volume snapshot is
// ready to use; the volume snapshots then become the run's. A request that fails, or does not
// complete within the database ready timeout, fails the run (SnapshotFailed).
func (r *Reconciler) reconcileSnapshot(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	spec := run.Spec.Database.Snapshot
	if spec == nil || run.Status.SnapshotReady() {
		return true, ctrl.Result{}, nil
	}
	snapshotter, ok := r.backend(run).(engines.Snapshotter)
	if !ok {
		return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonSnapshotFailed,
			fmt.Sprintf("spec.database.snapshot: engine %s has no snapshots of its volumes here", run.Spec.Database.Engine))
	}
	request, err := snapshotter.SnapshotRequest(run)
	if err != nil {
		return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonSnapshotFailed, "spec.database.snapshot: "+err.Error())
	}
	if run.Status.Load.Snapshot == nil {
		if err := r.createOnce(ctx, run, request); err != nil {
			if meta.IsNoMatchError(err) || apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err) {
				// No Backup kind served, or the database operator's webhook refused it (no
				// VolumeSnapshot CRD when it started): nothing will take the snapshot.
				return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonSnapshotFailed,
					fmt.Sprintf("spec.database.snapshot: %s %s cannot be created: %v", request.GetKind(), request.GetName(), err))
			}
			return false, ctrl.Result{}, err
		}
		now := metav1.Now()
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			s.Load.Snapshot = &benchv1.DataSnapshotStatus{Run: run.Name, Backup: request.GetName(),
				VolumeSnapshotClassName: spec.VolumeSnapshotClassName, StartTime: &now}
		}); err != nil {
			return false, ctrl.Result{}, err
		}
	}
	current := &unstructured.Unstructured{}
	current.SetGroupVersionKind(request.GroupVersionKind())
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(request), current); err != nil {
		if apierrors.IsNotFound(err) {
			return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonSnapshotFailed,
				fmt.Sprintf("%s %s, which was taking the snapshot of the loaded data, was deleted", request.GetKind(), request.GetName()))
		}
		return false, ctrl.Result{}, err
	}
	progress := snapshotter.SnapshotProgress(current)
	if progress.Failed != "" {
		return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonSnapshotFailed,
			fmt.Sprintf("%s %s: %s", request.GetKind(), request.GetName(), progress.Failed))
	}
	taken, restoreBytes, waiting := progress.VolumeSnapshots, int64(0), ""
	if progress.Done {
		for _, name := range taken {
			vs := &unstructured.Unstructured{}
			vs.SetGroupVersionKind(engines.VolumeSnapshotGVK)
			if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, vs); err != nil {
				if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
					return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonSnapshotFailed,
						fmt.Sprintf("%s %s reports VolumeSnapshot %s, which does not exist", request.GetKind(), request.GetName(), name))
				}
				return false, ctrl.Result{}, err
			}
			ready, size, failed := engines.VolumeSnapshotState(vs)
			if failed != "" {
				return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonSnapshotFailed, fmt.Sprintf("VolumeSnapshot %s: %s", name, failed))
			}
			if !ready {
				waiting = fmt.Sprintf("VolumeSnapshot %s is not ready to use yet", name)
				break
			}
			restoreBytes += size
		}
	} else {
		waiting = fmt.Sprintf("%s %s: %s", request.GetKind(), request.GetName(), progress.Phase)
	}
	if waiting != "" {
		started := run.Status.Load.Snapshot.StartTime
		if limit, words := plan.DataWait(run, r.Config.DatabaseReadyTimeout); started != nil && time.Since(started.Time) > limit {
			return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonSnapshotFailed,
				fmt.Sprintf("the snapshot of the loaded data was not taken within %s: %s", words, waiting))
		}
		return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			s.Load.Snapshot.Instance = progress.Instance
		})
	}
	// Every volume snapshot is ready: each becomes the run's, with what it holds.
	for _, name := range taken {
		if err := r.adoptVolumeSnapshot(ctx, run, name, databaseAnnotations(run)); err != nil {
			return false, ctrl.Result{}, err
		}
	}
	now := metav1.Now()
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		s.Load.Snapshot.Instance, s.Load.Snapshot.VolumeSnapshots = progress.Instance, taken
		s.Load.Snapshot.RestoreBytes, s.Load.Snapshot.ReadyTime = restoreBytes, &now
	}); err != nil {
		return false, ctrl.Result{}, err
	}
	if r.Recorder != nil {
		r.Recorder.Eventf(run, nil, corev1.EventTypeNormal, "Snapshotted", "Snapshot", "the loaded data is kept in VolumeSnapshot(s) %v, taken on %s in %s",
			taken, progress.Instance, now.Sub(run.Status.Load.Snapshot.StartTime.Time).Round(time.Second))
	}
	return true, ctrl.Result{}, nil
}

// restorable says why a VolumeSnapshot cannot be restored by a run restoring the snapshot run
// `from` took, "" when it can: it carries that run's name, the hash of this run's deployment and
// a dataset this run's workload can use. It is pure.
func restorable(vs metav1.Object, run *benchv1.BenchmarkRun, engine string) (reason, why string) {
	from := run.Spec.Database.Restore.Run
	a := vs.GetAnnotations()
	if a[OwnerRunAnnotation] != from {
		return benchv1.ReasonRestoreUnavailable, fmt.Sprintf("VolumeSnapshot %s is not one run %s took (annotated %s=%q)", vs.GetName(), from, OwnerRunAnnotation, a[OwnerRunAnnotation])
	}
	if h := a[DatabaseSpecAnnotation]; h != databaseSpecHash(run) {
		return benchv1.ReasonRestoreMismatch, fmt.Sprintf("run %s snapshotted a database deployed with another spec.database (engine and its block must be equal; spec hash %s, this run's %s)",
			from, h, databaseSpecHash(run))
	}
	ds, err := annotatedDataset(a)
	if err != nil {
		return benchv1.ReasonRestoreMismatch, fmt.Sprintf("VolumeSnapshot %s records no loaded dataset", vs.GetName())
	}
	if m := ds.Mismatch(engine, int(run.Spec.Workload.Warehouses)); m != "" {
		return benchv1.ReasonRestoreMismatch, fmt.Sprintf("the snapshot run %s took cannot be restored: %s", from, m)
	}
	return "", ""
}

// annotatedDataset reads the dataset identity a kept database or snapshot is annotated with.
func annotatedDataset(a map[string]string) (snapshot.Dataset, error) {
	var id datasetIdentity
	if err := json.Unmarshal([]byte(a[DatasetAnnotation]), &id); err != nil {
		return snapshot.Dataset{}, err
	}
	return snapshot.Dataset{Engine: id.Engine, SchemaVersion: int(id.SchemaVersion), Warehouses: int(id.Warehouses), Finished: true}, nil
}

// checkRestore runs before a restoring run writes anything: the run it names asked for a
// snapshot and has taken it (while it has not, and has not ended, this run waits), and every
// volume snapshot the run's database is to be restored from exists, is ready and can be restored
// (restorable). Anything else fails the run, having deployed nothing.
func (r *Reconciler) checkRestore(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	from := run.Spec.Database.Restore.Run
	source := &benchv1.BenchmarkRun{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: from}, source); err != nil {
		if apierrors.IsNotFound(err) {
			return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonRestoreUnavailable,
				fmt.Sprintf("spec.database.restore: run %s does not exist (its snapshots are deleted with it)", from))
		}
		return false, ctrl.Result{}, err
	}
	if source.Spec.Database.Snapshot == nil {
		return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonRestoreUnavailable,
			fmt.Sprintf("spec.database.restore: run %s takes no snapshot of its data (it has no spec.database.snapshot)", from))
	}
	if !source.Status.SnapshotReady() {
		if source.Status.Phase == benchv1.PhaseSucceeded || source.Status.Phase == benchv1.PhaseFailed {
			return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonRestoreUnavailable,
				fmt.Sprintf("spec.database.restore: run %s ended (%s) without a snapshot of its loaded data", from, source.Status.Phase))
		}
		return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			setCondition(s, run.Generation, benchv1.ConditionDatabaseReady, metav1.ConditionFalse, "WaitingForSnapshot",
				fmt.Sprintf("waiting for run %s to snapshot its loaded data before this run's database is restored from it", from))
		})
	}
	snapshotter, ok := r.backend(run).(engines.Snapshotter)
	if !ok {
		return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonRestoreUnavailable,
			fmt.Sprintf("spec.database.restore: engine %s cannot be restored from snapshots here", run.Spec.Database.Engine))
	}
	engine := r.connection(run).Engine
	for _, name := range snapshotter.RestoredSnapshots(from) {
		vs := &unstructured.Unstructured{}
		vs.SetGroupVersionKind(engines.VolumeSnapshotGVK)
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, vs)
		switch {
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
			return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonRestoreUnavailable,
				fmt.Sprintf("spec.database.restore: VolumeSnapshot %s of run %s does not exist (deleted?)", name, from))
		case err != nil:
			return false, ctrl.Result{}, err
		}
		if ready, _, failed := engines.VolumeSnapshotState(vs); !ready {
			return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonRestoreUnavailable,
				fmt.Sprintf("spec.database.restore: VolumeSnapshot %s of run %s is not ready to use: %s", name, from, orNone(failed)))
		}
		switch reason, why := restorable(vs, run, engine); reason {
		case benchv1.ReasonRestoreMismatch:
			return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonRestoreMismatch, "spec.database.restore: "+why+"; nothing was deployed")
		case benchv1.ReasonRestoreUnavailable:
			return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonRestoreUnavailable, "spec.database.restore: "+why+"; nothing was deployed")
		}
	}
	return true, ctrl.Result{}, nil
}

func orNone(s string) string {
	if s == "" {
		return "no error reported"
	}
	return s
}
