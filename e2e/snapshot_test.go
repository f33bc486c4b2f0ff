//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// TestSnapshotRestore: load once, restore every run from the same data (issue 23). On the local
// cluster with VolumeSnapshots (hack/cluster/snapshots.sh: csi-local and the upstream
// snapshot-controller and csi-snapshotter), a run of the reference topology on StorageClass
// local-snap loads 2 warehouses, keeps them as a VolumeSnapshot (a cold CloudNativePG backup of a
// standby) before its step, and measures — growing its own data; a second run restores the
// snapshot into a Cluster of its own, loads nothing (no loader Job ever exists), finds the dataset
// of the first run's load with no growth at all, passes the consistency check and measures; a run
// asking for 4 warehouses of it is refused naming both counts, having deployed nothing.
func TestSnapshotRestore(t *testing.T) {
	longCase(t, 12, "a run snapshots its loaded data and another restores it")
	t.Parallel()
	if out, err := exec.Command(filepath.Join(repoRoot, "hack/cluster/node.sh"), "list").CombinedOutput(); err != nil || os.Geteuid() != 0 {
		t.Skipf("not the local cluster (hack/cluster/node.sh list: %v, %s; euid %d): snapshots need hack/cluster/snapshots.sh, or a CSI driver with snapshots of your own (docs/reuse.md)",
			err, strings.TrimSpace(string(out)), os.Geteuid())
	}
	started := time.Now()
	out, err := exec.Command(filepath.Join(repoRoot, "hack/cluster/snapshots.sh")).CombinedOutput()
	if err != nil {
		t.Fatalf("hack/cluster/snapshots.sh: %v\n%s", err, out)
	}
	t.Logf("hack/cluster/snapshots.sh in %s: %s", time.Since(started).Round(time.Second), strings.TrimSpace(lastLine(string(out))))
	ctx := context.Background()
	ns := newNamespace(t, "e2e-snapshot")
	jobs := watchJobs(ctx, t, ns)

	first := smallSyncRun(ns, "snap")
	first.Spec.Database.Postgres.Storage.StorageClass = "local-snap"
	first.Spec.Database.Snapshot = &benchv1.SnapshotSpec{VolumeSnapshotClassName: "local-snap"}
	if err := k8s.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	done := waitFor(t, client.ObjectKeyFromObject(first), runTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded
	})
	l := done.Status.Load
	if l == nil || l.Snapshot == nil || l.Snapshot.ReadyTime == nil || len(l.Snapshot.VolumeSnapshots) == 0 || l.Dataset == nil {
		t.Fatalf("the snapshotting run's load %+v", l)
	}
	s := l.Snapshot
	t.Logf("load %s; snapshot %v of %s taken in %s, %d bytes to restore", l.CompletionTime.Sub(l.StartTime.Time).Round(time.Second),
		s.VolumeSnapshots, s.Instance, s.ReadyTime.Sub(s.StartTime.Time).Round(time.Second), s.RestoreBytes)
	if len(done.Status.Steps) == 0 || done.Status.Steps[0].StartTime == nil || done.Status.Steps[0].StartTime.Before(s.ReadyTime) {
		t.Errorf("a step started before the snapshot was ready (%v): %+v", s.ReadyTime, done.Status.Steps)
	}
	vs := &unstructured.Unstructured{}
	vs.SetAPIVersion("snapshot.storage.k8s.io/v1")
	vs.SetKind("VolumeSnapshot")
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: s.VolumeSnapshots[0]}, vs); err != nil {
		t.Fatalf("VolumeSnapshot %s: %v", s.VolumeSnapshots[0], err)
	}
	if ready, _, _ := unstructured.NestedBool(vs.Object, "status", "readyToUse"); !ready || len(vs.GetOwnerReferences()) == 0 || vs.GetOwnerReferences()[0].UID != done.UID ||
		vs.GetAnnotations()["bench.oltp.io/owner-run"] != "snap" {
		t.Errorf("VolumeSnapshot %s: ready %v, owners %+v, annotations %v", vs.GetName(), ready, vs.GetOwnerReferences(), vs.GetAnnotations())
	}

	// Restored: a Cluster of its own from the snapshot, the data as loaded although the first run's
	// step has grown its own since.
	restored := smallSyncRun(ns, "restored")
	restored.Spec.Database.Postgres.Storage.StorageClass = "local-snap"
	restored.Spec.Database.Restore = &benchv1.RestoreSpec{Run: first.Name}
	if err := k8s.Create(ctx, restored); err != nil {
		t.Fatal(err)
	}
	// While it runs (its teardown deletes the Cluster once it ends): deployed from the snapshot.
	running := waitFor(t, client.ObjectKeyFromObject(restored), runTimeout, "phase Running", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseRunning || r.Status.Phase == benchv1.PhaseSucceeded
	})
	cluster := &cnpgv1.Cluster{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: running.Status.Database.Name}, cluster); err != nil {
		t.Fatal(err)
	}
	if r := cluster.Spec.Bootstrap.Recovery; running.Status.Database.Name != "restored-db" || r == nil || r.VolumeSnapshots == nil || r.VolumeSnapshots.Storage.Name != s.VolumeSnapshots[0] {
		t.Errorf("the restored Cluster %s bootstraps %+v", running.Status.Database.Name, cluster.Spec.Bootstrap)
	}
	again := waitFor(t, client.ObjectKeyFromObject(restored), runTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded
	})
	rl := again.Status.Load
	if rl == nil || rl.RestoredFrom != first.Name || rl.Dataset == nil || rl.Dataset.Seed != l.Dataset.Seed || rl.Dataset.Warehouses != 2 {
		t.Fatalf("the restoring run's load %+v (the first's dataset %+v)", rl, l.Dataset)
	}
	for table, n := range rl.Dataset.Growth {
		if n != 0 {
			t.Errorf("the restored data had grown since the load: %s %+d", table, n)
		}
	}
	if n := jobs.snapshot()["restored-load"]; n != 0 {
		t.Errorf("the restoring run created a loader Job")
	}
	if again.Status.Result == nil || again.Status.Result.TpmC <= 0 {
		t.Errorf("the restoring run's result %+v", again.Status.Result)
	}
	t.Logf("restored %s's snapshot: deployed and checked in %s (the first run: deployed and loaded in %s); growth %v; %s",
		first.Name, rl.CompletionTime.Sub(again.CreationTimestamp.Time).Round(time.Second),
		l.CompletionTime.Sub(done.CreationTimestamp.Time).Round(time.Second), rl.Dataset.Growth, again.Status.Result.Message)

	// Another warehouse count: refused, naming both, nothing deployed.
	more := smallSyncRun(ns, "restore-more")
	more.Spec.Database.Postgres.Storage.StorageClass = "local-snap"
	more.Spec.Workload.Warehouses = 4
	more.Spec.Database.Restore = &benchv1.RestoreSpec{Run: first.Name}
	if err := k8s.Create(ctx, more); err != nil {
		t.Fatal(err)
	}
	refused := waitFor(t, client.ObjectKeyFromObject(more), 5*time.Minute, "phase Failed", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseFailed
	})
	if msg := conditionMessages(refused); !strings.Contains(msg, "RestoreMismatch") || !strings.Contains(msg, "the database holds 2 loaded warehouses, the run asks for 4") {
		t.Errorf("the run asking for 4 warehouses of the snapshot of 2: %s", msg)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "restore-more-db"}, &cnpgv1.Cluster{}); !isNotFound(err) {
		t.Errorf("the refused run deployed a Cluster: %v", err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
