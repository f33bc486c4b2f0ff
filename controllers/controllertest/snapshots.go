package controllertest

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// GetUnstructured reads an object of a kind, waiting for it to exist.
func GetUnstructured(t *testing.T, apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	Eventually(t, 30*time.Second, func() error {
		return K8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, u)
	})
	return u
}

// SetBackupStatus plays CloudNativePG reporting a Backup: its phase, the instance it runs on, the
// volume snapshots it took, its error.
func SetBackupStatus(t *testing.T, namespace, name string, status map[string]any) {
	t.Helper()
	Eventually(t, 20*time.Second, func() error {
		u := GetUnstructured(t, "postgresql.cnpg.io/v1", "Backup", namespace, name)
		u.Object["status"] = status
		return K8s.Status().Update(context.Background(), u)
	})
}

// VolumeSnapshot plays CloudNativePG creating a VolumeSnapshot of a PVC and the snapshot
// controller reporting it.
func VolumeSnapshot(t *testing.T, namespace, name, pvc string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshot",
		"metadata": map[string]any{"namespace": namespace, "name": name, "labels": map[string]any{"cnpg.io/backupName": name}},
		"spec":     map[string]any{"source": map[string]any{"persistentVolumeClaimName": pvc}, "volumeSnapshotClassName": "csi-snap"},
	}}
	if err := K8s.Create(context.Background(), u); err != nil {
		t.Fatal(err)
	}
}

// SetVolumeSnapshotStatus plays the snapshot controller reporting a VolumeSnapshot.
func SetVolumeSnapshotStatus(t *testing.T, namespace, name string, status map[string]any) {
	t.Helper()
	Eventually(t, 20*time.Second, func() error {
		u := GetUnstructured(t, "snapshot.storage.k8s.io/v1", "VolumeSnapshot", namespace, name)
		u.Object["status"] = status
		return K8s.Status().Update(context.Background(), u)
	})
}
