package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// SnapshotSpec asks the run to keep its freshly loaded data as VolumeSnapshots: once the load
// and its consistency check are done, and before the first step, the operator takes a cold
// volume-snapshot backup of the database through its operator (CloudNativePG: a Backup with
// method volumeSnapshot and online false, on a standby where there is one). Later runs start
// from it with spec.database.restore, each on the same initial data (docs/reuse.md).
//
// The database's storage class must be a CSI driver's that supports snapshots, and the cluster
// must serve snapshot.storage.k8s.io/v1 (the external-snapshotter's CRDs and controller) when
// the database operator starts. The snapshots belong to the run: deleting the run deletes them.
type SnapshotSpec struct {
	// VolumeSnapshotClassName is the VolumeSnapshotClass to snapshot the volumes with; empty: the
	// cluster's default class for the volumes' CSI driver.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	VolumeSnapshotClassName string `json:"volumeSnapshotClassName,omitempty"`
}

// RestoreSpec starts the run from the VolumeSnapshots an earlier run took of its freshly loaded
// data (spec.database.snapshot): the run deploys a database of its own bootstrapped from them
// (CloudNativePG: bootstrap.recovery.volumeSnapshots), loads nothing, and checks the restored
// data instead — the TPC-C consistency conditions and the dataset's identity, with no growth.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="restore is immutable once the run is created"
type RestoreSpec struct {
	// Run is the name of the earlier BenchmarkRun, in this namespace, whose snapshot this run
	// restores. While that run has not taken it yet the run waits (DatabaseReady False, reason
	// WaitingForSnapshot); its database's engine and deployment block must equal this run's, and
	// the data it snapshotted — engine, schema version, loaded warehouses — must be what this
	// run's workload asks for, or the run fails (RestoreMismatch) naming both, having deployed
	// nothing.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Run string `json:"run"`
}

// DataSnapshotStatus is the snapshot of a run's initial data: the one the run took
// (spec.database.snapshot) or the one it was restored from (spec.database.restore).
type DataSnapshotStatus struct {
	// Run is the run that took the snapshot.
	Run string `json:"run"`
	// Backup names the database operator's backup object that took it (CloudNativePG Backup).
	// +optional
	Backup string `json:"backup,omitempty"`
	// VolumeSnapshots are the snapshots of the database's volumes, one per volume of the instance
	// it was taken on (the data volume, and the WAL volume where there is one).
	// +listType=atomic
	// +optional
	VolumeSnapshots []string `json:"volumeSnapshots,omitempty"`
	// VolumeSnapshotClassName is the class it was taken with ("" for the cluster's default).
	// +optional
	VolumeSnapshotClassName string `json:"volumeSnapshotClassName,omitempty"`
	// Instance is the database pod it was taken on (fenced while it was taken).
	// +optional
	Instance string `json:"instance,omitempty"`
	// StartTime is when the snapshot was asked for, ReadyTime when every volume snapshot was
	// ready to use.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// +optional
	ReadyTime *metav1.Time `json:"readyTime,omitempty"`
	// RestoreBytes is the size a volume restored from the snapshots needs, summed over them, as
	// the snapshot controller reports it.
	// +optional
	RestoreBytes int64 `json:"restoreBytes,omitempty"`
}

// Reasons a run fails with when it snapshots or restores its data.
const (
	// ReasonSnapshotFailed: the database operator could not take the snapshot of the loaded
	// data (its Backup failed, or did not complete in time); the run published nothing.
	ReasonSnapshotFailed = "SnapshotFailed"
	// ReasonRestoreMismatch: the snapshot spec.database.restore names holds other data (engine,
	// schema version, warehouses) or was taken of a database deployed otherwise than this run
	// asks for; nothing was deployed.
	ReasonRestoreMismatch = "RestoreMismatch"
	// ReasonRestoreUnavailable: the run spec.database.restore names took no snapshot (it does not
	// exist, asked for none, or ended without one), or its volume snapshots are gone or failed.
	ReasonRestoreUnavailable = "RestoreUnavailable"
)

// SnapshotReady says whether the run's snapshot of its loaded data is taken (spec.database.snapshot):
// a later run can restore from it.
func (s *BenchmarkRunStatus) SnapshotReady() bool {
	l := s.Load
	return l != nil && l.Snapshot != nil && l.Snapshot.ReadyTime != nil
}
