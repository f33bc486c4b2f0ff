// Package controllers holds the BenchmarkRun reconciler, one file per concern.
package controllers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// BenchmarkRunReconciler drives a BenchmarkRun through its phases.
type BenchmarkRunReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=bench.oltp.io,resources=benchmarkruns,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=bench.oltp.io,resources=benchmarkruns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile moves one run forward. Every decision is taken from the run's status and the objects it
// owns, so a restarted operator resumes where the last one stopped.
func (r *BenchmarkRunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	run := &benchv1.BenchmarkRun{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	log.FromContext(ctx).V(1).Info("reconciling", "phase", run.Status.Phase)

	// The lifecycle beyond admission (deploy, load, steps, search) is not implemented yet: the run
	// is accepted and waits.
	return ctrl.Result{}, r.updateStatus(ctx, run, func(status *benchv1.BenchmarkRunStatus) {
		if status.Phase == "" {
			status.Phase = benchv1.PhasePending
		}
		setCondition(status, run.Generation, benchv1.ConditionComplete, metav1.ConditionFalse,
			"Waiting", "The run is accepted and waits for the operator to start it")
	})
}

// SetupWithManager registers the reconciler.
func (r *BenchmarkRunReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.BenchmarkRun{}).
		Named("benchmarkrun").
		Complete(r)
}
