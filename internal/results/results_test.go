package results

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	"github.com/jackc/pgx/v5"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

// These tests run against a real PostgreSQL (hack/pg-sync.sh; make test starts one): a fresh
// database per test.

func connect(t *testing.T) (*pgx.Conn, string) {
	t.Helper()
	uri := pgtest.Database(t, pgtest.URL(t), "results")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := Connect(ctx, uri, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn, uri
}

func TestMigrateOnceUnderConcurrentWriters(t *testing.T) {
	conn, uri := connect(t)
	ctx := context.Background()
	// Four writers start on an empty database at once: each migration is applied once.
	var wg sync.WaitGroup
	applied := make([][]int, 4)
	errs := make([]error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Connect(ctx, uri, 1)
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close(ctx)
			applied[i], errs[i] = Migrate(ctx, c)
		}()
	}
	wg.Wait()
	total := 0
	for i := range 4 {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		total += len(applied[i])
	}
	if total != len(migrations) {
		t.Errorf("the writers applied %d migrations together, want each of the %d once: %v", total, len(migrations), applied)
	}
	var rows, version int
	if err := conn.QueryRow(ctx, `SELECT count(*), max(version) FROM tpcc.schema_version`).Scan(&rows, &version); err != nil {
		t.Fatal(err)
	}
	if rows != len(migrations) || version != LatestVersion() {
		t.Errorf("schema_version has %d rows up to version %d, want %d up to %d", rows, version, len(migrations), LatestVersion())
	}
	if again, err := Migrate(ctx, conn); err != nil || len(again) != 0 {
		t.Errorf("migrating a migrated database applied %v, %v; want nothing", again, err)
	}
	// A schema newer than this build is refused, not written into.
	if _, err := conn.Exec(ctx, `INSERT INTO tpcc.schema_version (version, description) VALUES ($1, 'from the future')`, LatestVersion()+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Migrate(ctx, conn); err == nil || !strings.Contains(err.Error(), "newer than this build") {
		t.Errorf("a newer schema: %v, want it refused", err)
	}
	if _, err := History(ctx, conn, Filter{}); err == nil || !strings.Contains(err.Error(), "newer than this build") {
		t.Errorf("reading a newer schema: %v, want it refused", err)
	}
}

func TestWriteRowsPerStepAndResultOnce(t *testing.T) {
	conn, _ := connect(t)
	ctx := context.Background()
	run := fixtureRun("bench", "pg", map[string]string{"team": "db", "pipeline": "nightly"}, t0, 1)
	files := stepFiles(t, run)

	// Step by step, as the operator writes after each recorded step, then the end.
	for _, w := range []struct {
		from, to int32
		end      bool
		new      int
	}{{0, 1, false, 1}, {1, 3, false, 2}, {3, 4, true, 1}} {
		got, err := Write(ctx, conn, runRecord(run, w.from, w.to, w.end), files)
		if err != nil {
			t.Fatalf("write steps %d..%d: %v", w.from, w.to, err)
		}
		if got.StepsNew != w.new || got.EndNew != w.end || len(got.MissingFiles) > 0 {
			t.Errorf("write steps %d..%d: %+v, want %d new steps, end new %v", w.from, w.to, got, w.new, w.end)
		}
	}
	// A restarted operator sends everything again: nothing is written twice.
	again, err := Write(ctx, conn, runRecord(run, 0, 4, true), files)
	if err != nil {
		t.Fatal(err)
	}
	if again.StepsNew != 0 || again.EndNew {
		t.Errorf("the same record again wrote %+v, want nothing new", again)
	}

	// The schema, queried with plain SQL (docs/results.md shows these queries).
	uid := string(run.UID)
	var steps, distinct int
	query(t, conn, `SELECT count(*), count(DISTINCT step_index) FROM tpcc.steps WHERE run_uid = $1`, []any{uid}, &steps, &distinct)
	if steps != 4 || distinct != 4 {
		t.Errorf("tpcc.steps holds %d rows (%d distinct), want one per step: 4", steps, distinct)
	}
	var phase, engine, labels string
	var recorded int
	query(t, conn, `SELECT phase, engine, labels->>'pipeline', steps_recorded FROM tpcc.runs WHERE run_uid = $1`, []any{uid}, &phase, &engine, &labels, &recorded)
	if phase != "Succeeded" || engine != "PostgreSQL" || labels != "nightly" || recorded != 4 {
		t.Errorf("tpcc.runs: phase %s engine %s pipeline %s steps %d", phase, engine, labels, recorded)
	}
	var verdict string
	var tpmc, newOrders float64
	var reasons []string
	var seriesBytes int
	query(t, conn, `SELECT verdict, tpmc, new_orders, reasons, length(series) FROM tpcc.steps WHERE run_uid = $1 AND step_index = 1`, []any{uid},
		&verdict, &tpmc, &newOrders, &reasons, &seriesBytes)
	s1 := run.Status.Steps[1]
	if verdict != "NonCompliant" || tpmc != s1.TpmC || newOrders != s1.TpmC*5 || len(reasons) != 1 || seriesBytes == 0 {
		t.Errorf("step 1: verdict %s tpmC %v newOrders %v reasons %v series %d bytes", verdict, tpmc, newOrders, reasons, seriesBytes)
	}
	var p90 float64
	var count int64
	query(t, conn, `SELECT p90_ms, count FROM tpcc.step_transactions WHERE run_uid = $1 AND step_index = 2 AND transaction = 'Payment'`, []any{uid}, &p90, &count)
	if want := s1.Transactions[benchv1.Payment]; p90 != 30 || count != 100*150 {
		t.Errorf("step 2 Payment: p90 %vms count %d, want 30ms and %d (%v)", p90, count, 100*150, want)
	}
	var txRows int
	query(t, conn, `SELECT count(*) FROM tpcc.step_transactions WHERE run_uid = $1`, []any{uid}, &txRows)
	if txRows != 4*5 {
		t.Errorf("tpcc.step_transactions holds %d rows, want 5 per step", txRows)
	}
	var action, primaryAfter string
	var unavailable float64
	var ledger bool
	query(t, conn, `SELECT action, primary_after, unavailability_ms, ledger_pass FROM tpcc.faults WHERE run_uid = $1 AND step_index = 3 AND fault = 0`, []any{uid},
		&action, &primaryAfter, &unavailable, &ledger)
	if action != "KillPrimary" || primaryAfter != "pg-db-2" || unavailable != 7050 || !ledger {
		t.Errorf("fault: %s → %s, unavailable %vms, ledger %v", action, primaryAfter, unavailable, ledger)
	}
	var server, sharedBuffers string
	query(t, conn, `SELECT server_version, settings->>'shared_buffers' FROM tpcc.environments WHERE run_uid = $1`, []any{uid}, &server, &sharedBuffers)
	if server != "PostgreSQL 16.4" || sharedBuffers != "262144 8kB" {
		t.Errorf("environment: %s, shared_buffers %s", server, sharedBuffers)
	}
	var results int
	var warehouses int32
	var resultTpmC, resultNewOrders float64
	var slaCompliant bool
	var restsOn []int32
	query(t, conn, `SELECT count(*) OVER (), max_compliant_warehouses, tpmc, new_orders, sla_compliant, rests_on FROM tpcc.results WHERE run_uid = $1`, []any{uid},
		&results, &warehouses, &resultTpmC, &resultNewOrders, &slaCompliant, &restsOn)
	if results != 1 || warehouses != 150 || resultTpmC != run.Status.Result.TpmC || resultNewOrders != resultTpmC*5 || !slaCompliant || len(restsOn) != 2 {
		t.Errorf("result: %d rows, %d warehouses, %v tpmC from %v New-Orders, SLA %v, rests on %v", results, warehouses, resultTpmC, resultNewOrders, slaCompliant, restsOn)
	}

	// An older record arriving late never moves the run's row back.
	if _, err := Write(ctx, conn, runRecord(run, 0, 1, false), files); err != nil {
		t.Fatal(err)
	}
	query(t, conn, `SELECT phase, steps_recorded FROM tpcc.runs WHERE run_uid = $1`, []any{uid}, &phase, &recorded)
	if phase != "Succeeded" || recorded != 4 {
		t.Errorf("after a stale record the run reads %s with %d steps, want Succeeded with 4", phase, recorded)
	}
}

func TestWriteWithoutMountedFilesWritesNull(t *testing.T) {
	conn, _ := connect(t)
	ctx := context.Background()
	run := fixtureRun("bench", "gone", nil, t0, 1)
	files := stepFiles(t, run)
	delete(files, outbox.StepDataFile(0))
	delete(files, outbox.StepSeriesFile(2, 1))
	got, err := Write(ctx, conn, runRecord(run, 0, 3, false), files)
	if err != nil {
		t.Fatal(err)
	}
	if got.StepsNew != 3 || len(got.MissingFiles) != 2 {
		t.Errorf("%+v, want 3 steps written and 2 files named missing", got)
	}
	var nullData, nullSeries int
	query(t, conn, `SELECT count(*) FILTER (WHERE histograms IS NULL), count(*) FILTER (WHERE series IS NULL) FROM tpcc.steps WHERE run_uid = $1`,
		[]any{string(run.UID)}, &nullData, &nullSeries)
	if nullData != 1 || nullSeries != 1 {
		t.Errorf("%d steps without data, %d without series; want 1 and 1", nullData, nullSeries)
	}
}

// The report rebuilt from the results database alone is the page rendered from the live run.
func TestLoadRunRebuildsTheReport(t *testing.T) {
	conn, _ := connect(t)
	ctx := context.Background()
	run := fixtureRun("bench", "pg-report", map[string]string{"team": "db"}, t0, 1)
	files := stepFiles(t, run)
	// The run's status as the operator keeps it: each step's summary, its per-pod lists in its
	// step.json only.
	recorded := run.DeepCopy()
	for i := range recorded.Status.Steps {
		s := &recorded.Status.Steps[i]
		s.Telemetry.Pods, s.Placement.Pods, s.DetailIn = nil, []benchv1.PodPlacementRecord{}, fmt.Sprintf("pg-report-step-%d", s.Index)
	}
	if _, err := Write(ctx, conn, runRecord(recorded, 0, 4, true), files); err != nil {
		t.Fatal(err)
	}
	uid, err := FindRun(ctx, conn, "bench/pg-report", "")
	if err != nil || uid != string(run.UID) {
		t.Fatalf("FindRun: %q, %v", uid, err)
	}
	got, series, err := LoadRun(ctx, conn, uid)
	if err != nil {
		t.Fatal(err)
	}
	live := &measure.SeriesReport{SchemaVersion: 1}
	for _, s := range run.Status.Steps {
		body := []byte{}
		for k := 0; ; k++ {
			f, ok := files[outbox.StepSeriesFile(s.Index, k)]
			if !ok {
				break
			}
			body = append(body, f.Data...)
		}
		ss, err := measure.DecodeStepSeries(body, s.Index)
		if err != nil {
			t.Fatal(err)
		}
		live.Steps = append(live.Steps, *ss)
	}
	generated := t0.Add(48 * time.Hour)
	want := report.RunHTML(report.RunInput{Run: run, Result: report.PartialResult(run), Series: live, Generated: generated})
	rebuilt := report.RunHTML(report.RunInput{Run: got, Result: report.PartialResult(got), Series: series, Generated: generated})
	if rebuilt != want {
		t.Errorf("the page rebuilt from the results database differs from the live one (%d vs %d bytes) at byte %d", len(rebuilt), len(want), firstDiff(rebuilt, want))
	}
	if !strings.Contains(rebuilt, "<svg") || !strings.Contains(rebuilt, "pg-report") {
		t.Error("the rebuilt page has no chart")
	}
	md, wantMD := report.RunMarkdown(got, *got.Status.Result), report.RunMarkdown(run, *run.Status.Result)
	if md != wantMD {
		t.Error("the Markdown report rebuilt from the results database differs from the live one")
	}
	if !strings.Contains(md, "pg-report-step-3-0-x n2") {
		t.Errorf("the rebuilt Markdown lacks the steps' per-pod placement:\n%s", md)
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestHistoryFilters(t *testing.T) {
	conn, _ := connect(t)
	ctx := context.Background()
	write := func(run *benchv1.BenchmarkRun) {
		if _, err := Write(ctx, conn, runRecord(run, 0, 4, true), stepFiles(t, run)); err != nil {
			t.Fatal(err)
		}
	}
	a := fixtureRun("bench", "a", map[string]string{"pipeline": "nightly"}, t0, 1)
	b := fixtureRun("bench", "b", map[string]string{"pipeline": "nightly", "pg": "17"}, t0.Add(24*time.Hour), 1)
	c := fixtureRun("other", "c", nil, t0.Add(48*time.Hour), 1)
	c.Spec.Database = benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB}
	c.Spec.Faults = nil
	again := fixtureRun("bench", "a", map[string]string{"pipeline": "nightly"}, t0.Add(72*time.Hour), 1) // the name reused
	for _, r := range []*benchv1.BenchmarkRun{a, b, c, again} {
		write(r)
	}
	names := func(f Filter) string {
		rows, err := History(ctx, conn, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Namespace+"/"+r.Name)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		filter Filter
		want   string
	}{
		{Filter{}, "bench/a other/c bench/b bench/a"},
		{Filter{Engine: "postgresql"}, "bench/a bench/b bench/a"},
		{Filter{Labels: map[string]string{"pipeline": "nightly"}}, "bench/a bench/b bench/a"},
		{Filter{Labels: map[string]string{"pipeline": "nightly", "pg": "17"}}, "bench/b"},
		{Filter{Namespace: "other"}, "other/c"},
		{Filter{Since: t0.Add(time.Hour), Until: t0.Add(50 * time.Hour)}, "other/c bench/b"},
		{Filter{Name: "a", Limit: 1}, "bench/a"},
	} {
		if got := names(c.filter); got != c.want {
			t.Errorf("history %+v: %q, want %q", c.filter, got, c.want)
		}
	}
	rows, err := History(ctx, conn, Filter{Name: "b"})
	if err != nil || len(rows) != 1 || rows[0].TpmC == nil || *rows[0].TpmC != b.Status.Result.TpmC || rows[0].Phase != "Succeeded" || rows[0].Steps != 4 {
		t.Errorf("history of b: %+v, %v", rows, err)
	}
	// A reused name means its latest run; a UID names one exactly.
	if uid, err := FindRun(ctx, conn, "a", "bench"); err != nil || uid != string(again.UID) {
		t.Errorf("FindRun a: %s, %v; want the latest, %s", uid, err, again.UID)
	}
	if uid, err := FindRun(ctx, conn, string(a.UID), ""); err != nil || uid != string(a.UID) {
		t.Errorf("FindRun by UID: %s, %v", uid, err)
	}
	if _, err := FindRun(ctx, conn, "nope", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("FindRun nope: %v, want ErrNotFound", err)
	}
	selected, err := Selected(ctx, conn, map[string]string{"pipeline": "nightly"}, "", string(again.UID), again.CreationTimestamp.Time, 10)
	if err != nil || len(selected) != 2 || selected[0] != string(b.UID) || selected[1] != string(a.UID) {
		t.Errorf("Selected: %v, %v; want b then a", selected, err)
	}
}

func TestHistoryOfAnEmptyDatabase(t *testing.T) {
	conn, _ := connect(t)
	if _, err := History(context.Background(), conn, Filter{}); !errors.Is(err, ErrNoSchema) {
		t.Errorf("%v, want ErrNoSchema", err)
	}
}

func TestFiguresAndRegression(t *testing.T) {
	conn, _ := connect(t)
	ctx := context.Background()
	base := fixtureRun("bench", "base", nil, t0, 1)
	same := fixtureRun("bench", "same", nil, t0.Add(time.Hour), 0.99)
	worse := fixtureRun("bench", "worse", nil, t0.Add(2*time.Hour), 0.8)
	for _, r := range []*benchv1.BenchmarkRun{base, same, worse} {
		if _, err := Write(ctx, conn, runRecord(r, 0, 4, true), stepFiles(t, r)); err != nil {
			t.Fatal(err)
		}
	}
	figures := func(run *benchv1.BenchmarkRun) report.RunFigures {
		recorded, histograms, err := ResultHistograms(ctx, conn, string(run.UID))
		if err != nil {
			t.Fatalf("figures of %s: %v", run.Name, err)
		}
		f, ok := report.FiguresOf(recorded, histograms)
		if !ok {
			t.Fatalf("figures of %s: no result", run.Name)
		}
		if ended := EndedAt(recorded); ended.IsZero() {
			t.Errorf("%s: no end recorded", run.Name)
		} else {
			f.Ended = ended
		}
		return f
	}
	b, s, w := figures(base), figures(same), figures(worse)
	if _, ok := b.Samples["NewOrder p90"]; !ok {
		t.Errorf("no latency figure from the stored histograms: %v", b.Order)
	}
	if r := report.CompareRunFigures([]report.RunFigures{s}, []report.RunFigures{b}, 5); len(r.Regressed()) != 0 {
		t.Errorf("1 %% lower is within a 5 %% tolerance: %+v", r.Regressed())
	}
	r := report.CompareRunFigures([]report.RunFigures{w}, []report.RunFigures{b}, 5)
	var regressed []string
	for _, f := range r.Regressed() {
		regressed = append(regressed, f.Figure)
	}
	if strings.Join(regressed, ",") != "tpmC,efficiency" {
		t.Errorf("20 %% lower regressed %v, want tpmC and efficiency", regressed)
	}
}

func TestSuiteBaseline(t *testing.T) {
	conn, _ := connect(t)
	ctx := context.Background()
	suiteRecord := func(name, uid string, labels map[string]string, ended time.Time, baseline *benchv1.SuiteBaseline) outbox.Record {
		return outbox.Record{Version: 1, Kind: outbox.KindSuite, Suite: &outbox.Suite{
			Object: outbox.Object{UID: uid, Namespace: "bench", Name: name, Labels: labels, Created: ended.Add(-time.Hour)},
			Status: benchv1.BenchmarkSuiteStatus{Phase: benchv1.PhaseSucceeded},
			End:    &outbox.End{Phase: benchv1.PhaseSucceeded, Generation: 1, Time: ended}, Baseline: baseline}}
	}
	memberOf := func(suite, uid, db string, repeat int32, created time.Time, scale float64) {
		run := fixtureRun("bench", suite+"-"+db+"-"+sprint(repeat), nil, created, scale)
		rec := runRecord(run, 0, 4, true)
		rec.Run.Suite = &outbox.SuiteRef{UID: uid, Name: suite, Database: db, Repeat: repeat}
		if _, err := Write(ctx, conn, rec, stepFiles(t, run)); err != nil {
			t.Fatal(err)
		}
	}
	old := "11111111-1111-4111-8111-111111111111"
	newer := "22222222-2222-4222-8222-222222222222"
	for r := int32(1); r <= 3; r++ {
		memberOf("nightly-a", old, "pg", r, t0, 1)
		memberOf("nightly-b", newer, "pg", r, t0.Add(24*time.Hour), 0.9)
	}
	for _, rec := range []outbox.Record{
		suiteRecord("nightly-a", old, map[string]string{"pipeline": "nightly"}, t0.Add(2*time.Hour), nil),
		suiteRecord("nightly-b", newer, map[string]string{"pipeline": "nightly"}, t0.Add(26*time.Hour), nil),
	} {
		if _, err := Write(ctx, conn, rec, nil); err != nil {
			t.Fatal(err)
		}
	}
	current := "33333333-3333-4333-8333-333333333333"
	w, err := Write(ctx, conn, suiteRecord("nightly-c", current, map[string]string{"pipeline": "nightly"}, t0.Add(50*time.Hour),
		&benchv1.SuiteBaseline{MatchLabels: map[string]string{"pipeline": "nightly"}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := w.Baseline
	if b == nil || !b.Found || b.Suite != "bench/nightly-b" || len(b.Databases["pg"].TpmC) != 3 || b.Databases["pg"].NewOrders[0] <= 0 {
		t.Fatalf("baseline by labels: %+v, want nightly-b with 3 pg results", b)
	}
	w, err = Write(ctx, conn, suiteRecord("nightly-d", "44444444-4444-4444-8444-444444444444", nil, t0.Add(60*time.Hour),
		&benchv1.SuiteBaseline{Suite: "nightly-a"}), nil)
	if err != nil || w.Baseline == nil || w.Baseline.UID != old {
		t.Fatalf("baseline by name: %+v, %v", w.Baseline, err)
	}
	w, err = Write(ctx, conn, suiteRecord("nightly-e", "55555555-5555-4555-8555-555555555555", nil, t0.Add(70*time.Hour),
		&benchv1.SuiteBaseline{Suite: "weekly"}), nil)
	if err != nil || w.Baseline == nil || w.Baseline.Found || !strings.Contains(w.Baseline.Message, "no suite bench/weekly") {
		t.Fatalf("a baseline that does not exist: %+v, %v", w.Baseline, err)
	}
	var suites int
	query(t, conn, `SELECT count(*) FROM tpcc.suites s JOIN tpcc.runs r ON r.suite_uid = s.suite_uid WHERE s.name = 'nightly-a'`, nil, &suites)
	if suites != 3 {
		t.Errorf("nightly-a joins %d runs, want 3", suites)
	}
}

func TestRedact(t *testing.T) {
	uri := "postgres://app:s3cr%2Ft@results-rw.bench:5432/app?sslmode=require"
	msg := "failed to connect to postgres://app:s3cr%2Ft@results-rw.bench:5432/app?sslmode=require: password s3cr/t rejected"
	got := Redact(msg, uri)
	if strings.Contains(got, "s3cr") {
		t.Errorf("Redact left the password: %s", got)
	}
	if !strings.Contains(got, "results-rw.bench:5432") {
		t.Errorf("Redact removed the host: %s", got)
	}
	_, err := Connect(context.Background(), "postgres://app:hunter2@127.0.0.1:1/app?connect_timeout=1", 1)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("connect error %v: want an error without the password", err)
	}
}

func query(t *testing.T, conn *pgx.Conn, sql string, args []any, into ...any) {
	t.Helper()
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(into...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// A priced run's price-performance is stored beside its result; an unpriced run's columns are
// NULL.
func TestPricePerformanceIsStored(t *testing.T) {
	conn, _ := connect(t)
	ctx := context.Background()
	priced := fixtureRun("bench", "priced", nil, t0, 1)
	f := func(v float64) *float64 { return &v }
	priced.Status.Result.PricePerformance = &benchv1.PricePerformance{Currency: "USD", Rule: benchv1.PricingRequests,
		MonthlyCost: f(57.75), CostPerTpmCMonth: f(0.5775), CostPerTpmC3Years: f(20.79), TpmCPerCurrency: f(1.7316)}
	plain := fixtureRun("bench", "plain", nil, t0.Add(time.Hour), 1)
	for _, run := range []*benchv1.BenchmarkRun{priced, plain} {
		if _, err := Write(ctx, conn, runRecord(run, 0, 4, true), stepFiles(t, run)); err != nil {
			t.Fatal(err)
		}
	}
	var currency, rule string
	var monthly, perMonth, per3y, perCurrency float64
	var doc []byte
	query(t, conn, `SELECT currency, pricing_rule, monthly_cost, cost_per_tpmc_month, cost_per_tpmc_3y, tpmc_per_currency, price_performance
FROM tpcc.results WHERE run_uid = $1`, []any{string(priced.UID)}, &currency, &rule, &monthly, &perMonth, &per3y, &perCurrency, &doc)
	if currency != "USD" || rule != "Requests" || monthly != 57.75 || perMonth != 0.5775 || per3y != 20.79 || perCurrency != 1.7316 ||
		!strings.Contains(string(doc), `"monthlyCost": 57.75`) && !strings.Contains(string(doc), `"monthlyCost":57.75`) {
		t.Errorf("stored %s %s %v %v %v %v %s", currency, rule, monthly, perMonth, per3y, perCurrency, doc)
	}
	var null bool
	query(t, conn, `SELECT currency IS NULL AND monthly_cost IS NULL AND price_performance IS NULL FROM tpcc.results WHERE run_uid = $1`,
		[]any{string(plain.UID)}, &null)
	if !null {
		t.Error("an unpriced run has price-performance columns")
	}
}

// The result's bound is stored in tpcc.results.bound and read back by the history: as the run's
// status says it, or, for a status written before bounds existed, as its figures show it.
func TestResultBoundIsStoredAndRead(t *testing.T) {
	conn, _ := connect(t)
	ctx := context.Background()
	floor := fixtureRun("bench", "floor", nil, t0, 1)
	floor.Status.Result.MaxCompliantWarehouses, floor.Status.Result.Bound = 200, benchv1.BoundAllLoadedCompliant
	old := fixtureRun("bench", "old", nil, t0.Add(time.Hour), 1) // no bound: rests on two steps, Bracketed
	for _, run := range []*benchv1.BenchmarkRun{floor, old} {
		if _, err := Write(ctx, conn, runRecord(run, 0, 4, true), stepFiles(t, run)); err != nil {
			t.Fatal(err)
		}
	}
	for run, want := range map[*benchv1.BenchmarkRun]string{floor: "AllLoadedCompliant", old: "Bracketed"} {
		var bound string
		query(t, conn, `SELECT bound FROM tpcc.results WHERE run_uid = $1`, []any{string(run.UID)}, &bound)
		if bound != want {
			t.Errorf("%s: tpcc.results.bound %q, want %q", run.Name, bound, want)
		}
	}
	rows, err := History(ctx, conn, Filter{Namespace: "bench"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.Name] = r.Bound
	}
	if got["floor"] != "AllLoadedCompliant" || got["old"] != "Bracketed" {
		t.Errorf("history bounds %v", got)
	}
}
