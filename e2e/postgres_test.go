//go:build e2e

package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

const runTimeout = 25 * time.Minute

// TestPostgresSyncRun: a run deploys PostgreSQL with two synchronous standbys through
// CloudNativePG, loads, measures one step, records it with a tpmC, writes its report, and keeps
// its database; a run asking for another warehouse count of it is refused naming both counts; a
// run reusing it measures without loading, and deletes the database afterwards.
func TestPostgresSyncRun(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "e2e-sync")
	run := smallSyncRun(ns, "sync")
	run.Spec.Database.Teardown = benchv1.TeardownRetain
	ctx := context.Background()
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(run)
	ended := waitEndedInBackground(t, ns, run.Name) // README's kubectl wait, which must return once it Succeeded

	// While the database lives: the primary streams to both standbys, synchronously.
	running := waitFor(t, key, runTimeout, "a running step", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseRunning || r.Status.Phase == benchv1.PhaseSucceeded
	})
	if running.Status.Phase == benchv1.PhaseSucceeded {
		t.Fatal("the run ended before the replication could be checked")
	}
	cluster := &cnpgv1.Cluster{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: running.Status.Database.Name}, cluster); err != nil {
		t.Fatalf("reading the CloudNativePG Cluster %s: %v", running.Status.Database.Name, err)
	}
	primary := cluster.Status.CurrentPrimary
	replication := psql(t, ns, primary, "select application_name, sync_state, state from pg_stat_replication order by 1")
	t.Logf("pg_stat_replication on %s:\n%s", primary, replication)
	standbys := strings.Split(replication, "\n")
	if len(standbys) != 2 {
		t.Fatalf("the primary %s streams to %d standbys, want 2:\n%s", primary, len(standbys), replication)
	}
	for _, line := range standbys {
		fields := strings.Split(line, "|")
		// method any: both standbys are quorum (synchronous) members, streaming.
		if len(fields) != 3 || fields[1] != "quorum" || fields[2] != "streaming" {
			t.Errorf("standby %q: want sync_state quorum, state streaming", line)
		}
	}
	settings := psql(t, ns, primary, "select current_setting('synchronous_commit') || '|' || current_setting('synchronous_standby_names')")
	t.Logf("synchronous_commit|synchronous_standby_names on %s: %s", primary, settings)
	if !strings.HasPrefix(settings, "remote_apply|ANY 2 ") {
		t.Errorf("settings %q: want remote_apply and ANY 2 standbys", settings)
	}

	done := waitFor(t, key, runTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded
	})
	ended.expect(t, key, benchv1.PhaseSucceeded)
	if len(done.Status.Steps) != 1 {
		t.Fatalf("%d steps recorded, want 1 (Fixed mode)", len(done.Status.Steps))
	}
	assertCheckedAfterTheLastStep(t, done)
	step := done.Status.Steps[0]
	t.Logf("step 0: %d active warehouses, tpmC %.1f, efficiency %.1f%%, compliant %v, reasons %v",
		step.ActiveWarehouses, step.TpmC, step.Efficiency, step.Compliant, step.Reasons)
	for tx, stats := range step.Transactions {
		t.Logf("  %-12s count %5d  p50 %-8s p90 %-8s p99 %-8s", tx, stats.Count, stats.P50.Duration, stats.P90.Duration, stats.P99.Duration)
	}
	if step.ActiveWarehouses != run.Spec.Workload.Warehouses || step.TpmC <= 0 {
		t.Errorf("step 0: %d active warehouses, tpmC %.2f; want %d and tpmC > 0", step.ActiveWarehouses, step.TpmC, run.Spec.Workload.Warehouses)
	}
	if done.Status.Result == nil || done.Status.Result.TpmC <= 0 {
		t.Fatalf("status.result = %+v, want tpmC > 0", done.Status.Result)
	}
	t.Logf("result: %+v", *done.Status.Result)
	if done.Status.Report == nil {
		t.Fatal("no status.report")
	}
	report := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: done.Status.Report.ConfigMapName}, report); err != nil {
		t.Fatalf("report ConfigMap %s: %v", done.Status.Report.ConfigMapName, err)
	}
	for _, key := range []string{"report.json", "report.md"} {
		if report.Data[key] == "" {
			t.Errorf("report ConfigMap %s has no %s", report.Name, key)
		}
	}
	assertTelemetry(t, withStepDetail(t, done), report)
	assertPrometheusAgrees(t, done)
	if l := done.Status.Load; l == nil || l.Dataset == nil || l.Dataset.Warehouses != run.Spec.Workload.Warehouses || l.Dataset.Seed == "" {
		t.Errorf("the load's dataset: %+v", l)
	}

	// Load once, reuse: another warehouse count is refused, naming both, touching nothing …
	more := smallSyncRun(ns, "sync-more")
	more.Spec.Workload.Warehouses = 4
	more.Spec.Database.Reuse = &benchv1.ReuseSpec{Run: run.Name}
	if err := k8s.Create(ctx, more); err != nil {
		t.Fatal(err)
	}
	refused := waitFor(t, client.ObjectKeyFromObject(more), 5*time.Minute, "phase Failed", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseFailed
	})
	if msg := conditionMessages(refused); !strings.Contains(msg, "ReuseMismatch") || !strings.Contains(msg, "the database holds 2 loaded warehouses, the run asks for 4") {
		t.Errorf("the run asking for 4 warehouses of the kept 2: %s", msg)
	}
	// … and the same count measures on it without loading, then tears it down.
	again := smallSyncRun(ns, "sync-again")
	again.Spec.Database.Reuse = &benchv1.ReuseSpec{Run: run.Name}
	if err := k8s.Create(ctx, again); err != nil {
		t.Fatal(err)
	}
	reused := waitFor(t, client.ObjectKeyFromObject(again), runTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded
	})
	if l := reused.Status.Load; l == nil || l.ReusedFrom != run.Name || l.Dataset == nil || l.Dataset.Seed != done.Status.Load.Dataset.Seed || l.Dataset.Growth["orders"] <= 0 {
		t.Errorf("the reusing run's load: %+v", l)
	} else {
		t.Logf("reused %s's data (seed %s), grown since the load by %v", l.ReusedFrom, l.Dataset.Seed, l.Dataset.Growth)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: again.Name + "-load"}, &batchv1.Job{}); !isNotFound(err) {
		t.Errorf("the reusing run created a loader Job: %v", err)
	}
	if reused.Status.Result == nil || reused.Status.Result.TpmC <= 0 {
		t.Errorf("the reusing run's result %+v", reused.Status.Result)
	}

	// Teardown Delete: the Cluster, its pods and its volumes go away once the run has ended.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: running.Status.Database.Name}, &cnpgv1.Cluster{})
		var pvcs corev1.PersistentVolumeClaimList
		_ = k8s.List(ctx, &pvcs, client.InNamespace(ns))
		var pods corev1.PodList
		_ = k8s.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{"cnpg.io/cluster": cluster.Name})
		if isNotFound(err) && len(pvcs.Items) == 0 && len(pods.Items) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("teardown: after 5m the Cluster (err %v), %d PVCs and %d pods remain", err, len(pvcs.Items), len(pods.Items))
		}
		time.Sleep(3 * time.Second)
	}
}

// TestClientAndManagerKilledDuringSteps: a client pod dies while step 0 measures — the step is
// recorded inconclusive naming the failure and run again; the manager pod dies while that retry
// measures, and its successor finishes the run from status, without creating any Job twice or
// recording a step twice. The run ends Succeeded, its result resting on the retry.
func TestClientAndManagerKilledDuringSteps(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "e2e-restart")
	run := oneInstance(smallSyncRun(ns, "restart"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobs := watchJobs(ctx, t, ns)
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(run)
	measuring := func(index int32) func(r *benchv1.BenchmarkRun) bool {
		return func(r *benchv1.BenchmarkRun) bool {
			c := r.Status.Current
			return c != nil && c.Index == index && c.Elapsed != nil && c.Elapsed.Duration > 5*time.Second
		}
	}

	// Step 0: its client pod goes, as an eviction or an OOM kill would take it.
	waitFor(t, key, runTimeout, "step 0 under way", measuring(0))
	var clients corev1.PodList
	if err := k8s.List(ctx, &clients, client.InNamespace(ns), client.MatchingLabels{"bench.oltp.io/run": run.Name,
		"app.kubernetes.io/component": "client", "bench.oltp.io/step": "0"}); err != nil || len(clients.Items) == 0 {
		t.Fatalf("client pods of step 0: %v, %d", err, len(clients.Items))
	}
	t.Logf("killing client pod %s", clients.Items[0].Name)
	if err := k8s.Delete(ctx, &clients.Items[0], client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}

	// Step 1, the retry: the manager goes.
	waitFor(t, key, runTimeout, "step 1 under way", measuring(1))
	var managers corev1.PodList
	if err := k8s.List(ctx, &managers, client.InNamespace(operatorNamespace),
		client.MatchingLabels{"app.kubernetes.io/name": "tpcc-operator", "app.kubernetes.io/component": "manager"}); err != nil {
		t.Fatal(err)
	}
	if len(managers.Items) == 0 {
		t.Fatalf("no manager pod in %s", operatorNamespace)
	}
	killedAt := time.Now()
	for i := range managers.Items {
		t.Logf("killing manager pod %s", managers.Items[i].Name)
		if err := k8s.Delete(ctx, &managers.Items[i], client.GracePeriodSeconds(0)); err != nil {
			t.Fatal(err)
		}
	}

	done := waitFor(t, key, runTimeout, "phase Succeeded after the manager's restart", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded
	})
	seen := map[int32]bool{}
	for _, s := range done.Status.Steps {
		t.Logf("step %d: %s, attempt %d, %d active warehouses, tpmC %.1f, reasons %q", s.Index, s.Verdict, s.Attempt, s.ActiveWarehouses, s.TpmC, s.Reasons)
		if seen[s.Index] {
			t.Errorf("step %d recorded twice: %+v", s.Index, done.Status.Steps)
		}
		seen[s.Index] = true
	}
	if len(done.Status.Steps) != 2 {
		t.Fatalf("steps = %+v, want the inconclusive step and its retry", done.Status.Steps)
	}
	killed, retry := done.Status.Steps[0], done.Status.Steps[1]
	if killed.Verdict != benchv1.VerdictInconclusive || len(killed.Reasons) == 0 || !strings.Contains(killed.Reasons[0], "client") {
		t.Errorf("step 0 = %s %q, want inconclusive naming the client", killed.Verdict, killed.Reasons)
	}
	if retry.Verdict == benchv1.VerdictInconclusive || retry.Attempt != 2 || retry.ActiveWarehouses != killed.ActiveWarehouses || retry.TpmC <= 0 {
		t.Errorf("step 1 = %s attempt %d at %d warehouses, tpmC %.1f; want a conclusive retry", retry.Verdict, retry.Attempt, retry.ActiveWarehouses, retry.TpmC)
	}
	if r := done.Status.Result; r == nil || (r.Step != nil && *r.Step != 1) || slices.Contains(r.RestsOn, 0) {
		t.Errorf("result %+v: want it resting on the retry", r)
	}
	// The successor said it took over, in the operator's namespace (its leader-election Role lets it).
	var events corev1.EventList
	if err := k8s.List(ctx, &events, client.InNamespace(operatorNamespace)); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(events.Items, func(e corev1.Event) bool {
		return e.Reason == "LeaderElection" && strings.Contains(e.Message, "became leader") && !e.LastTimestamp.Time.Before(killedAt.Truncate(time.Second))
	}) {
		t.Errorf("no LeaderElection event in %s since the manager was killed at %s", operatorNamespace, killedAt.Format(time.RFC3339))
	}
	time.Sleep(2 * time.Second) // one more pass of the Job watcher
	for name, uids := range jobs.snapshot() {
		t.Logf("Job %s: %d UID(s)", name, uids)
		if uids != 1 {
			t.Errorf("Job %s was created %d times", name, uids)
		}
	}
	for _, job := range []string{run.Name + "-step-0", run.Name + "-step-1"} {
		if _, ok := jobs.snapshot()[job]; !ok {
			t.Errorf("the watcher never saw Job %s: %v", job, jobs.snapshot())
		}
	}
}

// assertTelemetry: the step explains itself — per-interval latency, both standbys' replay lag and
// the three database pods' CPU in the report's series, their summaries in status — and the run
// records what it ran on (kernel, PostgreSQL version, non-default settings).
func assertTelemetry(t *testing.T, done *benchv1.BenchmarkRun, report *corev1.ConfigMap) {
	t.Helper()
	tel := done.Status.Steps[0].Telemetry
	if tel == nil {
		t.Fatal("step 0 has no telemetry summary")
	}
	t.Logf("step 0 telemetry: %d intervals (%d missing), standbys %+v, checkpoints %v, resources %q, pods %+v, client-bound %q",
		tel.Intervals, tel.IntervalsMissing, tel.Standbys, tel.Checkpoints, tel.ResourceMetrics, tel.Pods, tel.ClientBound)
	if len(tel.Standbys) != 2 || len(tel.StandbysHidden) != 0 {
		t.Errorf("step 0 summarises %d standbys (hidden: %v), want 2 readable ones", len(tel.Standbys), tel.StandbysHidden)
	}
	for _, s := range tel.Standbys {
		// remote_apply: a commit returns once both standbys applied it; a lag of seconds under a
		// load of a few transactions per second would be a measuring error, not replication.
		if s.MaxReplayLag.Duration > 5*time.Second {
			t.Errorf("standby %s: largest replay lag %s under remote_apply", s.Name, s.MaxReplayLag.Duration)
		}
	}
	if tel.ResourceMetrics != "metrics.k8s.io" {
		t.Errorf("resource metrics %q, want metrics.k8s.io (the local cluster runs metrics-server)", tel.ResourceMetrics)
	}
	databasePods := 0
	for _, p := range tel.Pods {
		if p.Role == "Database" && p.PeakCPU.MilliValue() > 0 && p.PeakMemory.Value() > 0 {
			databasePods++
		}
	}
	if databasePods != 3 {
		t.Errorf("%d database pods with CPU and memory figures, want 3: %+v", databasePods, tel.Pods)
	}
	env := done.Status.Environment
	if env == nil {
		t.Fatal("no status.environment")
	}
	t.Logf("environment: server %q, %d settings, nodes %+v, storage %s (%s), images %v, operator %q, client %q",
		env.ServerVersion, len(env.Settings), env.Nodes, env.StorageClass, env.StorageProvisioner, env.Images, env.OperatorVersion, env.ClientVersion)
	if !strings.HasPrefix(env.ServerVersion, "PostgreSQL ") || len(env.Nodes) == 0 || env.Nodes[0].KernelVersion == "" ||
		env.Settings["shared_buffers"] == "" || env.StorageClass == "" {
		t.Errorf("environment %+v: want the PostgreSQL version, the node's kernel, shared_buffers and the storage class", env)
	}
	var series struct {
		Steps []struct {
			Series struct {
				Index           []int                         `json:"index"`
				Types           map[string]map[string][]int64 `json:"types"`
				ReplayLagMillis map[string][]int64            `json:"replayLagMillis"`
			} `json:"series"`
			Resources map[string]struct {
				Role      string  `json:"role"`
				CPUMillis []int64 `json:"cpuMillis"`
			} `json:"resources"`
		} `json:"steps"`
	}
	zr, err := gzip.NewReader(bytes.NewReader(report.BinaryData["series.json.gz"]))
	if err != nil {
		t.Fatalf("report series.json.gz: %v", err)
	}
	if err := json.NewDecoder(zr).Decode(&series); err != nil {
		t.Fatalf("report series.json.gz: %v", err)
	}
	if len(series.Steps) != 1 {
		t.Fatalf("series of %d steps, want 1", len(series.Steps))
	}
	s := series.Steps[0]
	withLatency := 0
	for _, p90 := range s.Series.Types["NewOrder"]["p90"] {
		if p90 > 0 {
			withLatency++
		}
	}
	// 10 s of ramp-up and 60 s measured at 10 s intervals.
	if len(s.Series.Index) < 6 || withLatency < 5 || len(s.Series.ReplayLagMillis) != 2 {
		t.Errorf("series: %d intervals, %d with a New-Order p90, replay lag of %d standbys; want >= 6, >= 5, 2",
			len(s.Series.Index), withLatency, len(s.Series.ReplayLagMillis))
	}
	t.Logf("series: New-Order p90 by interval %v µs; replay lag %v ms", s.Series.Types["NewOrder"]["p90"], s.Series.ReplayLagMillis)
	withCPU := 0
	for name, r := range s.Resources {
		t.Logf("  %s (%s) CPU millicores by interval %v", name, r.Role, r.CPUMillis)
		if r.Role == "Database" && len(r.CPUMillis) > 0 {
			withCPU++
		}
	}
	if withCPU != 3 {
		t.Errorf("series has CPU of %d database pods, want 3", withCPU)
	}
}
