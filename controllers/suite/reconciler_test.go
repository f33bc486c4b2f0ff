package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	comparison "github.com/tpcc-operator/tpcc-operator/internal/report"
)

func suiteDatabase(name string, sync int32, commit benchv1.SynchronousCommit) benchv1.SuiteDatabase {
	return benchv1.SuiteDatabase{Name: name, Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL,
		Postgres: &benchv1.PostgresSpec{Instances: 3, SynchronousReplicas: &sync, SynchronousCommit: commit,
			Storage: benchv1.StorageSpec{Size: resource.MustParse("1Gi")}}}}
}

func suiteRunsOf(t *testing.T, suite *benchv1.BenchmarkSuite) map[string]benchv1.BenchmarkRun {
	t.Helper()
	list := &benchv1.BenchmarkRunList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(suite.Namespace), client.MatchingLabels{benchv1.SuiteLabel: suite.Name}); err != nil {
		t.Fatal(err)
	}
	out := map[string]benchv1.BenchmarkRun{}
	for _, r := range list.Items {
		out[r.Name] = r
	}
	return out
}

// A suite of 3 databases × 2 repeats: runs are created one at a time in the interleaved order, each
// after the previous one's database is gone; a manager restarted between runs and during one
// creates no run twice; a failed run is recorded with its reason and the suite goes on; the results
// are those of the runs; the asynchronous database gets a durability note.
func TestSuiteRunsOneAtATimeInterleaved(t *testing.T) {
	ns := ct.NewNamespace(t, "suite")
	pods := ct.NewClientPods()
	cfg := testConfig(pods)
	m := startSuiteManager(t, ns, cfg)

	suite := &benchv1.BenchmarkSuite{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cmp"},
		Spec: benchv1.BenchmarkSuiteSpec{
			Repeats:   2,
			DataReuse: benchv1.DataReuseNone, // every run loads afresh, interleaved
			Databases: []benchv1.SuiteDatabase{
				suiteDatabase("apply", 2, "remote_apply"),
				suiteDatabase("write", 2, "remote_write"),
				suiteDatabase("async", 0, ""),
			},
			Workload: benchv1.WorkloadSpec{Warehouses: 20, Duration: &metav1.Duration{Duration: time.Minute},
				RampUp: &metav1.Duration{}, Loader: benchv1.LoaderSpec{Pods: 4}},
			Search: benchv1.SearchSpec{Mode: benchv1.SearchFixed},
		},
	}
	if err := k8s.Create(context.Background(), suite); err != nil {
		t.Fatal(err)
	}
	order := []string{"cmp-apply-1", "cmp-write-1", "cmp-async-1", "cmp-apply-2", "cmp-write-2", "cmp-async-2"}
	medians := map[string]time.Duration{"apply": 60 * time.Millisecond, "write": 40 * time.Millisecond, "async": 20 * time.Millisecond}
	const failing = "cmp-write-1"
	uids := map[string]types.UID{}
	stepJobs := &ct.JobUIDs{Seen: map[string][]types.UID{}}

	for i, name := range order {
		var run benchv1.BenchmarkRun
		ct.Eventually(t, 30*time.Second, func() error {
			existing := suiteRunsOf(t, suite)
			var names []string
			for n := range existing {
				names = append(names, n)
			}
			sort.Strings(names)
			want := slices.Clone(order[:i+1])
			sort.Strings(want)
			if !slices.Equal(names, want) {
				if len(names) > len(want) {
					t.Fatalf("runs %v exist while %s is the next: not one at a time in the order %v", names, name, order)
				}
				return fmt.Errorf("runs %v, waiting for %s", names, name)
			}
			run = existing[name]
			return nil
		})
		uids[name] = run.UID
		for _, earlier := range order[:i] { // one at a time: every earlier run has ended, its database gone
			prev := ct.GetRun(t, &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: earlier}})
			if !comparison.Final(prev.Status.Phase) {
				t.Fatalf("%s started while %s is %s", name, earlier, prev.Status.Phase)
			}
			if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: earlier + "-db"}, &cnpgv1.Cluster{}); err == nil {
				t.Fatalf("%s started while the database of %s still exists", name, earlier)
			}
		}
		if owner := metav1.GetControllerOf(&run); owner == nil || owner.Kind != "BenchmarkSuite" || owner.Name != "cmp" || owner.UID != getSuite(t, suite).UID {
			t.Errorf("run %s is not controlled by the suite (deleting the suite would leave it): %+v", name, owner)
		}
		if run.Spec.Database.Teardown != benchv1.TeardownDelete || run.Spec.Workload.Warehouses != 20 || run.Spec.Search.Mode != benchv1.SearchFixed {
			t.Errorf("run %s spec %+v", name, run.Spec)
		}
		if i == 3 { // a manager restarted while a run is under way
			m.Stop()
			m = startSuiteManager(t, ns, cfg)
		}
		if name == failing {
			ct.SetClusterReady(t, ns, name+"-db", 3)
			ct.FailJob(t, ct.GetJob(t, ns, name+"-load"), "loader pod 0: connection refused")
			ct.Eventually(t, 20*time.Second, func() error {
				if p := ct.GetRun(t, &run).Status.Phase; p != benchv1.PhaseFailed {
					return fmt.Errorf("%s phase %s, want Failed", name, p)
				}
				return nil
			})
		} else {
			ct.DeployAndLoad(t, &run, nil)
			database := run.Labels[benchv1.SuiteDatabaseLabel]
			got := ct.DriveSteps(t, &run, pods, func(int) time.Duration { return medians[database] }, stepJobs, nil)
			if got.Status.Phase != benchv1.PhaseSucceeded || got.Status.Result == nil || got.Status.Result.Step == nil {
				t.Fatalf("%s: phase %s, result %+v", name, got.Status.Phase, got.Status.Result)
			}
		}
		if i == 2 { // a manager restarted between two runs
			m.Stop()
			m = startSuiteManager(t, ns, cfg)
		}
	}

	var got *benchv1.BenchmarkSuite
	ct.Eventually(t, 30*time.Second, func() error {
		got = getSuite(t, suite)
		if got.Status.Phase != benchv1.PhaseSucceeded {
			return fmt.Errorf("suite phase %s, conditions %+v", got.Status.Phase, got.Status.Conditions)
		}
		return nil
	})
	runs := suiteRunsOf(t, suite)
	if len(runs) != len(order) {
		t.Errorf("%d runs, want %d", len(runs), len(order))
	}
	for name, uid := range uids {
		if runs[name].UID != uid {
			t.Errorf("run %s was created again", name)
		}
	}
	s := got.Status
	if s.Progress != "6/6" || !meta.IsStatusConditionTrue(s.Conditions, benchv1.ConditionComplete) || meta.IsStatusConditionTrue(s.Conditions, benchv1.ConditionFailed) {
		t.Errorf("progress %q, conditions %+v", s.Progress, s.Conditions)
	}
	for i, rec := range s.Runs {
		if rec.Name != order[i] || rec.StartTime == nil || rec.CompletionTime == nil {
			t.Errorf("record %d: %+v", i, rec)
		}
		want := benchv1.PhaseSucceeded
		if rec.Name == failing {
			want = benchv1.PhaseFailed
		}
		if rec.Phase != want {
			t.Errorf("record %s phase %s, want %s", rec.Name, rec.Phase, want)
		}
	}
	if rec := s.Runs[1]; rec.Reason != "LoadFailed" || !strings.Contains(rec.Message, "connection refused") || rec.Result != nil {
		t.Errorf("the failed run's record %+v", rec)
	}

	// Results: hand-computed from the runs that succeeded.
	for _, row := range s.Results {
		var tpmC, efficiency, warehouses []float64
		for _, n := range order {
			r := runs[n]
			if r.Labels[benchv1.SuiteDatabaseLabel] != row.Database || r.Status.Phase != benchv1.PhaseSucceeded {
				continue
			}
			tpmC = append(tpmC, r.Status.Result.TpmC)
			efficiency = append(efficiency, r.Status.Result.Efficiency)
			warehouses = append(warehouses, float64(r.Status.Result.MaxCompliantWarehouses))
			step := r.Status.Steps[*r.Status.Result.Step]
			if rec := s.Runs[slices.IndexFunc(s.Runs, func(x benchv1.SuiteRunRecord) bool { return x.Name == n })]; rec.Result == nil ||
				rec.Result.Latency[benchv1.NewOrder].P95 != step.Transactions[benchv1.NewOrder].P95 || rec.Report != n+"-report" {
				t.Errorf("record of %s: %+v, result step NewOrder %+v", n, rec, step.Transactions[benchv1.NewOrder])
			}
		}
		wantRuns := int32(2)
		if row.Database == "write" {
			wantRuns = 1
		}
		if row.RunsDone != 2 || row.RunsSucceeded != wantRuns || row.Runs != 2 {
			t.Errorf("%s: %d runs done, %d succeeded, of %d", row.Database, row.RunsDone, row.RunsSucceeded, row.Runs)
		}
		for name, pair := range map[string]struct {
			got    *benchv1.Statistic
			values []float64
		}{"tpmC": {row.TpmC, tpmC}, "efficiency": {row.Efficiency, efficiency}, "warehouses": {row.MaxCompliantWarehouses, warehouses}} {
			mean := (pair.values[0] + pair.values[len(pair.values)-1]) / 2
			lo, hi := slices.Min(pair.values), slices.Max(pair.values)
			if g := pair.got; g == nil || !near2(g.Mean, mean) || !near2(g.Min, lo) || !near2(g.Max, hi) || g.CI95 != nil {
				t.Errorf("%s %s = %+v, want mean %.2f min %.2f max %.2f and no interval with 2 runs", row.Database, name, g, mean, lo, hi)
			}
		}
		if p50 := row.Latency[benchv1.NewOrder].P50.Duration; p50 < medians[row.Database]*8/10 || p50 > medians[row.Database]*12/10 {
			t.Errorf("%s NewOrder p50 %s, the database's median is %s", row.Database, p50, medians[row.Database])
		}
	}
	durability := map[string]string{}
	for _, row := range s.Results {
		durability[row.Database] = row.Durability
	}
	if durability["apply"] != "both synchronous standbys applied it (remote_apply)" ||
		durability["async"] != "the primary's own WAL flush only (2 asynchronous standbys, 0 synchronous replicas)" {
		t.Errorf("durability %v", durability)
	}
	notes := strings.Join(s.Notes, "\n")
	if err := ct.ContainsAll(notes, "durability not at parity: a commit on async waits for the primary's own WAL flush only",
		"durability not at parity: a commit on write waits for both synchronous standbys wrote it to the operating system",
		"runs: write has results from 1 of 2 ended runs (failed cmp-write-1: LoadFailed)"); err != nil {
		t.Error(err)
	}
	if strings.Contains(notes, "a commit on apply") {
		t.Errorf("a durability note for remote_apply, the best guarantee: %s", notes)
	}
	// Every run is Fixed and compliant at the 20 loaded warehouses: each result is a floor, so the
	// databases are neither ranked nor tied, and no leader is named.
	if s.Leader != "" || s.Report == nil || s.Report.ConfigMapName != "cmp-comparison" {
		t.Errorf("leader %q, report %+v: want no leader over floors", s.Leader, s.Report)
	}
	for _, row := range s.Results {
		if row.Bound != benchv1.BoundAllLoadedCompliant || row.Leader || !strings.HasPrefix(row.Versus, "not ranked: a floor (≥ 20 warehouses") {
			t.Errorf("%s: bound %q, leader %v, versus %q: want an unranked floor", row.Database, row.Bound, row.Leader, row.Versus)
		}
	}
	if err := ct.ContainsAll(notes, "apply: the result is a floor (≥ 20 warehouses, AllLoadedCompliant), not a capacity: it is neither ranked nor tied"); err != nil {
		t.Error(err)
	}

	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "cmp-comparison"}, cm); err != nil {
		t.Fatal(err)
	}
	if owner := metav1.GetControllerOf(cm); owner == nil || owner.Name != "cmp" {
		t.Errorf("the comparison is not owned by the suite: %+v", owner)
	}
	var parsed comparison.Comparison
	if err := json.Unmarshal([]byte(cm.Data["comparison.json"]), &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.SchemaVersion != comparison.SchemaVersion || !parsed.Complete || len(parsed.Results) != 3 || len(parsed.Runs) != 6 || parsed.Runs[0].Report != "cmp-apply-1-report" {
		t.Errorf("comparison.json: %+v", parsed)
	}
	if err := ct.ContainsAll(cm.Data["comparison.md"], "## Results", "| async | PostgreSQL, 3 instances, asynchronous |", "## Fairness notes", "No leader: apply", "| ≥ 20 |",
		"### apply", "| NewOrder |", "| cmp-write-1 | write | 1 | Failed |"); err != nil {
		t.Error(err)
	}
	if err := ct.ContainsAll(cm.Data["report.html"], "<svg", `class="bar"`, "Mean tpmC per database", "tpmC against active warehouses"); err != nil {
		t.Error("report.html:", err)
	}
	ct.AssertEvents(t, ns, "cmp", "RunCreated", "RunFailed", "RunSucceeded", "PhaseSucceeded")
	for name, ids := range stepJobs.Seen {
		if len(ids) != 1 {
			t.Errorf("Job %s was created %d times", name, len(ids))
		}
	}
}

func getSuite(t *testing.T, suite *benchv1.BenchmarkSuite) *benchv1.BenchmarkSuite {
	t.Helper()
	got := &benchv1.BenchmarkSuite{}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(suite), got); err != nil {
		t.Fatal(err)
	}
	return got
}

func near2(a, b float64) bool { return a-b < 0.006 && b-a < 0.006 }

// The next run waits until the previous run's database is gone (here a finalizer holds the Cluster
// after the run's teardown deleted it); a run deleted before it ended is recorded as failed and not
// created again; a run whose name a BenchmarkRun of someone else's already has is recorded as failed;
// a suite whose runs all failed is Failed.
func TestSuiteWaitsForTeardownAndRecordsDeletedRun(t *testing.T) {
	ns := ct.NewNamespace(t, "suite-teardown")
	pods := ct.NewClientPods()
	startSuiteManager(t, ns, testConfig(pods))
	suite := &benchv1.BenchmarkSuite{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "td"},
		Spec: benchv1.BenchmarkSuiteSpec{
			Repeats:   1,
			Databases: []benchv1.SuiteDatabase{suiteDatabase("a", 2, "remote_apply"), suiteDatabase("b", 2, "remote_apply"), suiteDatabase("c", 2, "remote_apply")},
			Workload: benchv1.WorkloadSpec{Warehouses: 20, Duration: &metav1.Duration{Duration: time.Minute},
				RampUp: &metav1.Duration{}, Loader: benchv1.LoaderSpec{Pods: 4}},
			Search: benchv1.SearchSpec{Mode: benchv1.SearchFixed},
		},
	}
	ctx := context.Background()
	foreign := ct.NewRun(ns, "td-c-1", 20, 10)
	if err := k8s.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx, suite); err != nil {
		t.Fatal(err)
	}
	first := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "td-a-1"}}
	cluster := &cnpgv1.Cluster{}
	ct.Eventually(t, 20*time.Second, func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "td-a-1-db"}, cluster)
	})
	cluster.Finalizers = append(cluster.Finalizers, "test.bench.oltp.io/hold")
	if err := k8s.Update(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	ct.SetClusterReady(t, ns, "td-a-1-db", 3)
	ct.FailJob(t, ct.GetJob(t, ns, "td-a-1-load"), "loader pod 0: out of disk")
	ct.Eventually(t, 20*time.Second, func() error {
		if p := ct.GetRun(t, first).Status.Phase; p != benchv1.PhaseFailed {
			return fmt.Errorf("phase %s", p)
		}
		c := &cnpgv1.Cluster{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(cluster), c); err != nil || c.DeletionTimestamp.IsZero() {
			return fmt.Errorf("the Cluster is not being deleted: %v", err)
		}
		cond := meta.FindStatusCondition(getSuite(t, suite).Status.Conditions, benchv1.ConditionComplete)
		if cond == nil || !strings.Contains(cond.Message, "waiting for the database of td-a-1 to be torn down before td-b-1 starts (Cluster td-a-1-db still exists)") {
			return fmt.Errorf("Complete condition %+v", cond)
		}
		return nil
	})
	time.Sleep(time.Second) // several polls: the next run must still not exist
	if _, ok := suiteRunsOf(t, suite)["td-b-1"]; ok {
		t.Fatal("td-b-1 started while the database of td-a-1 still exists")
	}
	ct.Eventually(t, 10*time.Second, func() error {
		c := &cnpgv1.Cluster{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(cluster), c); err != nil {
			return err
		}
		c.Finalizers = nil
		return k8s.Update(ctx, c)
	})
	second := &benchv1.BenchmarkRun{}
	ct.Eventually(t, 20*time.Second, func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "td-b-1"}, second)
	})
	uid := second.UID
	ct.Eventually(t, 20*time.Second, func() error { // deployed, then deleted before it ends
		return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "td-b-1-db"}, &cnpgv1.Cluster{})
	})
	if err := k8s.Delete(ctx, second); err != nil {
		t.Fatal(err)
	}
	ct.Eventually(t, 10*time.Second, func() error {
		cond := meta.FindStatusCondition(getSuite(t, suite).Status.Conditions, benchv1.ConditionComplete)
		if cond == nil || !strings.Contains(cond.Message, "waiting for the database of td-b-1 to be torn down") {
			return fmt.Errorf("Complete condition %+v", cond)
		}
		return nil
	})
	// The garbage collector (which envtest does not run) deletes what the deleted run owned.
	if err := k8s.Delete(ctx, &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "td-b-1-db"}}); err != nil {
		t.Fatal(err)
	}
	var got *benchv1.BenchmarkSuite
	ct.Eventually(t, 20*time.Second, func() error {
		got = getSuite(t, suite)
		if got.Status.Phase != benchv1.PhaseFailed {
			return fmt.Errorf("suite phase %s, runs %+v", got.Status.Phase, got.Status.Runs)
		}
		return nil
	})
	time.Sleep(500 * time.Millisecond)
	if run, ok := suiteRunsOf(t, suite)["td-b-1"]; ok && run.UID != uid {
		t.Error("the deleted run was created again")
	}
	if f := ct.GetRun(t, foreign); metav1.GetControllerOf(f) != nil || f.Labels[benchv1.SuiteLabel] != "" {
		t.Errorf("the suite took over someone else's run: %+v %v", metav1.GetControllerOf(f), f.Labels)
	}
	recs := got.Status.Runs
	if len(recs) != 3 || recs[0].Reason != "LoadFailed" || !strings.Contains(recs[0].Message, "out of disk") ||
		recs[1].Phase != benchv1.PhaseFailed || recs[1].Reason != "RunDeleted" || recs[2].Phase != benchv1.PhaseFailed || recs[2].Reason != "RunNameTaken" {
		t.Errorf("records %+v", recs)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed); c == nil || c.Status != metav1.ConditionTrue || c.Reason != "NoResult" ||
		!strings.Contains(c.Message, "td-a-1 (LoadFailed), td-b-1 (RunDeleted), td-c-1 (RunNameTaken)") {
		t.Errorf("Failed condition %+v", c)
	}
	if got.Status.Leader != "" || got.Status.Results[0].TpmC != nil {
		t.Errorf("a leader or figures without a result: %q %+v", got.Status.Leader, got.Status.Results)
	}
}

// nextSuiteRun waits for the suite to create its run name.
func nextSuiteRun(t *testing.T, suite *benchv1.BenchmarkSuite, name string) *benchv1.BenchmarkRun {
	t.Helper()
	var run benchv1.BenchmarkRun
	ct.Eventually(t, 30*time.Second, func() error {
		r, ok := suiteRunsOf(t, suite)[name]
		if !ok {
			return fmt.Errorf("waiting for %s", name)
		}
		run = r
		return nil
	})
	return &run
}

// Reusing data (the default): each database is loaded once and its repeats run one after the
// other on it — the first kept (Retain, owned by the suite so it cannot outlive it), the next
// taking it over and tearing it down — and the comparison says so; a repeat after a failed one
// loads afresh, the failed one's kept database torn down first.
func TestSuiteReusesDataAcrossRepeats(t *testing.T) {
	ns := ct.NewNamespace(t, "suite-reuse")
	pods := ct.NewClientPods()
	startSuiteManager(t, ns, testConfig(pods))
	suite := &benchv1.BenchmarkSuite{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "rs"},
		Spec: benchv1.BenchmarkSuiteSpec{
			Repeats:   2,
			Databases: []benchv1.SuiteDatabase{suiteDatabase("a", 2, "remote_apply"), suiteDatabase("b", 2, "remote_apply")},
			Workload: benchv1.WorkloadSpec{Warehouses: 8, Duration: &metav1.Duration{Duration: time.Minute},
				RampUp: &metav1.Duration{}, Loader: benchv1.LoaderSpec{Pods: 4}},
			Search: benchv1.SearchSpec{Mode: benchv1.SearchFixed},
		},
	}
	if err := k8s.Create(context.Background(), suite); err != nil {
		t.Fatal(err)
	}
	next := func(name string) *benchv1.BenchmarkRun { return nextSuiteRun(t, suite, name) }
	stepJobs := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	fast := func(int) time.Duration { return 20 * time.Millisecond }

	a1 := next("rs-a-1")
	if a1.Spec.Database.Teardown != benchv1.TeardownRetain || a1.Spec.Database.Reuse != nil {
		t.Errorf("rs-a-1: teardown %s, reuse %+v", a1.Spec.Database.Teardown, a1.Spec.Database.Reuse)
	}
	ct.DeployAndLoad(t, a1, nil)
	ct.DriveSteps(t, a1, pods, fast, stepJobs, nil)
	if owner := metav1.GetControllerOf(ct.GetCluster(t, ns, "rs-a-1-db")); owner == nil || owner.Kind != "BenchmarkSuite" || owner.Name != "rs" {
		t.Errorf("the kept database's controller %+v: want the suite", owner)
	}

	a2 := next("rs-a-2")
	if a2.Spec.Database.Teardown != benchv1.TeardownDelete || a2.Spec.Database.Reuse == nil || a2.Spec.Database.Reuse.Run != "rs-a-1" {
		t.Fatalf("rs-a-2: teardown %s, reuse %+v", a2.Spec.Database.Teardown, a2.Spec.Database.Reuse)
	}
	check := ct.GetJob(t, ns, "rs-a-2-check")
	grown := ct.LoadedDataset(8)
	grown.Rows["orders"] += 500
	ct.CheckPod(t, check, grown)
	ct.SetJobProgress(t, check, "", 1, true)
	if got := ct.DriveSteps(t, a2, pods, fast, stepJobs, nil); got.Status.Phase != benchv1.PhaseSucceeded || got.Status.Load.ReusedFrom != "rs-a-1" {
		t.Fatalf("rs-a-2: phase %s, load %+v", got.Status.Phase, got.Status.Load)
	}

	// b-1 fails: b-2 loads afresh, after b-1's kept database is gone.
	b1 := next("rs-b-1")
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "rs-a-1-db"}, &cnpgv1.Cluster{}); err == nil {
		t.Error("rs-b-1 started while a's database still exists")
	}
	ct.SetClusterReady(t, ns, "rs-b-1-db", 3)
	ct.FailJob(t, ct.GetJob(t, ns, "rs-b-1-load"), "loader pod 0: connection refused")
	b2 := next("rs-b-2")
	if b2.Spec.Database.Reuse != nil {
		t.Errorf("rs-b-2 reuses %+v after rs-b-1 failed", b2.Spec.Database.Reuse)
	}
	if got := ct.GetRun(t, b1); got.Spec.Database.Teardown != benchv1.TeardownDelete {
		t.Errorf("rs-b-1's teardown %s: the database nobody will reuse must go", got.Spec.Database.Teardown)
	}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "rs-b-1-db"}, &cnpgv1.Cluster{}); err == nil {
		t.Error("rs-b-2 started while rs-b-1's kept database still exists")
	}
	ct.DeployAndLoad(t, b2, nil)
	ct.DriveSteps(t, b2, pods, fast, stepJobs, nil)

	var got *benchv1.BenchmarkSuite
	ct.Eventually(t, 30*time.Second, func() error {
		got = getSuite(t, suite)
		if got.Status.Phase != benchv1.PhaseSucceeded {
			return fmt.Errorf("suite phase %s", got.Status.Phase)
		}
		return nil
	})
	if r := got.Status.Runs[1]; r.Name != "rs-a-2" || r.ReusedFrom != "rs-a-1" || r.DataGrowth["orders"] != 500 {
		t.Errorf("record %+v", r)
	}
	if !slices.ContainsFunc(got.Status.Notes, func(n string) bool {
		return strings.HasPrefix(n, "data: a was loaded once; rs-a-2 on the data rs-a-1 kept, grown since the load by orders +500")
	}) {
		t.Errorf("notes %q", got.Status.Notes)
	}
}
