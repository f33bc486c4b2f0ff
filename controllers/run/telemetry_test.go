package run

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/metrics/metricstest"
)

// A step's time series is collected from two client pods while it runs — across a manager
// restart — merged, summarised in status and kept whole in the report; the sampling pod's standby
// s1 falls behind past sla.maxReplicationLag, so the step is non-compliant naming it; the run's
// environment is recorded once.
func TestStepTelemetryReplicationLagAndReport(t *testing.T) {
	ns := ct.NewNamespace(t, "telemetry")
	pods := ct.NewClientPods()
	pods.ReplayLag = func(i int) time.Duration { return time.Duration(i) * 100 * time.Millisecond }
	cfg := testConfig(pods)
	mgr := startManager(t, ns, cfg)
	run := ct.NewRun(ns, "pg", 40, 40)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Workload.Duration = &metav1.Duration{Duration: 5 * time.Minute} // 5 s of wall time for the fakes
	run.Spec.Workload.Interval = &metav1.Duration{Duration: 10 * time.Second}
	run.Spec.Workload.Clients.Pods = 2
	run.Spec.SLA.MaxReplicationLag = &metav1.Duration{Duration: time.Second}
	ct.CreateLoaded(t, run)
	uids := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	var live map[string]float64
	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), uids, func(_ int, _ []*corev1.Pod) {
		// Part of the series is stored once the step's live metrics carry the sampling pod's WAL rate;
		// on a loaded machine the first poll can come seconds after the pods were created.
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			live = metricstest.RunSeries(t, ns, "pg")
			if _, ok := live["tpcc_run_current_step_wal_bytes_per_second{}"]; ok {
				break
			}
		}
		mgr.Stop()
		time.Sleep(300 * time.Millisecond)
		mgr = startManager(t, ns, cfg)
	})
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) != 1 {
		t.Fatalf("phase %s, steps %v", got.Status.Phase, ct.StepSummary(got))
	}
	step := got.Status.Steps[0]

	// While the step ran, its live metrics were exported (controllers/metrics.go); now they are gone.
	for _, name := range []string{"tpcc_run_current_step_active_warehouses{}", "tpcc_run_current_step_wal_bytes_per_second{}",
		"tpcc_run_current_step_replay_lag_seconds{standby=s1}", "tpcc_run_current_step_sync_rep_waiters{}"} {
		if _, ok := live[name]; !ok {
			t.Errorf("%s was not exported during the step: %v", name, live)
		}
	}
	if live["tpcc_run_current_step_active_warehouses{}"] != 40 || live["tpcc_run_current_step_wal_bytes_per_second{}"] <= 0 {
		t.Errorf("live metrics during the step: %v", live)
	}
	for name := range metricstest.RunSeries(t, ns, "pg") {
		if strings.HasPrefix(name, "tpcc_run_current_step_") {
			t.Errorf("%s remains after the step was recorded", name)
		}
	}

	// The verdict: latency and efficiency pass, s1's replay lag (2.9 s at interval 29) does not.
	if step.Compliant || !slices.ContainsFunc(step.Reasons, func(r string) bool {
		return strings.HasPrefix(r, "replication lag: standby s1 replay lag 2.9") && strings.HasSuffix(r, "> 1s")
	}) {
		t.Errorf("step compliant %v, reasons %q: want the replication lag of s1 named", step.Compliant, step.Reasons)
	}
	for _, r := range step.Reasons {
		if strings.Contains(r, "s2") || latencyReason.MatchString(r) {
			t.Errorf("unexpected reason %q", r)
		}
	}

	// The summary in status: 30 intervals of 10 s, none missing although the manager restarted.
	tel := step.Telemetry
	if tel == nil {
		t.Fatal("step has no telemetry summary")
	}
	if tel.Intervals != 30 || tel.IntervalsMissing != 0 {
		t.Errorf("intervals %d, missing %d; want 30 and 0", tel.Intervals, tel.IntervalsMissing)
	}
	if len(tel.Standbys) != 2 || tel.Standbys[0].Name != "s1" || tel.Standbys[0].MaxReplayLag.Duration != 2900*time.Millisecond ||
		tel.Standbys[1].Name != "s2" || tel.Standbys[1].MaxReplayLag.Duration != 4*time.Millisecond {
		t.Errorf("standbys %+v", tel.Standbys)
	}
	if tel.Checkpoints == nil || *tel.Checkpoints != 1 || tel.MaxSyncRepWaiters == nil || *tel.MaxSyncRepWaiters != 3 ||
		tel.WALBytesPerSecond == nil || *tel.WALBytesPerSecond != 4000000 {
		t.Errorf("checkpoints %v, syncRep %v, WAL %v", tel.Checkpoints, tel.MaxSyncRepWaiters, tel.WALBytesPerSecond)
	}
	if !strings.HasPrefix(tel.ResourceMetrics, "absent: the cluster serves no metrics.k8s.io API") || len(tel.Pods) != 0 {
		t.Errorf("resource metrics %q, pods %v: envtest serves no metrics API", tel.ResourceMetrics, tel.Pods)
	}
	if len(tel.ClientBound) != 0 {
		t.Errorf("client-bound %q: the fakes keep up", tel.ClientBound)
	}

	// The environment, read once from the sampling pod.
	env := got.Status.Environment
	if env == nil || env.ServerVersion != "PostgreSQL 16.4 (fake)" || env.Settings["synchronous_standby_names"] != "ANY 2 (s1, s2)" ||
		env.Images["client"] != "tpcc:test" || env.OperatorVersion == "" || env.ClientVersion != "fake" {
		t.Errorf("environment %+v", env)
	}

	// The report: report.json schema 2 with the environment, series.json.gz with every interval.
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(run)}, cm); err != nil {
		t.Fatal(err)
	}
	var rep reportDoc
	if err := json.Unmarshal([]byte(cm.Data["report.json"]), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.SchemaVersion != 2 || rep.Series != seriesKey || rep.Environment == nil || rep.Steps[0].Step.Telemetry == nil {
		t.Errorf("report.json: schema %d, environment %v, step telemetry %v", rep.SchemaVersion, rep.Environment, rep.Steps[0].Step.Telemetry)
	}
	if md := cm.Data["report.md"]; !strings.Contains(md, "s1 2.90s, s2 4.0ms") || !strings.Contains(md, "## Environment") ||
		!strings.Contains(md, "synchronous_standby_names=ANY 2 (s1, s2)") {
		t.Errorf("report.md lacks the lag column or the environment:\n%s", md)
	}
	if page := cm.Data["report.html"]; !strings.Contains(page, "<svg") || !strings.Contains(page, "Step 0: standby replay lag") ||
		!strings.Contains(page, "Step 0: p90 response time over time") {
		t.Errorf("report.html lacks the time-series charts (%d bytes)", len(page))
	}
	if decoded, err := measure.DecodeSeriesReport(cm.BinaryData[seriesKey]); err != nil || decoded.Step(0) == nil || len(decoded.Step(0).Series.Index) != 30 {
		t.Errorf("series.json.gz as internal/report reads it: %v", err)
	}
	var series measure.SeriesReport
	if err := measure.GunzipJSON(cm.BinaryData[seriesKey], &series); err != nil {
		t.Fatal(err)
	}
	if len(series.Steps) != 1 {
		t.Fatalf("series of %d steps, want 1", len(series.Steps))
	}
	s := series.Steps[0].Series
	if len(s.Index) != 30 || s.Index[0] != 0 || s.Index[29] != 29 || s.LengthSeconds != 10 {
		t.Fatalf("series index %v, length %gs", s.Index, s.LengthSeconds)
	}
	for i := range 30 {
		// Merged across the two pods: 10 New-Orders each per interval, collected once.
		if n := s.Types["NewOrder"].Completed[i]; n != 20 {
			t.Errorf("interval %d: %d New-Orders, want 20 (2 pods x 10)", i, n)
		}
		if p90 := s.Types["NewOrder"].P90[i]; p90 < 20000 || p90 > 150000 { // 20 lognormal samples (σ 0.4) around 40 ms
			t.Errorf("interval %d: New-Order p90 %dµs, want near the fakes' 40ms median", i, p90)
		}
		if lag := s.ReplayLagMillis["s1"][i]; lag != int64(i*100) {
			t.Errorf("interval %d: s1 replay lag %dms, want %d", i, lag, i*100)
		}
	}
	if s.Checkpoints[2] != 1 || s.Checkpoints[3] != 0 {
		t.Errorf("checkpoints column %v: want the one in interval 2", s.Checkpoints)
	}
}
