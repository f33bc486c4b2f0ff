package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// ConfigMapBudget is what a report or comparison ConfigMap may hold, below the API server's 1 MiB
// object limit with room for its metadata.
const ConfigMapBudget = 1000 << 10

// Reports that outlive their run or suite (spec.retainReports, docs/results.md): the report
// ConfigMap is then annotated with the owner's UID (bench.oltp.io/owner-uid) but carries no owner
// reference, so deleting the owner leaves it. The annotation keeps the ownership rules: the
// operator still knows it as that owner's, and a new run of the same name finds it someone else's
// (ObjectConflict) rather than writing over it.

// ApplyOwnedConfigMap server-side applies a ConfigMap controlled by owner; a ConfigMap of that
// name that is not owner's is refused (ConflictError) and left as it is.
func ApplyOwnedConfigMap(ctx context.Context, c client.Client, reader client.Reader, scheme *runtime.Scheme, owner client.Object, name string, labels, data map[string]string, binaryData map[string][]byte) error {
	return ApplyConfigMap(ctx, c, reader, scheme, owner, name, labels, data, binaryData, false)
}

// ApplyConfigMap is ApplyOwnedConfigMap; with retain, the ConfigMap is only annotated with
// owner's UID, not controlled by it, so it outlives owner (spec.retainReports).
func ApplyConfigMap(ctx context.Context, c client.Client, reader client.Reader, scheme *runtime.Scheme, owner client.Object, name string, labels, data map[string]string, binaryData map[string][]byte, retain bool) error {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: owner.GetNamespace(), Labels: labels},
		Data:       data,
		BinaryData: binaryData,
	}
	if !retain {
		if err := controllerutil.SetControllerReference(owner, cm, scheme); err != nil {
			return err
		}
	}
	MarkOwner(cm, owner)
	if err := CheckOwned(ctx, reader, scheme, owner, cm, benchv1.ReasonObjectConflict); err != nil {
		return err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: content}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying ConfigMap %s: %w", name, err)
	}
	return nil
}

// SetRetained gives owner's ConfigMap name an owner reference (retain false) or takes it away
// (retain true). A ConfigMap that is absent or not owner's is left alone.
func SetRetained(ctx context.Context, c client.Client, reader client.Reader, scheme *runtime.Scheme, owner client.Object, name string, retain bool) error {
	cm := &corev1.ConfigMap{}
	err := reader.Get(ctx, client.ObjectKey{Namespace: owner.GetNamespace(), Name: name}, cm)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || !OwnedBy(cm, owner) {
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
	MarkOwner(cm, owner)
	if err := c.Patch(ctx, cm, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("retaining ConfigMap %s: %w", name, err)
	}
	return nil
}
