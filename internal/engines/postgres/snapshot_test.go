package postgres

import (
	"testing"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// A snapshotting run's Cluster is configured for cold volume snapshots on a standby; a restoring
// run's is bootstrapped from the snapshot the other run's Backup took, with the same application
// database and owner, and no initdb.
func TestClusterSnapshotAndRestore(t *testing.T) {
	snap := run(nil)
	snap.Spec.Database.Snapshot = &benchv1.SnapshotSpec{VolumeSnapshotClassName: "csi-snap"}
	c := Backend{}.Cluster(snap)
	b := c.Spec.Backup
	if b == nil || b.VolumeSnapshot == nil || b.VolumeSnapshot.ClassName != "csi-snap" || b.VolumeSnapshot.Online == nil || *b.VolumeSnapshot.Online ||
		b.Target != cnpgv1.BackupTargetStandby || b.BarmanObjectStore != nil {
		t.Errorf("backup stanza %+v", b)
	}
	if c.Spec.Bootstrap.InitDB == nil || c.Spec.Bootstrap.Recovery != nil {
		t.Errorf("the snapshotting run bootstraps %+v: want initdb", c.Spec.Bootstrap)
	}
	if c := (Backend{}).Cluster(run(nil)); c.Spec.Backup != nil {
		t.Errorf("a run without snapshot has a backup stanza %+v", c.Spec.Backup)
	}

	restore := run(nil)
	restore.Name = "pg2"
	restore.Spec.Database.Restore = &benchv1.RestoreSpec{Run: "pg"}
	c = Backend{}.Cluster(restore)
	r := c.Spec.Bootstrap.Recovery
	if c.Spec.Bootstrap.InitDB != nil || r == nil || r.Database != Database || r.Owner != Owner || r.VolumeSnapshots == nil ||
		r.VolumeSnapshots.Storage.Name != "pg-snapshot" || r.VolumeSnapshots.Storage.Kind != "VolumeSnapshot" ||
		r.VolumeSnapshots.Storage.APIGroup == nil || *r.VolumeSnapshots.Storage.APIGroup != "snapshot.storage.k8s.io" || r.VolumeSnapshots.WalStorage != nil {
		t.Errorf("restore bootstrap %+v", c.Spec.Bootstrap)
	}
	if c.Name != "pg2-db" || c.Spec.Backup != nil {
		t.Errorf("the restoring run's Cluster %s backup %+v", c.Name, c.Spec.Backup)
	}
}

func TestSnapshotRequest(t *testing.T) {
	if _, err := (Backend{}).SnapshotRequest(run(nil)); err == nil {
		t.Error("a request for a run without spec.database.snapshot")
	}
	snap := run(nil)
	snap.Spec.Database.Snapshot = &benchv1.SnapshotSpec{}
	u, err := Backend{}.SnapshotRequest(snap)
	if err != nil {
		t.Fatal(err)
	}
	backup := &cnpgv1.Backup{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, backup); err != nil {
		t.Fatal(err)
	}
	if backup.Name != "pg-snapshot" || backup.Namespace != "bench" || backup.Spec.Cluster.Name != "pg-db" || backup.Spec.Method != cnpgv1.BackupMethodVolumeSnapshot ||
		backup.Spec.Online == nil || *backup.Spec.Online || backup.Spec.Target != cnpgv1.BackupTargetStandby || backup.Labels["bench.oltp.io/run"] != "pg" {
		t.Errorf("Backup %+v", backup)
	}
	if _, found, _ := unstructured.NestedMap(u.Object, "status"); found {
		t.Error("the request carries a status")
	}
}

func TestSnapshotProgress(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status map[string]any
		want   engines.SnapshotProgress
	}{
		{"not picked up", nil, engines.SnapshotProgress{Phase: "not started by CloudNativePG yet"}},
		{"running on a standby", map[string]any{"phase": "running", "instanceID": map[string]any{"podName": "pg-db-2"}},
			engines.SnapshotProgress{Phase: "running", Instance: "pg-db-2"}},
		{"completed, WAL volume too", map[string]any{"phase": "completed", "instanceID": map[string]any{"podName": "pg-db-2"},
			"snapshotBackupStatus": map[string]any{"elements": []any{
				map[string]any{"name": "pg-snapshot-wal", "type": "PG_WAL"}, map[string]any{"name": "pg-snapshot", "type": "PG_DATA"}}}},
			engines.SnapshotProgress{Done: true, Phase: "completed", Instance: "pg-db-2", VolumeSnapshots: []string{"pg-snapshot", "pg-snapshot-wal"}}},
		{"completed without a snapshot", map[string]any{"phase": "completed"},
			engines.SnapshotProgress{Phase: "completed", Failed: "Backup pg-snapshot completed without a volume snapshot of the data volume"}},
		{"failed", map[string]any{"phase": "failed", "error": "cannot find a VolumeSnapshotClass"},
			engines.SnapshotProgress{Phase: "failed", Failed: "cannot find a VolumeSnapshotClass"}},
		{"failed silently", map[string]any{"phase": "failed"},
			engines.SnapshotProgress{Phase: "failed", Failed: "CloudNativePG reported the Backup failed without an error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "postgresql.cnpg.io/v1", "kind": "Backup",
				"metadata": map[string]any{"name": "pg-snapshot"}, "spec": map[string]any{"cluster": map[string]any{"name": "pg-db"}}}}
			if tc.status != nil {
				u.Object["status"] = tc.status
			}
			got := Backend{}.SnapshotProgress(u)
			if got.Done != tc.want.Done || got.Failed != tc.want.Failed || got.Phase != tc.want.Phase || got.Instance != tc.want.Instance ||
				len(got.VolumeSnapshots) != len(tc.want.VolumeSnapshots) {
				t.Fatalf("progress %+v, want %+v", got, tc.want)
			}
			for i := range got.VolumeSnapshots {
				if got.VolumeSnapshots[i] != tc.want.VolumeSnapshots[i] {
					t.Errorf("volume snapshots %v, want %v (the data volume's first)", got.VolumeSnapshots, tc.want.VolumeSnapshots)
				}
			}
		})
	}
}
