//go:build e2e

package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

const runTimeout = 25 * time.Minute

// TestPostgresSyncRun: a run deploys PostgreSQL with two synchronous standbys through
// CloudNativePG, loads, measures one step, records it with a tpmC, writes its report, and
// deletes the database afterwards.
func TestPostgresSyncRun(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "e2e-sync")
	run := smallSyncRun(ns, "sync")
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
	assertTelemetry(t, done, report)
	assertPrometheusAgrees(t, done)

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

// TestManagerKilledDuringStep: the manager pod dies while a step runs; its successor finishes the
// run from status, without creating any Job twice or recording a step twice.
func TestManagerKilledDuringStep(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "e2e-restart")
	run := smallSyncRun(ns, "restart")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobs := watchJobs(ctx, t, ns)
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(run)

	waitFor(t, key, runTimeout, "a step under way", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Current != nil && r.Status.Current.Elapsed != nil && r.Status.Current.Elapsed.Duration > 5*time.Second
	})
	var managers corev1.PodList
	if err := k8s.List(ctx, &managers, client.InNamespace(operatorNamespace),
		client.MatchingLabels{"app.kubernetes.io/name": "tpcc-operator", "app.kubernetes.io/component": "manager"}); err != nil {
		t.Fatal(err)
	}
	if len(managers.Items) == 0 {
		t.Fatalf("no manager pod in %s", operatorNamespace)
	}
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
		if seen[s.Index] {
			t.Errorf("step %d recorded twice: %+v", s.Index, done.Status.Steps)
		}
		seen[s.Index] = true
	}
	if len(done.Status.Steps) != 1 || done.Status.Steps[0].TpmC <= 0 {
		t.Errorf("steps = %+v, want exactly one with tpmC > 0", done.Status.Steps)
	}
	time.Sleep(2 * time.Second) // one more pass of the Job watcher
	for name, uids := range jobs.snapshot() {
		t.Logf("Job %s: %d UID(s)", name, uids)
		if uids != 1 {
			t.Errorf("Job %s was created %d times", name, uids)
		}
	}
	if _, ok := jobs.snapshot()[run.Name+"-step-0"]; !ok {
		t.Errorf("the watcher never saw Job %s-step-0: %v", run.Name, jobs.snapshot())
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
