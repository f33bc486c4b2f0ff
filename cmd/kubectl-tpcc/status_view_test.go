package main

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestCurrentWords(t *testing.T) {
	at := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	started := &metav1.Time{Time: at.Add(-90 * time.Second)}
	for _, tc := range []struct {
		name string
		c    benchv1.StepProgress
		want string
	}{
		{"ramping up", benchv1.StepProgress{Index: 3, ActiveWarehouses: 40, Pods: 2}, "step 3 (Full, 40 active warehouses, 2 pods): starting (pods starting or ramping up)"},
		{"measuring", benchv1.StepProgress{Index: 3, ActiveWarehouses: 40, Kind: benchv1.StepProbe, Pods: 2, Duration: pd(2 * time.Minute), StartTime: started, TpmC: 501.25},
			"step 3 (Probe, 40 active warehouses, 2 pods): 1m30s of 2m0s elapsed, 30s remaining, tpmC 501.2"},
		{"overrun", benchv1.StepProgress{Index: 0, ActiveWarehouses: 1, Pods: 1, Duration: pd(time.Minute), StartTime: started},
			"step 0 (Full, 1 active warehouses, 1 pods): 1m30s of 1m0s elapsed, 0s remaining"},
		{"no planned length", benchv1.StepProgress{Index: 0, ActiveWarehouses: 1, Pods: 1, StartTime: started, Elapsed: pd(2 * time.Minute)},
			"step 0 (Full, 1 active warehouses, 1 pods): 2m0s elapsed"},
	} {
		if got := currentWords(&tc.c, at); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestRunLineAndKey(t *testing.T) {
	at := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	run := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseLoading, Load: &benchv1.LoadStatus{Warehouses: 10, WarehousesLoaded: 4}}}
	if got, want := runLine(run, at), "Loading — 4/10 warehouses loaded"; got != want {
		t.Errorf("runLine = %q, want %q", got, want)
	}
	before := runKey(run)
	run.Status.Load.WarehousesLoaded = 5
	if runKey(run) != before {
		t.Error("load progress alone changes the key (it is a live figure)")
	}
	run.Status.Phase = benchv1.PhaseRunning
	if runKey(run) == before {
		t.Error("a new phase keeps the key")
	}
	switching := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseLoading,
		Load: &benchv1.LoadStatus{Warehouses: 10, WarehousesLoaded: 10, StartTime: &metav1.Time{Time: at.Add(-5 * time.Minute)}, CompletionTime: &metav1.Time{Time: at.Add(-3 * time.Minute)}},
		Conditions: []metav1.Condition{{Type: benchv1.ConditionDatabaseReady, Status: metav1.ConditionFalse, Reason: benchv1.ReasonSwitchingResources,
			Message: "switching from loadResources to the measured resources (cpu 150m): 2/3 pods restarted"}}}}
	if got, want := runLine(switching, at), "Loading — 10/10 warehouses loaded in 2m0s — switching from loadResources to the measured resources (cpu 150m): 2/3 pods restarted"; got != want {
		t.Errorf("runLine while switching = %q, want %q", got, want)
	}
	// Between steps, waiting for the database: said at once, and gone once it is ready again.
	waiting := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseRunning, Steps: make([]benchv1.StepResult, 1),
		Conditions: []metav1.Condition{{Type: benchv1.ConditionDatabaseReady, Status: metav1.ConditionFalse, Reason: benchv1.ReasonDatabaseUnavailable,
			Message: "step 1 waits for the database after step 0 (Full, 10 active warehouses, NonCompliant): 2/3 instances ready"}}}}
	if got, want := runLine(waiting, at), "Running — step 1 waits for the database after step 0 (Full, 10 active warehouses, NonCompliant): 2/3 instances ready — 1 step(s) recorded"; got != want {
		t.Errorf("runLine while waiting = %q, want %q", got, want)
	}
	waitingKey := runKey(waiting)
	waiting.Status.Conditions[0] = metav1.Condition{Type: benchv1.ConditionDatabaseReady, Status: metav1.ConditionTrue, Reason: benchv1.ReasonDatabaseReadyAgain, Message: "ready again after 40s"}
	if got, want := runLine(waiting, at), "Running — 1 step(s) recorded"; got != want || runKey(waiting) == waitingKey {
		t.Errorf("runLine once ready again = %q (want %q), key changed %t", got, want, runKey(waiting) != waitingKey)
	}
	if got, want := runLine(&benchv1.BenchmarkRun{}, at), "Pending"; got != want {
		t.Errorf("runLine of a new run = %q, want %q", got, want)
	}
}

func TestListTable(t *testing.T) {
	at := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	made := func(ns, name string, age time.Duration) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(at.Add(-age))}
	}
	inSuite := made("bench", "study-pg-1", 50*time.Minute)
	inSuite.Labels = map[string]string{benchv1.SuiteLabel: "study"}
	runs := []benchv1.BenchmarkRun{
		{ObjectMeta: made("bench", "zeta", 3*time.Hour), Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseSucceeded, Steps: make([]benchv1.StepResult, 7),
			Result: &benchv1.Result{MaxCompliantWarehouses: 131, TpmC: 1625.84}}},
		{ObjectMeta: inSuite, Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseRunning, Steps: make([]benchv1.StepResult, 2),
			Current: &benchv1.StepProgress{Index: 2, ActiveWarehouses: 90}}},
		{ObjectMeta: made("bench", "alpha", 2*time.Minute), Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseLoading,
			Load: &benchv1.LoadStatus{Warehouses: 200, WarehousesLoaded: 40}}},
		{ObjectMeta: made("other", "broken", 26*time.Hour), Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseFailed,
			Conditions: []metav1.Condition{{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "LoadFailed"}}}},
		{ObjectMeta: made("other", "new", 5*time.Second)},
	}
	suites := []benchv1.BenchmarkSuite{{ObjectMeta: made("bench", "study", time.Hour),
		Status: benchv1.BenchmarkSuiteStatus{Phase: benchv1.PhaseRunning, Progress: "1/3", Leader: "pg-async"}}}

	want := `NAMESPACE  KIND          NAME        PHASE      PROGRESS                  RESULT                         AGE
bench      run           alpha       Loading    loaded 40/200 warehouses  -                              2m
bench      suite         study       Running    1/3 runs                  leader pg-async                60m
bench      run of study  study-pg-1  Running    step 2 at 90 warehouses   -                              50m
bench      run           zeta        Succeeded  7 steps                   1625.8 tpmC at 131 warehouses  3h
other      run           broken      Failed     -                         LoadFailed                     26h
other      run           new         Pending    -                         -                              5s
`
	if got := listTable(runs, suites, true, at); got != want {
		t.Errorf("-A:\n%s\nwant\n%s", got, want)
	}
	if got := listTable(runs[:1], nil, false, at); got != "KIND  NAME  PHASE      PROGRESS  RESULT                         AGE\nrun   zeta  Succeeded  7 steps   1625.8 tpmC at 131 warehouses  3h\n" {
		t.Errorf("one namespace:\n%s", got)
	}
}

// status shows where the latest step's pods ran and warns about each placement flag.
func TestRunStatusPlacement(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "demo"}, Status: benchv1.BenchmarkRunStatus{
		Phase: benchv1.PhaseRunning,
		Steps: []benchv1.StepResult{{Index: 0, Placement: &benchv1.StepPlacement{Primary: "demo-db-1", PrimaryNode: "n1",
			Pods: []benchv1.PodPlacementRecord{{Name: "demo-db-1", Role: benchv1.RoleDatabase, Node: "n1"}, {Name: "demo-db-2", Role: benchv1.RoleDatabase, Node: "n1"},
				{Name: "demo-step-0-0-x", Role: benchv1.RoleClient, Node: "n1"}},
			ClientsOnDatabaseNodes: []string{"n1"}, SharedDatabaseNodes: []string{"n1"}}}},
	}}
	out := runStatus(run, time.Now())
	for _, want := range []string{
		"placement: step 0: database demo-db-1 on n1 (primary), demo-db-2 on n1; clients demo-step-0-0-x on n1\n",
		"warning: does not survive the loss of a machine: database instances shared a node (n1) in step 0\n",
		"warning: clients shared a node with a database pod (n1) in step 0: they took CPU and memory from the database they measured\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	run.Status.Steps[0].Placement = nil
	if out := runStatus(run, time.Now()); strings.Contains(out, "placement") || strings.Contains(out, "warning") {
		t.Errorf("status without placement records:\n%s", out)
	}
}

func TestRunStatusNamesTheResultsDatabase(t *testing.T) {
	run := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseSucceeded, Conditions: []metav1.Condition{{
		Type: benchv1.ConditionResultsRecorded, Status: metav1.ConditionFalse, Reason: benchv1.ReasonResultsUnavailable,
		Message: "write 2 failed: connection refused; still to write: the run's end"}}}}
	got := runStatus(run, time.Now())
	if want := "results database: write 2 failed: connection refused; still to write: the run's end\n"; !strings.Contains(got, want) {
		t.Errorf("status lacks %q:\n%s", want, got)
	}
}

// TestRunStatusStepTableKeepsOneRowPerStep: a reason quoted from a driver's error, several lines
// long (pgx names each host it tried on a line of its own; the demo's inconclusive step showed it),
// stays on its step's row.
func TestRunStatusStepTableKeepsOneRowPerStep(t *testing.T) {
	reason := "client pod demo-step-1-0 failed: --url: cannot connect to postgres: failed to connect to `user=tpcc database=tpcc`:\n\t10.97.7.198:5432 (demo-db-rw.default): dial error: connection refused\n\t10.97.7.198:5432 (demo-db-rw.default): dial error: connection refused"
	run := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseRunning, Steps: []benchv1.StepResult{
		{Index: 0, ActiveWarehouses: 7, Verdict: benchv1.VerdictInconclusive, Reasons: []string{reason}},
		{Index: 1, ActiveWarehouses: 7, Verdict: benchv1.VerdictCompliant, Compliant: true, TpmC: 79.5},
	}}}
	out := runStatus(run, time.Now())
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "  STEP") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 2 || !strings.Contains(rows[0], "(demo-db-rw.default): dial error: connection refused 10.97.7.198:5432") || !strings.HasPrefix(rows[1], "  1 ") {
		t.Errorf("want one row per step, the reason on its row:\n%s", out)
	}
}

// A priced run's status says its price-performance with the result's bound and the disclaimer; an
// unpriced one says nothing of prices.
func TestRunStatusPricePerformance(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Workload: benchv1.WorkloadSpec{Warehouses: 8}},
		Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseSucceeded, Result: &benchv1.Result{
			MaxCompliantWarehouses: 8, Bound: benchv1.BoundAllLoadedCompliant, TpmC: 100, Message: "8 warehouses",
			PricePerformance: &benchv1.PricePerformance{Currency: "USD", Rule: benchv1.PricingRequests, MonthlyCost: f(57.75),
				CostPerTpmCMonth: f(0.5775), CostPerTpmC3Years: f(20.79), TpmCPerCurrency: f(1.73160)}}}}
	got := runStatus(run, time.Now())
	for _, want := range []string{"price-performance: The database costs 57.75 USD a month", "≤ 0.5775 USD per tpmC a month",
		"≤ 20.79 USD per tpmC over a 36-month term", "≥ 1.7316 tpmC per USD", "not quoted", "not a TPC price/performance result"} {
		if !strings.Contains(got, want) {
			t.Errorf("status lacks %q:\n%s", want, got)
		}
	}
	run.Status.Result.PricePerformance = &benchv1.PricePerformance{Currency: "USD", NotPriced: "the operator deployed no database pods for this run (an external database): their resources are unknown"}
	if got := runStatus(run, time.Now()); !strings.Contains(got, "price-performance: Not priced: the operator deployed no database pods") {
		t.Errorf("status does not say why it is not priced:\n%s", got)
	}
	run.Status.Result.PricePerformance = nil
	if got := runStatus(run, time.Now()); strings.Contains(got, "price") {
		t.Errorf("an unpriced run's status speaks of prices:\n%s", got)
	}
}
