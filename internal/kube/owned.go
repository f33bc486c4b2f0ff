// Package kube writes objects the operator's way, for every kind it reconciles: only objects the
// writer owns are changed (owned.go), ConfigMaps are server-side applied (configmaps.go), and status
// is written in one place with an optimistic lock (status.go).
package kube

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// FieldOwner is the operator's server-side apply field manager.
const FieldOwner = "tpcc-operator"

// OwnerUIDAnnotation carries, on every object a run or suite writes, the UID of that run or
// suite. With the controller reference it is how the operator knows an object is its own: a
// database the run retains has no owner reference (it must outlive the run), only this.
const OwnerUIDAnnotation = "bench.oltp.io/owner-uid"

// The operator writes objects in two ways, both here: vendor database objects are server-side
// applied on every pass (so drift is repaired and the pass is idempotent), Jobs are created once
// (their pod template is immutable, and a Job must never be duplicated or restarted by a re-apply).
//
// Never touch what the run did not create: before an object is written, an object of that name
// that already exists must be the writer's own — controlled by it (owner reference with its UID)
// or annotated with its UID. Otherwise the write is refused with a ConflictError, and the run
// fails naming the object, having changed nothing of it. Deletions check the same, and carry
// the object's UID as a precondition.

// ConflictError says an object the operator would write exists and belongs to someone else.
type ConflictError struct {
	// Reason is the condition reason the run fails with: DatabaseConflict or ObjectConflict.
	Reason     string
	Kind, Name string
	// Why says whose the object is, as far as its metadata tells.
	Why string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s %s already exists and is not this run's (%s): nothing of it was changed; delete or rename it, or give the run another name",
		e.Kind, e.Name, e.Why)
}

// OwnedBy reports whether obj was written for owner: controlled by it, or annotated with its UID.
func OwnedBy(obj, owner metav1.Object) bool {
	if ref := metav1.GetControllerOf(obj); ref != nil && ref.UID == owner.GetUID() {
		return true
	}
	return obj.GetAnnotations()[OwnerUIDAnnotation] == string(owner.GetUID())
}

// Whose describes an object's owner for a ConflictError.
func Whose(obj metav1.Object) string {
	if ref := metav1.GetControllerOf(obj); ref != nil {
		return fmt.Sprintf("controlled by %s %s, uid %s", ref.Kind, ref.Name, ref.UID)
	}
	if uid := obj.GetAnnotations()[OwnerUIDAnnotation]; uid != "" {
		return "written for another run or suite, uid " + uid
	}
	return "not created by tpcc-operator for it"
}

// CheckOwned reads the object named like obj (same kind) and returns a ConflictError when it
// exists and is not owner's; nil when it is absent or owner's. Errors reading it are returned.
func CheckOwned(ctx context.Context, reader client.Reader, scheme *runtime.Scheme, owner, obj client.Object, reason string) error {
	gvk, err := apiutil.GVKForObject(obj, scheme)
	if err != nil {
		return err
	}
	current := &unstructured.Unstructured{}
	current.SetGroupVersionKind(gvk)
	err = reader.Get(ctx, client.ObjectKey{Namespace: owner.GetNamespace(), Name: obj.GetName()}, current)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	case !OwnedBy(current, owner):
		return &ConflictError{Reason: reason, Kind: gvk.Kind, Name: obj.GetName(), Why: Whose(current)}
	}
	return nil
}

// MarkOwner annotates obj with owner's UID.
func MarkOwner(obj, owner metav1.Object) {
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[OwnerUIDAnnotation] = string(owner.GetUID())
	obj.SetAnnotations(annotations)
}

// CreateOwned creates an object controlled by owner, once: an object of that name that already
// exists is left as it is, so a pass repeated after a restart never duplicates it — provided it
// is owner's; another's is a ConflictError and is not touched.
func CreateOwned(ctx context.Context, c client.Client, reader client.Reader, scheme *runtime.Scheme, owner, obj client.Object) error {
	if err := controllerutil.SetControllerReference(owner, obj, scheme); err != nil {
		return err
	}
	MarkOwner(obj, owner)
	err := c.Create(ctx, obj)
	if apierrors.IsAlreadyExists(err) {
		return CheckOwned(ctx, reader, scheme, owner, obj, benchv1.ReasonObjectConflict)
	}
	if err != nil {
		return fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
	}
	return nil
}

// DeleteOwned deletes an object only when it is owner's, with its UID as a precondition (an
// object re-created under the name meanwhile is not touched); absent is fine. It reports
// whether a delete was issued.
func DeleteOwned(ctx context.Context, c client.Client, owner, obj client.Object, opts ...client.DeleteOption) (bool, error) {
	if !OwnedBy(obj, owner) {
		return false, nil
	}
	uid := obj.GetUID()
	err := c.Delete(ctx, obj, append(opts, client.Preconditions{UID: &uid})...)
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return false, nil
	}
	return err == nil, err
}

// AsConflict returns the ConflictError inside err, nil when there is none.
func AsConflict(err error) *ConflictError {
	var c *ConflictError
	if errors.As(err, &c) {
		return c
	}
	return nil
}
