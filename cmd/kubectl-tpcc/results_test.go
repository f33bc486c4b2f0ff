package main

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/results"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// recordedRun creates a finished run of one full step at tpmC (80 warehouses, 5 minutes: tpmC·5
// New-Orders counted), with its report ConfigMap as the operator writes it, and records it into
// the results database as the operator's writer does: its spec and status, the step with its
// merged histograms and its series. ended orders the runs in time.
func recordedRun(t *testing.T, uri, name string, labels map[string]string, tpmC float64, ended time.Time) *benchv1.BenchmarkRun {
	t.Helper()
	start := ended.Add(-6 * time.Minute)
	s := step(0, 80, tpmC, true, start)
	s.Verdict, s.Attempt = benchv1.VerdictCompliant, 1
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}, Spec: spec(2, "remote_apply")}
	run.Spec.Workload.Warehouses = 80
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	run.Status = benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseSucceeded, ObservedGeneration: 1, Steps: []benchv1.StepResult{s},
		Result: &benchv1.Result{MaxCompliantWarehouses: 80, TpmC: tpmC, Efficiency: s.Efficiency, Step: new(int32), Precision: 1, RestsOn: []int32{0},
			Message: "80 active warehouses compliant"},
		Conditions: []metav1.Condition{{Type: benchv1.ConditionComplete, Status: metav1.ConditionTrue, Reason: "SearchFinished", ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(ended)}},
		Report:     &benchv1.ReportRef{ConfigMapName: name + "-report"}}
	if err := k8s.Status().Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(run), run); err != nil { // as the API server keeps it
		t.Fatal(err)
	}
	series := stepSeriesOf(0, start)
	if err := k8s.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-report"},
		Data:       map[string]string{"report.json": `{"schemaVersion": 2}`},
		BinaryData: map[string][]byte{"series.json.gz": gz(t, measure.SeriesReport{SchemaVersion: 1, Steps: []measure.IndexedSeries{series}})}}); err != nil {
		t.Fatal(err)
	}

	// The same latency distribution in every run: only the throughput differs.
	histograms := map[string]string{}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tx := range benchv1.Transactions {
		h := snapshot.NewHistogram()
		for range 4000 {
			snapshot.RecordLatency(h, time.Duration(float64(s.Transactions[tx].P50.Duration)*math.Exp(0.5*rng.NormFloat64())))
		}
		encoded, err := snapshot.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		histograms[string(tx)] = encoded
	}
	data, err := json.Marshal(map[string]any{"step": s, "histograms": histograms})
	if err != nil {
		t.Fatal(err)
	}
	status := run.Status.DeepCopy()
	rec := outbox.Record{Version: outbox.Version, Kind: outbox.KindRun, Run: &outbox.Run{
		// Created as the run of that day was (the test's clock is fixed, the API server's is not).
		Object: outbox.Object{UID: string(run.UID), Namespace: ns, Name: name, Labels: labels, Created: start.Add(-10 * time.Minute)},
		Spec:   run.Spec, Status: *status,
		Steps: []outbox.StepFiles{{Index: 0, Data: outbox.StepDataFile(0), Series: []string{outbox.StepSeriesFile(0, 0)}}},
		End:   &outbox.End{Phase: benchv1.PhaseSucceeded, Reason: "SearchFinished", Generation: 1, Time: ended}}}
	files := fstest.MapFS{outbox.StepDataFile(0): {Data: data}, outbox.StepSeriesFile(0, 0): {Data: gz(t, series)}}
	c, err := results.Connect(context.Background(), uri, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := results.Write(context.Background(), c, rec, files); err != nil {
		t.Fatal(err)
	}
	return run
}

// History, compare --baseline and a report rebuilt from the results database.
func TestResultsDatabase(t *testing.T) {
	uri := pgtest.Database(t, pgtest.URL(t), "plugin")
	t.Setenv("TPCC_RESULTS_URL", "")
	db := "--results-url=" + uri
	ended := now.Add(-72 * time.Hour)
	// Two results 20 % apart, and one 1 % below the first: 400 New-Orders a minute for 5 minutes
	// count 2000, whose counting noise is ±2.2 % (±4.4 % at 95 %); two such runs' difference ±6.2 %.
	base := recordedRun(t, uri, "nightly-1", map[string]string{"pipeline": "nightly"}, 400, ended)
	same := recordedRun(t, uri, "nightly-2", map[string]string{"pipeline": "nightly"}, 396, ended.Add(24*time.Hour))
	worse := recordedRun(t, uri, "nightly-3", map[string]string{"pipeline": "nightly", "pg": "17"}, 320, ended.Add(48*time.Hour))

	t.Run("history", func(t *testing.T) {
		out, errs, code := tpcc(t, admin, "history", db)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		// Each run passed its one step at all 80 loaded warehouses: a floor, printed ≥.
		expect(t, "history", out, "CREATED", "NAMESPACE  NAME       ENGINE      PHASE      STEPS  WAREHOUSES  TPMC     EFFICIENCY", "nightly-3  PostgreSQL  Succeeded  1      ≥ 80        ≥ 320.0",
			"pg=17,pipeline=nightly")
		if strings.Index(out, "nightly-3") > strings.Index(out, "nightly-1") {
			t.Errorf("history is not the latest first:\n%s", out)
		}
		out, _, code = tpcc(t, admin, "history", db, "-l", "pg=17", "-o", "json")
		var rows []results.HistoryRow
		if err := json.Unmarshal([]byte(out), &rows); err != nil || code != exitOK || len(rows) != 1 || rows[0].Name != "nightly-3" || *rows[0].TpmC != 320 {
			t.Errorf("history -l pg=17 -o json (exit %d, %v): %s", code, err, out)
		}
		out, _, _ = tpcc(t, admin, "history", db, "--engine", "cockroachdb")
		if strings.Contains(out, "nightly") {
			t.Errorf("--engine cockroachdb lists PostgreSQL runs:\n%s", out)
		}
		out, _, _ = tpcc(t, admin, "history", db, "--since", "4d", "--until", "2d")
		if !strings.Contains(out, "nightly-1") || !strings.Contains(out, "nightly-2") || strings.Contains(out, "nightly-3") {
			t.Errorf("--since 4d --until 2d:\n%s", out)
		}
	})

	t.Run("compare --baseline within tolerance", func(t *testing.T) {
		out, errs, code := tpcc(t, admin, "compare", same.Name, "--baseline", base.Name, "--tolerance", "5%", db)
		if code != exitOK {
			t.Fatalf("1 %% below the baseline: exit %d: %s\n%s", code, errs, out)
		}
		expect(t, "compare", out, "| tpmC | 400.0 ± 17.5 | 396.0 ± 17.4 | -1.0 % | ±6.2 % | within |", "| NewOrder p90 |", "No figure is worse")
		expect(t, "stderr", errs, "within tolerance")
	})

	t.Run("compare --baseline catches a regression", func(t *testing.T) {
		out, errs, code := tpcc(t, admin, "compare", worse.Name, "--baseline", base.Name, "--tolerance", "5%", db)
		if code != exitRegression {
			t.Fatalf("20 %% below the baseline: exit %d, want %d: %s", code, exitRegression, errs)
		}
		expect(t, "stderr", errs, "error: regression: tpmC is 20.0 % worse than the baseline (400.0 ± 17.5 → 320.0 ± 15.7; noise ±5.9 %, tolerance 5 %)", "efficiency is 20.0 % worse")
		expect(t, "compare", out, "| tpmC | 400.0 ± 17.5 | 320.0 ± 15.7 | -20.0 % | ±5.9 % | **regressed** |")
		if strings.Contains(errs, "NewOrder p90 is") {
			t.Errorf("an unchanged latency is named: %s", errs)
		}
		// Against the runs labelled pipeline=nightly before it: their mean, 398.
		_, errs, code = tpcc(t, admin, "compare", worse.Name, "--baseline", "pipeline=nightly", db)
		if code != exitRegression {
			t.Errorf("against pipeline=nightly: exit %d: %s", code, errs)
		}
		expect(t, "stderr", errs, "tpmC is 19.6 % worse than the baseline (398.0 ± ")
		// A tolerance beyond the drop and its noise passes.
		if _, errs, code := tpcc(t, admin, "compare", worse.Name, "--baseline", base.Name, "--tolerance", "30", db); code != exitOK {
			t.Errorf("--tolerance 30: exit %d: %s", code, errs)
		}
		out, _, code = tpcc(t, admin, "compare", "plugin/"+worse.Name, "--baseline", string(base.UID), "-o", "json", db)
		var r report.Regression
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitRegression || len(r.Figures) < 3 || r.Figures[0].Verdict != report.VerdictRegressed {
			t.Errorf("-o json (exit %d, %v): %s", code, err, out)
		}
	})

	t.Run("report from the results database", func(t *testing.T) {
		live, _, code := tpcc(t, admin, "report", worse.Name, "-o", "html")
		if code != exitOK {
			t.Fatalf("live report: exit %d", code)
		}
		rebuilt, errs, code := tpcc(t, admin, "report", worse.Name, "-o", "html", "--from-results", db)
		if code != exitOK {
			t.Fatalf("--from-results: exit %d: %s", code, errs)
		}
		expect(t, "stderr", errs, "from the results database: BenchmarkRun plugin/nightly-3 (uid "+string(worse.UID)+")")
		if rebuilt != live || !strings.Contains(live, "Step 0: p90 response time over time") {
			t.Errorf("the page rebuilt from the results database differs from the live one (%d vs %d bytes)", len(rebuilt), len(live))
		}
		// Deleted from the cluster, the run's report comes from the results database.
		if err := k8s.Delete(context.Background(), base); err != nil {
			t.Fatal(err)
		}
		if _, _, code := tpcc(t, admin, "status", base.Name); code != exitNotFound {
			t.Fatalf("the deleted run is still there: exit %d", code)
		}
		out, errs, code := tpcc(t, admin, "report", base.Name, "-o", "md", db)
		if code != exitOK {
			t.Fatalf("report of a deleted run: exit %d: %s", code, errs)
		}
		expect(t, "report of a deleted run", out, "# BenchmarkRun plugin/nightly-1 — PostgreSQL", "80 active warehouses compliant")
		if _, _, code := tpcc(t, admin, "report", base.Name, "-o", "md"); code != exitNotFound {
			t.Errorf("without a results database a deleted run is not found: exit %d", code)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			name    string
			args    []string
			code    int
			message string
		}{
			{"no results database named", []string{"history"}, exitUsage, "name the results database: --results-url URI, --results-secret NAME[/KEY] or env TPCC_RESULTS_URL"},
			{"unreachable", []string{"history", "--results-url", "postgres://u:hunter2@127.0.0.1:1/x?connect_timeout=2"}, exitNoResults, "error: connecting to the results database: "},
			{"empty database", []string{"history", "--results-url", pgtest.Database(t, pgtest.URL(t), "empty")}, exitNoResults, "no tpcc schema yet"},
			{"no such run", []string{"compare", "nope", "--baseline", base.Name, db}, exitNotFound, `run "nope" in namespace plugin: not found in the results database`},
			{"no such Secret", []string{"history", "--results-secret", "nope"}, exitNoResults, "--results-secret: Secret nope not found in namespace plugin"},
			{"bad tolerance", []string{"compare", worse.Name, "--baseline", base.Name, "--tolerance", "five", db}, exitUsage, `--tolerance: "five" is not a percentage`},
			{"bad selector", []string{"history", "-l", "pipeline", db}, exitUsage, `--selector: "pipeline" is not a label equality`},
			{"bad since", []string{"history", "--since", "yesterday", db}, exitUsage, `--since: "yesterday" is neither a duration ago`},
			{"two runs with --baseline", []string{"compare", worse.Name, same.Name, "--baseline", base.Name, db}, exitUsage, "compare --baseline takes one RUN, got 2"},
		} {
			_, errs, code := tpcc(t, admin, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.message) || strings.Contains(errs, "hunter2") {
				t.Errorf("%s: exit %d (want %d), stderr %q, want %q", tc.name, code, tc.code, errs, tc.message)
			}
		}
	})
}
