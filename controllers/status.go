package controllers

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// updateStatus is the one place a run's status is written. It applies mutate to the freshest copy of
// the run, records the observed generation, and patches with optimistic locking, so concurrent
// writers never lose each other's updates. Nothing is written when nothing changed.
func (r *BenchmarkRunReconciler) updateStatus(ctx context.Context, run *benchv1.BenchmarkRun, mutate func(*benchv1.BenchmarkRunStatus)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := &benchv1.BenchmarkRun{}
		if err := r.Get(ctx, client.ObjectKeyFromObject(run), current); err != nil {
			return err
		}
		updated := current.DeepCopy()
		mutate(&updated.Status)
		updated.Status.ObservedGeneration = current.Generation
		if equality.Semantic.DeepEqual(current.Status, updated.Status) {
			run.Status = current.Status
			return nil
		}
		patch := client.MergeFromWithOptions(current, client.MergeFromWithOptimisticLock{})
		if err := r.Status().Patch(ctx, updated, patch); err != nil {
			return fmt.Errorf("patching status of %s: %w", client.ObjectKeyFromObject(run), err)
		}
		run.Status = updated.Status
		return nil
	})
}

// setCondition sets one condition; its transition time changes only when its status does.
func setCondition(status *benchv1.BenchmarkRunStatus, generation int64, conditionType string, value metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type:               conditionType,
		Status:             value,
		ObservedGeneration: generation,
		Reason:             reason,
		Message:            message,
	})
}
