package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/controllers/run/plan"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/stepdetail"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;create;patch

// stepData is what a step ConfigMap keeps: the step as recorded, the full summary and verdict,
// and the merged response-time histograms (HdrHistogram V2, compressed, base64; microseconds).
type stepData struct {
	Step       benchv1.StepResult              `json:"step"`
	Summary    snapshot.Summary                `json:"summary"`
	Verdict    sla.Verdict                     `json:"verdict"`
	Histograms map[snapshot.Transaction]string `json:"histograms"`
}

// reportVersion is report.json's schema version: 2 added environment, steps[].step.telemetry and
// the series.json.gz key beside it.
const reportVersion = 2

// reportDoc is the report ConfigMap's report.json.
type reportDoc struct {
	SchemaVersion int                      `json:"schemaVersion"`
	Run           string                   `json:"run"`
	Namespace     string                   `json:"namespace"`
	Engine        benchv1.Engine           `json:"engine"`
	Spec          benchv1.BenchmarkRunSpec `json:"spec"`
	Result        benchv1.Result           `json:"result"`
	Environment   *benchv1.RunEnvironment  `json:"environment,omitempty"`
	// Sizing is status.database.sizing: the settings sized from the database's memory (optional,
	// added within version 2).
	Sizing *benchv1.DatabaseSizing `json:"sizing,omitempty"`
	// Series says where the steps' time series are: "series.json.gz" beside this file, or, when
	// they would not fit the ConfigMap, the steps' own series ConfigMaps.
	Series string `json:"series"`
	// StepDetail says which of each step's detail the steps' own ConfigMaps hold instead of this
	// file, when all of it would not fit the report ConfigMap (optional, added within version 2).
	StepDetail string     `json:"stepDetail,omitempty"`
	Steps      []stepData `json:"steps"`
	Generated  time.Time  `json:"generated"`
}

// StepConfigMapName and ReportConfigMapName name a run's ConfigMaps.
func StepConfigMapName(run *benchv1.BenchmarkRun, index int32) string {
	return fmt.Sprintf("%s-step-%d", run.Name, index)
}
func ReportConfigMapName(run *benchv1.BenchmarkRun) string { return run.Name + "-report" }

// writeStepConfigMap keeps a finished step's merged data before the step is recorded: the client
// pods that hold it are about to go.
func (r *Reconciler) writeStepConfigMap(ctx context.Context, run *benchv1.BenchmarkRun, step *benchv1.StepResult, m *snapshot.Merged, v *sla.Verdict) error {
	data := stepData{Step: *step, Summary: m.Summarize(), Verdict: *v, Histograms: map[snapshot.Transaction]string{}}
	for t, mt := range m.Transactions {
		encoded, err := snapshot.EncodeHistogram(mt.Histogram)
		if err != nil {
			return fmt.Errorf("encoding the %s histogram of step %d: %w", t, step.Index, err)
		}
		data.Histograms[t] = encoded
	}
	body, err := json.MarshalIndent(data, "", "  ")
	if err != nil {
		return err
	}
	return r.applyConfigMap(ctx, run, StepConfigMapName(run, step.Index), map[string]string{"step.json": string(body)}, nil)
}

func (r *Reconciler) applyConfigMap(ctx context.Context, run *benchv1.BenchmarkRun, name string, data map[string]string, binaryData map[string][]byte) error {
	return kube.ApplyOwnedConfigMap(ctx, r.Client, r.APIReader, r.Scheme, run, name, engines.Labels(run), data, binaryData)
}

// reconcileResult ends a run whose search is over: the result, the report, the conditions.
func (r *Reconciler) reconcileResult(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	params, err := plan.SearchParams(run)
	if err != nil {
		return false, ctrl.Result{}, r.fail(ctx, run, "InvalidSLA", err.Error())
	}
	evidence := plan.SearchEvidence(run.Status.Steps)
	decision, err := search.Next(params, evidence.Outcomes)
	if err != nil {
		return false, ctrl.Result{}, r.fail(ctx, run, "SearchInconsistent", err.Error())
	}
	steps, err := r.readStepData(ctx, run)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	// The result and the report read the database as its engine described it, and the steps'
	// per-pod lists from their ConfigMaps.
	described := r.engines().Described(stepdetail.Restore(run, stepRecords(steps)))
	result := plan.Result(described, decision, evidence)
	result.Sustained = measure.SustainedResult(run)
	result.ConsistencyCheck = run.Status.FinalCheck
	// The run fails for what its faults revealed, or for what the check after its last step found.
	failReason, failMessage := faultFailure(run)
	if failReason == "" {
		failReason, failMessage = finalCheckFailure(run.Status.FinalCheck)
	}
	slaValue, slaReason, slaMessage := plan.SLACompliance(run, result)
	slaValue, slaReason, slaMessage = qualifyResult(run, &result, failReason, failMessage, slaValue, slaReason, slaMessage)
	rep := reportDoc{SchemaVersion: reportVersion, Run: run.Name, Namespace: run.Namespace, Engine: run.Spec.Database.Engine, Spec: run.Spec,
		Result: result, Environment: run.Status.Environment, Steps: steps, Generated: time.Now().UTC()}
	if run.Status.Database != nil {
		rep.Sizing = run.Status.Database.Sizing
	}
	series, seriesBytes, err := r.readSeries(ctx, run, kube.ConfigMapBudget)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	fitted, err := layoutReport(described, r.engines().Described(run), result, rep, series, seriesBytes, kube.ConfigMapBudget)
	if err != nil {
		return false, ctrl.Result{}, r.fail(ctx, run, "ReportTooLarge", err.Error())
	}
	data, binary := fitted.Data, fitted.Binary
	if err := r.applyReport(ctx, run, data, binary); err != nil {
		return false, ctrl.Result{}, err
	}
	if failReason != "" {
		// The report is written; the run fails for what its faults or the check after its last
		// step revealed, and SLACompliant says so.
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			s.Result = &result
			s.Report = &benchv1.ReportRef{ConfigMapName: ReportConfigMapName(run)}
			setCondition(s, run.Generation, benchv1.ConditionSLACompliant, slaValue, slaReason, slaMessage)
		}); err != nil {
			return false, ctrl.Result{}, err
		}
		if err := r.fail(ctx, run, failReason, failMessage); !errors.Is(err, errRunFailed) {
			return false, ctrl.Result{}, err
		}
		return false, ctrl.Result{}, r.teardown(ctx, run)
	}
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		s.Phase = benchv1.PhaseSucceeded
		s.Current = nil
		s.Result = &result
		s.Report = &benchv1.ReportRef{ConfigMapName: ReportConfigMapName(run)}
		setCondition(s, run.Generation, benchv1.ConditionSLACompliant, slaValue, slaReason, slaMessage)
		if run.Spec.Sustain != nil {
			value, reason, message := measure.SustainedCondition(result.Sustained)
			setCondition(s, run.Generation, benchv1.ConditionSustained, value, reason, message)
		}
		setCondition(s, run.Generation, benchv1.ConditionComplete, metav1.ConditionTrue, "SearchFinished", result.Message)
		setCondition(s, run.Generation, benchv1.ConditionFailed, metav1.ConditionFalse, "SearchFinished", "the run finished")
	}); err != nil {
		return false, ctrl.Result{}, err
	}
	r.Recorder.Eventf(run, nil, corev1.EventTypeNormal, "Result", "Complete", "%s", result.Message)
	return true, ctrl.Result{}, r.teardown(ctx, run)
}

// stepRecords are the step records of steps' ConfigMaps, by index.
func stepRecords(steps []stepData) map[int32]benchv1.StepResult {
	out := make(map[int32]benchv1.StepResult, len(steps))
	for _, d := range steps {
		out[d.Step.Index] = d.Step
	}
	return out
}

func (r *Reconciler) readStepData(ctx context.Context, run *benchv1.BenchmarkRun) ([]stepData, error) {
	var out []stepData
	for _, step := range run.Status.Steps {
		cm := &corev1.ConfigMap{}
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: StepConfigMapName(run, step.Index)}, cm)
		if apierrors.IsNotFound(err) {
			out = append(out, stepData{Step: step}) // a step that failed before measuring has no data
			continue
		}
		if err != nil {
			return nil, err
		}
		var data stepData
		if err := json.Unmarshal([]byte(cm.Data["step.json"]), &data); err != nil {
			return nil, fmt.Errorf("ConfigMap %s: %w", cm.Name, err)
		}
		out = append(out, data)
	}
	return out, nil
}
