package resultsdb

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Finalizer holds the deletion of a run or suite that records into a results database
// until what it recorded is written there — or, when the database does not answer,
// Config.DeletionGrace after the deletion was asked for: a deletion never waits on a
// database for long. So a run deleted right after it ended keeps its rows.
const Finalizer = "bench.oltp.io/results"

// DefaultDeletionGrace is how long a deletion waits for the results database.
const DefaultDeletionGrace = 10 * time.Minute

// ensureFinalizer adds the finalizer to a resource that records into a results database,
// and takes it away from one that no longer does.
func ensureFinalizer(ctx context.Context, c client.Client, obj client.Object, records bool) error {
	if !obj.GetDeletionTimestamp().IsZero() || controllerutil.ContainsFinalizer(obj, Finalizer) == records {
		return nil
	}
	before := obj.DeepCopyObject().(client.Object)
	if records {
		controllerutil.AddFinalizer(obj, Finalizer)
	} else {
		controllerutil.RemoveFinalizer(obj, Finalizer)
	}
	if err := c.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("%s the finalizer %s: %w", map[bool]string{true: "adding", false: "removing"}[records], Finalizer, err)
	}
	return nil
}

// retryAfter is when a pass whose recording failed looks again.
const retryAfter = 10 * time.Second

// Record is one pass of a run's or suite's recording: the finalizer kept as t's spec asks, its
// writers reconciled and, while t is being deleted, the deletion released once its backlog is
// written or its grace is over. It returns when to look again and whether the pass went through;
// its errors are logged and retried, never failing the resource.
func (rr *Recorder) Record(ctx context.Context, t *Recordable) (time.Duration, bool) {
	if err := ensureFinalizer(ctx, rr.Client, t.Obj, rr.WritesFor(t.Spec)); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "recording into the results database; retrying")
		return retryAfter, false
	}
	wait, err := rr.Reconcile(ctx, t)
	if err == nil && !t.Obj.GetDeletionTimestamp().IsZero() {
		wait, err = releaseDeletion(ctx, rr, t, wait)
	}
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "recording into the results database; retrying")
		return retryAfter, false
	}
	return wait, true
}

// releaseDeletion takes the finalizer away from a resource being deleted once nothing it recorded
// waits for the results database, or once the grace has passed (then an event names what is
// lost). It returns when to look again while it waits.
func releaseDeletion(ctx context.Context, rr *Recorder, t *Recordable, wait time.Duration) (time.Duration, error) {
	obj := t.Obj
	if !controllerutil.ContainsFinalizer(obj, Finalizer) {
		return 0, nil
	}
	rec := t.Recording()
	pending := rr.EffectiveSecret(t.Spec) != nil && (rec == nil || rec.Writer != nil || t.Steps > rec.StepsWritten || (t.Ended && !rec.EndWritten))
	grace := rr.Config.DeletionGrace
	if grace <= 0 {
		grace = DefaultDeletionGrace
	}
	waited := time.Since(obj.GetDeletionTimestamp().Time)
	if pending && waited < grace {
		return MergeWait(MergeWait(wait, grace-waited), 5*time.Second), nil
	}
	if pending {
		what := "its rows"
		if rec != nil {
			what = backlogWords(t, rec)
		}
		rr.event(t, corev1.EventTypeWarning, "ResultsLost", "deleted without %s in the results database: it did not answer within %s of the deletion", what, grace)
	}
	before := obj.DeepCopyObject().(client.Object)
	controllerutil.RemoveFinalizer(obj, Finalizer)
	if err := rr.Patch(ctx, obj, client.MergeFrom(before)); err != nil && !apierrors.IsNotFound(err) {
		return 0, err
	}
	return 0, nil
}

// writesFor says whether a resource records into a results database now.
func (rr *Recorder) WritesFor(spec *benchv1.ResultsSpec) bool {
	return rr.EffectiveSecret(spec) != nil
}

// MergeWait is the sooner of two requeue waits, a wait of 0 or less being none.
func MergeWait(a, b time.Duration) time.Duration {
	if a <= 0 || b < a {
		return b
	}
	return a
}
