package kube

import (
	"context"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	batchv1 "k8s.io/api/batch/v1"
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

// WriteStatus is the one place status is written, for every kind the operator reconciles. It
// applies mutate to the status of the freshest copy of obj, read from the API server by fresh (a
// cache may not have seen the last write yet: the patch would then only conflict), newObj makes
// an empty one and status finds an object's status; it patches with optimistic locking, so
// concurrent writers never lose each other's updates. Nothing is written when nothing changed. obj
// gets the status written and its resource version; before and after are the status as read and
// as written.
func WriteStatus[T client.Object, S any](ctx context.Context, fresh client.Reader, c client.Client, obj T, newObj func() T, status func(T) *S, mutate func(current T, s *S)) (before, after S, err error) {
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

// AnnouncePhase records a phase change as an event: a warning when it is Failed.
func AnnouncePhase(recorder events.EventRecorder, obj runtime.Object, before, after benchv1.Phase) {
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

// SetCondition sets one condition of a list; its transition time changes only when its status does.
func SetCondition(conditions *[]metav1.Condition, generation int64, conditionType string, value metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(conditions, metav1.Condition{
		Type:               conditionType,
		Status:             value,
		ObservedGeneration: generation,
		Reason:             reason,
		Message:            message,
	})
}

// EndConditions sets Ready and Ended from the phase: under way, both False with the phase as
// reason; Succeeded, both with reason Succeeded; Failed, both with the Failed condition's reason
// and message.
func EndConditions(conditions *[]metav1.Condition, generation int64, phase benchv1.Phase, message string) {
	ready, ended := metav1.ConditionFalse, metav1.ConditionFalse
	reason := string(phase)
	if reason == "" {
		reason = string(benchv1.PhasePending)
	}
	switch phase {
	case benchv1.PhaseSucceeded:
		ready, ended, reason = metav1.ConditionTrue, metav1.ConditionTrue, benchv1.ReasonSucceeded
	case benchv1.PhaseFailed:
		ended, reason = metav1.ConditionTrue, string(benchv1.PhaseFailed)
		if c := meta.FindStatusCondition(*conditions, benchv1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
			reason, message = c.Reason, c.Message
		}
	}
	if message == "" {
		message = string(phase)
	}
	SetCondition(conditions, generation, benchv1.ConditionReady, ready, reason, message)
	SetCondition(conditions, generation, benchv1.ConditionEnded, ended, reason, message)
}

// JobCondition is the Job's condition of a type when it is true, nil otherwise.
func JobCondition(job *batchv1.Job, conditionType batchv1.JobConditionType) *batchv1.JobCondition {
	for i, c := range job.Status.Conditions {
		if c.Type == conditionType && c.Status == corev1.ConditionTrue {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}

// MergeRequeue is the sooner of a pass's requeue and the recorder's.
func MergeRequeue(result ctrl.Result, wait time.Duration) ctrl.Result {
	if wait <= 0 || result.Requeue {
		return result
	}
	if result.RequeueAfter == 0 || wait < result.RequeueAfter {
		result.RequeueAfter = wait
	}
	return result
}
