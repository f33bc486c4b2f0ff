package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// updateStatus is the one place a run's status is written. It applies mutate to the freshest copy of
// the run, records the observed generation, and patches with optimistic locking, so concurrent
// writers never lose each other's updates. Nothing is written when nothing changed. A phase change
// is announced as an event.
func (r *BenchmarkRunReconciler) updateStatus(ctx context.Context, run *benchv1.BenchmarkRun, mutate func(*benchv1.BenchmarkRunStatus)) error {
	var before, after benchv1.Phase
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := &benchv1.BenchmarkRun{}
		if err := r.Get(ctx, client.ObjectKeyFromObject(run), current); err != nil {
			return err
		}
		updated := current.DeepCopy()
		mutate(&updated.Status)
		updated.Status.ObservedGeneration = current.Generation
		before, after = current.Status.Phase, updated.Status.Phase
		if equality.Semantic.DeepEqual(current.Status, updated.Status) {
			run.Status = current.Status
			return nil
		}
		patch := client.MergeFromWithOptions(current, client.MergeFromWithOptimisticLock{})
		if err := r.Status().Patch(ctx, updated, patch); err != nil {
			return err
		}
		run.Status = updated.Status
		run.ResourceVersion = updated.ResourceVersion
		return nil
	})
	if err != nil {
		return fmt.Errorf("updating status of %s: %w", client.ObjectKeyFromObject(run), err)
	}
	recordMetrics(run)
	if before != after && r.Recorder != nil {
		eventType := corev1.EventTypeNormal
		if after == benchv1.PhaseFailed {
			eventType = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(run, nil, eventType, "Phase"+string(after), "ChangePhase", "phase %s -> %s", phaseName(before), after)
	}
	return nil
}

func phaseName(p benchv1.Phase) string {
	if p == "" {
		return "(new)"
	}
	return string(p)
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

// fail ends the run: phase Failed, conditions Failed=True and Complete=False with the reason, and
// a warning event. It returns errRunFailed for the caller to return.
func (r *BenchmarkRunReconciler) fail(ctx context.Context, run *benchv1.BenchmarkRun, reason, message string) error {
	err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		s.Phase = benchv1.PhaseFailed
		s.Current = nil
		setCondition(s, run.Generation, benchv1.ConditionFailed, metav1.ConditionTrue, reason, message)
		setCondition(s, run.Generation, benchv1.ConditionComplete, metav1.ConditionFalse, reason, message)
	})
	if err != nil {
		return err
	}
	if r.Recorder != nil {
		r.Recorder.Eventf(run, nil, corev1.EventTypeWarning, reason, "Fail", "%s", message)
	}
	return errRunFailed
}
