package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	"github.com/jackc/pgx/v5"
	"k8s.io/apimachinery/pkg/api/meta"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/stepdetail"
)

// Every row has a natural key — a run by its UID, a step by its run's UID and index, a result by
// its run's UID and the generation it ended at, a suite by its UID — and is inserted with ON
// CONFLICT DO NOTHING (steps, results: recorded once, never rewritten) or DO UPDATE (a run's and a
// suite's own row, which follow their phase, and only forward). Writing the same record twice, or
// a record a restarted operator sends again, changes nothing. One record is one transaction.

// Written is what one write did.
type Written struct {
	// Kind and Name say what was written ("BenchmarkRun bench/demo").
	Kind, Name string
	// Steps is the number of steps in the record; StepsNew those that were not there yet.
	Steps, StepsNew int
	// End is whether the record carried the end; EndNew whether its row was new.
	End, EndNew bool
	// MissingFiles are step files the record named that were not mounted (written as NULL).
	MissingFiles []string
	// Baseline is the baseline read back for a suite that names one.
	Baseline *outbox.BaselineAnswer
}

func (w Written) String() string {
	s := fmt.Sprintf("%s %s: %d of %d steps new", w.Kind, w.Name, w.StepsNew, w.Steps)
	if w.Kind == outbox.KindSuite {
		s = fmt.Sprintf("%s %s", w.Kind, w.Name)
	}
	switch {
	case w.EndNew:
		s += ", its end written"
	case w.End:
		s += ", its end already there"
	}
	if len(w.MissingFiles) > 0 {
		s += fmt.Sprintf("; not mounted, written as NULL: %s", strings.Join(w.MissingFiles, ", "))
	}
	return s
}

// Write writes one record in one transaction, migrating the schema first. files holds the
// record's step files (the writer Job's mounted directory).
func Write(ctx context.Context, conn *pgx.Conn, rec outbox.Record, files fs.FS) (Written, error) {
	if _, err := Migrate(ctx, conn); err != nil {
		return Written{}, err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return Written{}, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	var w Written
	switch rec.Kind {
	case outbox.KindRun:
		w, err = writeRun(ctx, tx, rec.Run, files)
	case outbox.KindSuite:
		w, err = writeSuite(ctx, tx, rec.Suite)
	default:
		err = fmt.Errorf("unknown record kind %q", rec.Kind)
	}
	if err != nil {
		return w, err
	}
	return w, tx.Commit(ctx)
}

func writeRun(ctx context.Context, tx pgx.Tx, run *outbox.Run, files fs.FS) (Written, error) {
	w := Written{Kind: outbox.KindRun, Name: run.Namespace + "/" + run.Name, Steps: len(run.Steps), End: run.End != nil}
	var suiteUID, suite, suiteDB *string
	var repeat *int32
	if s := run.Suite; s != nil {
		suiteUID, suite, suiteDB, repeat = &s.UID, &s.Name, &s.Database, &s.Repeat
	}
	var ended *time.Time
	phase := string(run.Status.Phase)
	if run.End != nil {
		ended, phase = &run.End.Time, string(run.End.Phase)
	}
	spec, status, labels := jsonOf(run.Spec), jsonOf(run.Status), jsonOf(orEmpty(run.Labels))
	_, err := tx.Exec(ctx, `
INSERT INTO tpcc.runs (run_uid, namespace, name, engine, labels, suite_uid, suite, suite_database, suite_repeat,
                       created_at, phase, ended_at, steps_recorded, spec, status)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
ON CONFLICT (run_uid) DO UPDATE SET
  labels = EXCLUDED.labels, phase = EXCLUDED.phase, ended_at = EXCLUDED.ended_at,
  steps_recorded = EXCLUDED.steps_recorded, spec = EXCLUDED.spec, status = EXCLUDED.status, updated_at = now()
WHERE tpcc.runs.steps_recorded <= EXCLUDED.steps_recorded
  AND (tpcc.runs.ended_at IS NULL OR EXCLUDED.ended_at IS NOT NULL)`,
		run.UID, run.Namespace, run.Name, string(run.Spec.Database.Engine), labels, suiteUID, suite, suiteDB, repeat,
		run.Created, phase, ended, len(run.Status.Steps), spec, status)
	if err != nil {
		return w, fmt.Errorf("writing the run's row: %w", err)
	}
	for _, f := range run.Steps {
		step, ok := stepAt(run.Status.Steps, f.Index)
		if !ok {
			return w, fmt.Errorf("the record names step %d, which status.steps does not hold", f.Index)
		}
		inserted, missing, err := writeStep(ctx, tx, run.UID, step, f, files)
		if err != nil {
			return w, fmt.Errorf("writing step %d: %w", f.Index, err)
		}
		w.MissingFiles = append(w.MissingFiles, missing...)
		if inserted {
			w.StepsNew++
		}
	}
	if env := run.Status.Environment; env != nil {
		_, err := tx.Exec(ctx, `
INSERT INTO tpcc.environments (run_uid, read_at, server_version, storage_class, storage_provisioner, operator_version,
                               client_version, settings, nodes, images)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (run_uid) DO NOTHING`,
			run.UID, env.ReadAt.Time, env.ServerVersion, env.StorageClass, env.StorageProvisioner, env.OperatorVersion,
			env.ClientVersion, jsonOf(orEmpty(env.Settings)), jsonOf(orEmptySlice(env.Nodes)), jsonOf(orEmpty(env.Images)))
		if err != nil {
			return w, fmt.Errorf("writing the environment: %w", err)
		}
	}
	if run.End != nil {
		inserted, err := writeResult(ctx, tx, run)
		if err != nil {
			return w, fmt.Errorf("writing the result: %w", err)
		}
		w.EndNew = inserted
	}
	return w, nil
}

func stepAt(steps []benchv1.StepResult, index int32) (benchv1.StepResult, bool) {
	for _, s := range steps {
		if s.Index == index {
			return s, true
		}
	}
	return benchv1.StepResult{}, false
}

// stepFile is step.json of a step ConfigMap, as far as the rows need it.
type stepFile struct {
	Step       *benchv1.StepResult `json:"step"`
	Summary    json.RawMessage     `json:"summary"`
	Verdict    json.RawMessage     `json:"verdict"`
	Histograms map[string]string   `json:"histograms"`
}

// writeStep writes a step's row, with its data file (step.json) and series parts read from files,
// then its per-transaction and fault rows. A file the record names that is not mounted is written
// as NULL and returned among the missing. It reports whether the step's row is new; a step
// written before keeps its rows as they are.
func writeStep(ctx context.Context, tx pgx.Tx, uid string, s benchv1.StepResult, f outbox.StepFiles, files fs.FS) (bool, []string, error) {
	var missing []string
	data, absent, err := readStepData(files, f.Data)
	if err != nil {
		return false, nil, err
	}
	if absent {
		missing = append(missing, f.Data)
	}
	series, absentPart, err := readStepSeries(files, f.Series)
	if err != nil {
		return false, nil, err
	}
	if absentPart != "" {
		missing = append(missing, absentPart)
	}
	if data != nil && data.Step != nil && s.DetailIn != "" {
		// The row keeps the step's per-pod lists, which the run's status leaves to step.json.
		s = stepdetail.WithPods(s, *data.Step)
	}
	inserted, err := insertStepRow(ctx, tx, uid, s, data, series)
	if err != nil {
		return false, missing, err
	}
	if !inserted {
		return false, missing, nil // written before: recorded once, never rewritten
	}
	if err := insertStepTransactions(ctx, tx, uid, s); err != nil {
		return false, missing, err
	}
	if err := insertStepFaults(ctx, tx, uid, s); err != nil {
		return false, missing, err
	}
	return true, missing, nil
}

// readStepData reads and decodes a step's data file (step.json); nil when none is named, and
// when it is named but not mounted (absent).
func readStepData(files fs.FS, name string) (data *stepFile, absent bool, err error) {
	if name == "" {
		return nil, false, nil
	}
	body, err := fs.ReadFile(files, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, true, nil
	case err != nil:
		return nil, false, err
	}
	data = &stepFile{}
	if err := json.Unmarshal(body, data); err != nil {
		return nil, false, fmt.Errorf("%s: %w", name, err)
	}
	return data, false, nil
}

// readStepSeries joins the parts of a step's series in order. A series with a part missing cannot
// be read: it is then nil, and absentPart names the first part not mounted.
func readStepSeries(files fs.FS, parts []string) (series []byte, absentPart string, err error) {
	for _, part := range parts {
		body, err := fs.ReadFile(files, part)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, part, nil
		}
		if err != nil {
			return nil, "", err
		}
		series = append(series, body...)
	}
	return series, "", nil
}

// insertStepRow inserts a step's row in tpcc.steps, its summary, checks and histograms from data
// (NULL without it); it reports false when the row was there already.
func insertStepRow(ctx context.Context, tx pgx.Tx, uid string, s benchv1.StepResult, data *stepFile, series []byte) (bool, error) {
	var summary, checks, histograms any
	if data != nil {
		summary, checks, histograms = nullable(data.Summary), nullable(data.Verdict), jsonOf(orEmpty(data.Histograms))
	}
	var start, end *time.Time
	if s.StartTime != nil {
		start = &s.StartTime.Time
	}
	if s.EndTime != nil {
		end = &s.EndTime.Time
	}
	var duration *float64
	if s.Duration != nil {
		d := s.Duration.Seconds()
		duration = &d
	}
	reasons := s.Reasons
	if reasons == nil {
		reasons = []string{}
	}
	tag, err := tx.Exec(ctx, `
INSERT INTO tpcc.steps (run_uid, step_index, kind, attempt, active_warehouses, pods, verdict, compliant, tpmc, efficiency,
                        new_orders, errors, latency_ratio, started_at, ended_at, duration_seconds, reasons, step, summary,
                        checks, histograms, series)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
ON CONFLICT (run_uid, step_index) DO NOTHING`,
		uid, s.Index, string(orKind(s.Kind)), max(1, s.Attempt), s.ActiveWarehouses, s.Pods, string(s.EffectiveVerdict()), s.Compliant,
		s.TpmC, s.Efficiency, measure.NewOrdersCounted(s), s.Errors, s.LatencyRatio, start, end, duration, reasons, jsonOf(s),
		summary, checks, histograms, series)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() > 0, nil
}

// insertStepTransactions inserts a row in tpcc.step_transactions per transaction type the step
// has figures for: its count and latency percentiles in milliseconds.
func insertStepTransactions(ctx context.Context, tx pgx.Tx, uid string, s benchv1.StepResult) error {
	for _, t := range benchv1.Transactions {
		st, ok := s.Transactions[t]
		if !ok {
			continue
		}
		if _, err := tx.Exec(ctx, `
INSERT INTO tpcc.step_transactions (run_uid, step_index, transaction, count, p50_ms, p90_ms, p95_ms, p99_ms, max_ms)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
			uid, s.Index, string(t), st.Count, msOf(st.P50.Duration), msOf(st.P90.Duration), msOf(st.P95.Duration),
			msOf(st.P99.Duration), msOf(st.Max.Duration)); err != nil {
			return err
		}
	}
	return nil
}

// insertStepFaults inserts a row in tpcc.faults per injection of the step's fault, each with the
// fault's measurement, ledger check and consistency.
func insertStepFaults(ctx context.Context, tx pgx.Tx, uid string, s benchv1.StepResult) error {
	fr := s.Fault
	if fr == nil {
		return nil
	}
	unavailable, recovery, measurement := faultMeasurement(fr.Measurement)
	var ledger *bool
	if fr.Ledger != nil {
		ledger = &fr.Ledger.Pass
	}
	for _, inj := range fr.Injections {
		var at *time.Time
		if inj.Time != nil {
			at = &inj.Time.Time
		}
		if _, err := tx.Exec(ctx, `
INSERT INTO tpcc.faults (run_uid, step_index, fault, action, pod, state, injected_at, primary_before, primary_after,
                         unavailability_ms, recovery_ms, ledger_pass, consistency, injection, measurement)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING`,
			uid, s.Index, inj.Fault, string(inj.Action), inj.Pod, inj.State, at, inj.PrimaryBefore, inj.PrimaryAfter,
			unavailable, recovery, ledger, fr.Consistency, jsonOf(inj), measurement); err != nil {
			return err
		}
	}
	return nil
}

// faultMeasurement are a fault's unavailability and recovery in milliseconds and its measurement
// as JSON; all NULL without a measurement, the recovery NULL when it did not recover.
func faultMeasurement(m *benchv1.FaultMeasurement) (unavailable, recovery *float64, measurement any) {
	if m == nil {
		return nil, nil, nil
	}
	u := msOf(m.Unavailability.Duration)
	unavailable, measurement = &u, jsonOf(m)
	if m.Recovery != nil {
		r := msOf(m.Recovery.Duration)
		recovery = &r
	}
	return unavailable, recovery, measurement
}

func writeResult(ctx context.Context, tx pgx.Tx, run *outbox.Run) (bool, error) {
	end := run.End
	var warehouses, step, precision *int32
	var tpmc, efficiency, searchTime, newOrders *float64
	var restsOn []int32
	var bound *string
	if r := run.Status.Result; r != nil {
		warehouses, tpmc, efficiency, step, precision, restsOn = &r.MaxCompliantWarehouses, &r.TpmC, &r.Efficiency, r.Step, &r.Precision, r.RestsOn
		if b := r.EffectiveBound(run.Spec.Workload.Warehouses); b != "" {
			v := string(b)
			bound = &v
		}
		if r.SearchTime != nil {
			v := r.SearchTime.Seconds()
			searchTime = &v
		}
		if r.Step != nil {
			if s, ok := stepAt(run.Status.Steps, *r.Step); ok {
				n := measure.NewOrdersCounted(s)
				newOrders = &n
			}
		}
	}
	var slaCompliant *bool
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionSLACompliant); c != nil {
		v := c.Status == "True"
		slaCompliant = &v
	}
	if restsOn == nil {
		restsOn = []int32{}
	}
	price := priceColumns(run.Status.Result)
	tag, err := tx.Exec(ctx, `
INSERT INTO tpcc.results (run_uid, generation, phase, reason, message, max_compliant_warehouses, tpmc, efficiency,
                          result_step, precision, rests_on, search_time_seconds, new_orders, sla_compliant, ended_at, bound,
                          currency, pricing_rule, monthly_cost, cost_per_tpmc_month, cost_per_tpmc_3y, tpmc_per_currency, price_performance)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
ON CONFLICT (run_uid, generation) DO NOTHING`,
		run.UID, end.Generation, string(end.Phase), end.Reason, end.Message, warehouses, tpmc, efficiency, step, precision,
		restsOn, searchTime, newOrders, slaCompliant, end.Time, bound,
		price.currency, price.rule, price.monthly, price.perMonth, price.per3y, price.perCurrency, price.doc)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

func writeSuite(ctx context.Context, tx pgx.Tx, suite *outbox.Suite) (Written, error) {
	w := Written{Kind: outbox.KindSuite, Name: suite.Namespace + "/" + suite.Name, End: suite.End != nil}
	var ended *time.Time
	var generation *int64
	phase := string(suite.Status.Phase)
	if suite.End != nil {
		ended, generation, phase = &suite.End.Time, &suite.End.Generation, string(suite.End.Phase)
	}
	var comparison any
	if len(suite.Comparison) > 0 {
		comparison = string(suite.Comparison)
	}
	tag, err := tx.Exec(ctx, `
INSERT INTO tpcc.suites (suite_uid, namespace, name, labels, created_at, phase, ended_at, generation, spec, status, comparison)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (suite_uid) DO UPDATE SET
  labels = EXCLUDED.labels, phase = EXCLUDED.phase, ended_at = EXCLUDED.ended_at, generation = EXCLUDED.generation,
  spec = EXCLUDED.spec, status = EXCLUDED.status, comparison = EXCLUDED.comparison, updated_at = now()
WHERE tpcc.suites.ended_at IS NULL`,
		suite.UID, suite.Namespace, suite.Name, jsonOf(orEmpty(suite.Labels)), suite.Created, phase, ended, generation,
		jsonOf(suite.Spec), jsonOf(suite.Status), comparison)
	if err != nil {
		return w, fmt.Errorf("writing the suite's row: %w", err)
	}
	w.EndNew = suite.End != nil && tag.RowsAffected() == 1
	if suite.Baseline != nil && suite.End != nil {
		answer, err := readBaseline(ctx, tx, suite)
		if err != nil {
			return w, fmt.Errorf("reading the baseline: %w", err)
		}
		w.Baseline = &answer
	}
	return w, nil
}

// readBaseline finds the suite's baseline — the latest suite of its namespace by that name or
// with those labels that ended before it — and its runs' figures per database.
func readBaseline(ctx context.Context, tx pgx.Tx, suite *outbox.Suite) (outbox.BaselineAnswer, error) {
	b := suite.Baseline
	where, arg, what := "name = $3", any(b.Suite), fmt.Sprintf("suite %s/%s", suite.Namespace, b.Suite)
	if b.Suite == "" {
		where, arg, what = "labels @> $3::jsonb", jsonOf(b.MatchLabels), fmt.Sprintf("suite of namespace %s with labels %s", suite.Namespace, LabelString(b.MatchLabels))
	}
	var answer outbox.BaselineAnswer
	var uid, name string
	var ended time.Time
	err := tx.QueryRow(ctx, `
SELECT suite_uid::text, name, ended_at FROM tpcc.suites
WHERE namespace = $1 AND suite_uid <> $2 AND ended_at IS NOT NULL AND ended_at < $4 AND `+where+`
ORDER BY ended_at DESC LIMIT 1`, suite.Namespace, suite.UID, arg, suite.End.Time).Scan(&uid, &name, &ended)
	if errors.Is(err, pgx.ErrNoRows) {
		answer.Message = fmt.Sprintf("no %s ended before this one in the results database", what)
		return answer, nil
	}
	if err != nil {
		return answer, err
	}
	answer = outbox.BaselineAnswer{Found: true, Suite: suite.Namespace + "/" + name, UID: uid, Ended: ended.UTC(), Databases: map[string]outbox.BaselineFigures{}}
	rows, err := tx.Query(ctx, `
SELECT r.suite_database, x.tpmc, coalesce(x.new_orders, 0), x.max_compliant_warehouses, coalesce(x.precision, 1)
FROM tpcc.runs r JOIN tpcc.results x USING (run_uid)
WHERE r.suite_uid = $1 AND x.phase = 'Succeeded' AND x.tpmc IS NOT NULL
ORDER BY r.suite_database, r.suite_repeat`, uid)
	if err != nil {
		return answer, err
	}
	defer rows.Close()
	for rows.Next() {
		var db string
		var tpmc, newOrders float64
		var warehouses, precision int32
		if err := rows.Scan(&db, &tpmc, &newOrders, &warehouses, &precision); err != nil {
			return answer, err
		}
		f := answer.Databases[db]
		f.TpmC, f.NewOrders = append(f.TpmC, tpmc), append(f.NewOrders, newOrders)
		f.Warehouses, f.Precision = append(f.Warehouses, float64(warehouses)), append(f.Precision, float64(precision))
		answer.Databases[db] = f
	}
	return answer, rows.Err()
}

func orKind(k benchv1.StepKind) benchv1.StepKind {
	if k == "" {
		return benchv1.StepFull
	}
	return k
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// jsonOf encodes v for a jsonb column (as text: pgx sends it as such).
func jsonOf(v any) string {
	body, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("results: encoding %T: %v", v, err)) // the API types always encode
	}
	return string(body)
}

func nullable(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return string(raw)
}

func orEmpty[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}

func orEmptySlice[V any](s []V) []V {
	if s == nil {
		return []V{}
	}
	return s
}

// priceRow is a result's price-performance as tpcc.results stores it; all NULL without
// spec.pricing, the figures NULL when it was not priced.
type priceRow struct {
	currency, rule                        *string
	monthly, perMonth, per3y, perCurrency *float64
	doc                                   any
}

func priceColumns(r *benchv1.Result) priceRow {
	if r == nil || r.PricePerformance == nil {
		return priceRow{}
	}
	pp := r.PricePerformance
	row := priceRow{currency: &pp.Currency, monthly: pp.MonthlyCost, perMonth: pp.CostPerTpmCMonth, per3y: pp.CostPerTpmC3Years,
		perCurrency: pp.TpmCPerCurrency, doc: jsonOf(pp)}
	if pp.Rule != "" {
		rule := string(pp.Rule)
		row.rule = &rule
	}
	return row
}
