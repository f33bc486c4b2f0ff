package run

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/controllers/run/plan"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

// restoreLoadResources returns a database measured under smaller resources than it was loaded with
// (engines.ResourceSwitcher: postgres.loadResources) to the load's resources once the run's steps
// are over, so that the consistency check after the last step reads the whole dataset at the speed
// the load's own check did, not at the CPU the capacity was measured under. It first records
// status.database.resourcesRestoreTime — from then on reconcileDatabase applies the load's
// resources and the database's operator rolls the instances onto them — then waits until every
// instance runs with them and the database is ready, and records resourcesRestoredTime. done is
// true when the check may start; gaveUp says why the database did not come back within the data
// wait (plan.DataWait, from the restore's start), which leaves the check without a verdict.
func (r *Reconciler) restoreLoadResources(ctx context.Context, run *benchv1.BenchmarkRun) (done bool, gaveUp string, res ctrl.Result, err error) {
	backend := r.backend(run)
	switcher, ok := backend.(engines.ResourceSwitcher)
	if !ok {
		return true, "", ctrl.Result{}, nil
	}
	sw, switches := switcher.ResourceSwitch(run)
	db := run.Status.Database
	if !switches || (db != nil && db.ResourcesRestoredTime != nil) {
		return true, "", ctrl.Result{}, nil
	}
	back := sw.Back()
	if db == nil || db.ResourcesRestoreTime == nil {
		message := fmt.Sprintf("the steps are over; returning the database to its load resources (%s) for the consistency check after the last step", report.RequirementsWords(back.Want))
		err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			if s.Database == nil {
				s.Database = &benchv1.DatabaseStatus{}
			}
			if s.Database.ResourcesRestoreTime == nil {
				s.Database.ResourcesRestoreTime = ptr(metav1.Now())
			}
			setCondition(s, run.Generation, benchv1.ConditionDatabaseReady, metav1.ConditionFalse, benchv1.ReasonRestoringLoadResources, message)
		})
		return false, "", ctrl.Result{Requeue: true}, err
	}
	progress, readiness, switched, err := r.switchState(ctx, run, backend, back)
	if err != nil {
		return false, "", ctrl.Result{}, err
	}
	if switched {
		message := fmt.Sprintf("every instance runs with the load resources (%s) again for the consistency check after the last step; %s", report.RequirementsWords(back.Want), readiness.Message)
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			s.Database.ResourcesRestoredTime = ptr(metav1.Now())
			setCondition(s, run.Generation, benchv1.ConditionDatabaseReady, metav1.ConditionTrue, benchv1.ReasonLoadResourcesRestored, message)
		}); err != nil {
			return false, "", ctrl.Result{}, err
		}
		if r.Recorder != nil {
			r.Recorder.Eventf(run, nil, corev1.EventTypeNormal, benchv1.ReasonLoadResourcesRestored, "RestoreLoadResources", "%s", message)
		}
		return true, "", ctrl.Result{}, nil
	}
	limit, words := plan.DataWait(run, r.Config.DatabaseReadyTimeout)
	if time.Since(db.ResourcesRestoreTime.Time) > limit {
		return false, fmt.Sprintf("the database did not run with its load resources (%s) again within %s of the last step: %s; %s",
			report.RequirementsWords(back.Want), words, progress.Message, readiness.Message), ctrl.Result{}, nil
	}
	message := fmt.Sprintf("the steps are over; returning the database to its load resources (%s) for the consistency check after the last step: %s; %s",
		report.RequirementsWords(back.Want), progress.Message, readiness.Message)
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionDatabaseReady); c == nil || c.Reason != benchv1.ReasonRestoringLoadResources || c.Message != message {
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			setCondition(s, run.Generation, benchv1.ConditionDatabaseReady, metav1.ConditionFalse, benchv1.ReasonRestoringLoadResources, message)
		}); err != nil {
			return false, "", ctrl.Result{}, err
		}
	}
	return false, "", ctrl.Result{RequeueAfter: r.Config.PollInterval}, nil
}
