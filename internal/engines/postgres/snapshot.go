package postgres

import (
	"fmt"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// Snapshots of the loaded data (docs/reuse.md) are CloudNativePG's volume-snapshot backups: the
// Cluster of a run with spec.database.snapshot carries backup.volumeSnapshot, and once the data is
// loaded the run asks for a Backup with method volumeSnapshot and online false — a cold backup:
// CloudNativePG fences the instance (a standby where there is one), PostgreSQL stops cleanly, the
// volumes are snapshotted, and the instance is unfenced. A cold snapshot needs no WAL archive to
// be restored. The VolumeSnapshots are named after the Backup (the data volume's: the Backup's
// name; a WAL volume's: <name>-wal). A run with spec.database.restore deploys its Cluster with
// bootstrap.recovery.volumeSnapshots naming them, and the same application database and owner
// (CloudNativePG then creates the -app Secret and sets the owner's password from it).

// BackupGVK is CloudNativePG's Backup.
var BackupGVK = cnpgv1.SchemeGroupVersion.WithKind("Backup")

// backupSnapshot is the Cluster's backup stanza for a run that snapshots its loaded data.
func backupSnapshot(spec *benchv1.SnapshotSpec) *cnpgv1.BackupConfiguration {
	if spec == nil {
		return nil
	}
	online := false
	return &cnpgv1.BackupConfiguration{
		VolumeSnapshot: &cnpgv1.VolumeSnapshotConfiguration{ClassName: spec.VolumeSnapshotClassName, Online: &online},
		// A standby's volumes, where there is one: the primary stays up while its standby is fenced.
		Target: cnpgv1.BackupTargetStandby,
	}
}

// restoreBootstrap is the bootstrap of a run restoring the snapshot another run took.
func restoreBootstrap(spec *benchv1.RestoreSpec) *cnpgv1.BootstrapConfiguration {
	group := engines.VolumeSnapshotGVK.Group
	return &cnpgv1.BootstrapConfiguration{Recovery: &cnpgv1.BootstrapRecovery{
		Database: Database, Owner: Owner,
		VolumeSnapshots: &cnpgv1.DataSource{Storage: corev1.TypedLocalObjectReference{
			APIGroup: &group, Kind: engines.VolumeSnapshotGVK.Kind, Name: Backend{}.RestoredSnapshots(spec.Run)[0],
		}},
	}}
}

// SnapshotRequest implements engines.Snapshotter: a cold volume-snapshot Backup of the run's
// Cluster, on a standby where there is one.
func (Backend) SnapshotRequest(run *benchv1.BenchmarkRun) (*unstructured.Unstructured, error) {
	if run.Spec.Database.Snapshot == nil {
		return nil, fmt.Errorf("spec.database.snapshot is not set")
	}
	online := false
	backup := &cnpgv1.Backup{
		TypeMeta:   metav1.TypeMeta{APIVersion: cnpgv1.SchemeGroupVersion.String(), Kind: "Backup"},
		ObjectMeta: metav1.ObjectMeta{Name: engines.SnapshotName(run.Name), Namespace: run.Namespace, Labels: engines.Labels(run)},
		Spec: cnpgv1.BackupSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: engines.DatabaseName(run)},
			Method:  cnpgv1.BackupMethodVolumeSnapshot,
			Online:  &online,
			Target:  cnpgv1.BackupTargetStandby,
		},
	}
	return toApplyObject(backup)
}

// SnapshotProgress implements engines.Snapshotter: the Backup's phase, error, the instance it
// runs on and the VolumeSnapshots it took.
func (Backend) SnapshotProgress(u *unstructured.Unstructured) engines.SnapshotProgress {
	backup := &cnpgv1.Backup{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, backup); err != nil {
		return engines.SnapshotProgress{Failed: fmt.Sprintf("Backup %s unreadable: %v", u.GetName(), err)}
	}
	s := backup.Status
	p := engines.SnapshotProgress{Phase: string(s.Phase)}
	if p.Phase == "" {
		p.Phase = "not started by CloudNativePG yet"
	}
	if s.InstanceID != nil {
		p.Instance = s.InstanceID.PodName
	}
	for _, role := range []string{"PG_DATA", "PG_WAL"} {
		for _, e := range s.BackupSnapshotStatus.Elements {
			if e.Type == role {
				p.VolumeSnapshots = append(p.VolumeSnapshots, e.Name)
			}
		}
	}
	switch s.Phase {
	case cnpgv1.BackupPhaseCompleted:
		p.Done = len(p.VolumeSnapshots) > 0
		if !p.Done {
			p.Failed = fmt.Sprintf("Backup %s completed without a volume snapshot of the data volume", backup.Name)
		}
	case cnpgv1.BackupPhaseFailed:
		p.Failed = s.Error
		if p.Failed == "" {
			p.Failed = "CloudNativePG reported the Backup failed without an error"
		}
	}
	return p
}

// RestoredSnapshots implements engines.Snapshotter: the data volume's VolumeSnapshot bears the
// Backup's name; the Clusters this operator deploys have no separate WAL volume.
func (Backend) RestoredSnapshots(from string) []string {
	return []string{engines.SnapshotName(from)}
}
