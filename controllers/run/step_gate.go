package run

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/controllers/run/plan"
)

// awaitDatabase gates the start of step index on the database being ready now, as its operator
// reports it (engines.Backend.Readiness: for CloudNativePG the Cluster's Ready condition and every
// instance ready). A database that faltered after a step — a primary restarted after an
// overloaded step, a standby still catching up after a fault — would otherwise fail the next
// step's clients at connect, and every retry with them within seconds: the run would end as an
// infrastructure failure for a database that was back a minute later. Instead the step waits,
// DatabaseReady says so (False, ReasonDatabaseUnavailable, with the operator's words, then True,
// ReasonDatabaseReadyAgain, with how long it took), and a database not ready again within
// Config.DatabaseReadyTimeout fails the run as DatabaseNotReady: the database's failure, not the
// infrastructure's, and no capacity is published.
//
// It returns whether the step may start.
func (r *Reconciler) awaitDatabase(ctx context.Context, run *benchv1.BenchmarkRun, index int32) (bool, error) {
	backend := r.backend(run)
	observed, err := r.observe(ctx, run, backend.Observed(run))
	if err != nil {
		return false, err
	}
	readiness := backend.Readiness(run, observed)
	cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionDatabaseReady)
	waiting := cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == benchv1.ReasonDatabaseUnavailable
	after := afterStep(run.Status.Steps, index)
	if readiness.Ready {
		if !waiting {
			return true, nil
		}
		waited := time.Since(cond.LastTransitionTime.Time).Round(time.Second)
		message := fmt.Sprintf("ready again after %s, before step %d: %s", waited, index, readiness.Message)
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			setCondition(s, run.Generation, benchv1.ConditionDatabaseReady, metav1.ConditionTrue, benchv1.ReasonDatabaseReadyAgain, message)
		}); err != nil {
			return false, err
		}
		r.Recorder.Eventf(run, nil, corev1.EventTypeNormal, benchv1.ReasonDatabaseReadyAgain, "AwaitDatabase", "%s", message)
		return true, nil
	}
	if limit, words := plan.DataWait(run, r.Config.DatabaseReadyTimeout); waiting && time.Since(cond.LastTransitionTime.Time) > limit {
		return false, r.fail(ctx, run, "DatabaseNotReady", fmt.Sprintf(
			"the database was not ready again within %s%s, so step %d never started and no capacity is published: %s",
			words, after, index, readiness.Message))
	}
	message := fmt.Sprintf("step %d waits for the database%s: %s", index, after, readiness.Message)
	if !waiting || cond.Message != message {
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			setCondition(s, run.Generation, benchv1.ConditionDatabaseReady, metav1.ConditionFalse, benchv1.ReasonDatabaseUnavailable, message)
		}); err != nil {
			return false, err
		}
		if !waiting {
			r.Recorder.Eventf(run, nil, corev1.EventTypeWarning, benchv1.ReasonDatabaseUnavailable, "AwaitDatabase", "%s", message)
		}
	}
	return false, nil
}

// afterStep names the step before index for the wait's messages (" after step 2 at 10 active
// warehouses"), or nothing before the first step.
func afterStep(steps []benchv1.StepResult, index int32) string {
	if index == 0 || int(index) > len(steps) {
		return ""
	}
	prev := steps[index-1]
	return fmt.Sprintf(" after step %d (%s, %d active warehouses, %s)", index-1, prev.Kind, prev.ActiveWarehouses, prev.EffectiveVerdict())
}
