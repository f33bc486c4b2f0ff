package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/metrics/metricstest"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

func testConfig(pods *clientPods) Config {
	cfg := DefaultConfig()
	cfg.PollInterval = 100 * time.Millisecond
	cfg.Jobs = jobs.Config{ClientImage: "tpcc:test"}
	cfg.SnapshotURL = pods.url
	return cfg
}

func newRun(namespace, name string, warehouses int32, start int32) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: benchv1.BenchmarkRunSpec{
			Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL},
			Workload: benchv1.WorkloadSpec{Warehouses: warehouses, Duration: &metav1.Duration{Duration: time.Minute},
				RampUp: &metav1.Duration{}, Loader: benchv1.LoaderSpec{Pods: 4}},
			Search: benchv1.SearchSpec{StartWarehouses: &start},
		},
	}
}

func getRun(t *testing.T, run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
	t.Helper()
	got := &benchv1.BenchmarkRun{}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(run), got); err != nil {
		t.Fatal(err)
	}
	return got
}

// boundary is the simulated database: fast up to maxOK active warehouses, too slow above.
func boundary(maxOK int) latencyOf {
	return func(active int) time.Duration {
		if active <= maxOK {
			return 40 * time.Millisecond
		}
		return 6 * time.Second
	}
}

// createLoaded creates the run and plays CloudNativePG and the Job controller until its data is
// loaded (deployAndLoad).
func createLoaded(t *testing.T, run *benchv1.BenchmarkRun) {
	t.Helper()
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	deployAndLoad(t, run, nil)
}

// deployAndLoad plays CloudNativePG and the Job controller until the run's data is loaded.
func deployAndLoad(t *testing.T, run *benchv1.BenchmarkRun, beforeLoaderCompletes func()) {
	t.Helper()
	setClusterReady(t, run.Namespace, run.Name+"-db", 3)
	loader := getJob(t, run.Namespace, run.Name+"-load")
	setJobProgress(t, loader, "0-1", 2, false)
	eventually(t, 20*time.Second, func() error {
		got := getRun(t, run)
		if got.Status.Load == nil || got.Status.Load.WarehousesLoaded != run.Spec.Workload.Warehouses/2 {
			return fmt.Errorf("load status %+v, want half the warehouses loaded", got.Status.Load)
		}
		return nil
	})
	if beforeLoaderCompletes != nil {
		beforeLoaderCompletes()
	}
	setJobProgress(t, loader, "0-3", 4, true)
	check := getJob(t, run.Namespace, run.Name+"-check")
	checkPod(t, check, loadedDataset(run.Spec.Workload.Warehouses))
	setJobProgress(t, check, "", 1, true)
	eventually(t, 20*time.Second, func() error {
		if got := getRun(t, run); !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.ConditionDataLoaded) {
			return fmt.Errorf("DataLoaded not true: %+v", got.Status.Conditions)
		}
		return nil
	})
}

// loadedDataset is what tpcc check --dataset-json reports of a fresh load of w warehouses.
func loadedDataset(w int32) snapshot.Dataset {
	per := map[string]int64{"orders": 30000, "history": 30000, "new_order": 9000}
	ds := snapshot.Dataset{Engine: "postgres", SchemaVersion: snapshot.SchemaVersion, Warehouses: int(w), Seed: 424242, Finished: true,
		Rows: map[string]int64{}, Loaded: map[string]int64{}}
	for t, n := range per {
		ds.Rows[t], ds.Loaded[t] = n*int64(w), n*int64(w)
	}
	return ds
}

// checkPod plays the kubelet for a check Job's pod: it ended, its container writing the dataset
// as its termination message (tpcc check --dataset-json /dev/termination-log).
func checkPod(t *testing.T, job *batchv1.Job, ds snapshot.Dataset) {
	t.Helper()
	body, err := json.Marshal(ds)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: job.Name + "-x",
		Labels: map[string]string{batchv1.JobNameLabel: job.Name}}, Spec: job.Spec.Template.Spec}
	if err := k8s.Create(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{Name: "tpcc",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", Message: string(body)}}}}}
	if err := k8s.Status().Update(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
}

// jobUIDs records every step Job the operator creates, to prove none is created twice.
type jobUIDs struct {
	mu   sync.Mutex
	seen map[string][]types.UID
}

func (j *jobUIDs) note(job *batchv1.Job) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !slices.Contains(j.seen[job.Name], job.UID) {
		j.seen[job.Name] = append(j.seen[job.Name], job.UID)
	}
}

// driveSteps plays the Job controller and the client pods for every step until the run ends.
// hook, if set, is called once per step after its pods are running.
func driveSteps(t *testing.T, run *benchv1.BenchmarkRun, pods *clientPods, latency latencyOf, uids *jobUIDs, hook func(step int, podsOfStep []*corev1.Pod)) *benchv1.BenchmarkRun {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for step := 0; ; step++ {
		name := jobs.StepJobName(run, int32(step))
		job := &batchv1.Job{}
		for {
			if time.Now().After(deadline) {
				t.Fatalf("run did not finish; status %+v", getRun(t, run).Status)
			}
			got := getRun(t, run)
			if got.Status.Phase == benchv1.PhaseSucceeded || got.Status.Phase == benchv1.PhaseFailed {
				return got
			}
			err := k8s.Get(context.Background(), client.ObjectKey{Namespace: run.Namespace, Name: name}, job)
			if err == nil {
				break
			}
			if !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		uids.note(job)
		stepPods := runStepPods(t, pods, job, latency)
		if hook != nil {
			hook(step, stepPods)
		}
		eventually(t, time.Minute, func() error { // recorded, and its Job gone
			if got := getRun(t, run); len(got.Status.Steps) <= step {
				return fmt.Errorf("step %d not recorded yet (phase %s)", step, got.Status.Phase)
			}
			err := k8s.Get(context.Background(), client.ObjectKeyFromObject(job), &batchv1.Job{})
			if err == nil {
				return fmt.Errorf("Job %s still exists", job.Name)
			}
			return client.IgnoreNotFound(err)
		})
	}
}

// latencyReason matches a broken latency bound, e.g. "Payment p90 10.2s > 5s".
var latencyReason = regexp.MustCompile(`^(NewOrder|Payment|OrderStatus|Delivery|StockLevel) p90 \S+ > \S+`)

func assertSearchResult(t *testing.T, got *benchv1.BenchmarkRun, boundaryWarehouses int32, uids *jobUIDs) {
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
	for i, s := range got.Status.Steps {
		if s.Index != int32(i) {
			t.Errorf("step %d has index %d: a step was lost or recorded twice", i, s.Index)
		}
		if want := s.ActiveWarehouses <= boundaryWarehouses; s.Compliant != want {
			t.Errorf("step %d at %d warehouses: compliant %v, want %v (%v)", i, s.ActiveWarehouses, s.Compliant, want, s.Reasons)
		}
		// Every transaction is slow past the boundary: the reason names whichever p90 bound the
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
		t.Errorf("a guided search ran no probe: %v", stepSummary(got))
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
	for name, ids := range uids.seen {
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
	if err := containsAll(cm.Data["report.md"], "| step | kind | measured | active warehouses | tpmC", "rests on the full-length steps", "## Response times at"); err != nil {
		t.Error(err)
	}
}

// A run goes Pending → Deploying → Loading → Running → Succeeded against a scripted boundary, and
// finds it within the search precision, with every step recorded once and the report written.
func TestRunFindsTheCapacityBoundary(t *testing.T) {
	ns := newNamespace(t, "lifecycle")
	pods := newClientPods()
	startManager(t, ns, testConfig(pods))
	run := newRun(ns, "pg", 40, 20)
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}

	cluster := &cnpgv1.Cluster{}
	eventually(t, 20*time.Second, func() error {
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
	eventually(t, 10*time.Second, func() error {
		if got := getRun(t, run); got.Status.Phase != benchv1.PhaseDeploying {
			return fmt.Errorf("phase %s, want Deploying", got.Status.Phase)
		}
		return nil
	})

	deployAndLoad(t, run, nil)
	uids := &jobUIDs{seen: map[string][]types.UID{}}
	got := driveSteps(t, run, pods, boundary(27), uids, nil)
	assertSearchResult(t, got, 27, uids)
	t.Logf("steps: %v", stepSummary(got))

	// Teardown Delete: the database goes once the run is done.
	eventually(t, 20*time.Second, func() error {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pg-db"}, &cnpgv1.Cluster{})
		if err == nil {
			return fmt.Errorf("the Cluster still exists")
		}
		return client.IgnoreNotFound(err)
	})
	assertEvents(t, ns, "pg", "PhaseDeploying", "PhaseLoading", "PhaseRunning", "PhaseSucceeded", "StepCompliant", "StepNonCompliant", "Result")

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
	eventually(t, 10*time.Second, func() error {
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
	ns := newNamespace(t, "restarts")
	pods := newClientPods()
	cfg := testConfig(pods)
	mgr := startManager(t, ns, cfg)
	run := newRun(ns, "pg", 40, 30)
	run.Spec.Database.Teardown = benchv1.TeardownRetain
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	deployAndLoad(t, run, func() {
		before := getJob(t, ns, "pg-load").UID
		mgr.stop()
		mgr = startManager(t, ns, cfg)
		time.Sleep(time.Second) // let the new manager reconcile the half-loaded run
		if after := getJob(t, ns, "pg-load").UID; after != before {
			t.Errorf("the loader Job was recreated by the restarted manager")
		}
	})
	if got := getRun(t, run); got.Status.Load.WarehousesLoaded != 40 {
		t.Errorf("load status after restart %+v", got.Status.Load)
	}

	uids := &jobUIDs{seen: map[string][]types.UID{}}
	got := driveSteps(t, run, pods, boundary(33), uids, func(step int, _ []*corev1.Pod) {
		if step == 1 || step == 3 {
			mgr.stop() // mid-step: the pods measure on while no operator runs
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
// the database: the step is recorded inconclusive with the cause, is no evidence, and is run again
// at the same count; the run ends Succeeded on the retried step's evidence.
func TestFailedClientPodMakesItsStepInconclusive(t *testing.T) {
	ns := newNamespace(t, "podfail")
	pods := newClientPods()
	startManager(t, ns, testConfig(pods))
	run := newRun(ns, "pg", 12, 6)
	run.Spec.Search.Strategy = benchv1.SearchLineSearch // every step full-length
	run.Spec.Workload.Clients.Pods = 2
	createLoaded(t, run)
	uids := &jobUIDs{seen: map[string][]types.UID{}}
	got := driveSteps(t, run, pods, boundary(1000), uids, func(step int, stepPods []*corev1.Pod) {
		if step != 0 {
			return
		}
		failPod(t, stepPods[1], 137, "OOMKilled", "")
	})
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) < 2 {
		t.Fatalf("phase %s, steps %v, conditions %+v", got.Status.Phase, stepSummary(got), got.Status.Conditions)
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
		t.Errorf("result %+v; steps %v", got.Status.Result, stepSummary(got))
	}
	assertEvents(t, ns, "pg", "StepInconclusive", "StepCompliant")
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(run)}, cm); err != nil {
		t.Fatal(err)
	}
	if err := containsAll(cm.Data["report.md"], "inconclusive"); err != nil {
		t.Error(err)
	}
}

// When every try of a step breaks, the run fails saying the infrastructure failed — after
// search.retries retries — and publishes no capacity.
func TestInconclusiveRetriesRunOut(t *testing.T) {
	ns := newNamespace(t, "retries")
	pods := newClientPods()
	startManager(t, ns, testConfig(pods))
	run := newRun(ns, "pg", 12, 6)
	run.Spec.Search.Strategy = benchv1.SearchLineSearch
	run.Spec.Search.Retries = ptr(int32(1))
	createLoaded(t, run)
	uids := &jobUIDs{seen: map[string][]types.UID{}}
	got := driveSteps(t, run, pods, boundary(1000), uids, func(_ int, stepPods []*corev1.Pod) {
		failPod(t, stepPods[0], 0, "Evicted", "The node was low on resource: memory.")
	})
	failed := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
	if got.Status.Phase != benchv1.PhaseFailed || failed == nil || failed.Reason != benchv1.ReasonInfrastructureFailed ||
		!strings.Contains(failed.Message, "inconclusive 2 times in a row (search.retries 1)") || !strings.Contains(failed.Message, "low on resource") {
		t.Fatalf("phase %s, Failed %+v", got.Status.Phase, failed)
	}
	if len(got.Status.Steps) != 2 || got.Status.Result != nil {
		t.Errorf("steps %v, result %+v: want two inconclusive tries and no result", stepSummary(got), got.Status.Result)
	}
	for _, s := range got.Status.Steps {
		if s.Verdict != benchv1.VerdictInconclusive || s.ActiveWarehouses != 6 {
			t.Errorf("step %+v", s)
		}
	}
}

// failPod sets a step pod's status to Failed as the kubelet would after its container ended
// (exit code and reason), or after an eviction (message; exit code 0 and reason Evicted on the pod).
func failPod(t *testing.T, pod *corev1.Pod, exitCode int32, reason, message string) {
	t.Helper()
	eventually(t, 10*time.Second, func() error {
		current := &corev1.Pod{}
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(pod), current); err != nil {
			return err
		}
		current.Status.Phase = corev1.PodFailed
		if message != "" {
			current.Status.Reason, current.Status.Message = reason, message
		} else {
			current.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "tpcc", State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: reason}}}}
		}
		return k8s.Status().Update(context.Background(), current)
	})
}

// A database that never becomes ready fails the run with the reason, after the timeout.
func TestDatabaseNeverReadyFailsTheRun(t *testing.T) {
	ns := newNamespace(t, "notready")
	cfg := testConfig(newClientPods())
	cfg.DatabaseReadyTimeout = 2 * time.Second
	startManager(t, ns, cfg)
	run := newRun(ns, "pg", 4, 2)
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, func() error {
		got := getRun(t, run)
		failed := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
		if got.Status.Phase != benchv1.PhaseFailed || failed == nil || failed.Reason != "DatabaseNotReady" {
			return fmt.Errorf("phase %s, Failed condition %+v", got.Status.Phase, failed)
		}
		return containsAll(failed.Message, "not ready within 2s", "CloudNativePG Cluster pg-db")
	})
	assertEvents(t, ns, "pg", "PhaseDeploying", "PhaseFailed", "DatabaseNotReady")
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pg-load"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("a loader Job exists for a database that was never ready: %v", err)
	}
}

func stepSummary(run *benchv1.BenchmarkRun) []string {
	var out []string
	for _, s := range run.Status.Steps {
		out = append(out, fmt.Sprintf("%d:%v:%s", s.ActiveWarehouses, s.Compliant, s.Kind))
	}
	return out
}

func assertEvents(t *testing.T, namespace, run string, reasons ...string) {
	t.Helper()
	eventually(t, 10*time.Second, func() error {
		list := &corev1.EventList{}
		if err := k8s.List(context.Background(), list, client.InNamespace(namespace)); err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, e := range list.Items {
			if e.InvolvedObject.Name == run {
				seen[e.Reason] = true
			}
		}
		for _, r := range reasons {
			if !seen[r] {
				return fmt.Errorf("no event %s (have %v)", r, seen)
			}
		}
		return nil
	})
}
