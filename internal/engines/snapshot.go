package engines

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Snapshotter is a Backend whose database operator can keep a run's freshly loaded data as
// VolumeSnapshots (spec.database.snapshot) and deploy a later run's database from them
// (spec.database.restore): Desired then configures the one and bootstraps the other, and the
// controller asks for the snapshot with SnapshotRequest and follows it with SnapshotProgress.
type Snapshotter interface {
	// SnapshotRequest is the database operator's object that takes a cold snapshot of the run's
	// loaded database (CloudNativePG: a Backup with method volumeSnapshot), named and
	// namespaced, without owner references.
	SnapshotRequest(run *benchv1.BenchmarkRun) (*unstructured.Unstructured, error)
	// SnapshotProgress reads that object as its operator reports it.
	SnapshotProgress(obj *unstructured.Unstructured) SnapshotProgress
	// RestoredSnapshots names the VolumeSnapshots a run restoring from run `from` is deployed
	// from (spec.database.restore), the data volume's first.
	RestoredSnapshots(from string) []string
}

// SnapshotProgress is how far a snapshot request has come.
type SnapshotProgress struct {
	// Done: every volume snapshot is taken and the instance it was taken on is back.
	Done bool
	// Failed says why the database operator gave up ("" while it has not).
	Failed string
	// Phase is the operator's own word for where it is, for messages.
	Phase string
	// Instance is the database pod the snapshot is taken on, once chosen.
	Instance string
	// VolumeSnapshots are the snapshots taken, the data volume's first.
	VolumeSnapshots []string
}

// VolumeSnapshotGVK is the Kubernetes VolumeSnapshot (the external-snapshotter's CRD).
var VolumeSnapshotGVK = schema.GroupVersionKind{Group: "snapshot.storage.k8s.io", Version: "v1", Kind: "VolumeSnapshot"}

// SnapshotName is the name of the snapshot request a run makes of its loaded data (and, for
// CloudNativePG, of the data volume's VolumeSnapshot): <run>-snapshot.
func SnapshotName(run string) string { return run + "-snapshot" }

// VolumeSnapshotState is what a VolumeSnapshot's status says: ready to use, its restore size in
// bytes, and its error's message.
func VolumeSnapshotState(u *unstructured.Unstructured) (ready bool, restoreBytes int64, failed string) {
	ready, _, _ = unstructured.NestedBool(u.Object, "status", "readyToUse")
	failed, _, _ = unstructured.NestedString(u.Object, "status", "error", "message")
	if size, found, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "restoreSize"); found {
		switch v := size.(type) {
		case string:
			if q, err := resource.ParseQuantity(v); err == nil {
				restoreBytes = q.Value()
			}
		case int64:
			restoreBytes = v
		case float64:
			restoreBytes = int64(v)
		}
	}
	return ready, restoreBytes, failed
}
