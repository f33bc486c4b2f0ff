package controllers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/metrics"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// +kubebuilder:rbac:groups="",resources=pods,verbs=list

// Grace periods of a step beyond its ramp-up and measured interval.
const (
	// startupGrace is how long client pods may take to be scheduled, pull and connect.
	startupGrace = 10 * time.Minute
	// collectGrace is how long after the measured interval the final snapshots may take.
	collectGrace = 5 * time.Minute
)

// reconcileSteps runs the search one step at a time: the next step comes from search.Next over the
// recorded steps that are evidence, its Job is created once, and the step is recorded (appended,
// never rewritten) when its verdict is final. Then the Job goes, and the next pass decides the next
// step. An inconclusive step is not evidence: the search asks for the same step again, which is
// its retry, up to search.retries times in a row before the run fails as an infrastructure failure.
func (r *BenchmarkRunReconciler) reconcileSteps(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	params, err := searchParams(run)
	if err != nil {
		return false, ctrl.Result{}, r.fail(ctx, run, "InvalidSLA", err.Error())
	}
	evidence := searchEvidence(run.Status.Steps)
	decision, err := search.Next(params, evidence.outcomes)
	if err != nil {
		return false, ctrl.Result{}, r.fail(ctx, run, "SearchInconsistent", err.Error())
	}
	index := int32(len(run.Status.Steps))
	if err := r.deleteRecordedStepJobs(ctx, run, index); err != nil {
		return false, ctrl.Result{}, err
	}
	var active int32
	var kind benchv1.StepKind
	var measured time.Duration
	if decision.Done || int32(len(evidence.outcomes)) >= maxSteps(run) {
		// The search is over: a sustained phase at a share of the load found (spec.sustain), then
		// the faults of the result step get one more step at its load.
		if warehouses, ok := sustainStepPlan(run, decision); ok {
			active, kind, measured = warehouses, benchv1.StepSustain, run.Spec.Sustain.Duration.Duration
		} else if warehouses, ok := faultStepPlan(run, decision); ok {
			active, kind = warehouses, benchv1.StepFault
			measured, _ = workload.Durations(run)
		} else {
			return true, ctrl.Result{}, nil
		}
	} else {
		active = int32(decision.Run)
		kind, measured = stepLength(run, decision.Kind)
	}
	attempt := attemptOf(run.Status.Steps)
	if attempt > retries(run)+1 {
		return false, ctrl.Result{}, r.fail(ctx, run, benchv1.ReasonInfrastructureFailed, infrastructureFailure(run))
	}
	if run.Status.Current == nil || run.Status.Current.Index != index {
		// A step starts only on a database its operator reports ready (step_gate.go).
		if ok, err := r.awaitDatabase(ctx, run, index); err != nil || !ok {
			return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, err
		}
	}
	conn := r.connection(run)
	// Every request to the step's pods from here on presents the run's control token (control.go).
	if ctx, err = r.controlContext(ctx, run); err != nil {
		return false, ctrl.Result{}, err
	}
	faults := appliedFaults(run, kind)
	job := jobs.StepJob(run, index, active, measured, conn, r.Config.Jobs)
	if len(faults) > 0 {
		jobs.MeasureFaults(job, conn)
	}
	if err := r.createOnce(ctx, run, job); err != nil {
		return false, ctrl.Result{}, err
	}
	if err := r.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
		return false, ctrl.Result{}, client.IgnoreNotFound(err)
	}
	pods := *job.Spec.Completions
	if run.Status.Current == nil || run.Status.Current.Index != index {
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			s.Phase = benchv1.PhaseRunning
			s.Current = &benchv1.StepProgress{Index: index, ActiveWarehouses: active, Pods: pods, Kind: kind, Duration: &metav1.Duration{Duration: measured}}
		}); err != nil {
			return false, ctrl.Result{}, err
		}
	}

	outcome, err := r.observeStep(ctx, run, job, active, kind, measured, conn, faults)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if outcome.record == nil {
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			if s.Current != nil && s.Current.Index == index && outcome.progress != nil {
				outcome.progress.Kind, outcome.progress.Duration = kind, &metav1.Duration{Duration: measured}
				outcome.progress.Faults = s.Current.Faults // written by applyFaults, kept across progress
				s.Current = outcome.progress
			}
		}); err != nil {
			return false, ctrl.Result{}, err
		}
		metrics.RecordLiveTelemetry(run, outcome.series)
		requeue := r.Config.PollInterval
		if outcome.nextFault > 0 && outcome.nextFault < requeue {
			requeue = outcome.nextFault // the fault is applied on time, not up to a poll late
		}
		return false, ctrl.Result{RequeueAfter: requeue}, nil
	}

	// Final: keep the step's merged data, then append the step exactly once.
	if outcome.merged != nil {
		if err := r.writeStepConfigMap(ctx, run, outcome.record, outcome.merged, outcome.verdict); err != nil {
			return false, ctrl.Result{}, err
		}
	}
	record := outcome.record
	record.Kind, record.Duration, record.Attempt = kind, &metav1.Duration{Duration: measured}, attempt
	record.Placement = r.stepPlacement(ctx, run, index) // placement.go
	if len(faults) > 0 && record.Fault == nil && run.Status.Current != nil && len(run.Status.Current.Faults) > 0 {
		// A fault step that ended for any reason keeps what was applied (the consistency check
		// after it still runs).
		record.Fault = &benchv1.FaultRecord{Injections: run.Status.Current.Faults}
	}
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if int32(len(s.Steps)) == index {
			s.Steps = append(s.Steps, *record)
		}
		s.Current = nil
	}); err != nil {
		return false, ctrl.Result{}, err
	}
	metrics.RecordStepRecorded(run, record)
	eventType := corev1.EventTypeNormal
	if record.Verdict == benchv1.VerdictInconclusive {
		eventType = corev1.EventTypeWarning
	}
	r.Recorder.Eventf(run, nil, eventType, "Step"+string(record.Verdict), "RecordStep", "step %d (%s, %s, attempt %d): %d active warehouses, tpmC %.1f, efficiency %.1f%%, %s%s",
		index, kind, measured, attempt, active, record.TpmC, record.Efficiency, record.Verdict, reasonsSuffix(record.Reasons))
	r.releasePods(ctx, outcome.podURLs)
	r.deleteJob(ctx, run, job)
	r.forgetSeries(run, index)
	return false, ctrl.Result{Requeue: true}, nil
}

// stepOutcome is what a look at a running step found: live progress, or the record to append.
type stepOutcome struct {
	// nextFault is how long until the step's next planned fault (0: none).
	nextFault time.Duration
	progress  *benchv1.StepProgress
	record    *benchv1.StepResult
	merged    *snapshot.Merged
	verdict   *sla.Verdict
	podURLs   []string
	// series is the step's time series so far, for the live telemetry metrics.
	series *measure.StepSeries
}

// observeStep reads the step's pods and snapshots, releases paused pods together once all are ready,
// and decides whether the step is over.
//
// What breaks the measurement rather than the database — a client Job or pod that failed or
// exited before its snapshot was collected, pods that never became ready, a snapshot that cannot
// be read or merged, a time series that cannot be merged or lost intervals, a measured interval
// cut short — makes the step inconclusive with its cause: it is recorded, and retried, but never
// used as evidence. A step the SLA verdict ends early (it can only fail) stays non-compliant. A
// fault step that breaks so still waits for its remaining pods' ledger checks and keeps its
// fault record: what the fault did is reported whatever else went wrong.
func (r *BenchmarkRunReconciler) observeStep(ctx context.Context, run *benchv1.BenchmarkRun, job *batchv1.Job, active int32, kind benchv1.StepKind, duration time.Duration, conn engines.Connection, faults []int) (stepOutcome, error) {
	index := run.Status.Current.Index
	want := *job.Spec.Completions
	_, rampUp := workload.Durations(run)
	age := time.Since(job.CreationTimestamp.Time)
	deadline := startupGrace + rampUp + duration + collectGrace
	inconclusive := func(cause string, urls []string) stepOutcome {
		return stepOutcome{record: measure.InconclusiveStep(index, active, want, job.CreationTimestamp, cause), podURLs: urls}
	}

	// broken is the cause that makes the step inconclusive, once one is known.
	broken := ""
	if c := kube.JobCondition(job, batchv1.JobFailed); c != nil {
		broken = fmt.Sprintf("client Job %s failed: %s", job.Name, c.Message)
	}
	pods, err := r.stepPods(ctx, run, index)
	if err != nil {
		return stepOutcome{}, err
	}
	for _, p := range pods {
		if broken != "" {
			break
		}
		switch p.Status.Phase {
		case corev1.PodFailed:
			broken = fmt.Sprintf("client pod %s failed: %s", p.Name, podFailure(p))
		case corev1.PodSucceeded:
			// A client pod exits only after the operator released it, or when its linger ran out
			// uncollected: the operator was away longer than that.
			broken = fmt.Sprintf("client pod %s exited before its final snapshot was collected (its linger of %s ran out)", p.Name, jobs.Linger)
		}
	}
	ready := readyPods(pods)
	switch {
	case broken != "" && (len(faults) == 0 || len(ready) == 0):
		return inconclusive(broken, nil), nil
	case broken == "" && int32(len(ready)) < want && age > startupGrace:
		return inconclusive(fmt.Sprintf("only %d of %d client pods became ready within %s", len(ready), want, startupGrace), nil), nil
	case broken == "" && int32(len(ready)) < want:
		return stepOutcome{}, nil
	}

	series, err := r.loadSeries(ctx, run, index)
	if err != nil {
		return stepOutcome{}, err
	}
	criteria, err := slaCriteria(run)
	if err != nil {
		return stepOutcome{}, r.fail(ctx, run, "InvalidSLA", err.Error())
	}
	if kind == benchv1.StepSustain && series.Sustain == nil {
		series.Sustain = measure.NewSustainWatch(run, active, criteria)
	}
	urls := make([]string, len(ready))
	snapshots := make([]*snapshot.Snapshot, len(ready))
	for i, p := range ready {
		urls[i] = r.snapshotURL(p.Status.PodIP)
		// The incremental read: the pod hands over the intervals the series ConfigMap holds.
		s, err := snapshot.FetchIntervalsAfter(ctx, r.Config.HTTPClient, urls[i], series.Collected-1)
		if err != nil {
			if age > deadline {
				return inconclusive(fmt.Sprintf("client pod %s did not deliver its snapshot: %v", p.Name, err), urls), nil
			}
			ctrl.LoggerFrom(ctx).Info("snapshot not available yet", "pod", p.Name, "error", err.Error())
			return stepOutcome{}, nil
		}
		snapshots[i] = s
	}

	// All pods ready: start those still paused, together.
	started := false
	for i, s := range snapshots {
		if s.Phase == snapshot.PhasePaused && broken == "" {
			if err := snapshot.Start(ctx, r.Config.HTTPClient, urls[i]); err != nil {
				return stepOutcome{}, fmt.Errorf("starting client pod %s: %w", ready[i].Name, err)
			}
			started = true
		}
	}
	if started {
		return stepOutcome{progress: &benchv1.StepProgress{Index: index, ActiveWarehouses: active, Pods: want}}, nil
	}

	if err := r.recordEnvironment(ctx, run, snapshots); err != nil {
		return stepOutcome{}, err
	}
	if err := r.collectSeries(ctx, run, index, series, snapshots, ready); err != nil {
		return stepOutcome{}, err
	}
	if broken == "" && series.MergeError != "" {
		broken = "the step's time series cannot be merged: " + series.MergeError
	}
	merged, err := snapshot.Merge(snapshots)
	switch {
	case broken != "":
	case err != nil:
		broken = fmt.Sprintf("client snapshots cannot be merged: %v", err)
	case len(merged.Failures) > 0:
		broken = fmt.Sprintf("client pod %s failed: %s", merged.Failures[0].Pod, merged.Failures[0].Message)
	default:
		broken = measure.CutShort(ready, snapshots, duration, workload.Interval(run), len(faults) > 0)
	}
	// A broken step applies no further fault, but one under way is finished (exactly once).
	nextFault, err := r.applyFaults(ctx, run, index, faults, series, duration, markAll(r.Config.HTTPClient, urls), broken != "")
	if err != nil {
		return stepOutcome{}, err
	}
	if broken != "" {
		if len(faults) == 0 {
			return inconclusive(broken, urls), nil
		}
		// A fault step keeps its record: wait for the pods still running to end and check their
		// ledgers, then record what is known, inconclusive.
		if (!measure.AllEnded(snapshots) || measure.FaultsPending(conn.Ledger, faults, snapshots)) && age <= deadline {
			return stepOutcome{nextFault: nextFault, series: series}, nil
		}
		out := inconclusive(broken, urls)
		out.record.Fault, _ = measure.FaultRecord(run, run.Status.Current.Faults, series, snapshots, want)
		return out, nil
	}
	criteria.UnmeasuredBoundsSkipped = kind == benchv1.StepProbe
	remaining := duration - merged.Measured
	if merged.Phase == snapshot.PhaseDone {
		remaining = 0
	}
	headroom := sla.Headroom{Remaining: remaining}
	if merged.Wait == snapshot.WaitSpec {
		headroom.MaxMore = sla.SpecWaitMaxMore(merged.Terminals, remaining)
	}
	early, err := sla.Decide(merged, criteria, headroom)
	if err != nil {
		return stepOutcome{}, fmt.Errorf("judging step %d: %w", index, err)
	}
	summary := merged.Summarize()
	// A step measuring faults runs to its end (the recovery is part of it), and waits for every
	// pod's ledger check and final commit record, so its record never depends on when a poll came.
	measuringFaults := len(faults) > 0 && (merged.Phase != snapshot.PhaseDone || measure.FaultsPending(conn.Ledger, faults, snapshots))
	// A sustained step runs to its end too: it says when the SLA broke and how the phase went on.
	sustaining := kind == benchv1.StepSustain && merged.Phase != snapshot.PhaseDone
	if !early.Final || measuringFaults || sustaining || (remaining <= 0 && merged.Phase != snapshot.PhaseDone) {
		if age > deadline {
			return inconclusive(fmt.Sprintf("the step did not finish within %s (phase %s)", deadline, merged.Phase), urls), nil
		}
		return stepOutcome{progress: measure.LiveProgress(index, active, want, merged, summary), nextFault: nextFault, series: series}, nil
	}
	verdict := sla.AddCheck(early.Verdict, measure.SeriesCheck(series))
	for _, ch := range measure.ReplicationChecks(run, r.replication(run), series) {
		verdict = sla.AddCheck(verdict, ch)
	}
	var fault *benchv1.FaultRecord
	if len(faults) > 0 {
		var checks []sla.Check
		fault, checks = measure.FaultRecord(run, run.Status.Current.Faults, series, snapshots, want)
		for _, ch := range checks {
			verdict = sla.AddCheck(verdict, ch)
		}
	}
	var sustained *benchv1.SustainRecord
	if kind == benchv1.StepSustain {
		if err := series.Sustain.Close(); err != nil { // the last, shorter window
			return stepOutcome{}, err
		}
		sustained = series.Sustain.Record()
		verdict = sla.AddCheck(verdict, measure.SustainCheck(sustained))
	}
	record := measure.StepRecord(index, active, want, merged, summary, verdict)
	record.Fault, record.Sustain = fault, sustained
	record.LatencyRatio = measure.Round3(sla.LatencyRatio(merged, criteria))
	record.Telemetry = series.Summary()
	record.Isolation = measure.IsolationOf(snapshots)
	record.Telemetry.Bottleneck = measure.StepBottleneck(series, record)
	if merged.Phase != snapshot.PhaseDone {
		record.Reasons = append(record.Reasons, fmt.Sprintf("ended early after %s: the verdict could no longer change", merged.Measured.Round(time.Second)))
	}
	return stepOutcome{record: record, merged: merged, verdict: &verdict, podURLs: urls}, nil
}

// markAll marks a moment in every client pod's clock (POST /v1/mark), returning the first pod's
// time; a pod that cannot be marked is named in the error (the others are marked).
func markAll(hc *http.Client, urls []string) func(ctx context.Context, label string) (time.Time, error) {
	return func(ctx context.Context, label string) (time.Time, error) {
		var first time.Time
		var errs []error
		for i, u := range urls {
			at, err := snapshot.SetMark(ctx, hc, u, label)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if i == 0 {
				first = at
			}
		}
		return first, errors.Join(errs...)
	}
}

// collectSeries merges the intervals every pod has sealed into the step's series, samples the
// pods' resource use, and stores the series when it grew.
func (r *BenchmarkRunReconciler) collectSeries(ctx context.Context, run *benchv1.BenchmarkRun, index int32, st *measure.StepSeries, snapshots []*snapshot.Snapshot, pods []corev1.Pod) error {
	intervals := make([]*snapshot.Intervals, len(snapshots))
	for i, s := range snapshots {
		intervals[i] = s.Intervals
	}
	opened := measure.OpenFaultWindow(run, st)
	changed, err := st.Collect(intervals)
	changed = changed || opened
	if err != nil {
		// The step's verdict depends on it (per-interval criteria, faults): it is kept, and the
		// step is inconclusive.
		st.MergeError = err.Error()
		return r.saveSeries(ctx, run, index, st)
	}
	r.sampleResources(ctx, run, st, pods)
	if !changed {
		return nil
	}
	return r.saveSeries(ctx, run, index, st)
}

func (r *BenchmarkRunReconciler) snapshotURL(podIP string) string {
	if r.Config.SnapshotURL != nil {
		return r.Config.SnapshotURL(podIP)
	}
	return fmt.Sprintf("http://%s:%d", podIP, jobs.SnapshotPort)
}

// stepPods lists the step's client pods, read directly: the manager keeps no cluster-wide pod cache.
func (r *BenchmarkRunReconciler) stepPods(ctx context.Context, run *benchv1.BenchmarkRun, index int32) ([]corev1.Pod, error) {
	list := &corev1.PodList{}
	selector := client.MatchingLabels(engines.Labels(run))
	selector[jobs.ComponentLabel] = jobs.ComponentClient
	selector[jobs.StepLabel] = strconv.Itoa(int(index))
	if err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), selector); err != nil {
		return nil, fmt.Errorf("listing client pods of step %d: %w", index, err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items, nil
}

func readyPods(pods []corev1.Pod) []corev1.Pod {
	var ready []corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Status.PodIP == "" {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready = append(ready, p)
			}
		}
	}
	return ready
}

func podFailure(p corev1.Pod) string {
	for _, s := range p.Status.ContainerStatuses {
		if t := s.State.Terminated; t != nil {
			return fmt.Sprintf("container %s exited %d (%s) %s", s.Name, t.ExitCode, t.Reason, strings.TrimSpace(t.Message))
		}
	}
	if p.Status.Message != "" {
		return p.Status.Message
	}
	return string(p.Status.Phase)
}

// releasePods ends the pods' linger: their final snapshots are collected.
func (r *BenchmarkRunReconciler) releasePods(ctx context.Context, urls []string) {
	for _, url := range urls {
		if err := snapshot.Stop(ctx, r.Config.HTTPClient, url); err != nil {
			ctrl.LoggerFrom(ctx).V(1).Info("releasing a client pod", "url", url, "error", err.Error())
		}
	}
}

// deleteRecordedStepJobs removes the Jobs of steps already recorded: an operator stopped between
// recording a step and deleting its Job leaves one behind.
func (r *BenchmarkRunReconciler) deleteRecordedStepJobs(ctx context.Context, run *benchv1.BenchmarkRun, recorded int32) error {
	list := &batchv1.JobList{}
	selector := client.MatchingLabels(engines.Labels(run))
	selector[jobs.ComponentLabel] = jobs.ComponentClient
	if err := r.List(ctx, list, client.InNamespace(run.Namespace), selector); err != nil {
		return err
	}
	for i := range list.Items {
		job := &list.Items[i]
		step, err := strconv.Atoi(job.Labels[jobs.StepLabel])
		if err == nil && int32(step) < recorded && job.DeletionTimestamp == nil {
			r.deleteJob(ctx, run, job)
		}
	}
	return nil
}

// searchParams maps spec.search (and the SLA thresholds the guided search estimates with) onto the
// search's parameters.
func searchParams(run *benchv1.BenchmarkRun) (search.Params, error) {
	p := search.Params{Mode: search.MaxCompliant, Strategy: search.Guided, Warehouses: int(run.Spec.Workload.Warehouses)}
	if run.Spec.Search.Mode == benchv1.SearchFixed {
		p.Mode = search.Fixed
	}
	if run.Spec.Search.Strategy == benchv1.SearchLineSearch {
		p.Strategy = search.LineSearch
	}
	if s := run.Spec.Search.StartWarehouses; s != nil {
		p.Start = int(*s)
	}
	duration, _ := workload.Durations(run)
	p.Probes = workload.ProbeDuration(run) < duration
	criteria, err := slaCriteria(run)
	if err != nil {
		return p, err
	}
	p.MinEfficiencyPercent, p.MaxErrorPercent = criteria.MinEfficiencyPercent, criteria.MaxErrorPercent
	return p, nil
}

// stepLength is the kind and measured length of a step the search chose.
func stepLength(run *benchv1.BenchmarkRun, kind search.Kind) (benchv1.StepKind, time.Duration) {
	if kind == search.Probe {
		return benchv1.StepProbe, workload.ProbeDuration(run)
	}
	duration, _ := workload.Durations(run)
	return benchv1.StepFull, duration
}

func maxSteps(run *benchv1.BenchmarkRun) int32 {
	if run.Spec.Search.MaxSteps > 0 {
		return run.Spec.Search.MaxSteps
	}
	return 20
}

// evidence is what the search replays: the conclusive steps it counts (all but inconclusive
// steps and the fault step after it), as outcomes, and the index in status.steps of each.
type evidence struct {
	outcomes []search.StepOutcome
	at       []int
}

// searchEvidence picks the search's evidence from the recorded steps.
func searchEvidence(steps []benchv1.StepResult) evidence {
	var e evidence
	for i, s := range steps {
		if s.Kind == benchv1.StepFault || s.Kind == benchv1.StepSustain || s.EffectiveVerdict() == benchv1.VerdictInconclusive {
			continue
		}
		e.outcomes = append(e.outcomes, outcomes(steps[i : i+1])[0])
		e.at = append(e.at, i)
	}
	return e
}

// step is the index in status.steps of the evidence's i-th step, -1 for -1.
func (e evidence) step(i int) int {
	if i < 0 || i >= len(e.at) {
		return -1
	}
	return e.at[i]
}

// attemptOf numbers the next step's try: 1 + the inconclusive steps recorded last, in a row (the
// next step repeats theirs: they were no evidence).
func attemptOf(steps []benchv1.StepResult) int32 {
	n := int32(1)
	for i := len(steps) - 1; i >= 0 && steps[i].EffectiveVerdict() == benchv1.VerdictInconclusive; i-- {
		n++
	}
	return n
}

// retries is search.retries with its default.
func retries(run *benchv1.BenchmarkRun) int32 {
	if r := run.Spec.Search.Retries; r != nil {
		return *r
	}
	return 2
}

// infrastructureFailure says why the run fails after its retries: the causes of the inconclusive
// steps in a row.
func infrastructureFailure(run *benchv1.BenchmarkRun) string {
	steps := run.Status.Steps
	var causes []string
	for i := len(steps) - 1; i >= 0 && steps[i].EffectiveVerdict() == benchv1.VerdictInconclusive; i-- {
		causes = append([]string{fmt.Sprintf("step %d: %s", steps[i].Index, strings.Join(steps[i].Reasons, "; "))}, causes...)
	}
	last := steps[len(steps)-1]
	return fmt.Sprintf("the infrastructure failed, not the database: the step at %d active warehouses (%s) was inconclusive %d times in a row (search.retries %d), so no capacity is published: %s",
		last.ActiveWarehouses, last.Kind, len(causes), retries(run), strings.Join(causes, " | "))
}

func outcomes(steps []benchv1.StepResult) []search.StepOutcome {
	out := make([]search.StepOutcome, len(steps))
	for i, s := range steps {
		out[i] = search.StepOutcome{ActiveWarehouses: int(s.ActiveWarehouses), Compliant: s.Compliant, Kind: search.Full}
		if s.Kind == benchv1.StepProbe {
			out[i].Kind = search.Probe
		}
		var completed int64
		for _, t := range s.Transactions {
			completed += t.Count
		}
		if completed > 0 { // a step that failed to measure has no figures
			out[i].Measured = true
			out[i].EfficiencyPercent, out[i].LatencyRatio = s.Efficiency, s.LatencyRatio
			out[i].ErrorPercent = 100 * float64(s.Errors) / float64(completed+s.Errors)
		}
	}
	return out
}

// slaCriteria maps spec.sla onto the verdict's criteria.
func slaCriteria(run *benchv1.BenchmarkRun) (sla.Criteria, error) {
	c := sla.DefaultCriteria()
	spec := run.Spec.SLA
	if spec.MinEfficiencyPercent != nil {
		c.MinEfficiencyPercent = float64(*spec.MinEfficiencyPercent)
	}
	if spec.MaxErrorPercent != "" {
		v, err := strconv.ParseFloat(spec.MaxErrorPercent, 64)
		if err != nil {
			return c, fmt.Errorf("spec.sla.maxErrorPercent %q: %w", spec.MaxErrorPercent, err)
		}
		c.MaxErrorPercent = v
	}
	if len(spec.Latency) > 0 {
		c.Latency = nil
		for i, b := range spec.Latency {
			p, err := strconv.ParseFloat(b.Percentile, 64)
			if err != nil {
				return c, fmt.Errorf("spec.sla.latency[%d].percentile %q: %w", i, b.Percentile, err)
			}
			c.Latency = append(c.Latency, sla.LatencyBound{Transaction: snapshot.Transaction(b.Transaction), Percentile: p, Max: b.Max.Duration})
		}
	}
	return c, c.Validate()
}

func reasonsSuffix(reasons []string) string {
	if len(reasons) == 0 {
		return ""
	}
	return ": " + strings.Join(reasons, "; ")
}
