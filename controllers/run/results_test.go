package run

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/results"
	"github.com/tpcc-operator/tpcc-operator/internal/resultsdb"
)

func resultsConfig(pods *ct.ClientPods) Config {
	cfg := testConfig(pods)
	cfg.Results = resultsdb.Config{Backoff: 200 * time.Millisecond, MaxBackoff: time.Second}
	return cfg
}

// Every step and the result reach the results database once: across a manager restart mid-step,
// and across the database stopped mid-run and started after the run ended — the run itself
// succeeds all the same, saying in ResultsRecorded what waits, and the backlog is written when
// the database is back. The page rebuilt from the rows is the live one.
func TestResultsRecordedAcrossRestartAndOutage(t *testing.T) {
	ns := ct.NewNamespace(t, "results")
	server := pgtest.NewServer(t)
	// Trust authentication ignores the password: it is there to show it never leaks.
	ct.ResultsSecret(t, ns, "results-db", strings.Replace(server.URL(), "postgres@", "postgres:s3cret-pw@", 1))
	pods := ct.NewClientPods()
	m := startManager(t, ns, resultsConfig(pods))
	kubelet := ct.StartWriterKubelet(t, ns)
	run := ct.NewRun(ns, "pg", 40, 20)
	run.Labels = map[string]string{"pipeline": "nightly"}
	run.Spec.Results = &benchv1.ResultsSpec{SecretRef: &benchv1.SecretKeyRef{Name: "results-db", Key: "uri"}}
	ct.CreateLoaded(t, run)
	uids := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	stopped := false
	got := ct.DriveSteps(t, run, pods, ct.Boundary(27), uids, func(step int, _ []*corev1.Pod) {
		switch step {
		case 1: // the manager stops mid-step, after step 0's write was decided
			m.Stop()
			m = startManager(t, ns, resultsConfig(pods))
		case 3: // the results database goes down mid-step
			ct.Eventually(t, 30*time.Second, func() error {
				if rec := ct.GetRun(t, run).Status.ResultsDatabase; rec == nil || rec.StepsWritten < 3 {
					return fmt.Errorf("steps written: %+v", rec)
				}
				return nil
			})
			server.Stop(t)
			stopped = true
		}
	})
	if !stopped {
		t.Fatalf("the run ended after %d steps, before the database was stopped", len(got.Status.Steps))
	}
	// The benchmark is unaffected: it finds the same ct.Boundary as without a results database.
	assertSearchResult(t, got, 27, uids)
	var waiting *metav1.Condition
	ct.Eventually(t, 30*time.Second, func() error {
		run := ct.GetRun(t, run)
		waiting = meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionResultsRecorded)
		if rec := run.Status.ResultsDatabase; waiting == nil || waiting.Reason != benchv1.ReasonResultsUnavailable || rec == nil || rec.Failures < 2 ||
			!strings.Contains(waiting.Message, "the run's end") {
			return fmt.Errorf("ResultsRecorded %+v, recording %+v: want DatabaseUnavailable after failed writes, the end waiting", waiting, rec)
		}
		return nil
	})
	if err := ct.ContainsAll(waiting.Message, "failed", "still to write: ", "the run's end", "the next attempt at", "the benchmark goes on"); err != nil {
		t.Error(err)
	}
	if strings.Contains(waiting.Message, "s3cret-pw") || strings.Contains(ct.GetRun(t, run).Status.ResultsDatabase.LastError, "s3cret-pw") {
		t.Errorf("the status shows the password: %s", waiting.Message)
	}
	ct.AssertEvents(t, ns, "pg", "ResultsNotRecorded")

	server.Start(t)
	var final *benchv1.BenchmarkRun
	ct.Eventually(t, 30*time.Second, func() error {
		final = ct.GetRun(t, run)
		if !meta.IsStatusConditionTrue(final.Status.Conditions, benchv1.ConditionResultsRecorded) {
			return fmt.Errorf("ResultsRecorded %+v", meta.FindStatusCondition(final.Status.Conditions, benchv1.ConditionResultsRecorded))
		}
		return nil
	})
	rec := final.Status.ResultsDatabase
	if rec.StepsWritten != int32(len(final.Status.Steps)) || !rec.EndWritten || rec.Failures != 0 || rec.Writer != nil || rec.LastError != "" {
		t.Errorf("recording after the backlog: %+v", rec)
	}
	ct.AssertEvents(t, ns, "pg", "ResultsRecorded")

	// No write twice: each step and the end went in exactly one successful write, and no writer
	// Job was created twice under its name.
	tally := kubelet.Tally()
	for i := range final.Status.Steps {
		if n := tally.Written[int32(i)]; n != 1 {
			t.Errorf("step %d was carried by %d successful writes, want 1", i, n)
		}
	}
	if tally.Ends != 1 || tally.Failed < 2 {
		t.Errorf("%d writes carried the end (want 1); %d writes failed (want 2 or more)", tally.Ends, tally.Failed)
	}
	for name, ids := range tally.Ran {
		if len(ids) != 1 {
			t.Errorf("writer Job %s ran %d times", name, len(ids))
		}
	}

	// The rows, in plain SQL.
	conn, err := results.Connect(context.Background(), server.URL(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var steps, distinct, resultRows int
	var phase string
	var tpmc float64
	ct.Row(t, conn, `SELECT count(*), count(DISTINCT step_index) FROM tpcc.steps WHERE run_uid = $1`, []any{string(final.UID)}, &steps, &distinct)
	ct.Row(t, conn, `SELECT count(*), min(phase), min(tpmc) FROM tpcc.results WHERE run_uid = $1`, []any{string(final.UID)}, &resultRows, &phase, &tpmc)
	if steps != len(final.Status.Steps) || distinct != steps || resultRows != 1 || phase != "Succeeded" || tpmc != final.Status.Result.TpmC {
		t.Errorf("rows: %d steps (%d distinct) for %d recorded, %d results %s %v", steps, distinct, len(final.Status.Steps), resultRows, phase, tpmc)
	}
	// Every step's data and series went in, as far as the step has them (a step the SLA verdict
	// ended before its first interval was sealed has no series).
	withSeries := 0
	for _, s := range final.Status.Steps {
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: SeriesConfigMapName(final, s.Index)}, &corev1.ConfigMap{}); err == nil {
			withSeries++
		}
	}
	var histograms, series int
	ct.Row(t, conn, `SELECT count(histograms), count(series) FROM tpcc.steps WHERE run_uid = $1`, []any{string(final.UID)}, &histograms, &series)
	if histograms != steps || series != withSeries || withSeries == 0 {
		t.Errorf("%d steps with histograms and %d with series, want %d and %d", histograms, series, steps, withSeries)
	}
	var labels string
	ct.Row(t, conn, `SELECT labels->>'pipeline' FROM tpcc.runs WHERE run_uid = $1`, []any{string(final.UID)}, &labels)
	if labels != "nightly" {
		t.Errorf("the run's labels in the database: pipeline=%q", labels)
	}

	// The report rebuilt from the rows alone is the live one.
	loaded, series2, err := results.LoadRun(context.Background(), conn, string(final.UID))
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(final)}, cm); err != nil {
		t.Fatal(err)
	}
	live, err := measure.DecodeSeriesReport(cm.BinaryData[seriesKey])
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	// The live page as kubectl tpcc report draws it: the steps' per-pod lists from their ConfigMaps.
	want := report.RunHTML(report.RunInput{Run: withStepDetail(t, final), Result: *final.Status.Result, Series: live, Generated: at})
	rebuilt := report.RunHTML(report.RunInput{Run: loaded, Result: *loaded.Status.Result, Series: series2, Generated: at})
	if rebuilt != want {
		t.Errorf("the report rebuilt from the results database differs from the live one (%d vs %d bytes)", len(rebuilt), len(want))
	}

	// Written, the writers' Jobs and records are gone.
	list := &batchv1.JobList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(ns), client.MatchingLabels{jobs.ComponentLabel: jobs.ComponentResults}); err != nil {
		t.Fatal(err)
	}
	for _, j := range list.Items {
		if j.DeletionTimestamp == nil {
			t.Errorf("writer Job %s left behind", j.Name)
		}
	}
}

// A run deleted while what it recorded waits for the results database stays until it is written;
// one whose database does not answer is let go after the grace, an event naming what is lost.
func TestDeletionWaitsForTheBacklog(t *testing.T) {
	ns := ct.NewNamespace(t, "results-deletion")
	server := pgtest.NewServer(t)
	server.Stop(t)
	ct.ResultsSecret(t, ns, "results-db", server.URL())
	ct.ResultsSecret(t, ns, "nowhere", "postgres://postgres@127.0.0.1:1/postgres?connect_timeout=1")
	pods := ct.NewClientPods()
	cfg := resultsConfig(pods)
	cfg.Results.DeletionGrace = 15 * time.Second
	startManager(t, ns, cfg)
	ct.StartWriterKubelet(t, ns)

	failedRun := func(name, secret string) *benchv1.BenchmarkRun {
		t.Helper()
		run := ct.NewRun(ns, name, 20, 10)
		run.Spec.Results = &benchv1.ResultsSpec{SecretRef: &benchv1.SecretKeyRef{Name: secret, Key: "uri"}}
		if err := k8s.Create(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		ct.SetClusterReady(t, ns, name+"-db", 3)
		ct.FailJob(t, ct.GetJob(t, ns, name+"-load"), "loader pod 0: connection refused")
		ct.Eventually(t, 30*time.Second, func() error {
			got := ct.GetRun(t, run)
			c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionResultsRecorded)
			if got.Status.Phase != benchv1.PhaseFailed || c == nil || c.Reason != benchv1.ReasonResultsUnavailable || !slices.Contains(got.Finalizers, resultsdb.Finalizer) {
				return fmt.Errorf("phase %s, finalizers %v, ResultsRecorded %+v", got.Status.Phase, got.Finalizers, c)
			}
			return nil
		})
		got := ct.GetRun(t, run)
		if err := k8s.Delete(context.Background(), got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	gone := func(run *benchv1.BenchmarkRun) error {
		err := k8s.Get(context.Background(), client.ObjectKeyFromObject(run), &benchv1.BenchmarkRun{})
		if err == nil {
			return fmt.Errorf("%s is still there", run.Name)
		}
		return client.IgnoreNotFound(err)
	}

	// The database comes back while the deletion waits: the end is written, then the run goes.
	waiting := failedRun("waits", "results-db")
	time.Sleep(2 * time.Second)
	if err := gone(waiting); err == nil {
		t.Fatal("the run went before its end was written")
	}
	server.Start(t)
	ct.Eventually(t, 30*time.Second, func() error { return gone(waiting) })
	conn, err := results.Connect(context.Background(), server.URL(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var phase, reason string
	ct.Row(t, conn, `SELECT x.phase, x.reason FROM tpcc.results x JOIN tpcc.runs r USING (run_uid) WHERE r.run_uid = $1`, []any{string(waiting.UID)}, &phase, &reason)
	if phase != "Failed" || reason != "LoadFailed" {
		t.Errorf("the deleted run's end: %s %s, want Failed LoadFailed", phase, reason)
	}

	// A database that never answers: the deletion waits the grace, then goes, saying what is lost.
	lost := failedRun("lost", "nowhere")
	deleted := time.Now()
	ct.Eventually(t, time.Minute, func() error { return gone(lost) })
	// The grace counts from the deletion timestamp, which the API server keeps in whole seconds.
	if waited := time.Since(deleted); waited < 14*time.Second {
		t.Errorf("the deletion went after %s, before the 15 s grace", waited)
	}
	ct.AssertEvents(t, ns, "lost", "ResultsLost")
}
