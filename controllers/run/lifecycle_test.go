package run

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/metrics/metricstest"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

func testConfig(pods *ct.ClientPods) Config {
	cfg := DefaultConfig()
	cfg.PollInterval = 100 * time.Millisecond
	cfg.Jobs = jobs.Config{ClientImage: "tpcc:test"}
	cfg.SnapshotURL = pods.URL
	return cfg
}

// latencyReason matches a broken latency bound, e.g. "Payment p90 10.2s > 5s".
var latencyReason = regexp.MustCompile(`^(NewOrder|Payment|OrderStatus|Delivery|StockLevel) p90 \S+ > \S+`)

func assertSearchResult(t *testing.T, got *benchv1.BenchmarkRun, boundaryWarehouses int32, uids *ct.JobUIDs) {
	t.Helper()
	if got.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("phase %s; conditions %+v", got.Status.Phase, got.Status.Conditions)
	}
	result := got.Status.Result
	if result == nil {
		t.Fatal("no result")
	}
	if diff := boundaryWarehouses - result.MaxCompliantWarehouses; diff < 0 || diff > result.Precision {
		t.Errorf("maxCompliantWarehouses %d, want within %d below %d", result.MaxCompliantWarehouses, result.Precision, boundaryWarehouses)
	}
	if result.TpmC <= 0 || result.Efficiency < 90 || result.Step == nil {
		t.Errorf("result %+v", result)
	}
	if boundaryWarehouses < got.Spec.Workload.Warehouses {
		// A boundary below the loaded count: the search brackets the capacity.
		sla := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionSLACompliant)
		if result.Bound != benchv1.BoundBracketed || sla == nil || sla.Reason != "CompliantStepFound" {
			t.Errorf("bound %q, SLACompliant %+v: want Bracketed, CompliantStepFound", result.Bound, sla)
		}
	}
	for i, s := range got.Status.Steps {
		if s.Index != int32(i) {
			t.Errorf("step %d has index %d: a step was lost or recorded twice", i, s.Index)
		}
		if want := s.ActiveWarehouses <= boundaryWarehouses; s.Compliant != want {
			t.Errorf("step %d at %d warehouses: compliant %v, want %v (%v)", i, s.ActiveWarehouses, s.Compliant, want, s.Reasons)
		}
		// Every transaction is slow past the ct.Boundary: the reason names whichever p90 bound the
		// verdict found broken first (an early end stops at the first certain failure).
		if !s.Compliant && !slices.ContainsFunc(s.Reasons, func(r string) bool { return latencyReason.MatchString(r) }) {
			t.Errorf("step %d non-compliant without naming the latency: %v", i, s.Reasons)
		}
		if s.Compliant && (s.Transactions[benchv1.NewOrder].Count == 0 || s.Transactions[benchv1.NewOrder].P90.Duration <= 0) {
			t.Errorf("step %d has no NewOrder figures: %+v", i, s.Transactions)
		}
	}
	// The answer rests on full-length steps; probes (guided search) are a fifth of the duration, at
	// least one New-Order cycle (30 s) with spec waits.
	duration := got.Spec.Workload.Duration.Duration
	probes := 0
	for i, s := range got.Status.Steps {
		switch {
		case s.Kind == benchv1.StepProbe && s.Duration != nil && s.Duration.Duration == workload.ProbeDuration(got) && s.Duration.Duration < duration:
			probes++
		case s.Kind == benchv1.StepFull && s.Duration != nil && s.Duration.Duration == duration:
		default:
			t.Errorf("step %d: kind %q duration %v (workload duration %s)", i, s.Kind, s.Duration, duration)
		}
	}
	if got.Spec.Search.Strategy == benchv1.SearchGuided && probes == 0 {
		t.Errorf("a guided search ran no probe: %v", ct.StepSummary(got))
	}
	if len(result.RestsOn) == 0 || result.RestsOn[0] != *result.Step || result.SearchTime == nil {
		t.Errorf("result rests on %v, step %v, search time %v", result.RestsOn, result.Step, result.SearchTime)
	}
	for i, idx := range result.RestsOn {
		s := got.Status.Steps[idx]
		if s.Kind != benchv1.StepFull || s.Compliant != (i == 0) {
			t.Errorf("result rests on step %d %+v", idx, s)
		}
		if i == 1 && s.ActiveWarehouses-result.MaxCompliantWarehouses > result.Precision {
			t.Errorf("non-compliant full step at %d is more than precision %d above %d", s.ActiveWarehouses, result.Precision, result.MaxCompliantWarehouses)
		}
	}
	for name, ids := range uids.Seen {
		if len(ids) != 1 {
			t.Errorf("Job %s was created %d times", name, len(ids))
		}
	}
	for _, c := range []string{benchv1.ConditionComplete, benchv1.ConditionSLACompliant, benchv1.ConditionDatabaseReady, benchv1.ConditionDataLoaded} {
		if !meta.IsStatusConditionTrue(got.Status.Conditions, c) {
			t.Errorf("condition %s is not true: %+v", c, meta.FindStatusCondition(got.Status.Conditions, c))
		}
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: got.Namespace, Name: got.Status.Report.ConfigMapName}, cm); err != nil {
		t.Fatalf("report: %v", err)
	}
	var parsed reportDoc
	if err := json.Unmarshal([]byte(cm.Data["report.json"]), &parsed); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	if len(parsed.Steps) != len(got.Status.Steps) || parsed.Result.MaxCompliantWarehouses != result.MaxCompliantWarehouses {
		t.Errorf("report has %d steps and result %+v", len(parsed.Steps), parsed.Result)
	}
	for _, s := range parsed.Steps {
		if s.Step.Compliant && (len(s.Histograms) != 5 || !strings.HasPrefix(s.Histograms["NewOrder"], "HISTF")) {
			t.Errorf("step %d lacks its merged histograms", s.Step.Index)
		}
	}
	if err := ct.ContainsAll(cm.Data["report.md"], "| step | kind | measured | active warehouses | tpmC", "rests on the full-length steps", "## Response times at"); err != nil {
		t.Error(err)
	}
}

// A run goes Pending → Deploying → Loading → Running → Succeeded against a scripted ct.Boundary, and
// finds it within the search precision, with every step recorded once and the report written.
func TestRunFindsTheCapacityBoundary(t *testing.T) {
	ns := ct.NewNamespace(t, "lifecycle")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 40, 20)
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}

	cluster := &cnpgv1.Cluster{}
	ct.Eventually(t, 20*time.Second, func() error {
		return k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pg-db"}, cluster)
	})
	sync := cluster.Spec.PostgresConfiguration.Synchronous
	if cluster.Spec.Instances != 3 || sync == nil || sync.Number != 2 || sync.Method != cnpgv1.SynchronousReplicaConfigurationMethodAny ||
		cluster.Spec.PostgresConfiguration.Parameters["synchronous_commit"] != "remote_apply" {
		t.Errorf("Cluster spec %+v", cluster.Spec)
	}
	if owner := metav1.GetControllerOf(cluster); owner == nil || owner.Name != "pg" {
		t.Errorf("the Cluster is not owned by the run (teardown Delete): %v", owner)
	}
	ct.Eventually(t, 10*time.Second, func() error {
		if got := ct.GetRun(t, run); got.Status.Phase != benchv1.PhaseDeploying {
			return fmt.Errorf("phase %s, want Deploying", got.Status.Phase)
		}
		return nil
	})

	ct.DeployAndLoad(t, run, nil)
	uids := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	got := ct.DriveSteps(t, run, pods, ct.Boundary(27), uids, nil)
	assertSearchResult(t, got, 27, uids)
	t.Logf("steps: %v", ct.StepSummary(got))

	// Teardown Delete: the database goes once the run is done.
	ct.Eventually(t, 20*time.Second, func() error {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pg-db"}, &cnpgv1.Cluster{})
		if err == nil {
			return fmt.Errorf("the Cluster still exists")
		}
		return client.IgnoreNotFound(err)
	})
	ct.AssertEvents(t, ns, "pg", "PhaseDeploying", "PhaseLoading", "PhaseRunning", "PhaseSucceeded", "StepCompliant", "StepNonCompliant", "Result")

	last := got.Status.Steps[len(got.Status.Steps)-1]
	series := metricstest.RunSeries(t, ns, "pg")
	for name, pair := range map[string][2]float64{
		"phase Succeeded":   {series["tpcc_run_phase{phase=Succeeded}"], 1},
		"phase Running":     {series["tpcc_run_phase{phase=Running}"], 0},
		"steps":             {series["tpcc_run_steps{}"], float64(len(got.Status.Steps))},
		"last tpmC":         {series["tpcc_run_last_step_tpmc{}"], last.TpmC},
		"last efficiency":   {series["tpcc_run_last_step_efficiency_percent{}"], last.Efficiency},
		"last NewOrder p90": {series["tpcc_run_last_step_p90_seconds{transaction=NewOrder}"], last.Transactions[benchv1.NewOrder].P90.Seconds()},
		"result":            {series["tpcc_run_max_compliant_warehouses{}"], 27},
	} {
		if pair[0] != pair[1] {
			t.Errorf("metric %s = %g, want %g", name, pair[0], pair[1])
		}
	}
	if err := k8s.Delete(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	ct.Eventually(t, 10*time.Second, func() error {
		families, err := ctrlmetrics.Registry.Gather()
		if err != nil {
			return err
		}
		for _, family := range families {
			for _, m := range family.GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				if strings.HasPrefix(family.GetName(), "tpcc_run_") && labels["namespace"] == ns && labels["run"] == "pg" {
					return fmt.Errorf("%s%v remains after the run was deleted", family.GetName(), labels)
				}
			}
		}
		return nil
	})
}

// Stopping the manager mid-load and mid-step and starting it again loses nothing and duplicates
// nothing.
func TestRestartsMidLoadAndMidStep(t *testing.T) {
	ns := ct.NewNamespace(t, "restarts")
	pods := ct.NewClientPods()
	cfg := testConfig(pods)
	mgr := startManager(t, ns, cfg)
	run := ct.NewRun(ns, "pg", 40, 30)
	run.Spec.Database.Teardown = benchv1.TeardownRetain
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	ct.DeployAndLoad(t, run, func() {
		before := ct.GetJob(t, ns, "pg-load").UID
		mgr.Stop()
		mgr = startManager(t, ns, cfg)
		time.Sleep(time.Second) // let the new manager reconcile the half-loaded run
		if after := ct.GetJob(t, ns, "pg-load").UID; after != before {
			t.Errorf("the loader Job was recreated by the restarted manager")
		}
	})
	if got := ct.GetRun(t, run); got.Status.Load.WarehousesLoaded != 40 {
		t.Errorf("load status after restart %+v", got.Status.Load)
	}

	uids := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	got := ct.DriveSteps(t, run, pods, ct.Boundary(33), uids, func(step int, _ []*corev1.Pod) {
		if step == 1 || step == 3 {
			mgr.Stop() // mid-step: the pods measure on while no operator runs
			time.Sleep(300 * time.Millisecond)
			mgr = startManager(t, ns, cfg)
		}
	})
	assertSearchResult(t, got, 33, uids)
	// Retain: the database outlives the run.
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pg-db"}, &cnpgv1.Cluster{}); err != nil {
		t.Errorf("teardown Retain, but the Cluster is gone: %v", err)
	}
}

// A client pod that fails (evicted, OOM-killed, its container exits) breaks the measurement, not
// the database: the step is recorded inconclusive with the cause, is no plan.Evidence, and is run again
// at the same count; the run ends Succeeded on the retried step's plan.Evidence.
func TestFailedClientPodMakesItsStepInconclusive(t *testing.T) {
	ns := ct.NewNamespace(t, "podfail")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 12, 6)
	run.Spec.Search.Strategy = benchv1.SearchLineSearch // every step full-length
	run.Spec.Workload.Clients.Pods = 2
	ct.CreateLoaded(t, run)
	uids := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	got := ct.DriveSteps(t, run, pods, ct.Boundary(1000), uids, func(step int, stepPods []*corev1.Pod) {
		if step != 0 {
			return
		}
		ct.FailPod(t, stepPods[1], 137, "OOMKilled", "")
	})
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) < 2 {
		t.Fatalf("phase %s, steps %v, conditions %+v", got.Status.Phase, ct.StepSummary(got), got.Status.Conditions)
	}
	first, retry := got.Status.Steps[0], got.Status.Steps[1]
	if first.Compliant || first.Verdict != benchv1.VerdictInconclusive || first.Attempt != 1 || len(first.Reasons) == 0 ||
		!strings.Contains(first.Reasons[0], "client pod pg-step-0-1 failed") || !strings.Contains(first.Reasons[0], "exited 137 (OOMKilled)") {
		t.Errorf("failed step = %+v", first)
	}
	if retry.ActiveWarehouses != first.ActiveWarehouses || retry.Kind != first.Kind || retry.Attempt != 2 || retry.Verdict != benchv1.VerdictCompliant {
		t.Errorf("retry = %+v, want the same count and kind, attempt 2, compliant", retry)
	}
	// Every count up to the loaded 12 is compliant: the inconclusive step bounded nothing.
	if r := got.Status.Result; r == nil || r.MaxCompliantWarehouses != 12 || slices.Contains(r.RestsOn, 0) {
		t.Errorf("result %+v; steps %v", got.Status.Result, ct.StepSummary(got))
	}
	ct.AssertEvents(t, ns, "pg", "StepInconclusive", "StepCompliant")
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(run)}, cm); err != nil {
		t.Fatal(err)
	}
	if err := ct.ContainsAll(cm.Data["report.md"], "inconclusive"); err != nil {
		t.Error(err)
	}
}

// When every try of a step breaks, the run fails saying the infrastructure failed — after
// search.retries plan.Retries — and publishes no capacity.
func TestInconclusiveRetriesRunOut(t *testing.T) {
	ns := ct.NewNamespace(t, "retries")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 12, 6)
	run.Spec.Search.Strategy = benchv1.SearchLineSearch
	run.Spec.Search.Retries = ptr(int32(1))
	ct.CreateLoaded(t, run)
	uids := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	got := ct.DriveSteps(t, run, pods, ct.Boundary(1000), uids, func(_ int, stepPods []*corev1.Pod) {
		ct.FailPod(t, stepPods[0], 0, "Evicted", "The node was low on resource: memory.")
	})
	failed := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
	if got.Status.Phase != benchv1.PhaseFailed || failed == nil || failed.Reason != benchv1.ReasonInfrastructureFailed ||
		!strings.Contains(failed.Message, "inconclusive 2 times in a row (search.retries 1)") || !strings.Contains(failed.Message, "low on resource") {
		t.Fatalf("phase %s, Failed %+v", got.Status.Phase, failed)
	}
	if len(got.Status.Steps) != 2 || got.Status.Result != nil {
		t.Errorf("steps %v, result %+v: want two inconclusive tries and no result", ct.StepSummary(got), got.Status.Result)
	}
	for _, s := range got.Status.Steps {
		if s.Verdict != benchv1.VerdictInconclusive || s.ActiveWarehouses != 6 {
			t.Errorf("step %+v", s)
		}
	}
}

// A database that never becomes ready fails the run with the reason, after the timeout.
func TestDatabaseNeverReadyFailsTheRun(t *testing.T) {
	ns := ct.NewNamespace(t, "notready")
	cfg := testConfig(ct.NewClientPods())
	cfg.DatabaseReadyTimeout = 2 * time.Second
	startManager(t, ns, cfg)
	run := ct.NewRun(ns, "pg", 4, 2)
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	ct.Eventually(t, 30*time.Second, func() error {
		got := ct.GetRun(t, run)
		failed := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
		if got.Status.Phase != benchv1.PhaseFailed || failed == nil || failed.Reason != "DatabaseNotReady" {
			return fmt.Errorf("phase %s, Failed condition %+v", got.Status.Phase, failed)
		}
		return ct.ContainsAll(failed.Message, "not ready within 2s", "CloudNativePG Cluster pg-db")
	})
	ct.AssertEvents(t, ns, "pg", "PhaseDeploying", "PhaseFailed", "DatabaseNotReady")
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pg-load"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("a loader Job exists for a database that was never ready: %v", err)
	}
}

// A run whose max_connections cannot hold its connections fails before anything is deployed,
// naming the field, both numbers and the fix: 2 000 warehouses open 1 145 connections in a step
// (4 client pods of 286, the telemetry sampler), and the user set max_connections to 6.
func TestConnectionBudgetRefusesBeforeDeploying(t *testing.T) {
	ns := ct.NewNamespace(t, "connbudget")
	startManager(t, ns, testConfig(ct.NewClientPods()))
	run := ct.NewRun(ns, "pg", 2000, 2)
	run.Spec.Database.Postgres = &benchv1.PostgresSpec{Parameters: map[string]string{"max_connections": "6"},
		Storage: benchv1.StorageSpec{Size: resource.MustParse("1Gi")}}
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	ct.Eventually(t, 30*time.Second, func() error {
		got := ct.GetRun(t, run)
		failed := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
		if got.Status.Phase != benchv1.PhaseFailed || failed == nil || failed.Reason != "InvalidDatabase" {
			return fmt.Errorf("phase %s, Failed condition %+v", got.Status.Phase, failed)
		}
		return ct.ContainsAll(failed.Message, "spec.database.postgres.parameters.max_connections is 6",
			"up to 1145 connections", "at least 1165")
	})
	for name, obj := range map[string]client.Object{"pg-db": &cnpgv1.Cluster{}, "pg-load": &batchv1.Job{}} {
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj); !apierrors.IsNotFound(err) {
			t.Errorf("%s exists for a run refused before deploying: %v", name, err)
		}
	}
}
