package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/stepdetail"
)

// ErrNotFound is returned when no recorded run matches.
var ErrNotFound = errors.New("not found in the results database")

// ErrNoSchema is returned when the database holds no results schema (nothing was ever written).
var ErrNoSchema = errors.New("the results database has no tpcc schema yet: nothing has been recorded into it")

// checkSchema refuses a database without the schema, or with a newer one than this build reads.
func checkSchema(ctx context.Context, conn *pgx.Conn) error {
	v, err := Version(ctx, conn)
	if err != nil {
		return err
	}
	switch {
	case v == 0:
		return ErrNoSchema
	case v > LatestVersion():
		return fmt.Errorf("the results database's schema is version %d, newer than this build's %d: use a newer kubectl-tpcc", v, LatestVersion())
	}
	return nil
}

// Filter selects runs of the history.
type Filter struct {
	// Namespace, Name, Engine and Suite match exactly ("": any; Engine case-insensitively).
	Namespace, Name, Engine, Suite string
	// Labels must all be on the run.
	Labels map[string]string
	// Since and Until bound the run's creation time (zero: unbounded).
	Since, Until time.Time
	// Limit bounds the rows (0: 50).
	Limit int
}

// HistoryRow is one recorded run and its latest result.
type HistoryRow struct {
	UID       string            `json:"uid"`
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Engine    string            `json:"engine"`
	Phase     string            `json:"phase"`
	Created   time.Time         `json:"created"`
	Ended     *time.Time        `json:"ended,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	Suite     string            `json:"suite,omitempty"`
	Steps     int               `json:"steps"`
	// Result figures, when the run ended with one.
	Warehouses *int32   `json:"maxCompliantWarehouses,omitempty"`
	TpmC       *float64 `json:"tpmC,omitempty"`
	Efficiency *float64 `json:"efficiency,omitempty"`
	// Bound is what Warehouses is: Bracketed, a floor (AllLoadedCompliant, StepsExhausted:
	// printed "≥"), NoneCompliant; "" when the result was recorded without one.
	Bound  string `json:"bound,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// History lists recorded runs, the latest first.
func History(ctx context.Context, conn *pgx.Conn, f Filter) ([]HistoryRow, error) {
	if err := checkSchema(ctx, conn); err != nil {
		return nil, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	var since, until *time.Time
	if !f.Since.IsZero() {
		since = &f.Since
	}
	if !f.Until.IsZero() {
		until = &f.Until
	}
	rows, err := conn.Query(ctx, `
SELECT r.run_uid::text, r.namespace, r.name, r.engine, coalesce(x.phase, r.phase), r.created_at, coalesce(x.ended_at, r.ended_at),
       r.labels, coalesce(r.suite, ''), r.steps_recorded, x.max_compliant_warehouses, x.tpmc, x.efficiency, coalesce(x.reason, ''),
       coalesce(x.bound, '')
FROM tpcc.runs r
LEFT JOIN LATERAL (SELECT * FROM tpcc.results y WHERE y.run_uid = r.run_uid ORDER BY y.generation DESC LIMIT 1) x ON true
WHERE ($1 = '' OR r.namespace = $1) AND ($2 = '' OR r.name = $2) AND ($3 = '' OR lower(r.engine) = lower($3))
  AND ($4 = '' OR r.suite = $4) AND r.labels @> $5::jsonb
  AND ($6::timestamptz IS NULL OR r.created_at >= $6) AND ($7::timestamptz IS NULL OR r.created_at < $7)
ORDER BY r.created_at DESC, r.name
LIMIT $8`, f.Namespace, f.Name, f.Engine, f.Suite, jsonOf(orEmpty(f.Labels)), since, until, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HistoryRow
	for rows.Next() {
		var h HistoryRow
		var labels []byte
		if err := rows.Scan(&h.UID, &h.Namespace, &h.Name, &h.Engine, &h.Phase, &h.Created, &h.Ended, &labels, &h.Suite, &h.Steps,
			&h.Warehouses, &h.TpmC, &h.Efficiency, &h.Reason, &h.Bound); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(labels, &h.Labels); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// FindRun resolves a reference to a recorded run's UID: a UID, NAMESPACE/NAME, or NAME (in
// namespace, or in any namespace when namespace is ""). A name used by several runs over time
// means the latest of them.
func FindRun(ctx context.Context, conn *pgx.Conn, ref, namespace string) (string, error) {
	if err := checkSchema(ctx, conn); err != nil {
		return "", err
	}
	ns, name := namespace, ref
	if i := strings.IndexByte(ref, '/'); i >= 0 {
		ns, name = ref[:i], ref[i+1:]
	}
	rows, err := conn.Query(ctx, `
SELECT run_uid::text, namespace FROM tpcc.runs
WHERE run_uid::text = $1 OR (name = $2 AND ($3 = '' OR namespace = $3))
ORDER BY (run_uid::text = $1) DESC, created_at DESC`, ref, name, ns)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var uids, namespaces []string
	for rows.Next() {
		var uid, runNS string
		if err := rows.Scan(&uid, &runNS); err != nil {
			return "", err
		}
		uids, namespaces = append(uids, uid), append(namespaces, runNS)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(uids) == 0 {
		where := "any namespace"
		if ns != "" {
			where = "namespace " + ns
		}
		return "", fmt.Errorf("run %q in %s: %w", ref, where, ErrNotFound)
	}
	if uids[0] == ref {
		return ref, nil
	}
	for _, other := range namespaces[1:] {
		if other != namespaces[0] {
			return "", fmt.Errorf("run %q was recorded in several namespaces (%s, %s, …): name it NAMESPACE/NAME or by UID", ref, namespaces[0], other)
		}
	}
	return uids[0], nil
}

// LoadRun reads a recorded run back as the BenchmarkRun it was — metadata, spec and status as of
// its last write — with its steps' time series: enough to render its report exactly as from the
// live objects (internal/report).
func LoadRun(ctx context.Context, conn *pgx.Conn, uid string) (*benchv1.BenchmarkRun, *measure.SeriesReport, error) {
	if err := checkSchema(ctx, conn); err != nil {
		return nil, nil, err
	}
	run := &benchv1.BenchmarkRun{}
	var labels, spec, status []byte
	var created time.Time
	err := conn.QueryRow(ctx, `SELECT namespace, name, labels, created_at, spec, status FROM tpcc.runs WHERE run_uid::text = $1`, uid).
		Scan(&run.Namespace, &run.Name, &labels, &created, &spec, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, fmt.Errorf("run %s: %w", uid, ErrNotFound)
	}
	if err != nil {
		return nil, nil, err
	}
	run.APIVersion, run.Kind = benchv1.GroupVersion.String(), "BenchmarkRun"
	run.UID, run.CreationTimestamp = types.UID(uid), metav1.NewTime(created)
	for _, part := range []struct {
		body []byte
		into any
	}{{labels, &run.Labels}, {spec, &run.Spec}, {status, &run.Status}} {
		if err := json.Unmarshal(part.body, part.into); err != nil {
			return nil, nil, fmt.Errorf("run %s: %w", uid, err)
		}
	}
	if len(run.Labels) == 0 {
		run.Labels = nil
	}
	if run, err = withStepRows(ctx, conn, run, uid); err != nil {
		return nil, nil, err
	}
	rows, err := conn.Query(ctx, `SELECT step_index, series FROM tpcc.steps WHERE run_uid::text = $1 AND series IS NOT NULL ORDER BY step_index`, uid)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var series *measure.SeriesReport
	for rows.Next() {
		var index int32
		var body []byte
		if err := rows.Scan(&index, &body); err != nil {
			return nil, nil, err
		}
		s, err := measure.DecodeStepSeries(body, index)
		if err != nil {
			return nil, nil, fmt.Errorf("run %s: %w", uid, err)
		}
		if series == nil {
			series = &measure.SeriesReport{SchemaVersion: 1}
		}
		series.Steps = append(series.Steps, *s)
	}
	return run, series, rows.Err()
}

// withStepRows is run with its steps' per-pod lists put back from their rows in tpcc.steps
// (status keeps each measured step's summary; the row keeps the step as step.json holds it).
func withStepRows(ctx context.Context, conn *pgx.Conn, run *benchv1.BenchmarkRun, uid string) (*benchv1.BenchmarkRun, error) {
	rows, err := conn.Query(ctx, `SELECT step FROM tpcc.steps WHERE run_uid::text = $1 ORDER BY step_index`, uid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	records := map[int32]benchv1.StepResult{}
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return nil, err
		}
		var s benchv1.StepResult
		if err := json.Unmarshal(body, &s); err != nil {
			return nil, fmt.Errorf("run %s: %w", uid, err)
		}
		records[s.Index] = s
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return stepdetail.Restore(run, records), nil
}

// ResultHistograms reads a recorded run back (LoadRun) with the latency histograms its result
// step stored, by transaction: what report.FiguresOf takes. A run without a result has none.
func ResultHistograms(ctx context.Context, conn *pgx.Conn, uid string) (*benchv1.BenchmarkRun, map[benchv1.Transaction]*hdr.Histogram, error) {
	run, _, err := LoadRun(ctx, conn, uid)
	if err != nil {
		return nil, nil, err
	}
	histograms := map[benchv1.Transaction]*hdr.Histogram{}
	if r := run.Status.Result; r != nil && r.Step != nil {
		var body []byte
		err := conn.QueryRow(ctx, `SELECT coalesce(histograms, '{}'::jsonb) FROM tpcc.steps WHERE run_uid::text = $1 AND step_index = $2`, uid, *r.Step).Scan(&body)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, nil, err
		}
		encoded := map[string]string{}
		if len(body) > 0 {
			if err := json.Unmarshal(body, &encoded); err != nil {
				return nil, nil, err
			}
		}
		for t, e := range encoded {
			h, err := snapshot.DecodeHistogram(e)
			if err != nil {
				return nil, nil, fmt.Errorf("run %s step %d %s: %w", uid, *r.Step, t, err)
			}
			histograms[benchv1.Transaction(t)] = h
		}
	}
	return run, histograms, nil
}

// EndedAt is when a run ended, by its Complete or Failed condition (zero while it runs).
func EndedAt(run *benchv1.BenchmarkRun) time.Time {
	for _, c := range run.Status.Conditions {
		if (c.Type == benchv1.ConditionComplete || c.Type == benchv1.ConditionFailed) && c.Status == metav1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// Selected are the UIDs of recorded runs that ended Succeeded with all of labels, latest first,
// ended before before (zero: any time), without exclude; at most limit.
func Selected(ctx context.Context, conn *pgx.Conn, labels map[string]string, namespace, exclude string, before time.Time, limit int) ([]string, error) {
	if err := checkSchema(ctx, conn); err != nil {
		return nil, err
	}
	var b *time.Time
	if !before.IsZero() {
		b = &before
	}
	rows, err := conn.Query(ctx, `
SELECT r.run_uid::text FROM tpcc.runs r JOIN tpcc.results x USING (run_uid)
WHERE r.labels @> $1::jsonb AND ($2 = '' OR r.namespace = $2) AND r.run_uid::text <> $3 AND x.phase = 'Succeeded'
  AND x.tpmc IS NOT NULL AND ($4::timestamptz IS NULL OR x.ended_at < $4)
ORDER BY x.ended_at DESC LIMIT $5`, jsonOf(labels), namespace, exclude, b, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var uid string
		if err := rows.Scan(&uid); err != nil {
			return nil, err
		}
		out = append(out, uid)
	}
	return out, rows.Err()
}

// ParseLabels reads "k=v,k2=v2" (a label selector of equalities only).
func ParseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(strings.TrimPrefix(v, "="))
		if !ok || k == "" || strings.ContainsAny(k, "!<>() ") {
			return nil, fmt.Errorf("%q is not a label equality KEY=VALUE", part)
		}
		out[k] = v
	}
	return out, nil
}

// LabelString writes labels as k=v,… sorted.
func LabelString(labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for k, v := range labels {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
