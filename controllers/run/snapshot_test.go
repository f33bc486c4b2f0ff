package run

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

func snapshotRun(ns, name string, warehouses int32) *benchv1.BenchmarkRun {
	run := fixedRun(ns, name, warehouses)
	run.Spec.Database.Teardown = benchv1.TeardownDelete
	run.Spec.Database.Snapshot = &benchv1.SnapshotSpec{VolumeSnapshotClassName: "csi-snap"}
	return run
}

func restoreRun(ns, name, from string, warehouses int32) *benchv1.BenchmarkRun {
	run := fixedRun(ns, name, warehouses)
	run.Spec.Database.Teardown = benchv1.TeardownDelete
	run.Spec.Database.Restore = &benchv1.RestoreSpec{Run: from}
	return run
}

// A run with spec.database.snapshot loads, asks CloudNativePG for a cold volume-snapshot Backup
// before its first step, waits for the VolumeSnapshot to be ready and makes it its own (owner
// reference, what it holds); a run with spec.database.restore deploys its own Cluster from that
// snapshot, loads nothing, checks the restored data (no growth) and measures. Runs naming a
// snapshot they cannot restore fail having deployed nothing.
func TestRunSnapshotsAndRestores(t *testing.T) {
	ns := ct.NewNamespace(t, "snapshot")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	ctx := context.Background()

	first := snapshotRun(ns, "snapa", 8)
	if err := k8s.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	c := ct.GetUnstructured(t, "postgresql.cnpg.io/v1", "Cluster", ns, "snapa-db")
	backupCfg, _, _ := unstructured.NestedMap(c.Object, "spec", "backup")
	if vs, _ := backupCfg["volumeSnapshot"].(map[string]any); vs["className"] != "csi-snap" || vs["online"] != false || backupCfg["target"] != "prefer-standby" {
		t.Errorf("the snapshotting run's Cluster backup stanza %v: want a cold volume snapshot of class csi-snap on a standby", backupCfg)
	}
	ct.DeployAndLoad(t, first, nil)

	// Loaded: a cold volume-snapshot Backup of the run's Cluster, before any step.
	backup := ct.GetUnstructured(t, "postgresql.cnpg.io/v1", "Backup", ns, "snapa-snapshot")
	spec, _, _ := unstructured.NestedMap(backup.Object, "spec")
	if spec["method"] != "volumeSnapshot" || spec["online"] != false || spec["target"] != "prefer-standby" ||
		spec["cluster"].(map[string]any)["name"] != "snapa-db" || !kube.OwnedBy(backup, ct.GetRun(t, first)) {
		t.Errorf("Backup spec %v, owners %v", spec, backup.GetOwnerReferences())
	}
	ct.SetBackupStatus(t, ns, "snapa-snapshot", map[string]any{"phase": "running", "method": "volumeSnapshot",
		"instanceID": map[string]any{"podName": "snapa-db-2"}})
	ct.Eventually(t, 20*time.Second, func() error {
		got := ct.GetRun(t, first)
		ready := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionReady)
		if s := got.Status.Load.Snapshot; s == nil || s.Instance != "snapa-db-2" || s.Backup != "snapa-snapshot" || s.StartTime == nil || s.ReadyTime != nil ||
			ready == nil || !strings.Contains(ready.Message, "8 warehouses loaded; snapshotting them (snapa-snapshot, on snapa-db-2, fenced meanwhile)") {
			return fmt.Errorf("snapshot %+v, Ready %+v", s, ready)
		}
		return nil
	})
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "snapa-step-0"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("a step started before the snapshot was taken: %v", err)
	}
	// CloudNativePG completes the Backup; the VolumeSnapshot is not ready to use yet: still waiting.
	ct.VolumeSnapshot(t, ns, "snapa-snapshot", "snapa-db-2")
	ct.SetVolumeSnapshotStatus(t, ns, "snapa-snapshot", map[string]any{"readyToUse": false})
	ct.SetBackupStatus(t, ns, "snapa-snapshot", map[string]any{"phase": "completed", "method": "volumeSnapshot",
		"instanceID":           map[string]any{"podName": "snapa-db-2"},
		"snapshotBackupStatus": map[string]any{"elements": []any{map[string]any{"name": "snapa-snapshot", "type": "PG_DATA"}}}})
	time.Sleep(2 * time.Second)
	if got := ct.GetRun(t, first); got.Status.Load.Snapshot.ReadyTime != nil {
		t.Error("the snapshot was taken for ready before its VolumeSnapshot was ready to use")
	}
	ct.SetVolumeSnapshotStatus(t, ns, "snapa-snapshot", map[string]any{"readyToUse": true, "restoreSize": "1Gi"})
	first = ct.DriveSteps(t, first, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	if first.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("the snapshotting run: phase %s, conditions %+v", first.Status.Phase, first.Status.Conditions)
	}
	if s := first.Status.Load.Snapshot; s == nil || s.ReadyTime == nil || s.RestoreBytes != 1<<30 || len(s.VolumeSnapshots) != 1 || s.VolumeSnapshots[0] != "snapa-snapshot" || s.Run != "snapa" {
		t.Errorf("the snapshot recorded %+v", s)
	}
	vs := ct.GetUnstructured(t, "snapshot.storage.k8s.io/v1", "VolumeSnapshot", ns, "snapa-snapshot")
	if a := vs.GetAnnotations(); a[OwnerRunAnnotation] != "snapa" || !strings.Contains(a[DatasetAnnotation], `"warehouses":8`) || a[DatabaseSpecAnnotation] != databaseSpecHash(first) {
		t.Errorf("the VolumeSnapshot's annotations %v", a)
	}
	if refs := vs.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != first.UID || refs[0].Kind != "BenchmarkRun" {
		t.Errorf("the VolumeSnapshot's owners %+v: want the run (deleting it deletes the snapshot)", refs)
	}
	if s := report.DataOrigin(first); !strings.Contains(s, "8 warehouses (load seed 424242), loaded by this run") ||
		!strings.Contains(s, "kept after the load as VolumeSnapshot snapa-snapshot (taken on snapa-db-2") || !strings.Contains(s, "1.00 GiB to restore") {
		t.Errorf("the report says %q", s)
	}

	// snapb restores it: a Cluster of its own bootstrapped from the snapshot, nothing loaded.
	second := restoreRun(ns, "snapb", "snapa", 8)
	if err := k8s.Create(ctx, second); err != nil {
		t.Fatal(err)
	}
	restored := ct.GetUnstructured(t, "postgresql.cnpg.io/v1", "Cluster", ns, "snapb-db")
	bootstrap, _, _ := unstructured.NestedMap(restored.Object, "spec", "bootstrap")
	recovery, _ := bootstrap["recovery"].(map[string]any)
	storage, _, _ := unstructured.NestedMap(recovery, "volumeSnapshots", "storage")
	if bootstrap["initdb"] != nil || recovery["database"] != "tpcc" || recovery["owner"] != "tpcc" ||
		storage["name"] != "snapa-snapshot" || storage["kind"] != "VolumeSnapshot" || storage["apiGroup"] != "snapshot.storage.k8s.io" {
		t.Errorf("the restoring run's bootstrap %v", bootstrap)
	}
	if _, found, _ := unstructured.NestedMap(restored.Object, "spec", "backup"); found {
		t.Error("the restoring run's Cluster has a backup stanza: it takes no snapshot")
	}
	ct.SetClusterReady(t, ns, "snapb-db", 3)
	check := ct.GetJob(t, ns, "snapb-check")
	ct.CheckPod(t, check, ct.LoadedDataset(8))
	ct.SetJobProgress(t, check, "", 1, true)
	second = ct.DriveSteps(t, second, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	if second.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("the restoring run: phase %s, conditions %+v", second.Status.Phase, second.Status.Conditions)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: jobs.LoaderJobName(second)}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("a loader Job for the restoring run: %v", err)
	}
	l := second.Status.Load
	loaded := meta.FindStatusCondition(second.Status.Conditions, benchv1.ConditionDataLoaded)
	if l == nil || l.RestoredFrom != "snapa" || l.ReusedFrom != "" || l.Snapshot == nil || l.Snapshot.Run != "snapa" || l.Dataset == nil ||
		loaded == nil || loaded.Reason != "Restored" || !strings.Contains(loaded.Message, "restored from the snapshot run snapa took") ||
		!strings.Contains(loaded.Message, "orders +0, history +0, new_order +0") {
		t.Errorf("load %+v, DataLoaded %+v", l, loaded)
	}
	if second.Status.Database == nil || second.Status.Database.Name != "snapb-db" {
		t.Errorf("database %+v: want its own", second.Status.Database)
	}
	if s := report.DataOrigin(second); !strings.Contains(s, "restored from the snapshot run snapa took of its freshly loaded data (VolumeSnapshot snapa-snapshot)") ||
		!strings.Contains(s, "grown since the load by orders +0") {
		t.Errorf("the report says %q", s)
	}

	// Refused before anything is deployed.
	for _, tc := range []struct {
		name, from string
		warehouses int32
		mutate     func(*benchv1.BenchmarkRun)
		reason     string
		want       string
	}{
		{"snapc", "snapa", 16, nil, benchv1.ReasonRestoreMismatch, "the database holds 8 loaded warehouses, the run asks for 16"},
		{"snapd", "nobody", 8, nil, benchv1.ReasonRestoreUnavailable, "run nobody does not exist"},
		{"snape", "snapb", 8, nil, benchv1.ReasonRestoreUnavailable, "run snapb takes no snapshot of its data"},
		{"snapf", "snapa", 8, func(r *benchv1.BenchmarkRun) {
			r.Spec.Database.Postgres = &benchv1.PostgresSpec{Instances: 5, Storage: benchv1.StorageSpec{Size: resource.MustParse("1Gi")}}
		}, benchv1.ReasonRestoreMismatch, "run snapa snapshotted a database deployed with another spec.database"},
	} {
		run := restoreRun(ns, tc.name, tc.from, tc.warehouses)
		if tc.mutate != nil {
			tc.mutate(run)
		}
		if err := k8s.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		failed := waitFailed(t, run)
		if failed.Reason != tc.reason || !strings.Contains(failed.Message, tc.want) {
			t.Errorf("%s: Failed %+v, want %s naming %q", tc.name, failed, tc.reason, tc.want)
		}
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("postgresql.cnpg.io/v1")
		u.SetKind("Cluster")
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: tc.name + "-db"}, u); !apierrors.IsNotFound(err) {
			t.Errorf("%s deployed a Cluster: %v", tc.name, err)
		}
	}
}

// A restoring run waits while the run it names has not taken its snapshot; a Backup that fails
// fails the snapshotting run (SnapshotFailed, CloudNativePG's error named), and then the run
// waiting for it (RestoreUnavailable).
func TestSnapshotWaitAndFailure(t *testing.T) {
	ns := ct.NewNamespace(t, "snapshot-fail")
	startManager(t, ns, testConfig(ct.NewClientPods()))
	ctx := context.Background()
	first := snapshotRun(ns, "snapw", 4)
	second := restoreRun(ns, "snapx", "snapw", 4)
	for _, r := range []*benchv1.BenchmarkRun{first, second} {
		if err := k8s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	ct.Eventually(t, 20*time.Second, func() error {
		c := meta.FindStatusCondition(ct.GetRun(t, second).Status.Conditions, benchv1.ConditionDatabaseReady)
		if c == nil || c.Reason != "WaitingForSnapshot" || !strings.Contains(c.Message, "waiting for run snapw to snapshot its loaded data") {
			return fmt.Errorf("DatabaseReady %+v", c)
		}
		return nil
	})
	ct.DeployAndLoad(t, first, nil)
	ct.GetUnstructured(t, "postgresql.cnpg.io/v1", "Backup", ns, "snapw-snapshot")
	ct.SetBackupStatus(t, ns, "snapw-snapshot", map[string]any{"phase": "failed", "method": "volumeSnapshot",
		"error": "no VolumeSnapshotClass found for the storage class"})
	failed := waitFailed(t, first)
	if failed.Reason != benchv1.ReasonSnapshotFailed || !strings.Contains(failed.Message, "Backup snapw-snapshot: no VolumeSnapshotClass found") {
		t.Errorf("the snapshotting run: Failed %+v", failed)
	}
	failed = waitFailed(t, second)
	if failed.Reason != benchv1.ReasonRestoreUnavailable || !strings.Contains(failed.Message, "run snapw ended (Failed) without a snapshot") {
		t.Errorf("the restoring run: Failed %+v", failed)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "snapx-db"}, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster"}}); !apierrors.IsNotFound(err) {
		t.Errorf("the restoring run deployed a Cluster: %v", err)
	}
}
