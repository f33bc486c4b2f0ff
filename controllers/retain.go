package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// Reports that outlive their run or suite (spec.retainReports, docs/results.md): the report
// ConfigMap is then annotated with the run's UID (bench.oltp.io/owner-uid) but carries no owner
// reference, so deleting the run leaves it. The annotation keeps the ownership rules: the
// operator still knows it as that run's, and a new run of the same name finds it someone else's
// (ObjectConflict) rather than writing over it.

// applyReport writes the run's report ConfigMap, retained or owned as spec.retainReports says.
func (r *BenchmarkRunReconciler) applyReport(ctx context.Context, run *benchv1.BenchmarkRun, data map[string]string, binary map[string][]byte) error {
	return applyConfigMapFor(ctx, r.Client, r.APIReader, r.Scheme, run, ReportConfigMapName(run), engines.Labels(run), data, binary, run.Spec.RetainReports)
}

// retainReport brings a finished run's report ConfigMap in line with spec.retainReports, which
// may change after the run ended.
func (r *BenchmarkRunReconciler) retainReport(ctx context.Context, run *benchv1.BenchmarkRun) error {
	return setRetained(ctx, r.Client, r.APIReader, r.Scheme, run, ReportConfigMapName(run), run.Spec.RetainReports)
}

// setRetained gives owner's ConfigMap name an owner reference (retain false) or takes it away
// (retain true). A ConfigMap that is absent or not owner's is left alone.
func setRetained(ctx context.Context, c client.Client, reader client.Reader, scheme *runtime.Scheme, owner client.Object, name string, retain bool) error {
	cm := &corev1.ConfigMap{}
	err := reader.Get(ctx, client.ObjectKey{Namespace: owner.GetNamespace(), Name: name}, cm)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || !ownedBy(cm, owner) {
		return err
	}
	controlled := false
	if ref := metav1.GetControllerOf(cm); ref != nil && ref.UID == owner.GetUID() {
		controlled = true
	}
	if controlled != retain {
		return nil
	}
	before := cm.DeepCopy()
	if retain {
		var refs []metav1.OwnerReference
		for _, ref := range cm.OwnerReferences {
			if ref.UID != owner.GetUID() {
				refs = append(refs, ref)
			}
		}
		cm.OwnerReferences = refs
	} else if err := controllerutil.SetControllerReference(owner, cm, scheme); err != nil {
		return err
	}
	markOwner(cm, owner)
	if err := c.Patch(ctx, cm, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("retaining ConfigMap %s: %w", name, err)
	}
	return nil
}
