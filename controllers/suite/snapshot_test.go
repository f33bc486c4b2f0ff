package suite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
)

// A suite with dataReuse Snapshot: the first repeat loads and snapshots (the suite's class), is
// torn down like any run; the second restores that snapshot into a database of its own, and the
// comparison says so, with the restored data's growth (none).
func TestSuiteRestoresSnapshotsAcrossRepeats(t *testing.T) {
	ns := ct.NewNamespace(t, "suite-snapshot")
	pods := ct.NewClientPods()
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
	stepJobs := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	fast := func(int) time.Duration { return 20 * time.Millisecond }

	a1 := next("ss-a-1")
	if s := a1.Spec.Database.Snapshot; s == nil || s.VolumeSnapshotClassName != "csi-snap" || a1.Spec.Database.Teardown != benchv1.TeardownDelete || a1.Spec.Database.Restore != nil {
		t.Fatalf("ss-a-1: snapshot %+v, teardown %s, restore %+v", s, a1.Spec.Database.Teardown, a1.Spec.Database.Restore)
	}
	ct.DeployAndLoad(t, a1, nil)
	ct.GetUnstructured(t, "postgresql.cnpg.io/v1", "Backup", ns, "ss-a-1-snapshot")
	ct.VolumeSnapshot(t, ns, "ss-a-1-snapshot", "ss-a-1-db-2")
	ct.SetVolumeSnapshotStatus(t, ns, "ss-a-1-snapshot", map[string]any{"readyToUse": true, "restoreSize": "1Gi"})
	ct.SetBackupStatus(t, ns, "ss-a-1-snapshot", map[string]any{"phase": "completed", "method": "volumeSnapshot",
		"instanceID":           map[string]any{"podName": "ss-a-1-db-2"},
		"snapshotBackupStatus": map[string]any{"elements": []any{map[string]any{"name": "ss-a-1-snapshot", "type": "PG_DATA"}}}})
	ct.DriveSteps(t, a1, pods, fast, stepJobs, nil)

	a2 := next("ss-a-2")
	if r := a2.Spec.Database.Restore; r == nil || r.Run != "ss-a-1" || a2.Spec.Database.Snapshot != nil || a2.Spec.Database.Reuse != nil {
		t.Fatalf("ss-a-2: restore %+v, snapshot %+v, reuse %+v", r, a2.Spec.Database.Snapshot, a2.Spec.Database.Reuse)
	}
	ct.SetClusterReady(t, ns, "ss-a-2-db", 3)
	check := ct.GetJob(t, ns, "ss-a-2-check")
	ct.CheckPod(t, check, ct.LoadedDataset(8))
	ct.SetJobProgress(t, check, "", 1, true)
	if got := ct.DriveSteps(t, a2, pods, fast, stepJobs, nil); got.Status.Phase != benchv1.PhaseSucceeded || got.Status.Load.RestoredFrom != "ss-a-1" {
		t.Fatalf("ss-a-2: phase %s, load %+v", got.Status.Phase, got.Status.Load)
	}
	var got *benchv1.BenchmarkSuite
	ct.Eventually(t, 30*time.Second, func() error {
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
