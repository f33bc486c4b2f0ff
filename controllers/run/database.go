package run

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
)

// The vendor objects each engine writes are granted in its folder (internal/engines/<engine>); the
// external database's Secret here.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// engines is the registry runs find their engine in: Config.Engines, or the builtin engines.
func (r *Reconciler) engines() *registry.Registry {
	if r.Config.Engines != nil {
		return r.Config.Engines
	}
	return registry.Default()
}

// engine is the run's engine (engines.Unknown when no registry lists it).
func (r *Reconciler) engine(run *benchv1.BenchmarkRun) engines.Engine {
	return r.engines().Engine(run.Spec.Database)
}

// backend is the run's database backend, with the manager's operand image when the run names none.
func (r *Reconciler) backend(run *benchv1.BenchmarkRun) engines.Backend {
	return r.engines().Backend(run, r.Config.Images)
}

// connection is how the run's pods reach its database, with what the client needs from the engine.
func (r *Reconciler) connection(run *benchv1.BenchmarkRun) engines.Connection {
	return r.engines().Connection(run, r.backend(run))
}

// loadCPU is the database's CPU the run's load writes through, as its engine describes it: what
// the loader pods are sized from when the run does not set them.
func (r *Reconciler) loadCPU(run *benchv1.BenchmarkRun) int64 {
	return engines.LoadCPU(r.engine(run), run.Spec.Database)
}

// reconcileDatabase applies the vendor objects and waits until the database accepts clients. Once it
// has been ready, later passes only keep the objects applied: a database that falters mid-run shows
// in the steps it spoils.
func (r *Reconciler) reconcileDatabase(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	backend := r.backend(run)
	desired, err := backend.Desired(run)
	if err != nil {
		return false, ctrl.Result{}, r.fail(ctx, run, "InvalidDatabase", err.Error())
	}
	for _, obj := range desired {
		if err := r.applyDatabaseObject(ctx, run, obj); err != nil {
			if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
				return false, ctrl.Result{}, r.fail(ctx, run, "DatabaseOperatorMissing",
					fmt.Sprintf("%s %s cannot be created: is its operator (and CRD) installed? %v", obj.GetKind(), obj.GetName(), err))
			}
			return false, ctrl.Result{}, err
		}
	}
	if run.Status.Database != nil && run.Status.Database.ReadyTime != nil {
		return true, ctrl.Result{}, nil
	}

	observed, err := r.observe(ctx, run, backend.Observed(run))
	if err != nil {
		return false, ctrl.Result{}, err
	}
	readiness := backend.Readiness(run, observed)
	conn := r.connection(run)
	description := r.engines().Describe(run.Spec.Database)
	databaseStatus := &benchv1.DatabaseStatus{Endpoint: conn.Endpoint, Sizing: backend.Sizing(run), Description: &description}
	if run.Spec.Database.External != nil {
		databaseStatus.Name = run.Spec.Database.External.SecretRef.Name
	} else if len(desired) > 0 {
		last := desired[len(desired)-1]
		databaseStatus.Kind, databaseStatus.Name = last.GetKind(), last.GetName()
	}
	now := metav1.Now()
	if readiness.Ready {
		databaseStatus.ReadyTime = &now
	}
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		s.Database = databaseStatus
		value := metav1.ConditionFalse
		if readiness.Ready {
			value = metav1.ConditionTrue
		} else {
			s.Phase = benchv1.PhaseDeploying
		}
		setCondition(s, run.Generation, benchv1.ConditionDatabaseReady, value, readiness.Reason, readiness.Message)
	}); err != nil {
		return false, ctrl.Result{}, err
	}
	if readiness.Ready {
		return true, ctrl.Result{}, nil
	}

	// The wait began when DatabaseReady first became False, which its transition time records.
	waiting := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionDatabaseReady)
	if waiting != nil && time.Since(waiting.LastTransitionTime.Time) > r.Config.DatabaseReadyTimeout {
		return false, ctrl.Result{}, r.fail(ctx, run, "DatabaseNotReady",
			fmt.Sprintf("the database was not ready within %s: %s", r.Config.DatabaseReadyTimeout, readiness.Message))
	}
	return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, nil
}

// observe reads the objects readiness depends on, directly from the API server; missing ones are
// left out.
func (r *Reconciler) observe(ctx context.Context, run *benchv1.BenchmarkRun, refs []engines.Ref) (map[engines.Ref]*unstructured.Unstructured, error) {
	observed := map[engines.Ref]*unstructured.Unstructured{}
	for _, ref := range refs {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(ref.GVK)
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: ref.Name}, u)
		switch {
		case err == nil:
			observed[ref] = u
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		default:
			return nil, fmt.Errorf("reading %s %s: %w", ref.GVK.Kind, ref.Name, err)
		}
	}
	return observed, nil
}

// teardown deletes the database of a finished run whose policy is Delete. Deleting the run deletes
// it too, through owner references.
func (r *Reconciler) teardown(ctx context.Context, run *benchv1.BenchmarkRun) error {
	if run.Spec.Database.Teardown == benchv1.TeardownRetain || run.Spec.Database.External != nil {
		return nil
	}
	observed, err := r.observe(ctx, run, r.backend(run).Observed(run))
	if err != nil {
		return err
	}
	for ref, u := range observed {
		if ref.GVK.Kind == "StatefulSet" {
			continue // the vendor operator's own
		}
		// Only the run's own object, by UID: an object of that name someone else made (the run
		// then failed with DatabaseConflict) or made since is left alone.
		if _, err := kube.DeleteOwned(ctx, r.Client, run, u, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
			return fmt.Errorf("tearing down %s %s: %w", ref.GVK.Kind, ref.Name, err)
		}
	}
	return nil
}

// replication is how many standbys the run's database is configured with and whether commits
// wait for synchronous ones, as its engine's backend says (engines.Replication).
func (r *Reconciler) replication(run *benchv1.BenchmarkRun) measure.Replication {
	rep, ok := r.backend(run).(engines.Replication)
	if !ok {
		return measure.Replication{}
	}
	standbys, synchronous := rep.Standbys(run)
	return measure.Replication{Known: true, Standbys: standbys, Synchronous: synchronous}
}
