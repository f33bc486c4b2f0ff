package controllers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// ResultsFinalizer holds the deletion of a run or suite that records into a results database
// until what it recorded is written there — or, when the database does not answer,
// ResultsConfig.DeletionGrace after the deletion was asked for: a deletion never waits on a
// database for long. So a run deleted right after it ended keeps its rows.
const ResultsFinalizer = "bench.oltp.io/results"

// DefaultResultsDeletionGrace is how long a deletion waits for the results database.
const DefaultResultsDeletionGrace = 10 * time.Minute

// ensureResultsFinalizer adds the finalizer to a resource that records into a results database,
// and takes it away from one that no longer does.
func ensureResultsFinalizer(ctx context.Context, c client.Client, obj client.Object, records bool) error {
	if !obj.GetDeletionTimestamp().IsZero() || controllerutil.ContainsFinalizer(obj, ResultsFinalizer) == records {
		return nil
	}
	before := obj.DeepCopyObject().(client.Object)
	if records {
		controllerutil.AddFinalizer(obj, ResultsFinalizer)
	} else {
		controllerutil.RemoveFinalizer(obj, ResultsFinalizer)
	}
	if err := c.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("%s the finalizer %s: %w", map[bool]string{true: "adding", false: "removing"}[records], ResultsFinalizer, err)
	}
	return nil
}

// releaseDeletion takes the finalizer away from a resource being deleted once nothing it recorded
// waits for the results database, or once the grace has passed (then an event names what is
// lost). It returns when to look again while it waits.
func releaseDeletion(ctx context.Context, rr *resultsRecorder, t *recordable, wait time.Duration) (time.Duration, error) {
	obj := t.obj
	if !controllerutil.ContainsFinalizer(obj, ResultsFinalizer) {
		return 0, nil
	}
	rec := t.recording()
	pending := rr.effectiveSecret(t.spec) != nil && (rec == nil || rec.Writer != nil || t.steps > rec.StepsWritten || (t.ended && !rec.EndWritten))
	grace := rr.Config.DeletionGrace
	if grace <= 0 {
		grace = DefaultResultsDeletionGrace
	}
	waited := time.Since(obj.GetDeletionTimestamp().Time)
	if pending && waited < grace {
		return mergeWait(mergeWait(wait, grace-waited), 5*time.Second), nil
	}
	if pending {
		what := "its rows"
		if rec != nil {
			what = backlogWords(t, rec)
		}
		rr.event(t, corev1.EventTypeWarning, "ResultsLost", "deleted without %s in the results database: it did not answer within %s of the deletion", what, grace)
	}
	before := obj.DeepCopyObject().(client.Object)
	controllerutil.RemoveFinalizer(obj, ResultsFinalizer)
	if err := rr.Patch(ctx, obj, client.MergeFrom(before)); err != nil && !apierrors.IsNotFound(err) {
		return 0, err
	}
	return 0, nil
}

// writesFor says whether a resource records into a results database now.
func (rr *resultsRecorder) writesFor(spec *benchv1.ResultsSpec) bool {
	return rr.effectiveSecret(spec) != nil
}
