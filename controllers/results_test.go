package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	"github.com/jackc/pgx/v5"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/results"
	"github.com/tpcc-operator/tpcc-operator/internal/resultsdb"
)

// writerKubelet plays the Job controller and the kubelet for results writer Jobs: it lays the
// Job's volumes out as the kubelet mounts them (each ConfigMap's items at their paths, the
// Secret's key), runs the real writer (internal/results, what `tpcc results write` runs) against a
// real PostgreSQL, and records the pod's termination message and the Job's end as they would be.
type writerKubelet struct {
	t         *testing.T
	namespace string
	// dir holds every Job's mounted files: made before the kubelet starts, so that the test's
	// removal of it runs after the kubelet has stopped (cleanups run last-registered first; a
	// TempDir first asked for by the running kubelet was removed while it still wrote there).
	dir string

	mu sync.Mutex
	// ran are the writer Jobs run, by name, with their UIDs (a Job created twice shows twice).
	ran map[string][]types.UID
	// written counts, per step index, the successful writes that carried the step; ends the
	// successful writes that carried the end.
	written map[int32]int
	ends    int
	failed  int
}

func startWriterKubelet(t *testing.T, namespace string) *writerKubelet {
	k := &writerKubelet{t: t, namespace: namespace, dir: t.TempDir(), ran: map[string][]types.UID{}, written: map[int32]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			k.runPending(ctx)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return k
}

func (k *writerKubelet) runPending(ctx context.Context) {
	list := &batchv1.JobList{}
	if err := k8s.List(ctx, list, client.InNamespace(k.namespace), client.MatchingLabels{jobs.ComponentLabel: jobs.ComponentResults}); err != nil {
		return
	}
	for i := range list.Items {
		job := &list.Items[i]
		if job.DeletionTimestamp != nil || kube.JobCondition(job, batchv1.JobComplete) != nil || kube.JobCondition(job, batchv1.JobFailed) != nil {
			continue
		}
		k.mu.Lock()
		seen := slices.Contains(k.ran[job.Name], job.UID)
		k.ran[job.Name] = append(k.ran[job.Name], job.UID)
		k.mu.Unlock()
		if seen {
			continue
		}
		k.run(ctx, job)
	}
}

// run runs one writer Job to its end.
func (k *writerKubelet) run(ctx context.Context, job *batchv1.Job) {
	rep, rec, err := k.write(ctx, job)
	if err != nil {
		rep = outbox.WriterReport{Error: err.Error()}
	}
	body, _ := json.Marshal(rep)
	exit := int32(0)
	if err != nil {
		exit = 1
	}
	// Errors once the test is over (its context canceled) are not the operator's.
	report := func(what string, err error) {
		if ctx.Err() == nil {
			k.t.Errorf("%s: %v", what, err)
		}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: job.Name + "-w", Labels: map[string]string{batchv1.JobNameLabel: job.Name}},
		Spec: job.Spec.Template.Spec}
	if err := k8s.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		report("writer pod", err)
		return
	}
	now := metav1.Now()
	pod.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{Name: "writer",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Message: string(body), FinishedAt: now}}}}}
	if exit != 0 {
		pod.Status.Phase = corev1.PodFailed
	}
	if err := k8s.Status().Update(ctx, pod); err != nil {
		report("writer pod status", err)
		return
	}
	k.mu.Lock()
	if err == nil && rec.Run != nil {
		for _, s := range rec.Run.Steps {
			k.written[s.Index]++
		}
		if rec.Run.End != nil {
			k.ends++
		}
	}
	if exit != 0 {
		k.failed++
	}
	k.mu.Unlock()
	// What the Job controller records of its one pod (not failJob/setJobProgress: this goroutine
	// must not end the test).
	for ctx.Err() == nil {
		current := &batchv1.Job{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(job), current); err != nil {
			report("writer Job", err)
			return
		}
		now := metav1.Now()
		current.Status.StartTime, current.Status.Active = &now, 0
		end := []batchv1.JobConditionType{batchv1.JobSuccessCriteriaMet, batchv1.JobComplete}
		current.Status.Succeeded, current.Status.CompletionTime = 1, &now
		if exit != 0 {
			end = []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed}
			current.Status.Succeeded, current.Status.Failed, current.Status.CompletionTime = 0, 1, nil
		}
		current.Status.Conditions = nil
		for _, c := range end {
			current.Status.Conditions = append(current.Status.Conditions, batchv1.JobCondition{Type: c, Status: corev1.ConditionTrue,
				Reason: "BackoffLimitExceeded", LastTransitionTime: now, LastProbeTime: now})
		}
		if exit == 0 {
			for i := range current.Status.Conditions {
				current.Status.Conditions[i].Reason = "CompletionsReached"
			}
		}
		err := k8s.Status().Update(ctx, current)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			report("writer Job status", err)
			return
		}
	}
}

// write lays the Job's volumes out and runs the writer, as `tpcc results write` does.
func (k *writerKubelet) write(ctx context.Context, job *batchv1.Job) (outbox.WriterReport, outbox.Record, error) {
	dir, err := os.MkdirTemp(k.dir, "job-")
	if err != nil {
		return outbox.WriterReport{}, outbox.Record{}, err
	}
	var uri string
	spec := job.Spec.Template.Spec
	for _, v := range spec.Volumes {
		switch {
		case v.Secret != nil:
			s := &corev1.Secret{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: v.Secret.SecretName}, s); err != nil {
				return outbox.WriterReport{}, outbox.Record{}, fmt.Errorf("mounting Secret %s: %w", v.Secret.SecretName, err)
			}
			uri = string(s.Data[v.Secret.Items[0].Key])
		case v.Projected != nil:
			for _, src := range v.Projected.Sources {
				cm := &corev1.ConfigMap{}
				if err := k8s.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: src.ConfigMap.Name}, cm); apierrors.IsNotFound(err) && *src.ConfigMap.Optional {
					continue
				} else if err != nil {
					return outbox.WriterReport{}, outbox.Record{}, err
				}
				for _, item := range src.ConfigMap.Items {
					data, ok := []byte(cm.Data[item.Key]), true
					if _, inData := cm.Data[item.Key]; !inData {
						data, ok = cm.BinaryData[item.Key]
					}
					if !ok {
						continue
					}
					path := filepath.Join(dir, item.Path)
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						return outbox.WriterReport{}, outbox.Record{}, err
					}
					if err := os.WriteFile(path, data, 0o444); err != nil {
						return outbox.WriterReport{}, outbox.Record{}, err
					}
				}
			}
		}
	}
	args := spec.Containers[0].Args
	if !slices.Equal(args[:2], []string{"results", "write"}) || !slices.Contains(args, jobs.ResultsInputDir) {
		return outbox.WriterReport{}, outbox.Record{}, fmt.Errorf("unexpected writer args %v", args)
	}
	body, err := os.ReadFile(filepath.Join(dir, outbox.RecordFile))
	if err != nil {
		return outbox.WriterReport{}, outbox.Record{}, err
	}
	rec, err := outbox.Decode(body)
	if err != nil {
		return outbox.WriterReport{}, rec, err
	}
	conn, err := results.Connect(ctx, uri, 1)
	if err != nil {
		return outbox.WriterReport{}, rec, err
	}
	defer conn.Close(context.Background())
	w, err := results.Write(ctx, conn, rec, os.DirFS(dir))
	if err != nil {
		return outbox.WriterReport{}, rec, fmt.Errorf("%s", results.Redact(err.Error(), uri))
	}
	return outbox.WriterReport{Written: w.String(), Baseline: w.Baseline}, rec, nil
}

func resultsSecret(t *testing.T, namespace, name, uri string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, StringData: map[string]string{"uri": uri}}
	if err := k8s.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

func resultsConfig(pods *clientPods) Config {
	cfg := testConfig(pods)
	cfg.Results = resultsdb.Config{Backoff: 200 * time.Millisecond, MaxBackoff: time.Second}
	return cfg
}

// Every step and the result reach the results database once: across a manager restart mid-step,
// and across the database stopped mid-run and started after the run ended — the run itself
// succeeds all the same, saying in ResultsRecorded what waits, and the backlog is written when
// the database is back. The page rebuilt from the rows is the live one.
func TestResultsRecordedAcrossRestartAndOutage(t *testing.T) {
	ns := newNamespace(t, "results")
	server := pgtest.NewServer(t)
	// Trust authentication ignores the password: it is there to show it never leaks.
	resultsSecret(t, ns, "results-db", strings.Replace(server.URL(), "postgres@", "postgres:s3cret-pw@", 1))
	pods := newClientPods()
	m := startManager(t, ns, resultsConfig(pods))
	kubelet := startWriterKubelet(t, ns)
	run := newRun(ns, "pg", 40, 20)
	run.Labels = map[string]string{"pipeline": "nightly"}
	run.Spec.Results = &benchv1.ResultsSpec{SecretRef: &benchv1.SecretKeyRef{Name: "results-db", Key: "uri"}}
	createLoaded(t, run)
	uids := &jobUIDs{seen: map[string][]types.UID{}}
	stopped := false
	got := driveSteps(t, run, pods, boundary(27), uids, func(step int, _ []*corev1.Pod) {
		switch step {
		case 1: // the manager stops mid-step, after step 0's write was decided
			m.stop()
			m = startManager(t, ns, resultsConfig(pods))
		case 3: // the results database goes down mid-step
			eventually(t, 30*time.Second, func() error {
				if rec := getRun(t, run).Status.ResultsDatabase; rec == nil || rec.StepsWritten < 3 {
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
	// The benchmark is unaffected: it finds the same boundary as without a results database.
	assertSearchResult(t, got, 27, uids)
	var waiting *metav1.Condition
	eventually(t, 30*time.Second, func() error {
		run := getRun(t, run)
		waiting = meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionResultsRecorded)
		if rec := run.Status.ResultsDatabase; waiting == nil || waiting.Reason != benchv1.ReasonResultsUnavailable || rec == nil || rec.Failures < 2 ||
			!strings.Contains(waiting.Message, "the run's end") {
			return fmt.Errorf("ResultsRecorded %+v, recording %+v: want DatabaseUnavailable after failed writes, the end waiting", waiting, rec)
		}
		return nil
	})
	if err := containsAll(waiting.Message, "failed", "still to write: ", "the run's end", "the next attempt at", "the benchmark goes on"); err != nil {
		t.Error(err)
	}
	if strings.Contains(waiting.Message, "s3cret-pw") || strings.Contains(getRun(t, run).Status.ResultsDatabase.LastError, "s3cret-pw") {
		t.Errorf("the status shows the password: %s", waiting.Message)
	}
	assertEvents(t, ns, "pg", "ResultsNotRecorded")

	server.Start(t)
	var final *benchv1.BenchmarkRun
	eventually(t, 30*time.Second, func() error {
		final = getRun(t, run)
		if !meta.IsStatusConditionTrue(final.Status.Conditions, benchv1.ConditionResultsRecorded) {
			return fmt.Errorf("ResultsRecorded %+v", meta.FindStatusCondition(final.Status.Conditions, benchv1.ConditionResultsRecorded))
		}
		return nil
	})
	rec := final.Status.ResultsDatabase
	if rec.StepsWritten != int32(len(final.Status.Steps)) || !rec.EndWritten || rec.Failures != 0 || rec.Writer != nil || rec.LastError != "" {
		t.Errorf("recording after the backlog: %+v", rec)
	}
	assertEvents(t, ns, "pg", "ResultsRecorded")

	// No write twice: each step and the end went in exactly one successful write, and no writer
	// Job was created twice under its name.
	kubelet.mu.Lock()
	for i := range final.Status.Steps {
		if n := kubelet.written[int32(i)]; n != 1 {
			t.Errorf("step %d was carried by %d successful writes, want 1", i, n)
		}
	}
	if kubelet.ends != 1 || kubelet.failed < 2 {
		t.Errorf("%d writes carried the end (want 1); %d writes failed (want 2 or more)", kubelet.ends, kubelet.failed)
	}
	for name, ids := range kubelet.ran {
		if len(ids) != 1 {
			t.Errorf("writer Job %s ran %d times", name, len(ids))
		}
	}
	kubelet.mu.Unlock()

	// The rows, in plain SQL.
	conn, err := results.Connect(context.Background(), server.URL(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var steps, distinct, resultRows int
	var phase string
	var tpmc float64
	row(t, conn, `SELECT count(*), count(DISTINCT step_index) FROM tpcc.steps WHERE run_uid = $1`, []any{string(final.UID)}, &steps, &distinct)
	row(t, conn, `SELECT count(*), min(phase), min(tpmc) FROM tpcc.results WHERE run_uid = $1`, []any{string(final.UID)}, &resultRows, &phase, &tpmc)
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
	row(t, conn, `SELECT count(histograms), count(series) FROM tpcc.steps WHERE run_uid = $1`, []any{string(final.UID)}, &histograms, &series)
	if histograms != steps || series != withSeries || withSeries == 0 {
		t.Errorf("%d steps with histograms and %d with series, want %d and %d", histograms, series, steps, withSeries)
	}
	var labels string
	row(t, conn, `SELECT labels->>'pipeline' FROM tpcc.runs WHERE run_uid = $1`, []any{string(final.UID)}, &labels)
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
	want := report.RunHTML(report.RunInput{Run: final, Result: *final.Status.Result, Series: live, Generated: at})
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

func row(t *testing.T, conn *pgx.Conn, sql string, args []any, into ...any) {
	t.Helper()
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(into...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Suites record their row, their runs link to it, and a suite naming a baseline is judged against
// the latest earlier suite with its labels: the first has none to compare with, the second holds
// the first's capacity, the third — whose database stops being compliant at 10 active warehouses
// instead of 16 — has regressed, naming the figures. The third retains its reports.
func TestSuiteBaselineVerdict(t *testing.T) {
	ns := newNamespace(t, "suite-baseline")
	server := pgtest.NewServer(t)
	resultsSecret(t, ns, "results-db", server.URL())
	pods := newClientPods()
	cfg := resultsConfig(pods)
	cfg.Results.Secret = &benchv1.SecretKeyRef{Name: "results-db", Key: "uri"} // the operator-wide default
	startSuiteManager(t, ns, cfg)
	startWriterKubelet(t, ns)

	runSuite := func(name string, boundaryWarehouses int, retain bool) *benchv1.BenchmarkSuite {
		t.Helper()
		start := int32(10)
		suite := &benchv1.BenchmarkSuite{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"pipeline": "nightly"}},
			Spec: benchv1.BenchmarkSuiteSpec{
				Repeats:   1,
				Databases: []benchv1.SuiteDatabase{suiteDatabase("pg", 2, "remote_apply")},
				Workload: benchv1.WorkloadSpec{Warehouses: 20, Duration: &metav1.Duration{Duration: time.Minute},
					RampUp: &metav1.Duration{}, Loader: benchv1.LoaderSpec{Pods: 4}},
				Search:        benchv1.SearchSpec{StartWarehouses: &start},
				Baseline:      &benchv1.SuiteBaseline{MatchLabels: map[string]string{"pipeline": "nightly"}, TolerancePercent: "5"},
				RetainReports: retain,
			},
		}
		if err := k8s.Create(context.Background(), suite); err != nil {
			t.Fatal(err)
		}
		run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-pg-1"}}
		eventually(t, 30*time.Second, func() error { return k8s.Get(context.Background(), client.ObjectKeyFromObject(run), run) })
		if run.Spec.Results != nil || run.Spec.RetainReports != retain {
			t.Errorf("run %s: results %+v retainReports %v, want the suite's", run.Name, run.Spec.Results, run.Spec.RetainReports)
		}
		deployAndLoad(t, run, nil)
		if got := driveSteps(t, run, pods, boundary(boundaryWarehouses), &jobUIDs{seen: map[string][]types.UID{}}, nil); got.Status.Phase != benchv1.PhaseSucceeded {
			t.Fatalf("%s: %s", run.Name, got.Status.Phase)
		}
		var got *benchv1.BenchmarkSuite
		eventually(t, 60*time.Second, func() error {
			got = getSuite(t, suite)
			c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionBaselineHeld)
			if got.Status.Phase != benchv1.PhaseSucceeded || !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.ConditionResultsRecorded) ||
				c == nil || c.Reason == benchv1.ReasonBaselinePending {
				return fmt.Errorf("suite %s: phase %s, conditions %+v", name, got.Status.Phase, got.Status.Conditions)
			}
			return nil
		})
		return got
	}

	first := runSuite("nightly-a", 16, false)
	if c := meta.FindStatusCondition(first.Status.Conditions, benchv1.ConditionBaselineHeld); c.Status != metav1.ConditionUnknown || c.Reason != benchv1.ReasonBaselineNotFound ||
		!strings.Contains(c.Message, "no suite of namespace suite-baseline with labels pipeline=nightly ended before this one") {
		t.Errorf("the first suite: BaselineHeld %+v", c)
	}
	second := runSuite("nightly-b", 16, false)
	if c := meta.FindStatusCondition(second.Status.Conditions, benchv1.ConditionBaselineHeld); c.Status != metav1.ConditionTrue || c.Reason != benchv1.ReasonBaselineHeld {
		t.Errorf("the same capacity again: BaselineHeld %+v", c)
	}
	if r := second.Status.Regression; r == nil || r.Regressed || !strings.HasPrefix(r.Baseline, ns+"/nightly-a (uid "+string(first.UID)) || len(r.Figures) != 2 {
		t.Errorf("the second suite's regression status %+v", r)
	}
	third := runSuite("nightly-c", 10, true)
	c := meta.FindStatusCondition(third.Status.Conditions, benchv1.ConditionBaselineHeld)
	if c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonBaselineRegressed ||
		!strings.Contains(c.Message, "regressed against "+ns+"/nightly-b: pg tpmC is 3") || !strings.Contains(c.Message, "pg maxCompliantWarehouses is 3") {
		t.Errorf("a regression built on purpose (16 → 10 warehouses): BaselineHeld %+v", c)
	}
	if r := third.Status.Regression; r == nil || !r.Regressed || r.Figures[0].Verdict != "Regressed" || r.Figures[0].Figure != "pg tpmC" {
		t.Errorf("the third suite's regression status %+v", r)
	}
	assertEvents(t, ns, "nightly-c", benchv1.ReasonBaselineRegressed)

	// The rows: each suite, and its run linked to it.
	conn, err := results.Connect(context.Background(), server.URL(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var suites, linked int
	row(t, conn, `SELECT count(*) FROM tpcc.suites WHERE ended_at IS NOT NULL AND comparison IS NOT NULL`, nil, &suites)
	row(t, conn, `SELECT count(*) FROM tpcc.runs r JOIN tpcc.suites s USING (suite_uid) JOIN tpcc.results x USING (run_uid)
	              WHERE r.suite = s.name AND r.suite_database = 'pg' AND r.suite_repeat = 1`, nil, &linked)
	if suites != 3 || linked != 3 {
		t.Errorf("%d suites with their end and comparison, %d runs linked to their suite with a result; want 3 and 3", suites, linked)
	}

	// Retained reports: annotated with their owner, not owned (deleting the suite and its runs
	// leaves them); the others owned.
	for name, owner := range map[string]types.UID{"nightly-c-comparison": third.UID, "nightly-c-pg-1-report": getRun(t, &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly-c-pg-1"}}).UID} {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			t.Fatal(err)
		}
		if len(cm.OwnerReferences) != 0 || cm.Annotations[kube.OwnerUIDAnnotation] != string(owner) {
			t.Errorf("retained %s: owners %+v, annotation %q", name, cm.OwnerReferences, cm.Annotations[kube.OwnerUIDAnnotation])
		}
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "nightly-b-pg-1-report"}, cm); err != nil || metav1.GetControllerOf(cm) == nil {
		t.Errorf("a report not retained is owned by its run: %v %+v", err, cm.OwnerReferences)
	}
	// spec.retainReports set on a run after it ended takes its report out of its ownership.
	run := getRun(t, &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly-b-pg-1"}})
	run.Spec.RetainReports = true
	if err := k8s.Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "nightly-b-pg-1-report"}, cm); err != nil {
			return err
		}
		if len(cm.OwnerReferences) != 0 || cm.Annotations[kube.OwnerUIDAnnotation] != string(run.UID) {
			return fmt.Errorf("owners %+v", cm.OwnerReferences)
		}
		return nil
	})
}

// A run deleted while what it recorded waits for the results database stays until it is written;
// one whose database does not answer is let go after the grace, an event naming what is lost.
func TestDeletionWaitsForTheBacklog(t *testing.T) {
	ns := newNamespace(t, "results-deletion")
	server := pgtest.NewServer(t)
	server.Stop(t)
	resultsSecret(t, ns, "results-db", server.URL())
	resultsSecret(t, ns, "nowhere", "postgres://postgres@127.0.0.1:1/postgres?connect_timeout=1")
	pods := newClientPods()
	cfg := resultsConfig(pods)
	cfg.Results.DeletionGrace = 15 * time.Second
	startManager(t, ns, cfg)
	startWriterKubelet(t, ns)

	failedRun := func(name, secret string) *benchv1.BenchmarkRun {
		t.Helper()
		run := newRun(ns, name, 20, 10)
		run.Spec.Results = &benchv1.ResultsSpec{SecretRef: &benchv1.SecretKeyRef{Name: secret, Key: "uri"}}
		if err := k8s.Create(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		setClusterReady(t, ns, name+"-db", 3)
		failJob(t, getJob(t, ns, name+"-load"), "loader pod 0: connection refused")
		eventually(t, 30*time.Second, func() error {
			got := getRun(t, run)
			c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionResultsRecorded)
			if got.Status.Phase != benchv1.PhaseFailed || c == nil || c.Reason != benchv1.ReasonResultsUnavailable || !slices.Contains(got.Finalizers, resultsdb.Finalizer) {
				return fmt.Errorf("phase %s, finalizers %v, ResultsRecorded %+v", got.Status.Phase, got.Finalizers, c)
			}
			return nil
		})
		got := getRun(t, run)
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
	eventually(t, 30*time.Second, func() error { return gone(waiting) })
	conn, err := results.Connect(context.Background(), server.URL(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var phase, reason string
	row(t, conn, `SELECT x.phase, x.reason FROM tpcc.results x JOIN tpcc.runs r USING (run_uid) WHERE r.run_uid = $1`, []any{string(waiting.UID)}, &phase, &reason)
	if phase != "Failed" || reason != "LoadFailed" {
		t.Errorf("the deleted run's end: %s %s, want Failed LoadFailed", phase, reason)
	}

	// A database that never answers: the deletion waits the grace, then goes, saying what is lost.
	lost := failedRun("lost", "nowhere")
	deleted := time.Now()
	eventually(t, time.Minute, func() error { return gone(lost) })
	// The grace counts from the deletion timestamp, which the API server keeps in whole seconds.
	if waited := time.Since(deleted); waited < 14*time.Second {
		t.Errorf("the deletion went after %s, before the 15 s grace", waited)
	}
	assertEvents(t, ns, "lost", "ResultsLost")
}
