package suite

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
)

func TestSuitePlanInterleaves(t *testing.T) {
	suite := &benchv1.BenchmarkSuite{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "s"}, Spec: benchv1.BenchmarkSuiteSpec{
		Repeats:   2,
		DataReuse: benchv1.DataReuseNone,
		Databases: []benchv1.SuiteDatabase{{Name: "a"}, {Name: "b"}, {Name: "c"}},
	}}
	var names []string
	for _, p := range suitePlan(suite) {
		names = append(names, p.Name)
	}
	if want := []string{"s-a-1", "s-b-1", "s-c-1", "s-a-2", "s-b-2", "s-c-2"}; !slices.Equal(names, want) {
		t.Errorf("plan %v, want %v", names, want)
	}
	suite.Spec.Repeats = 0 // as stored before defaulting: one run each
	if n := len(suitePlan(suite)); n != 3 {
		t.Errorf("%d runs with repeats unset, want 3", n)
	}
}

// Reusing data (the default), a database's repeats run one after the other, each kept for the
// next and taking over the one before when that one succeeded; the last is torn down.
func TestSuitePlanReusesData(t *testing.T) {
	suite := &benchv1.BenchmarkSuite{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "s"}, Spec: benchv1.BenchmarkSuiteSpec{
		Repeats:   3,
		Databases: []benchv1.SuiteDatabase{{Name: "a"}, {Name: "b"}},
	}}
	plan := suitePlan(suite)
	var names []string
	for _, p := range plan {
		names = append(names, p.Name)
	}
	if want := []string{"s-a-1", "s-a-2", "s-a-3", "s-b-1", "s-b-2", "s-b-3"}; !slices.Equal(names, want) {
		t.Fatalf("plan %v, want %v", names, want)
	}
	records := make([]benchv1.SuiteRunRecord, len(plan))
	records[0].Phase, records[1].Phase = benchv1.PhaseSucceeded, benchv1.PhaseFailed
	records[3].Phase = benchv1.PhaseSucceeded
	for i, want := range []string{"", "s-a-1", "", "", "s-b-1", ""} {
		if got := reuseSource(suite, plan, records, i); got != want {
			t.Errorf("run %s reuses %q, want %q", plan[i].Name, got, want)
		}
	}
	for i, teardown := range []benchv1.TeardownPolicy{benchv1.TeardownRetain, benchv1.TeardownRetain, benchv1.TeardownDelete} {
		run := suiteRun(registry.Default(), suite, plan[i], reuseSource(suite, plan, records, i), "")
		if run.Spec.Database.Teardown != teardown {
			t.Errorf("%s teardown %s, want %s", run.Name, run.Spec.Database.Teardown, teardown)
		}
		if (run.Spec.Database.Reuse != nil) != (i == 1) {
			t.Errorf("%s reuse %+v", run.Name, run.Spec.Database.Reuse)
		}
	}
	suite.Spec.DataReuse = benchv1.DataReuseNone
	if got := reuseSource(suite, plan, records, 1); got != "" {
		t.Errorf("dataReuse None reuses %q", got)
	}
}

// Restoring snapshots (dataReuse Snapshot), repeats interleave like fresh loads; the first repeat of
// each database loads and snapshots, each later one restores the first earlier repeat that took its
// snapshot, loading (and snapshotting) afresh when none did; every run tears its database down, and
// none takes another's over.
func TestSuitePlanRestoresSnapshots(t *testing.T) {
	class := "csi-snap"
	suite := &benchv1.BenchmarkSuite{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "s"}, Spec: benchv1.BenchmarkSuiteSpec{
		Repeats:   3,
		DataReuse: benchv1.DataReuseSnapshot,
		Snapshot:  &benchv1.SnapshotSpec{VolumeSnapshotClassName: class},
		Databases: []benchv1.SuiteDatabase{
			{Name: "a", Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{
				LoadResources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
			{Name: "b", Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}},
		},
	}}
	plan := suitePlan(suite)
	var names []string
	for _, p := range plan {
		names = append(names, p.Name)
	}
	if want := []string{"s-a-1", "s-b-1", "s-a-2", "s-b-2", "s-a-3", "s-b-3"}; !slices.Equal(names, want) {
		t.Fatalf("plan %v, want %v", names, want)
	}
	records := make([]benchv1.SuiteRunRecord, len(plan))
	for _, tc := range []struct {
		name        string
		snapshotted []string
		want        []string // restore source per planned run
	}{
		{"both first repeats snapshotted", []string{"s-a-1", "s-b-1"}, []string{"", "", "s-a-1", "s-b-1", "s-a-1", "s-b-1"}},
		{"b's first repeat failed before its snapshot", []string{"s-a-1", "s-b-2"}, []string{"", "", "s-a-1", "", "s-a-1", "s-b-2"}},
		{"nothing snapshotted yet", nil, []string{"", "", "", "", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snapshotted := func(run string) bool { return slices.Contains(tc.snapshotted, run) }
			for i, want := range tc.want {
				if got := restoreSource(suite, plan, i, snapshotted); got != want {
					t.Errorf("run %s restores %q, want %q", plan[i].Name, got, want)
				}
				if got := reuseSource(suite, plan, records, i); got != "" {
					t.Errorf("run %s reuses %q under dataReuse Snapshot", plan[i].Name, got)
				}
			}
		})
	}
	first := suiteRun(registry.Default(), suite, plan[0], "", "")
	if s := first.Spec.Database.Snapshot; s == nil || s.VolumeSnapshotClassName != class || first.Spec.Database.Restore != nil {
		t.Errorf("the first repeat snapshot %+v restore %+v, want a snapshot of class %s", s, first.Spec.Database.Restore, class)
	}
	if first.Spec.Database.Teardown != benchv1.TeardownDelete || first.Spec.Database.Postgres.LoadResources == nil {
		t.Errorf("the first repeat: teardown %s, loadResources %v", first.Spec.Database.Teardown, first.Spec.Database.Postgres.LoadResources)
	}
	restored := suiteRun(registry.Default(), suite, plan[2], "", "s-a-1")
	if r := restored.Spec.Database.Restore; r == nil || r.Run != "s-a-1" || restored.Spec.Database.Snapshot != nil || restored.Spec.Database.Reuse != nil {
		t.Errorf("a restoring repeat: restore %+v snapshot %+v reuse %+v", r, restored.Spec.Database.Snapshot, restored.Spec.Database.Reuse)
	}
	if restored.Spec.Database.Postgres.LoadResources != nil || restored.Spec.Database.Teardown != benchv1.TeardownDelete {
		t.Errorf("a restoring repeat loads nothing and keeps nothing: loadResources %v teardown %s", restored.Spec.Database.Postgres.LoadResources, restored.Spec.Database.Teardown)
	}
	if suite.Spec.Databases[0].Database.Postgres.LoadResources == nil {
		t.Error("the suite's own spec was changed")
	}
	// The last repeat takes no snapshot nobody would restore.
	if last := suiteRun(registry.Default(), suite, plan[4], "", ""); last.Spec.Database.Snapshot != nil {
		t.Errorf("the last repeat loading afresh snapshots %+v", last.Spec.Database.Snapshot)
	}
}

func TestSuiteRunSpec(t *testing.T) {
	start := int32(5)
	suite := &benchv1.BenchmarkSuite{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "s"}, Spec: benchv1.BenchmarkSuiteSpec{
		Databases: []benchv1.SuiteDatabase{{Name: "pg", Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}}},
		Workload:  benchv1.WorkloadSpec{Warehouses: 10, Wait: benchv1.WaitNone},
		Search:    benchv1.SearchSpec{Mode: benchv1.SearchMaxCompliant, StartWarehouses: &start},
	}}
	run := suiteRun(registry.Default(), suite, suitePlan(suite)[0], "", "")
	if run.Name != "s-pg-1" || run.Namespace != "n" || run.Labels[benchv1.SuiteLabel] != "s" || run.Labels[benchv1.SuiteDatabaseLabel] != "pg" {
		t.Errorf("run %s/%s labels %v", run.Namespace, run.Name, run.Labels)
	}
	if run.Spec.Database.Teardown != benchv1.TeardownDelete || run.Spec.Workload.Wait != benchv1.WaitNone || *run.Spec.Search.StartWarehouses != 5 {
		t.Errorf("spec %+v", run.Spec)
	}
	*run.Spec.Search.StartWarehouses = 7
	if *suite.Spec.Search.StartWarehouses != 5 {
		t.Error("the run shares the suite's spec instead of copying it")
	}
}

func TestSuiteObserveRun(t *testing.T) {
	step := int32(1)
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ended := metav1.NewTime(created.Add(time.Hour))
	ms := func(n int) metav1.Duration { return metav1.Duration{Duration: time.Duration(n) * time.Millisecond} }
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "s-pg-1", CreationTimestamp: created}, Status: benchv1.BenchmarkRunStatus{
		Phase: benchv1.PhaseSucceeded,
		Steps: []benchv1.StepResult{
			{Index: 0, Transactions: map[benchv1.Transaction]benchv1.TransactionStats{benchv1.NewOrder: {P50: ms(1), P95: ms(2), P99: ms(3)}}},
			{Index: 1, Transactions: map[benchv1.Transaction]benchv1.TransactionStats{benchv1.NewOrder: {P50: ms(10), P90: ms(15), P95: ms(20), P99: ms(30)}}},
		},
		Result:     &benchv1.Result{MaxCompliantWarehouses: 8, TpmC: 100, Efficiency: 97.2, Step: &step},
		Report:     &benchv1.ReportRef{ConfigMapName: "s-pg-1-report"},
		Conditions: []metav1.Condition{{Type: benchv1.ConditionComplete, Status: metav1.ConditionTrue, LastTransitionTime: ended}},
	}}
	rec := benchv1.SuiteRunRecord{Name: "s-pg-1", Database: "pg", Repeat: 1}
	observeRun(&rec, run)
	want := benchv1.LatencyPercentiles{P50: ms(10), P95: ms(20), P99: ms(30)}
	if rec.Phase != benchv1.PhaseSucceeded || rec.Result == nil || rec.Result.TpmC != 100 || rec.Result.Latency[benchv1.NewOrder] != want ||
		rec.Report != "s-pg-1-report" || !rec.StartTime.Equal(&created) || !rec.CompletionTime.Equal(&ended) {
		t.Errorf("record %+v result %+v", rec, rec.Result)
	}
	// An ended record never changes again.
	run.Status.Result.TpmC = 1
	observeRun(&rec, run)
	if rec.Result.TpmC != 100 {
		t.Error("an ended record changed")
	}

	failed := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "s-pg-2"}, Status: benchv1.BenchmarkRunStatus{
		Phase:      benchv1.PhaseFailed,
		Conditions: []metav1.Condition{{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "LoadFailed", Message: strings.Repeat("x", 2000)}},
	}}
	rec = benchv1.SuiteRunRecord{Name: "s-pg-2"}
	observeRun(&rec, failed)
	if rec.Phase != benchv1.PhaseFailed || rec.Reason != "LoadFailed" || len(rec.Message) > maxRecordedMessage+4 || rec.Result != nil {
		t.Errorf("failed record: phase %s reason %s, message of %d bytes", rec.Phase, rec.Reason, len(rec.Message))
	}
}
