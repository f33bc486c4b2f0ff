package run

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/controllers/run/plan"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

// reconcileResourceSwitch runs after the load of a run whose database was deployed and loaded
// under other resources than it is measured with (postgres.loadResources): reconcileDatabase
// already applies the measured resources once the load has completed, and the database's operator
// rolls its pods onto them; no step starts until every database pod runs with them and the
// database is ready again. The wait is bounded by the database's ready timeout.
func (r *Reconciler) reconcileResourceSwitch(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	backend := r.backend(run)
	switcher, ok := backend.(engines.ResourceSwitcher)
	if !ok {
		return true, ctrl.Result{}, nil
	}
	sw, switches := switcher.ResourceSwitch(run)
	if !switches || engines.Loading(run) || (run.Status.Database != nil && run.Status.Database.ResourcesSwitchTime != nil) {
		return true, ctrl.Result{}, nil
	}
	progress, readiness, switched, err := r.switchState(ctx, run, backend, sw)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if switched {
		message := fmt.Sprintf("every instance runs with the measured resources (%s) after the load under loadResources; %s", report.RequirementsWords(sw.Want), readiness.Message)
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			if s.Database == nil {
				s.Database = &benchv1.DatabaseStatus{}
			}
			s.Database.ResourcesSwitchTime = ptr(metav1.Now())
			setCondition(s, run.Generation, benchv1.ConditionDatabaseReady, metav1.ConditionTrue, benchv1.ReasonResourcesSwitched, message)
		}); err != nil {
			return false, ctrl.Result{}, err
		}
		if r.Recorder != nil {
			r.Recorder.Eventf(run, nil, corev1.EventTypeNormal, benchv1.ReasonResourcesSwitched, "SwitchResources", "%s", message)
		}
		return true, ctrl.Result{}, nil
	}
	// The wait began when the load completed.
	limit, words := plan.DataWait(run, r.Config.DatabaseReadyTimeout)
	if since := run.Status.Load.CompletionTime; since != nil && time.Since(since.Time) > limit {
		return false, ctrl.Result{}, r.fail(ctx, run, "DatabaseNotReady", fmt.Sprintf(
			"the database did not run with its measured resources within %s of the load's end: %s; %s", words, progress.Message, readiness.Message))
	}
	message := fmt.Sprintf("switching from loadResources to the measured resources (%s): %s; %s", report.RequirementsWords(sw.Want), progress.Message, readiness.Message)
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionDatabaseReady); c == nil || c.Reason != benchv1.ReasonSwitchingResources || c.Message != message {
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			setCondition(s, run.Generation, benchv1.ConditionDatabaseReady, metav1.ConditionFalse, benchv1.ReasonSwitchingResources, message)
		}); err != nil {
			return false, ctrl.Result{}, err
		}
	}
	return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, nil
}

// switchState reads how far the database's pods are from sw and whether the database is ready:
// switched when every one of its sw.Pods pods runs with sw.Want, ready, and the database too.
func (r *Reconciler) switchState(ctx context.Context, run *benchv1.BenchmarkRun, backend engines.Backend, sw engines.ResourceSwitch) (engines.SwitchProgress, engines.Readiness, bool, error) {
	pods := &corev1.PodList{}
	if err := r.APIReader.List(ctx, pods, client.InNamespace(run.Namespace), client.MatchingLabels(backend.DatabasePods(run))); err != nil {
		return engines.SwitchProgress{}, engines.Readiness{}, false, fmt.Errorf("listing the database's pods: %w", err)
	}
	progress := sw.Progress(pods.Items)
	observed, err := r.observe(ctx, run, backend.Observed(run))
	if err != nil {
		return progress, engines.Readiness{}, false, err
	}
	readiness := backend.Readiness(run, observed)
	return progress, readiness, progress.Done(sw) && len(pods.Items) == sw.Pods && readiness.Ready, nil
}
