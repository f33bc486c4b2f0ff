package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// writeStatus is the one place status is written, for every kind the operator reconciles. It
// applies mutate to the status of the freshest copy of obj, read from the API server by fresh (a
// cache may not have seen the last write yet: the patch would then only conflict), newObj makes
// an empty one and status finds an object's status; it patches with optimistic locking, so
// concurrent writers never lose each other's updates. Nothing is written when nothing changed. obj
// gets the status written and its resource version; before and after are the status as read and
// as written.
func writeStatus[T client.Object, S any](ctx context.Context, fresh client.Reader, c client.Client, obj T, newObj func() T, status func(T) *S, mutate func(current T, s *S)) (before, after S, err error) {
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := newObj()
		if err := fresh.Get(ctx, client.ObjectKeyFromObject(obj), current); err != nil {
			return err
		}
		updated := current.DeepCopyObject().(T)
		mutate(current, status(updated))
		before, after = *status(current), *status(updated)
		if equality.Semantic.DeepEqual(before, after) {
			*status(obj) = before
			return nil
		}
		patch := client.MergeFromWithOptions(current, client.MergeFromWithOptimisticLock{})
		if err := c.Status().Patch(ctx, updated, patch); err != nil {
			return err
		}
		*status(obj) = *status(updated)
		obj.SetResourceVersion(updated.GetResourceVersion())
		return nil
	})
	if err != nil {
		return before, after, fmt.Errorf("updating status of %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	return before, after, nil
}

// updateStatus writes a run's status (writeStatus), records the observed generation, and announces
// a phase change as an event.
func (r *BenchmarkRunReconciler) updateStatus(ctx context.Context, run *benchv1.BenchmarkRun, mutate func(*benchv1.BenchmarkRunStatus)) error {
	before, after, err := writeStatus(ctx, r.APIReader, r.Client, run, func() *benchv1.BenchmarkRun { return &benchv1.BenchmarkRun{} },
		func(o *benchv1.BenchmarkRun) *benchv1.BenchmarkRunStatus { return &o.Status },
		func(current *benchv1.BenchmarkRun, s *benchv1.BenchmarkRunStatus) {
			mutate(s)
			s.ObservedGeneration = current.Generation
			runReadyConditions(s, current.Generation)
		})
	if err != nil {
		return err
	}
	recordMetrics(run)
	announcePhase(r.Recorder, run, before.Phase, after.Phase)
	return nil
}

// announcePhase records a phase change as an event: a warning when it is Failed.
func announcePhase(recorder events.EventRecorder, obj runtime.Object, before, after benchv1.Phase) {
	if before == after || recorder == nil {
		return
	}
	eventType := corev1.EventTypeNormal
	if after == benchv1.PhaseFailed {
		eventType = corev1.EventTypeWarning
	}
	recorder.Eventf(obj, nil, eventType, "Phase"+string(after), "ChangePhase", "phase %s -> %s", phaseName(before), after)
}

func phaseName(p benchv1.Phase) string {
	if p == "" {
		return "(new)"
	}
	return string(p)
}

// setCondition sets one condition of a run; its transition time changes only when its status does.
func setCondition(status *benchv1.BenchmarkRunStatus, generation int64, conditionType string, value metav1.ConditionStatus, reason, message string) {
	setConditionIn(&status.Conditions, generation, conditionType, value, reason, message)
}

// setConditionIn sets one condition of a list; its transition time changes only when its status does.
func setConditionIn(conditions *[]metav1.Condition, generation int64, conditionType string, value metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(conditions, metav1.Condition{
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
