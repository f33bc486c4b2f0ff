package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

// The plugin against a real API server (envtest) with our CRDs: runs in every phase are created
// and their status set directly; no operator runs.

var (
	env *testenv.Env
	k8s client.Client
	// admin and nobody are kubeconfig files: a cluster admin, and a user without any RBAC.
	admin, nobody, reader string
)

const ns = "plugin"

var now = time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	nowFunc = func() time.Time { return now }
	testenv.Main(m, func(e *testenv.Env, c client.Client) {
		env, k8s = e, c
		dir, err := os.MkdirTemp("", "kubectl-tpcc")
		if err != nil {
			panic(err)
		}
		admin, nobody = kubeconfig(dir, envtest.User{Name: "admin", Groups: []string{"system:masters"}}), kubeconfig(dir, envtest.User{Name: "nobody"})
		reader = kubeconfig(dir, envtest.User{Name: "reader"})
		// reader may read runs and suites, not ConfigMaps.
		for _, o := range []client.Object{
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
			&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "runs-reader"}, Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"bench.oltp.io"}, Resources: []string{"benchmarkruns", "benchmarksuites"}, Verbs: []string{"get", "list"}}}},
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "runs-reader"}, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "runs-reader"},
				Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "reader"}}},
		} {
			if err := c.Create(context.Background(), o); err != nil {
				panic(err)
			}
		}
	})
}

func kubeconfig(dir string, user envtest.User) string {
	u, err := env.AddUser(user, env.Config)
	if err != nil {
		panic(err)
	}
	body, err := u.KubeConfig()
	if err != nil {
		panic(err)
	}
	path := filepath.Join(dir, user.Name+".kubeconfig")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		panic(err)
	}
	return path
}

// tpcc runs the plugin as kubeconfig's user in namespace ns.
func tpcc(t *testing.T, kubeconfig string, args ...string) (string, string, int) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(context.Background(), append([]string{"--kubeconfig", kubeconfig, "-n", ns}, args...), &out, &errs)
	return out.String(), errs.String(), code
}

func expect(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

func d(v time.Duration) metav1.Duration   { return metav1.Duration{Duration: v} }
func pd(v time.Duration) *metav1.Duration { return &metav1.Duration{Duration: v} }
func mt(v time.Time) *metav1.Time         { return &metav1.Time{Time: v} }

func spec(sync int32, commit benchv1.SynchronousCommit) benchv1.BenchmarkRunSpec {
	return benchv1.BenchmarkRunSpec{
		Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Instances: 3, SynchronousReplicas: &sync,
			SynchronousCommit: commit, Storage: benchv1.StorageSpec{Size: resource.MustParse("1Gi")}}},
		Workload: benchv1.WorkloadSpec{Warehouses: 20, Duration: pd(5 * time.Minute), RampUp: pd(time.Minute)},
	}
}

func step(index, warehouses int32, tpmC float64, compliant bool, start time.Time) benchv1.StepResult {
	s := benchv1.StepResult{Index: index, ActiveWarehouses: warehouses, Kind: benchv1.StepFull, Duration: pd(5 * time.Minute),
		StartTime: mt(start), EndTime: mt(start.Add(5 * time.Minute)), TpmC: tpmC, Efficiency: tpmC / 12.86 / float64(warehouses) * 100, Compliant: compliant,
		Transactions: map[benchv1.Transaction]benchv1.TransactionStats{}}
	for i, tx := range benchv1.Transactions {
		l := time.Duration(20+10*i+int(warehouses)) * time.Millisecond
		s.Transactions[tx] = benchv1.TransactionStats{Count: 1000, P50: d(l / 2), P90: d(l), P95: d(l * 3 / 2), P99: d(l * 2), Max: d(l * 4)}
	}
	if !compliant {
		s.Reasons = []string{"NewOrder p90 6.1s > 5s"}
	}
	return s
}

// makeRun creates a run named name and sets its status.
func makeRun(t *testing.T, name string, sp benchv1.BenchmarkRunSpec, status benchv1.BenchmarkRunStatus) *benchv1.BenchmarkRun {
	t.Helper()
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: sp}
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	run.Status = status
	if err := k8s.Status().Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run
}

func gz(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// stepSeriesOf is a step's series as the operator keeps it: 30 intervals of 10 s.
func stepSeriesOf(index int32, start time.Time) measure.IndexedSeries {
	s := measure.IndexedSeries{Index: index, StepSeries: measure.StepSeries{Origin: start, LengthSeconds: 10, Series: snapshot.CompactSeries{Start: start, LengthSeconds: 10,
		Types: map[snapshot.Transaction]*snapshot.CompactColumns{}, ReplayLagMillis: map[string][]int64{"db-2": {}}, Checkpoints: make([]int64, 30)},
		Resources: map[string]*snapshot.PodSeries{"db-1": {Role: "Database"}}}}
	col := &snapshot.CompactColumns{}
	for i := 0; i < 30; i++ {
		s.Series.Index = append(s.Series.Index, i)
		col.Completed, col.Errors = append(col.Completed, 40), append(col.Errors, 0)
		col.P50, col.P90, col.P99, col.Max = append(col.P50, 20000), append(col.P90, int64(40000+i*100)), append(col.P99, 80000), append(col.Max, 90000)
		s.Series.ReplayLagMillis["db-2"] = append(s.Series.ReplayLagMillis["db-2"], int64(i%5))
		p := s.Resources["db-1"]
		p.Index, p.CPUMillis, p.MemoryMiB = append(p.Index, i), append(p.CPUMillis, 1200), append(p.MemoryMiB, 900)
	}
	s.Series.Checkpoints[17] = 1
	s.Series.Types[snapshot.NewOrder] = col
	return s
}

// phases creates a run in each phase and returns them by phase.
func phases(t *testing.T) map[benchv1.Phase]*benchv1.BenchmarkRun {
	t.Helper()
	start := now.Add(-40 * time.Minute)
	out := map[benchv1.Phase]*benchv1.BenchmarkRun{}
	out[benchv1.PhasePending] = makeRun(t, "run-pending", spec(2, "remote_apply"), benchv1.BenchmarkRunStatus{Phase: benchv1.PhasePending})
	out[benchv1.PhaseLoading] = makeRun(t, "run-loading", spec(2, "remote_apply"), benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseLoading,
		Load: &benchv1.LoadStatus{Warehouses: 20, WarehousesLoaded: 12, Pods: 4, StartTime: mt(now.Add(-3 * time.Minute))}})
	out[benchv1.PhaseRunning] = makeRun(t, "run-running", spec(2, "remote_apply"), benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseRunning,
		Steps: []benchv1.StepResult{step(0, 20, 240, true, start), step(1, 10, 124, true, start.Add(7*time.Minute))},
		Current: &benchv1.StepProgress{Index: 2, ActiveWarehouses: 15, Kind: benchv1.StepFull, Duration: pd(5 * time.Minute), Pods: 1,
			StartTime: mt(now.Add(-70 * time.Second)), Elapsed: pd(65 * time.Second), TpmC: 181.5,
			P90: map[benchv1.Transaction]metav1.Duration{benchv1.NewOrder: d(41 * time.Millisecond), benchv1.Payment: d(22 * time.Millisecond)}}})
	result := benchv1.Result{MaxCompliantWarehouses: 20, TpmC: 250, Efficiency: 97.2, Step: new(int32), RestsOn: []int32{0}, Message: "20 active warehouses compliant: 250.0 tpmC (all loaded warehouses compliant)"}
	// The succeeded run's step keeps its summary; its per-pod placement is in its step ConfigMap.
	done := step(0, 20, 250, true, start)
	done.Placement, done.DetailIn = &benchv1.StepPlacement{Primary: "run-done-db-1", PrimaryNode: "n1", Pods: []benchv1.PodPlacementRecord{}}, "run-done-step-0"
	out[benchv1.PhaseSucceeded] = makeRun(t, "run-done", spec(2, "remote_apply"), benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseSucceeded,
		Steps: []benchv1.StepResult{done}, Result: &result, Report: &benchv1.ReportRef{ConfigMapName: "run-done-report"}})
	recorded := done
	recorded.DetailIn, recorded.Placement = "", &benchv1.StepPlacement{Primary: "run-done-db-1", PrimaryNode: "n1", Pods: []benchv1.PodPlacementRecord{
		{Name: "run-done-db-1", Role: benchv1.RoleDatabase, Node: "n1"}, {Name: "run-done-step-0-0-x", Role: benchv1.RoleClient, Node: "n2"}}}
	stepJSON, err := json.Marshal(map[string]any{"step": recorded})
	if err != nil {
		t.Fatal(err)
	}
	out[benchv1.PhaseFailed] = makeRun(t, "run-failed", spec(2, "remote_apply"), benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseFailed,
		Conditions: []metav1.Condition{{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "DatabaseNotReady", Message: "the Cluster was not ready within 10m", LastTransitionTime: metav1.NewTime(now)}}})
	// The succeeded run's report ConfigMap, as the operator writes it; the running run's step series.
	series := measure.SeriesReport{SchemaVersion: 1, Steps: []measure.IndexedSeries{stepSeriesOf(0, start)}}
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "run-done-report"}, Data: map[string]string{"report.json": `{"schemaVersion": 2, "run": "run-done"}`, "report.md": "# operator's"},
			BinaryData: map[string][]byte{"series.json.gz": gz(t, series)}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "run-running-step-0-series"}, BinaryData: map[string][]byte{"series.json.gz": gz(t, stepSeriesOf(0, start))}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "run-done-step-0"}, Data: map[string]string{"step.json": string(stepJSON)}},
	} {
		if err := k8s.Create(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestPlugin(t *testing.T) {
	runs := phases(t)
	t.Run("status in each phase", func(t *testing.T) {
		for phase, want := range map[benchv1.Phase][]string{
			benchv1.PhasePending: {"BenchmarkRun plugin/run-pending (PostgreSQL): Pending"},
			benchv1.PhaseLoading: {"Loading", "load: 12/20 warehouses loaded, 3m0s so far"},
			benchv1.PhaseRunning: {"Running", "current: step 2 (Full, 15 active warehouses, 1 pods): 1m10s of 5m0s elapsed, 3m50s remaining, tpmC 181.5",
				"p90 NewOrder 41.0ms, Payment 22.0ms", "steps so far:", "STEP", "NEWORDER P90"},
			benchv1.PhaseSucceeded: {"Succeeded", "result: 20 active warehouses compliant", "bound: AllLoadedCompliant — a floor: ≥ 20 warehouses; load more warehouses",
				"check: No consistency check after the last step is recorded for this run.", "report: ConfigMap run-done-report",
				"placement: step 0: database run-done-db-1 on n1 (primary); clients run-done-step-0-0-x on n2"},
			benchv1.PhaseFailed: {"Failed", "failed: DatabaseNotReady: the Cluster was not ready within 10m",
				"hint: `kubectl describe` the database object (`kubectl get cluster,crdbcluster,storage,database -l bench.oltp.io/run=run-failed`)"},
		} {
			out, errs, code := tpcc(t, admin, "status", runs[phase].Name)
			if code != exitOK {
				t.Errorf("%s: exit %d: %s", phase, code, errs)
			}
			expect(t, string(phase)+" status", out, want...)
		}
	})

	t.Run("list", func(t *testing.T) {
		out, errs, code := tpcc(t, admin, "status")
		if code != exitOK {
			t.Errorf("exit %d: %s", code, errs)
		}
		expect(t, "status without NAME", out, "KIND  NAME ", "run   run-done     Succeeded  1 steps ", "≥ 250.0 tpmC at ≥ 20 warehouses (AllLoadedCompliant: a floor)",
			"run   run-failed   Failed", "DatabaseNotReady", "run   run-loading  Loading    loaded 12/20 warehouses", "run-running  Running    step 2 at 15 warehouses")
		if strings.Contains(out, "NAMESPACE") {
			t.Error("one namespace's listing has a NAMESPACE column")
		}
		out, _, code = tpcc(t, admin, "status", "-A")
		if code != exitOK || !strings.Contains(out, "NAMESPACE  KIND") || !strings.Contains(out, "plugin     run") {
			t.Errorf("status -A (exit %d):\n%s", code, out)
		}
		out, errs, code = tpcc(t, admin, "status", "-n", "default")
		if code != exitOK || out != "" || !strings.Contains(errs, "no BenchmarkRuns or BenchmarkSuites in namespace default") {
			t.Errorf("an empty namespace (exit %d): %q %q", code, out, errs)
		}
	})

	t.Run("report of a succeeded run", func(t *testing.T) {
		out, _, code := tpcc(t, admin, "report", "run-done", "-o", "json")
		if code != exitOK || out != `{"schemaVersion": 2, "run": "run-done"}` {
			t.Errorf("-o json is not the ConfigMap's report.json (exit %d): %s", code, out)
		}
		out, _, code = tpcc(t, admin, "report", "run-done")
		if code != exitOK {
			t.Errorf("exit %d", code)
		}
		expect(t, "-o md", out, "# BenchmarkRun plugin/run-done — PostgreSQL", "| step | kind | measured |", "## Response times at 20 active warehouses",
			"run-done-db-1 n1", "run-done-step-0-0-x n2") // the placement rows, from the step's ConfigMap
		file := filepath.Join(t.TempDir(), "run-done.html")
		_, errs, code := tpcc(t, admin, "report", "run-done", "-o", "html", "-f", file)
		page, err := os.ReadFile(file)
		if code != exitOK || err != nil {
			t.Fatalf("exit %d, %v: %s", code, err, errs)
		}
		expect(t, "-o html", string(page), "<svg", "tpmC against active warehouses", "Step 0: p90 response time over time", "Step 0: standby replay lag", "Step 0: CPU of the database pods")
		expect(t, "stderr", errs, "wrote "+file)
	})

	t.Run("report of runs under way", func(t *testing.T) {
		out, errs, code := tpcc(t, admin, "report", "run-running", "-o", "html")
		if code != exitIncomplete {
			t.Errorf("exit %d, want %d", code, exitIncomplete)
		}
		expect(t, "stderr", errs, "incomplete: BenchmarkRun plugin/run-running is Running: the report holds what is recorded so far")
		expect(t, "-o html", out, "this report shows what is recorded so far", "the run is Running: 2 steps recorded so far", "Step 0: p90 response time over time")
		out, _, code = tpcc(t, admin, "report", "run-pending", "-o", "json")
		var partial partialReport
		if err := json.Unmarshal([]byte(out), &partial); err != nil || code != exitIncomplete || !partial.Partial || partial.Phase != benchv1.PhasePending {
			t.Errorf("-o json of a pending run (exit %d, %v): %s", code, err, out)
		}
		out, _, code = tpcc(t, admin, "report", "run-failed", "-o", "md")
		if code != exitOK {
			t.Errorf("a failed run has ended: exit %d", code)
		}
		expect(t, "failed run's report", out, "the run is Failed: 0 steps recorded so far")
	})

	t.Run("compare", func(t *testing.T) {
		makeRun(t, "run-async", spec(0, ""), benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseSucceeded, Steps: []benchv1.StepResult{step(0, 20, 252, true, now)},
			Result: &benchv1.Result{MaxCompliantWarehouses: 20, TpmC: 252, Efficiency: 98, Step: new(int32), Message: "20 compliant"}})
		out, errs, code := tpcc(t, admin, "compare", "run-done", "run-async")
		if code != exitOK {
			t.Errorf("exit %d: %s", code, errs)
		}
		expect(t, "compare -o md", out, "# Comparison of BenchmarkRuns plugin/run-done, run-async", "## Fairness notes", "durability not at parity: a commit on run-async",
			// Both were compliant at all 20 loaded warehouses: two floors, neither ranked nor tied.
			"No leader: run-done (≥ 20 warehouses, AllLoadedCompliant), run-async (≥ 20 warehouses, AllLoadedCompliant) are a floor")
		out, _, code = tpcc(t, admin, "compare", "run-done", "plugin/run-async", "-o", "html")
		if code != exitOK || strings.Count(out, `class="bar"`) != 2 {
			t.Errorf("compare -o html: exit %d, %d bars", code, strings.Count(out, `class="bar"`))
		}
		_, errs, code = tpcc(t, admin, "compare", "run-done", "run-running")
		if code != exitIncomplete {
			t.Errorf("compare with a running run: exit %d", code)
		}
		expect(t, "stderr", errs, "not every run has ended (run-running is Running)")
	})

	t.Run("suite", func(t *testing.T) {
		suite := &benchv1.BenchmarkSuite{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "study"}, Spec: benchv1.BenchmarkSuiteSpec{Repeats: 1,
			Workload:  benchv1.WorkloadSpec{Warehouses: 20, Duration: pd(5 * time.Minute), RampUp: pd(time.Minute)},
			Databases: []benchv1.SuiteDatabase{{Name: "a", Database: spec(2, "remote_apply").Database}, {Name: "b", Database: spec(0, "").Database}, {Name: "c", Database: spec(2, "remote_write").Database}}}}
		if err := k8s.Create(context.Background(), suite); err != nil {
			t.Fatal(err)
		}
		makeRun(t, "study-b-1", spec(0, ""), benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseRunning, Steps: []benchv1.StepResult{step(0, 20, 240, true, now)},
			Current: &benchv1.StepProgress{Index: 1, ActiveWarehouses: 10, Pods: 1}})
		suite.Status = benchv1.BenchmarkSuiteStatus{Phase: benchv1.PhaseRunning, Progress: "1/3", Runs: []benchv1.SuiteRunRecord{
			{Name: "study-a-1", Database: "a", Repeat: 1, Phase: benchv1.PhaseSucceeded, StartTime: mt(now.Add(-time.Hour)), CompletionTime: mt(now),
				Result: &benchv1.SuiteRunResult{MaxCompliantWarehouses: 20, TpmC: 250, Efficiency: 97}},
			{Name: "study-b-1", Database: "b", Repeat: 1, Phase: benchv1.PhaseRunning, StartTime: mt(now)},
			{Name: "study-c-1", Database: "c", Repeat: 1}}}
		if err := k8s.Status().Update(context.Background(), suite); err != nil {
			t.Fatal(err)
		}
		out, _, code := tpcc(t, admin, "status", "study")
		if code != exitOK {
			t.Errorf("exit %d", code)
		}
		expect(t, "suite status", out, "BenchmarkSuite plugin/study: Running, 1/3 runs ended", "study-a-1", "BenchmarkRun plugin/study-b-1 (PostgreSQL): Running",
			"current: step 1 (Full, 10 active warehouses, 1 pods): starting")
		out, errs, code := tpcc(t, admin, "report", "study", "-o", "html")
		if code != exitIncomplete {
			t.Errorf("exit %d", code)
		}
		expect(t, "stderr", errs, "BenchmarkSuite plugin/study has 1 of 3 runs ended")
		expect(t, "suite html", out, "Mean tpmC per database", "tpmC against active warehouses", "study-b-1")
		if n := strings.Count(out, `class="bar"`); n != 3 {
			t.Errorf("%d bars, want 3", n)
		}
	})

	t.Run("status -w follows a run until it ends", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			end   benchv1.Phase
			code  int
			final string
		}{
			{"watch-ok", benchv1.PhaseSucceeded, exitOK, "result: 10 compliant"},
			{"watch-failed", benchv1.PhaseFailed, exitRunFailed, "failed: LoadFailed: the loader failed"},
		} {
			run := makeRun(t, tc.name, spec(2, "remote_apply"), benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseLoading, Load: &benchv1.LoadStatus{Warehouses: 20, WarehousesLoaded: 5}})
			go func() {
				time.Sleep(300 * time.Millisecond)
				run.Status = benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseRunning, Current: &benchv1.StepProgress{Index: 0, ActiveWarehouses: 20, Pods: 1}}
				if err := k8s.Status().Update(context.Background(), run); err != nil {
					t.Errorf("%s: %v", tc.name, err)
				}
				time.Sleep(300 * time.Millisecond)
				run.Status = benchv1.BenchmarkRunStatus{Phase: tc.end, Steps: []benchv1.StepResult{step(0, 10, 120, true, now)}}
				if tc.end == benchv1.PhaseSucceeded {
					run.Status.Result = &benchv1.Result{MaxCompliantWarehouses: 10, TpmC: 120, Step: new(int32), Message: "10 compliant"}
				} else {
					run.Status.Conditions = []metav1.Condition{{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "LoadFailed", Message: "the loader failed", LastTransitionTime: metav1.NewTime(now)}}
				}
				if err := k8s.Status().Update(context.Background(), run); err != nil {
					t.Errorf("%s: %v", tc.name, err)
				}
			}()
			out, errs, code := tpcc(t, admin, "status", tc.name, "-w", "--interval", "50ms", "--timeout", "30s")
			if code != tc.code {
				t.Errorf("%s: exit %d, want %d: %s", tc.name, code, tc.code, errs)
			}
			expect(t, tc.name, out, "following "+tc.name, "Loading — 5/20 warehouses loaded", "Running — step 0 (Full, 20 active warehouses, 1 pods): starting", string(tc.end)+" — 1 step(s) recorded", tc.final)
		}
		_, errs, code := tpcc(t, admin, "status", "run-running", "-w", "--interval", "50ms", "--timeout", "200ms")
		if code != exitIncomplete {
			t.Errorf("timeout: exit %d", code)
		}
		expect(t, "timeout", errs, "run-running did not end within --timeout 200ms (it is Running)")
	})

	t.Run("errors", func(t *testing.T) {
		dead := filepath.Join(t.TempDir(), "dead.kubeconfig")
		if err := os.WriteFile(dead, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name       string
			kubeconfig string
			args       []string
			code       int
			message    string
		}{
			{"no such run", admin, []string{"status", "nope"}, exitNotFound, `error: no BenchmarkRun or BenchmarkSuite "nope" in namespace plugin`},
			{"no such run anywhere", admin, []string{"report", "nope", "-A"}, exitNotFound, `no BenchmarkRun or BenchmarkSuite "nope" in any namespace`},
			{"compare: no such run", admin, []string{"compare", "run-done", "nope"}, exitNotFound, "benchmarkruns.bench.oltp.io nope in namespace plugin not found"},
			{"no cluster", dead, []string{"status", "run-done"}, exitNoCluster, "error: no cluster: "},
			{"no permission", nobody, []string{"status", "run-done"}, exitForbidden,
				`error: no permission to get benchmarkruns.bench.oltp.io run-done in namespace plugin: benchmarkruns.bench.oltp.io "run-done" is forbidden: User "nobody" cannot get resource "benchmarkruns"`},
			{"no permission on ConfigMaps", reader, []string{"report", "run-done", "-o", "html"}, exitForbidden,
				"error: no permission to get configmaps run-done-report in namespace plugin: "},
			{"no permission -A", nobody, []string{"status", "run-done", "-A"}, exitForbidden, "error: no permission to list benchmarkruns.bench.oltp.io"},
			{"no permission to list", nobody, []string{"status"}, exitForbidden, "error: no permission to list benchmarkruns.bench.oltp.io in namespace plugin"},
			{"follow without NAME", admin, []string{"status", "-w"}, exitUsage, "-w follows one run or suite: give its NAME"},
			{"bad output", admin, []string{"report", "run-done", "-o", "pdf"}, exitUsage, `--output "pdf": want html, md or json`},
			{"one run to compare", admin, []string{"compare", "run-done"}, exitUsage, "compare needs two runs or more, or one and --baseline"},
			{"unknown flag", admin, []string{"status", "run-done", "--bogus"}, exitUsage, "unknown flag: --bogus"},
		} {
			_, errs, code := tpcc(t, tc.kubeconfig, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.message) {
				t.Errorf("%s: exit %d (want %d), stderr %q, want %q", tc.name, code, tc.code, errs, tc.message)
			}
		}
	})
}
