package run

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
)

// applyDatabaseObject server-side applies a vendor object, owned by the run unless the run retains
// its database; an object of that name that is not the run's is refused (DatabaseConflict).
func (r *Reconciler) applyDatabaseObject(ctx context.Context, run *benchv1.BenchmarkRun, obj *unstructured.Unstructured) error {
	obj = obj.DeepCopy()
	kube.MarkOwner(obj, run)
	annotations := obj.GetAnnotations()
	for k, v := range databaseAnnotations(run) { // who made it and what it holds, for a later reuse
		annotations[k] = v
	}
	obj.SetAnnotations(annotations)
	if run.Spec.Database.Teardown != benchv1.TeardownRetain {
		if err := controllerutil.SetControllerReference(run, obj, r.Scheme); err != nil {
			return err
		}
	} else if suite := metav1.GetControllerOf(run); suite != nil {
		// Kept for a suite's next repeat: it outlives the run, but not the suite.
		ref := *suite
		ref.BlockOwnerDeletion = nil
		obj.SetOwnerReferences([]metav1.OwnerReference{ref})
	}
	if run.Spec.Database.Reuse == nil { // a reused database was checked by checkReuse, and is taken over
		if err := kube.CheckOwned(ctx, r.APIReader, r.Scheme, run, obj, benchv1.ReasonDatabaseConflict); err != nil {
			return err
		}
	} else if err := r.checkReusable(ctx, run, obj); err != nil {
		return err
	}
	if err := r.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(kube.FieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

// createOnce creates an object owned by the run; an object of that name that already exists is
// left as it is when it is the run's, and refused (ObjectConflict) when it is not.
func (r *Reconciler) createOnce(ctx context.Context, run *benchv1.BenchmarkRun, obj client.Object) error {
	return kube.CreateOwned(ctx, r.Client, r.APIReader, r.Scheme, run, obj)
}

// adoptVolumeSnapshot makes a VolumeSnapshot the database operator took for the run the run's own:
// an owner reference to the run (deleting the run deletes it; not its controller, which the
// database operator may be) and the annotations saying what it holds.
func (r *Reconciler) adoptVolumeSnapshot(ctx context.Context, run *benchv1.BenchmarkRun, name string, annotations map[string]string) error {
	vs := &unstructured.Unstructured{}
	vs.SetGroupVersionKind(engines.VolumeSnapshotGVK)
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, vs); err != nil {
		return fmt.Errorf("reading VolumeSnapshot %s: %w", name, err)
	}
	before := vs.DeepCopy()
	merged := vs.GetAnnotations()
	if merged == nil {
		merged = map[string]string{}
	}
	for k, v := range annotations {
		merged[k] = v
	}
	vs.SetAnnotations(merged)
	refs := vs.GetOwnerReferences()
	owned := false
	for _, ref := range refs {
		owned = owned || ref.UID == run.UID
	}
	if !owned {
		refs = append(refs, metav1.OwnerReference{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkRun", Name: run.Name, UID: run.UID})
		vs.SetOwnerReferences(refs)
	}
	if err := r.Patch(ctx, vs, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("marking VolumeSnapshot %s as run %s's: %w", name, run.Name, err)
	}
	return nil
}
