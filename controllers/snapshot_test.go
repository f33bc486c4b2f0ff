package controllers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

// getUnstructured reads an object of a kind, waiting for it to exist.
func getUnstructured(t *testing.T, apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	eventually(t, 30*time.Second, func() error {
		return k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, u)
	})
	return u
}

// setBackupStatus plays CloudNativePG reporting a Backup: its phase, the instance it runs on, the
// volume snapshots it took, its error.
func setBackupStatus(t *testing.T, namespace, name string, status map[string]any) {
	t.Helper()
	eventually(t, 20*time.Second, func() error {
		u := getUnstructured(t, "postgresql.cnpg.io/v1", "Backup", namespace, name)
		u.Object["status"] = status
		return k8s.Status().Update(context.Background(), u)
	})
}

// volumeSnapshot plays CloudNativePG creating a VolumeSnapshot of a PVC and the snapshot
// controller reporting it.
func volumeSnapshot(t *testing.T, namespace, name, pvc string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshot",
		"metadata": map[string]any{"namespace": namespace, "name": name, "labels": map[string]any{"cnpg.io/backupName": name}},
		"spec":     map[string]any{"source": map[string]any{"persistentVolumeClaimName": pvc}, "volumeSnapshotClassName": "csi-snap"},
	}}
	if err := k8s.Create(context.Background(), u); err != nil {
		t.Fatal(err)
	}
}

func setVolumeSnapshotStatus(t *testing.T, namespace, name string, status map[string]any) {
	t.Helper()
	eventually(t, 20*time.Second, func() error {
		u := getUnstructured(t, "snapshot.storage.k8s.io/v1", "VolumeSnapshot", namespace, name)
		u.Object["status"] = status
		return k8s.Status().Update(context.Background(), u)
	})
}

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
	ns := newNamespace(t, "snapshot")
	pods := newClientPods()
	startManager(t, ns, testConfig(pods))
	ctx := context.Background()

	first := snapshotRun(ns, "snapa", 8)
	if err := k8s.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	c := getUnstructured(t, "postgresql.cnpg.io/v1", "Cluster", ns, "snapa-db")
	backupCfg, _, _ := unstructured.NestedMap(c.Object, "spec", "backup")
	if vs, _ := backupCfg["volumeSnapshot"].(map[string]any); vs["className"] != "csi-snap" || vs["online"] != false || backupCfg["target"] != "prefer-standby" {
		t.Errorf("the snapshotting run's Cluster backup stanza %v: want a cold volume snapshot of class csi-snap on a standby", backupCfg)
	}
	deployAndLoad(t, first, nil)

	// Loaded: a cold volume-snapshot Backup of the run's Cluster, before any step.
	backup := getUnstructured(t, "postgresql.cnpg.io/v1", "Backup", ns, "snapa-snapshot")
	spec, _, _ := unstructured.NestedMap(backup.Object, "spec")
	if spec["method"] != "volumeSnapshot" || spec["online"] != false || spec["target"] != "prefer-standby" ||
		spec["cluster"].(map[string]any)["name"] != "snapa-db" || !kube.OwnedBy(backup, getRun(t, first)) {
		t.Errorf("Backup spec %v, owners %v", spec, backup.GetOwnerReferences())
	}
	setBackupStatus(t, ns, "snapa-snapshot", map[string]any{"phase": "running", "method": "volumeSnapshot",
		"instanceID": map[string]any{"podName": "snapa-db-2"}})
	eventually(t, 20*time.Second, func() error {
		got := getRun(t, first)
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
	volumeSnapshot(t, ns, "snapa-snapshot", "snapa-db-2")
	setVolumeSnapshotStatus(t, ns, "snapa-snapshot", map[string]any{"readyToUse": false})
	setBackupStatus(t, ns, "snapa-snapshot", map[string]any{"phase": "completed", "method": "volumeSnapshot",
		"instanceID":           map[string]any{"podName": "snapa-db-2"},
		"snapshotBackupStatus": map[string]any{"elements": []any{map[string]any{"name": "snapa-snapshot", "type": "PG_DATA"}}}})
	time.Sleep(2 * time.Second)
	if got := getRun(t, first); got.Status.Load.Snapshot.ReadyTime != nil {
		t.Error("the snapshot was taken for ready before its VolumeSnapshot was ready to use")
	}
	setVolumeSnapshotStatus(t, ns, "snapa-snapshot", map[string]any{"readyToUse": true, "restoreSize": "1Gi"})
	first = driveSteps(t, first, pods, boundary(100), &jobUIDs{seen: map[string][]types.UID{}}, nil)
	if first.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("the snapshotting run: phase %s, conditions %+v", first.Status.Phase, first.Status.Conditions)
	}
	if s := first.Status.Load.Snapshot; s == nil || s.ReadyTime == nil || s.RestoreBytes != 1<<30 || len(s.VolumeSnapshots) != 1 || s.VolumeSnapshots[0] != "snapa-snapshot" || s.Run != "snapa" {
		t.Errorf("the snapshot recorded %+v", s)
	}
	vs := getUnstructured(t, "snapshot.storage.k8s.io/v1", "VolumeSnapshot", ns, "snapa-snapshot")
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
	restored := getUnstructured(t, "postgresql.cnpg.io/v1", "Cluster", ns, "snapb-db")
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
	setClusterReady(t, ns, "snapb-db", 3)
	check := getJob(t, ns, "snapb-check")
	checkPod(t, check, loadedDataset(8))
	setJobProgress(t, check, "", 1, true)
	second = driveSteps(t, second, pods, boundary(100), &jobUIDs{seen: map[string][]types.UID{}}, nil)
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
	ns := newNamespace(t, "snapshot-fail")
	startManager(t, ns, testConfig(newClientPods()))
	ctx := context.Background()
	first := snapshotRun(ns, "snapw", 4)
	second := restoreRun(ns, "snapx", "snapw", 4)
	for _, r := range []*benchv1.BenchmarkRun{first, second} {
		if err := k8s.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 20*time.Second, func() error {
		c := meta.FindStatusCondition(getRun(t, second).Status.Conditions, benchv1.ConditionDatabaseReady)
		if c == nil || c.Reason != "WaitingForSnapshot" || !strings.Contains(c.Message, "waiting for run snapw to snapshot its loaded data") {
			return fmt.Errorf("DatabaseReady %+v", c)
		}
		return nil
	})
	deployAndLoad(t, first, nil)
	getUnstructured(t, "postgresql.cnpg.io/v1", "Backup", ns, "snapw-snapshot")
	setBackupStatus(t, ns, "snapw-snapshot", map[string]any{"phase": "failed", "method": "volumeSnapshot",
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

// A suite with dataReuse Snapshot: the first repeat loads and snapshots (the suite's class), is
// torn down like any run; the second restores that snapshot into a database of its own, and the
// comparison says so, with the restored data's growth (none).
func TestSuiteRestoresSnapshotsAcrossRepeats(t *testing.T) {
	ns := newNamespace(t, "suite-snapshot")
	pods := newClientPods()
	startSuiteManager(t, ns, testConfig(pods))
	ctx := context.Background()
	suite := &benchv1.BenchmarkSuite{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ss"},
		Spec: benchv1.BenchmarkSuiteSpec{
			Repeats:   2,
			DataReuse: benchv1.DataReuseSnapshot,
			Snapshot:  &benchv1.SnapshotSpec{VolumeSnapshotClassName: "csi-snap"},
			Databases: []benchv1.SuiteDatabase{suiteDatabase("a", 2, "remote_apply")},
			Workload: benchv1.WorkloadSpec{Warehouses: 8, Duration: &metav1.Duration{Duration: time.Minute},
				RampUp: &metav1.Duration{}, Loader: benchv1.LoaderSpec{Pods: 4}},
			Search: benchv1.SearchSpec{Mode: benchv1.SearchFixed},
		},
	}
	if err := k8s.Create(ctx, suite); err != nil {
		t.Fatal(err)
	}
	next := func(name string) *benchv1.BenchmarkRun { return nextSuiteRun(t, suite, name) }
	stepJobs := &jobUIDs{seen: map[string][]types.UID{}}
	fast := func(int) time.Duration { return 20 * time.Millisecond }

	a1 := next("ss-a-1")
	if s := a1.Spec.Database.Snapshot; s == nil || s.VolumeSnapshotClassName != "csi-snap" || a1.Spec.Database.Teardown != benchv1.TeardownDelete || a1.Spec.Database.Restore != nil {
		t.Fatalf("ss-a-1: snapshot %+v, teardown %s, restore %+v", s, a1.Spec.Database.Teardown, a1.Spec.Database.Restore)
	}
	deployAndLoad(t, a1, nil)
	getUnstructured(t, "postgresql.cnpg.io/v1", "Backup", ns, "ss-a-1-snapshot")
	volumeSnapshot(t, ns, "ss-a-1-snapshot", "ss-a-1-db-2")
	setVolumeSnapshotStatus(t, ns, "ss-a-1-snapshot", map[string]any{"readyToUse": true, "restoreSize": "1Gi"})
	setBackupStatus(t, ns, "ss-a-1-snapshot", map[string]any{"phase": "completed", "method": "volumeSnapshot",
		"instanceID":           map[string]any{"podName": "ss-a-1-db-2"},
		"snapshotBackupStatus": map[string]any{"elements": []any{map[string]any{"name": "ss-a-1-snapshot", "type": "PG_DATA"}}}})
	driveSteps(t, a1, pods, fast, stepJobs, nil)

	a2 := next("ss-a-2")
	if r := a2.Spec.Database.Restore; r == nil || r.Run != "ss-a-1" || a2.Spec.Database.Snapshot != nil || a2.Spec.Database.Reuse != nil {
		t.Fatalf("ss-a-2: restore %+v, snapshot %+v, reuse %+v", r, a2.Spec.Database.Snapshot, a2.Spec.Database.Reuse)
	}
	setClusterReady(t, ns, "ss-a-2-db", 3)
	check := getJob(t, ns, "ss-a-2-check")
	checkPod(t, check, loadedDataset(8))
	setJobProgress(t, check, "", 1, true)
	if got := driveSteps(t, a2, pods, fast, stepJobs, nil); got.Status.Phase != benchv1.PhaseSucceeded || got.Status.Load.RestoredFrom != "ss-a-1" {
		t.Fatalf("ss-a-2: phase %s, load %+v", got.Status.Phase, got.Status.Load)
	}
	var got *benchv1.BenchmarkSuite
	eventually(t, 30*time.Second, func() error {
		got = getSuite(t, suite)
		if got.Status.Phase != benchv1.PhaseSucceeded {
			return fmt.Errorf("suite phase %s", got.Status.Phase)
		}
		return nil
	})
	if r := got.Status.Runs[1]; r.Name != "ss-a-2" || r.RestoredFrom != "ss-a-1" || r.ReusedFrom != "" || r.DataGrowth == nil || r.DataGrowth["orders"] != 0 {
		t.Errorf("record %+v", r)
	}
	want := "data: a was loaded once and snapshotted; restored into a database of its own: ss-a-2 from ss-a-1's snapshot (grown since the load by orders +0, history +0, new_order +0)"
	if !slices.ContainsFunc(got.Status.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("notes %q, want one starting %q", got.Status.Notes, want)
	}
}
