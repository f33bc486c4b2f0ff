package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Load once, reuse (docs/reuse.md). A run that keeps its database (teardown Retain) leaves on its
// vendor objects who made them and what they hold: the run's name (OwnerRunAnnotation), a hash of
// the deployment block (DatabaseSpecAnnotation) and, once loaded, the dataset's identity
// (DatasetAnnotation). A later run with spec.database.reuse naming it checks all three before it
// touches anything, takes the objects over (they become its own), skips the load, and checks the
// data instead: the TPC-C consistency conditions and the dataset's identity and growth, which the
// check Job writes as its termination message.

// Annotations on a run's database objects.
const (
	OwnerRunAnnotation     = "bench.oltp.io/owner-run"
	DatabaseSpecAnnotation = "bench.oltp.io/database-spec"
	DatasetAnnotation      = "bench.oltp.io/dataset"
)

// databaseSpecHash identifies the deployment a run asks for: the engine and its block, not the
// teardown policy nor where the database comes from. Two runs with one hash deploy alike.
func databaseSpecHash(run *benchv1.BenchmarkRun) string {
	d := run.Spec.Database.DeepCopy()
	d.Teardown, d.Reuse, d.External, d.Snapshot, d.Restore = "", nil, nil, nil, nil
	body, _ := json.Marshal(d)
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:8])
}

// datasetIdentity is the identity part of a dataset, as the annotation keeps it.
type datasetIdentity struct {
	Engine        string `json:"engine"`
	SchemaVersion int32  `json:"schemaVersion"`
	Warehouses    int32  `json:"warehouses"`
	Seed          string `json:"seed"`
}

// databaseAnnotations are the reuse annotations of the run's database objects as of its status.
func databaseAnnotations(run *benchv1.BenchmarkRun) map[string]string {
	out := map[string]string{OwnerRunAnnotation: run.Name, DatabaseSpecAnnotation: databaseSpecHash(run)}
	if l := run.Status.Load; l != nil && l.Dataset != nil {
		body, _ := json.Marshal(datasetIdentity{Engine: l.Dataset.Engine, SchemaVersion: l.Dataset.SchemaVersion, Warehouses: l.Dataset.Warehouses, Seed: l.Dataset.Seed})
		out[DatasetAnnotation] = string(body)
	}
	return out
}

// reusable says why an existing database object cannot be taken over by a run reusing it, ""
// when it can (or is the run's already). It is pure.
func reusable(obj metav1.Object, run *benchv1.BenchmarkRun, engine string) (reason, why string) {
	if kube.OwnedBy(obj, run) {
		return "", ""
	}
	from := run.Spec.Database.Reuse.Run
	a := obj.GetAnnotations()
	if a[OwnerRunAnnotation] != from {
		return benchv1.ReasonDatabaseConflict, fmt.Sprintf("%s is not the database run %s kept (%s)", obj.GetName(), from, kube.Whose(obj))
	}
	if h := a[DatabaseSpecAnnotation]; h != databaseSpecHash(run) {
		return benchv1.ReasonReuseMismatch, fmt.Sprintf("run %s deployed %s with another spec.database (engine and its block must be equal; spec hash %s, this run's %s)",
			from, obj.GetName(), h, databaseSpecHash(run))
	}
	ds, err := annotatedDataset(a)
	if err != nil {
		return benchv1.ReasonReuseMismatch, fmt.Sprintf("run %s recorded no loaded dataset on %s (its load never finished)", from, obj.GetName())
	}
	if m := ds.Mismatch(engine, int(run.Spec.Workload.Warehouses)); m != "" {
		return benchv1.ReasonReuseMismatch, fmt.Sprintf("the database run %s kept cannot be reused: %s", from, m)
	}
	return "", ""
}

// checkReuse runs before a reusing run writes anything: the earlier run has ended, its database
// objects exist, and each can be taken over (reusable). A mismatch fails the run; while the
// earlier run still runs, it waits.
func (r *Reconciler) checkReuse(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	from := run.Spec.Database.Reuse.Run
	earlier := &benchv1.BenchmarkRun{}
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: from}, earlier)
	switch {
	case err == nil && earlier.Status.Phase != benchv1.PhaseSucceeded && earlier.Status.Phase != benchv1.PhaseFailed:
		return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			setCondition(s, run.Generation, benchv1.ConditionDatabaseReady, metav1.ConditionFalse, "WaitingForRun",
				fmt.Sprintf("waiting for run %s to end before its database is reused", from))
		})
	case err != nil && !apierrors.IsNotFound(err):
		return false, ctrl.Result{}, err
	}
	// The database carries the name of the run that first deployed it: follow the earlier run's
	// own reuse (a deleted earlier run is taken to have deployed it).
	base := from
	if err == nil {
		base = engines.BaseName(earlier)
	}
	if run.Status.DatabaseOf != base {
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) { s.DatabaseOf = base }); err != nil {
			return false, ctrl.Result{}, err
		}
	}
	desired, err := r.backend(run).Desired(run)
	if err != nil {
		return true, ctrl.Result{}, nil // reconcileDatabase fails the run with the reason
	}
	conn := r.connection(run)
	for _, obj := range desired {
		current := &unstructured.Unstructured{}
		current.SetGroupVersionKind(obj.GroupVersionKind())
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: obj.GetName()}, current)
		switch {
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
			return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonReuseUnavailable,
				fmt.Sprintf("spec.database.reuse: run %s kept no %s %s (was its teardown Delete, or the database deleted?)", from, obj.GetKind(), obj.GetName()))
		case err != nil:
			return false, ctrl.Result{}, err
		}
		if reason, why := reusable(current, run, conn.Engine); reason != "" {
			return false, ctrl.Result{}, r.fail(ctx, run, reason, "spec.database.reuse: "+why+"; nothing of it was changed")
		}
	}
	return true, ctrl.Result{}, nil
}

// reconcileReusedData checks, in place of a load, the data a run did not load itself — the
// database an earlier run kept (spec.database.reuse) or one restored from an earlier run's snapshot
// (spec.database.restore): the dataset check Job's consistency conditions and the dataset's
// identity and growth, recorded in status.load.
func (r *Reconciler) reconcileReusedData(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	conn := r.connection(run)
	check := jobs.DatasetCheckJob(run, conn, r.Config.Jobs)
	if err := r.createOnce(ctx, run, check); err != nil {
		return false, ctrl.Result{}, err
	}
	if err := r.Get(ctx, client.ObjectKeyFromObject(check), check); err != nil {
		return false, ctrl.Result{}, client.IgnoreNotFound(err)
	}
	restore := run.Spec.Database.Restore
	from, field, checking, reason := "", "spec.database.reuse", "the data run %s kept", "Reused"
	if restore != nil {
		from, field, checking, reason = restore.Run, "spec.database.restore", "the data restored from run %s's snapshot", "Restored"
	} else {
		from = run.Spec.Database.Reuse.Run
	}
	mismatch := func(message string) error {
		if restore != nil {
			return r.fail(ctx, run, benchv1.ReasonRestoreMismatch, field+": "+message)
		}
		return r.fail(ctx, run, benchv1.ReasonReuseMismatch, field+": "+message)
	}
	warehouses := run.Spec.Workload.Warehouses
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		s.Phase = benchv1.PhaseLoading
		if s.Load == nil {
			s.Load = &benchv1.LoadStatus{StartTime: ptr(metav1.Now())}
		}
		s.Load.Warehouses = warehouses
		if restore != nil {
			s.Load.RestoredFrom = from
		} else {
			s.Load.ReusedFrom = from
		}
		setCondition(s, run.Generation, benchv1.ConditionDataLoaded, metav1.ConditionFalse, "Checking"+reason+"Data",
			"checking "+fmt.Sprintf(checking, from)+": consistency and identity")
	}); err != nil {
		return false, ctrl.Result{}, err
	}
	if failed := kube.JobCondition(check, batchv1.JobFailed); failed != nil {
		return false, ctrl.Result{}, r.fail(ctx, run, "ConsistencyCheckFailed",
			fmt.Sprintf("Job %s failed on %s (its log names the TPC-C condition): %s", check.Name, fmt.Sprintf(checking, from), failed.Message))
	}
	if kube.JobCondition(check, batchv1.JobComplete) == nil {
		return false, ctrl.Result{}, nil
	}
	ds, err := r.checkedDataset(ctx, run, check)
	if err != nil {
		return false, ctrl.Result{}, mismatch("the dataset check reported no dataset: " + err.Error())
	}
	if m := ds.Mismatch(conn.Engine, int(warehouses)); m != "" {
		return false, ctrl.Result{}, mismatch(m)
	}
	var restoredFrom *benchv1.DataSnapshotStatus
	if restore != nil {
		restoredFrom = r.restoredSnapshot(ctx, run)
	}
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		s.Load.WarehousesLoaded, s.Load.CompletionTime, s.Load.Dataset = warehouses, ptr(metav1.Now()), datasetStatus(ds)
		if restoredFrom != nil {
			s.Load.Snapshot = restoredFrom
		}
		how := fmt.Sprintf("loaded by run %s", from)
		if restore != nil {
			how = fmt.Sprintf("restored from the snapshot run %s took after loading them", from)
		}
		setCondition(s, run.Generation, benchv1.ConditionDataLoaded, metav1.ConditionTrue, reason,
			fmt.Sprintf("%d warehouses %s, consistent (TPC-C 3.3.2.1-10, 12), grown since the load by %s",
				warehouses, how, growthWords(ds.Growth())))
	}); err != nil {
		return false, ctrl.Result{}, err
	}
	r.deleteJob(ctx, run, check)
	return true, ctrl.Result{}, nil
}

// restoredSnapshot is the snapshot a restoring run's database came from, as the run that took it
// recorded it; nil when that run is gone (its snapshots with it).
func (r *Reconciler) restoredSnapshot(ctx context.Context, run *benchv1.BenchmarkRun) *benchv1.DataSnapshotStatus {
	source := &benchv1.BenchmarkRun{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: run.Spec.Database.Restore.Run}, source); err != nil {
		return nil
	}
	if source.Status.Load == nil || source.Status.Load.Snapshot == nil {
		return nil
	}
	return source.Status.Load.Snapshot.DeepCopy()
}

// checkedDataset reads the dataset a completed check Job's pod wrote as its termination message.
func (r *Reconciler) checkedDataset(ctx context.Context, run *benchv1.BenchmarkRun, job *batchv1.Job) (snapshot.Dataset, error) {
	messages, err := r.terminationMessages(ctx, run, job, true)
	if err != nil {
		return snapshot.Dataset{}, err
	}
	if len(messages) > 0 {
		var ds snapshot.Dataset
		if err := json.Unmarshal([]byte(messages[0].text), &ds); err != nil {
			return snapshot.Dataset{}, fmt.Errorf("pod %s: termination message: %w", messages[0].pod, err)
		}
		return ds, nil
	}
	return snapshot.Dataset{}, fmt.Errorf("no pod of Job %s ended with a dataset in its termination message", job.Name)
}

func datasetStatus(ds snapshot.Dataset) *benchv1.DatasetStatus {
	return &benchv1.DatasetStatus{Engine: ds.Engine, SchemaVersion: int32(ds.SchemaVersion), Warehouses: int32(ds.Warehouses),
		Seed: strconv.FormatUint(ds.Seed, 10), Growth: ds.Growth()}
}

// growthWords says how the grown tables changed: "orders +1204, history +1180, new_order +37".
func growthWords(g map[string]int64) string {
	out := ""
	for _, t := range []string{"orders", "history", "new_order"} {
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%s %+d", t, g[t])
	}
	return out
}

// recordLoadedDataset keeps what the load's check Job found (the dataset's identity) in
// status.load, once: the annotation a later run reusing the database checks comes from it. A
// check Job whose pod is gone (a restarted operator after it was deleted) leaves none; the
// database then cannot be reused, which a reusing run says.
func (r *Reconciler) recordLoadedDataset(ctx context.Context, run *benchv1.BenchmarkRun, check *batchv1.Job) {
	ds, err := r.checkedDataset(ctx, run, check)
	if err != nil {
		ctrl.LoggerFrom(ctx).Info("the load's dataset was not read", "error", err.Error())
		return
	}
	_ = r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if s.Load != nil {
			s.Load.Dataset = datasetStatus(ds)
		}
	})
}

// checkReusable is checkOwned for a reusing run's database object: the run's own, or one it may
// take over (reusable); anything else is a kube.ConflictError.
func (r *Reconciler) checkReusable(ctx context.Context, run *benchv1.BenchmarkRun, obj *unstructured.Unstructured) error {
	current := &unstructured.Unstructured{}
	current.SetGroupVersionKind(obj.GroupVersionKind())
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: obj.GetName()}, current)
	switch {
	case apierrors.IsNotFound(err):
		return nil // taken over, then deleted: the run re-creates its own
	case err != nil:
		return err
	}
	if reason, why := reusable(current, run, r.connection(run).Engine); reason != "" {
		return &kube.ConflictError{Reason: reason, Kind: obj.GetKind(), Name: obj.GetName(), Why: why}
	}
	return nil
}
