package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/resultsdb"
)

// A suite records its own row — spec, status, comparison.json — once it ends (its runs record
// theirs), and, when it names a baseline, its writer reads the baseline suite's figures back in
// the same write: the manager then judges the regression (internal/report) and records the
// verdict in status.regression and condition BaselineHeld.

// recordResults writes the suite's row into its results database and says when to look again.
// Its end is written once its runs' ends are in the database: a suite recorded as ended — what a
// later suite's baseline reads — always has its runs' results beside it.
func (r *Reconciler) recordResults(ctx context.Context, suite *benchv1.BenchmarkSuite, runs map[string]*benchv1.BenchmarkRun) time.Duration {
	rr := &resultsdb.Recorder{Client: r.Client, APIReader: r.APIReader, Scheme: r.Scheme, Recorder: r.Recorder, Config: r.Results, Jobs: r.Jobs}
	update := func(ctx context.Context, mutate func(*benchv1.ResultsRecording, *[]metav1.Condition)) error {
		return r.updateStatus(ctx, suite, func(s *benchv1.BenchmarkSuiteStatus) {
			if s.ResultsDatabase == nil {
				s.ResultsDatabase = &benchv1.ResultsRecording{}
			}
			mutate(s.ResultsDatabase, &s.Conditions)
		})
	}
	if b := suite.Spec.Baseline; b != nil && meta.FindStatusCondition(suite.Status.Conditions, benchv1.ConditionBaselineHeld) == nil {
		reason, message := benchv1.ReasonBaselinePending, "compared with "+baselineWords(suite)+" once the suite ends"
		if rr.EffectiveSecret(suite.Spec.Results) == nil {
			reason, message = benchv1.ReasonBaselineNoDatabase, "spec.baseline needs a results database: set spec.results or the operator's --results-secret"
		}
		if err := r.updateStatus(ctx, suite, func(s *benchv1.BenchmarkSuiteStatus) {
			kube.SetCondition(&s.Conditions, suite.Generation, benchv1.ConditionBaselineHeld, metav1.ConditionUnknown, reason, message)
		}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "setting BaselineHeld")
		}
	}
	t := &resultsdb.Recordable{
		Obj: suite, Kind: outbox.KindSuite, Spec: suite.Spec.Results,
		Labels:    map[string]string{"app.kubernetes.io/managed-by": "tpcc-operator", benchv1.SuiteLabel: suite.Name},
		Recording: func() *benchv1.ResultsRecording { return suite.Status.ResultsDatabase },
		Ended:     report.Final(suite.Status.Phase) && runsWritten(runs),
		Update:    update,
		Build: func(ctx context.Context, w benchv1.ResultsWriter, _ int32) (outbox.Record, []outbox.Source, error) {
			return r.suiteRecord(ctx, suite, w)
		},
		Written: func(ctx context.Context, rep outbox.WriterReport, w benchv1.ResultsWriter) error {
			if !w.End || suite.Spec.Baseline == nil {
				return nil
			}
			return r.judgeBaseline(ctx, suite, rep.Baseline)
		},
	}
	wait, ok := rr.Record(ctx, t)
	if !ok || !suite.DeletionTimestamp.IsZero() {
		return wait
	}
	if report.Final(suite.Status.Phase) && !t.Ended && rr.EffectiveSecret(suite.Spec.Results) != nil {
		// Its runs' ends are on their way (their status changes bring the suite back too).
		return resultsdb.MergeWait(wait, 30*time.Second)
	}
	return wait
}

// runsWritten says whether every run of the suite that records into a results database has its
// end written there (a run deleted since can no longer say, and is not waited for).
func runsWritten(runs map[string]*benchv1.BenchmarkRun) bool {
	for _, run := range runs {
		if run.Spec.Results != nil && run.Spec.Results.Disabled {
			continue
		}
		if rec := run.Status.ResultsDatabase; rec == nil || !rec.EndWritten {
			return false
		}
	}
	return true
}

// suiteRecord is the suite's record: identity, spec, status, comparison.json and, at its end,
// the baseline to read back.
func (r *Reconciler) suiteRecord(ctx context.Context, suite *benchv1.BenchmarkSuite, w benchv1.ResultsWriter) (outbox.Record, []outbox.Source, error) {
	status := suite.Status.DeepCopy()
	status.ResultsDatabase, status.Regression = nil, nil
	meta.RemoveStatusCondition(&status.Conditions, benchv1.ConditionResultsRecorded)
	meta.RemoveStatusCondition(&status.Conditions, benchv1.ConditionBaselineHeld)
	rec := &outbox.Suite{
		Object: outbox.Object{UID: string(suite.UID), Namespace: suite.Namespace, Name: suite.Name, Labels: suite.Labels, Created: suite.CreationTimestamp.UTC()},
		Spec:   suite.Spec, Status: *status,
	}
	cm := &corev1.ConfigMap{}
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: suite.Namespace, Name: ComparisonConfigMapName(suite)}, cm)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return outbox.Record{}, nil, err
	case kube.OwnedBy(cm, suite) && json.Valid([]byte(cm.Data["comparison.json"])):
		rec.Comparison = json.RawMessage(cm.Data["comparison.json"])
	}
	if w.End {
		rec.End = resultsdb.EndOf(suite.Status.Phase, suite.Status.Conditions)
		rec.Baseline = suite.Spec.Baseline
	}
	return outbox.Record{Version: outbox.Version, Kind: outbox.KindSuite, Written: time.Now().UTC(), Suite: rec}, nil, nil
}

func baselineWords(suite *benchv1.BenchmarkSuite) string {
	b := suite.Spec.Baseline
	if b.Suite != "" {
		return "the latest earlier suite " + suite.Namespace + "/" + b.Suite
	}
	parts := []string{}
	for k, v := range b.MatchLabels {
		parts = append(parts, k+"="+v)
	}
	return "the latest earlier suite of namespace " + suite.Namespace + " labelled " + strings.Join(sortedStrings(parts), ",")
}

// judgeBaseline records the suite's comparison with the baseline its writer read back.
func (r *Reconciler) judgeBaseline(ctx context.Context, suite *benchv1.BenchmarkSuite, answer *outbox.BaselineAnswer) error {
	tolerance, err := report.ParseTolerance(orDefault(suite.Spec.Baseline.TolerancePercent, "5"))
	if err != nil {
		return r.setBaseline(ctx, suite, nil, metav1.ConditionUnknown, "InvalidTolerance", "spec.baseline.tolerancePercent: "+err.Error())
	}
	switch {
	case answer == nil:
		return r.setBaseline(ctx, suite, nil, metav1.ConditionUnknown, benchv1.ReasonBaselinePending, "the results writer did not report the baseline")
	case !answer.Found:
		return r.setBaseline(ctx, suite, nil, metav1.ConditionUnknown, benchv1.ReasonBaselineNotFound, answer.Message)
	}
	newOrders := map[string]float64{}
	for _, rec := range suite.Status.Runs {
		run := &benchv1.BenchmarkRun{}
		if rec.Result == nil || r.APIReader.Get(ctx, client.ObjectKey{Namespace: suite.Namespace, Name: rec.Name}, run) != nil || !kube.OwnedBy(run, suite) {
			continue
		}
		if res := run.Status.Result; res != nil && res.Step != nil && int(*res.Step) < len(run.Status.Steps) {
			newOrders[rec.Name] = measure.NewOrdersCounted(run.Status.Steps[*res.Step])
		}
	}
	value := report.SuiteFigures(suite.Status.Runs, newOrders, benchv1.SearchPrecision(suite.Spec.Workload.Warehouses))
	baseline := map[string][]report.Sample{}
	for db, f := range answer.Databases {
		for i := range f.TpmC {
			baseline[db+" "+report.FigureTpmC] = append(baseline[db+" "+report.FigureTpmC], report.TpmCSample(f.TpmC[i], atFloat(f.NewOrders, i)))
			baseline[db+" "+report.FigureWarehouses] = append(baseline[db+" "+report.FigureWarehouses],
				report.Sample{Value: atFloat(f.Warehouses, i), Half95: max(1, atFloat(f.Precision, i))})
		}
	}
	var databases []string
	for _, d := range suite.Spec.Databases {
		databases = append(databases, d.Name)
	}
	deltas := report.CompareSuiteFigures(databases, value, baseline, tolerance)
	st := &benchv1.RegressionStatus{Baseline: fmt.Sprintf("%s (uid %s)", answer.Suite, answer.UID), TolerancePercent: orDefault(suite.Spec.Baseline.TolerancePercent, "5")}
	if !answer.Ended.IsZero() {
		st.BaselineEnded = &metav1.Time{Time: answer.Ended}
	}
	var regressed, compared []string
	for _, d := range deltas {
		st.Figures = append(st.Figures, benchv1.FigureComparison{Figure: d.Figure, Baseline: d.FormatValue(d.Baseline), Value: d.FormatValue(d.Value),
			ChangePercent: fmt.Sprintf("%+.1f", d.ChangePercent), NoisePercent: fmt.Sprintf("%.1f", d.NoisePercent), Verdict: d.Verdict})
		if d.Verdict == report.VerdictRegressed {
			regressed = append(regressed, d.Sentence(tolerance))
		}
		compared = append(compared, d.Figure)
	}
	switch {
	case len(deltas) == 0:
		st.Message = fmt.Sprintf("%s has no database with a result in common with this suite", answer.Suite)
		return r.setBaseline(ctx, suite, st, metav1.ConditionUnknown, benchv1.ReasonBaselineNotFound, st.Message)
	case len(regressed) > 0:
		st.Regressed = true
		st.Message = fmt.Sprintf("regressed against %s: %s", answer.Suite, strings.Join(regressed, "; "))
		r.event(suite, corev1.EventTypeWarning, benchv1.ReasonBaselineRegressed, "Compare", "%s", st.Message)
		return r.setBaseline(ctx, suite, st, metav1.ConditionFalse, benchv1.ReasonBaselineRegressed, st.Message)
	}
	st.Message = fmt.Sprintf("%s within %s %% of %s beyond their noise", strings.Join(compared, ", "), st.TolerancePercent, answer.Suite)
	return r.setBaseline(ctx, suite, st, metav1.ConditionTrue, benchv1.ReasonBaselineHeld, st.Message)
}

func (r *Reconciler) setBaseline(ctx context.Context, suite *benchv1.BenchmarkSuite, st *benchv1.RegressionStatus, value metav1.ConditionStatus, reason, message string) error {
	return r.updateStatus(ctx, suite, func(s *benchv1.BenchmarkSuiteStatus) {
		s.Regression = st
		kube.SetCondition(&s.Conditions, suite.Generation, benchv1.ConditionBaselineHeld, value, reason, resultsdb.TruncateWords(message, 2048))
	})
}

func atFloat(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return 0
}

func sortedStrings(v []string) []string {
	sort.Strings(v)
	return v
}

func orDefault(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
