package controllers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// FieldOwner is the operator's server-side apply field manager.
const FieldOwner = "tpcc-operator"

// The operator writes objects in two ways, both here: vendor database objects are server-side
// applied on every pass (so drift is repaired and the pass is idempotent), Jobs are created once
// (their pod template is immutable, and a Job must never be duplicated or restarted by a re-apply).

// applyDatabaseObject server-side applies a vendor object, owned by the run unless the run retains
// its database.
func (r *BenchmarkRunReconciler) applyDatabaseObject(ctx context.Context, run *benchv1.BenchmarkRun, obj *unstructured.Unstructured) error {
	if run.Spec.Database.Teardown != benchv1.TeardownRetain {
		if err := controllerutil.SetControllerReference(run, obj, r.Scheme); err != nil {
			return err
		}
	}
	if err := r.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj.DeepCopy()), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

// createOnce creates an object owned by the run; an object of that name that already exists is
// left as it is.
func (r *BenchmarkRunReconciler) createOnce(ctx context.Context, run *benchv1.BenchmarkRun, obj client.Object) error {
	return createOwned(ctx, r.Client, r.Scheme, run, obj)
}

// createOwned creates an object controlled by owner, once: an object of that name that already
// exists is left as it is, so a pass repeated after a restart never duplicates it.
func createOwned(ctx context.Context, c client.Client, scheme *runtime.Scheme, owner, obj client.Object) error {
	if err := controllerutil.SetControllerReference(owner, obj, scheme); err != nil {
		return err
	}
	if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
	}
	return nil
}
