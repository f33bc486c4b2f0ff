package run

import (
	"context"
	"fmt"
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
	"github.com/tpcc-operator/tpcc-operator/controllers/run/plan"
	"github.com/tpcc-operator/tpcc-operator/internal/adversity"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// observeStep looks at a running step: it reads the step's pods and snapshots (watchStep), starts
// the paused pods together once all are ready, records the environment and collects the time
// series, applies the step's faults when they are due, and decides whether the step is over
// (judgeStep).
//
// What breaks the measurement rather than the database — a client Job or pod that failed or
// exited before its snapshot was collected, pods that never became ready, a snapshot that cannot
// be read or merged, a time series that cannot be merged or lost intervals, a measured interval
// cut short, pods that began measuring more than one series interval apart — makes the step
// inconclusive with its cause: it is recorded, and retried, but never used as plan.Evidence. A
// step the SLA verdict ends early (it can only fail) stays non-compliant. A fault step that breaks
// so still waits for its remaining pods' ledger checks and keeps its fault record: what the fault
// did is reported whatever else went wrong.
func (r *Reconciler) observeStep(ctx context.Context, run *benchv1.BenchmarkRun, job *batchv1.Job, next plan.Step, conn engines.Connection) (stepOutcome, error) {
	w, outcome, wait, err := r.watchStep(ctx, run, job, next)
	if err != nil || wait {
		return outcome, err
	}
	if w.broken == "" {
		if started, err := r.startPaused(ctx, w.ready, w.urls, w.snapshots); err != nil || started {
			return stepOutcome{progress: &benchv1.StepProgress{Index: next.Index, ActiveWarehouses: next.Active, Pods: w.want}}, err
		}
	}
	if err := r.recordEnvironment(ctx, run, w.snapshots); err != nil {
		return stepOutcome{}, err
	}
	if err := r.collectSeries(ctx, run, next.Index, w.series, w.snapshots, w.ready); err != nil {
		return stepOutcome{}, err
	}
	merged := w.merge(run)
	// A broken step applies no further fault, but one under way is finished (exactly once).
	nextFault, err := r.applyFaults(ctx, run, next.Index, next.Faults, w.series, next.Measured, r.markAll(w.urls), w.broken != "")
	if err != nil {
		return stepOutcome{}, err
	}
	if w.broken != "" {
		return w.brokenOutcome(run, conn, nextFault), nil
	}
	return judgeStep(run, w, merged, conn, r.replication(run), nextFault)
}

// stepWatch is what one look at a running step works with.
type stepWatch struct {
	next plan.Step
	job  *batchv1.Job
	// want is how many client pods the step has; age how long ago its Job was created; deadline
	// when it must have ended (start-up, ramp-up, measured interval and collection).
	want          int32
	age, deadline time.Duration
	// ready are the pods ready, urls their snapshot endpoints and snapshots what they served.
	ready     []corev1.Pod
	urls      []string
	snapshots []*snapshot.Snapshot
	series    *measure.StepSeries
	criteria  sla.Criteria
	// broken is the cause that makes the step inconclusive, once one is known.
	broken string
	// managed: the run's operator deployed the database (it has pods), so a setting that changed
	// since the first step fails the step rather than being named (measure.SettingsCheck).
	managed bool
	// skew is how far apart the pods began measuring, once every pod has (merge).
	skew measure.StartSkew
}

// inconclusive is the step recorded inconclusive with its cause.
func (w *stepWatch) inconclusive(cause string, urls []string) stepOutcome {
	record := measure.InconclusiveStep(w.next.Index, w.next.Active, w.want, w.job.CreationTimestamp, cause)
	// What its terminals committed still counts, as a lower bound only: the measurement broke, so
	// a pod may have committed more than it served (a pod replaced mid-step starts a new ledger).
	if l := measure.StepLedgerOf(w.snapshots, w.want); l != nil {
		l.Complete = false
		record.NewOrders = l
	}
	record.StartSkew = w.startSkew()
	return stepOutcome{record: record, podURLs: urls}
}

// startSkew is the step's start skew for its record; nil until every pod has begun measuring.
func (w *stepWatch) startSkew() *metav1.Duration {
	if !w.skew.Known {
		return nil
	}
	return &metav1.Duration{Duration: w.skew.Skew.Round(time.Millisecond)}
}

// watchStep reads the step's pods, its series so far and every ready pod's snapshot. wait says to
// look again later (pods not all ready, a snapshot not served yet) with outcome what to record
// meanwhile, or the step's inconclusive record when it cannot go on.
func (r *Reconciler) watchStep(ctx context.Context, run *benchv1.BenchmarkRun, job *batchv1.Job, next plan.Step) (w *stepWatch, outcome stepOutcome, wait bool, err error) {
	_, rampUp := workload.Durations(run)
	w = &stepWatch{next: next, job: job, want: *job.Spec.Completions, age: time.Since(job.CreationTimestamp.Time), managed: r.backend(run).DatabasePods(run) != nil,
		deadline: startupGrace + rampUp + next.Measured + collectGrace}
	pods, err := r.stepPods(ctx, run, next.Index)
	if err != nil {
		return nil, stepOutcome{}, true, err
	}
	w.broken, w.ready = podsBroken(job, pods), readyPods(pods)
	switch {
	case w.broken != "" && (len(next.Faults) == 0 || len(w.ready) == 0):
		return nil, w.inconclusive(w.broken, nil), true, nil
	case w.broken == "" && int32(len(w.ready)) < w.want && w.age > startupGrace:
		return nil, w.inconclusive(fmt.Sprintf("only %d of %d client pods became ready within %s", len(w.ready), w.want, startupGrace), nil), true, nil
	case w.broken == "" && int32(len(w.ready)) < w.want:
		return nil, stepOutcome{}, true, nil
	}
	if w.series, err = r.loadSeries(ctx, run, next.Index); err != nil {
		return nil, stepOutcome{}, true, err
	}
	if w.criteria, err = plan.SLACriteria(run); err != nil {
		return nil, stepOutcome{}, true, r.fail(ctx, run, "InvalidSLA", err.Error())
	}
	if next.Kind == benchv1.StepSustain && w.series.Sustain == nil {
		w.series.Sustain = measure.NewSustainWatch(run, next.Active, w.criteria)
	}
	if next.Kind == benchv1.StepAdversity && w.series.Adversity == nil {
		states, hold, recovery := adversity.Layout(run)
		w.series.Adversity = measure.NewAdversityWatch(run, next.Active, w.criteria, len(states), hold, recovery, len(next.Faults) > 0)
	}
	w.urls = make([]string, len(w.ready))
	for i, p := range w.ready {
		w.urls[i] = r.snapshotURL(p.Status.PodIP)
	}
	// The incremental read of every pod together: each hands over the intervals the series
	// ConfigMap holds. The per-district ledger is never asked for: a fault step's record needs only
	// each pod's totals (Snapshot.LedgerTotals), which every reply carries.
	var errs []error
	w.snapshots, errs = snapshot.FetchAll(ctx, w.urls, snapshot.Query{IntervalsAfter: w.series.Collected - 1}, r.poll())
	for i, err := range errs {
		if p := w.ready[i]; err != nil {
			if w.age > w.deadline {
				return nil, w.inconclusive(fmt.Sprintf("client pod %s did not deliver its snapshot: %v", p.Name, err), w.urls), true, nil
			}
			ctrl.LoggerFrom(ctx).Info("snapshot not available yet", "pod", p.Name, "error", err.Error())
			return nil, stepOutcome{}, true, nil
		}
	}
	return w, stepOutcome{}, false, nil
}

// podsBroken says what of the step's Job and pods breaks the measurement: the Job failed, a pod
// failed, or a pod exited before its final snapshot was collected; "" when nothing does.
func podsBroken(job *batchv1.Job, pods []corev1.Pod) string {
	if c := kube.JobCondition(job, batchv1.JobFailed); c != nil {
		return fmt.Sprintf("client Job %s failed: %s", job.Name, c.Message)
	}
	for _, p := range pods {
		switch p.Status.Phase {
		case corev1.PodFailed:
			return fmt.Sprintf("client pod %s failed: %s", p.Name, podFailure(p))
		case corev1.PodSucceeded:
			// A client pod exits only after the operator released it, or when its linger ran out
			// uncollected: the operator was away longer than that.
			return fmt.Sprintf("client pod %s exited before its final snapshot was collected (its linger of %s ran out)", p.Name, jobs.Linger)
		}
	}
	return ""
}

// merge merges the pods' snapshots; a series or snapshots that cannot be merged, a failed pod, a
// measured interval cut short or pods that began measuring more than one series interval apart
// break the step (w.broken) when nothing had yet.
func (w *stepWatch) merge(run *benchv1.BenchmarkRun) *snapshot.Merged {
	if w.broken == "" && w.series.MergeError != "" {
		w.broken = "the step's time series cannot be merged: " + w.series.MergeError
	}
	merged, err := snapshot.Merge(w.snapshots)
	switch {
	case w.broken != "":
	case err != nil:
		w.broken = fmt.Sprintf("client snapshots cannot be merged: %v", err)
	case len(merged.Failures) > 0:
		w.broken = fmt.Sprintf("client pod %s failed: %s", merged.Failures[0].Pod, merged.Failures[0].Message)
	default:
		w.broken = measure.CutShort(w.ready, w.snapshots, w.next.Measured, workload.Interval(run), len(w.next.Faults) > 0)
	}
	// Pods that did not start together measure different windows: the step stops as soon as every
	// pod has begun and the spread is known.
	w.skew = measure.StartSkewOf(w.snapshots)
	if w.broken == "" {
		w.broken = measure.SkewBreaks(w.skew, measure.SkewInterval(workload.Interval(run), len(w.next.Faults) > 0))
	}
	return merged
}

// brokenOutcome is a broken step's outcome: inconclusive. A fault step keeps its record: it waits
// for the pods still running to end and check their ledgers, then records what is known.
func (w *stepWatch) brokenOutcome(run *benchv1.BenchmarkRun, conn engines.Connection, nextFault time.Duration) stepOutcome {
	if len(w.next.Faults) == 0 {
		return w.inconclusive(w.broken, w.urls)
	}
	if (!measure.AllEnded(w.snapshots) || measure.FaultsPending(conn.Ledger, w.next.Faults, w.snapshots)) && w.age <= w.deadline {
		return stepOutcome{nextFault: nextFault, series: w.series}
	}
	out := w.inconclusive(w.broken, w.urls)
	out.record.Fault, _ = measure.FaultRecord(run, run.Status.Current.Faults, w.series, w.snapshots, w.want)
	return out
}

// judgeStep decides whether a whole step is over and, when it is, its record: the SLA verdict on
// the merged snapshots (sla.Decide, which ends a step early once it can only fail) with the
// checks of the series, the standbys, the faults and the sustained windows. A step measuring
// faults or a sustained phase runs to its end.
func judgeStep(run *benchv1.BenchmarkRun, w *stepWatch, merged *snapshot.Merged, conn engines.Connection, rep measure.Replication, nextFault time.Duration) (stepOutcome, error) {
	next := w.next
	w.criteria.UnmeasuredBoundsSkipped = next.Kind == benchv1.StepProbe
	criteria := w.criteria
	remaining := next.Measured - merged.Measured
	if merged.Phase == snapshot.PhaseDone {
		remaining = 0
	}
	headroom := sla.Headroom{Remaining: remaining}
	if merged.Wait == snapshot.WaitSpec {
		headroom.MaxMore = sla.SpecWaitMaxMore(merged.Terminals, remaining)
	}
	early, err := sla.Decide(merged, criteria, headroom)
	if err != nil {
		return stepOutcome{}, fmt.Errorf("judging step %d: %w", next.Index, err)
	}
	summary := merged.Summarize()
	// A step measuring faults runs to its end (the recovery is part of it), and waits for every
	// pod's ledger check and final commit record, so its record never depends on when a poll came.
	measuringFaults := len(next.Faults) > 0 && (merged.Phase != snapshot.PhaseDone || measure.FaultsPending(conn.Ledger, next.Faults, w.snapshots))
	// A sustained step runs to its end too: it says when the SLA broke and how the phase went on.
	sustaining := next.Kind == benchv1.StepSustain && merged.Phase != snapshot.PhaseDone
	if !early.Final || measuringFaults || sustaining || (remaining <= 0 && merged.Phase != snapshot.PhaseDone) {
		if w.age > w.deadline {
			return w.inconclusive(fmt.Sprintf("the step did not finish within %s (phase %s)", w.deadline, merged.Phase), w.urls), nil
		}
		return stepOutcome{progress: measure.LiveProgress(next.Index, next.Active, w.want, merged, summary), nextFault: nextFault, series: w.series}, nil
	}
	record, verdict, err := finalRecord(run, w, merged, early.Verdict, rep)
	if err != nil {
		return stepOutcome{}, err
	}
	return stepOutcome{record: record, merged: merged, verdict: &verdict, podURLs: w.urls}, nil
}

// finalRecord is a finished step's record: the verdict with every check added, the figures of
// the merged snapshots and of the series, what a fault did and how a sustained phase went.
func finalRecord(run *benchv1.BenchmarkRun, w *stepWatch, merged *snapshot.Merged, verdict sla.Verdict, rep measure.Replication) (*benchv1.StepResult, sla.Verdict, error) {
	next := w.next
	verdict = sla.AddCheck(verdict, measure.SeriesCheck(w.series))
	for _, ch := range measure.ReplicationChecks(run, rep, w.series) {
		verdict = sla.AddCheck(verdict, ch)
	}
	if ch, ok := measure.SettingsCheck(firstSettings(run), w.snapshots, w.managed); ok {
		verdict = sla.AddCheck(verdict, ch)
	}
	var fault *benchv1.FaultRecord
	if len(next.Faults) > 0 {
		var checks []sla.Check
		fault, checks = measure.FaultRecord(run, run.Status.Current.Faults, w.series, w.snapshots, w.want)
		for _, ch := range checks {
			verdict = sla.AddCheck(verdict, ch)
		}
	}
	var sustained *benchv1.SustainRecord
	if next.Kind == benchv1.StepSustain {
		if err := w.series.Sustain.Close(); err != nil { // the last, shorter window
			return nil, verdict, err
		}
		sustained = w.series.Sustain.Record()
		verdict = sla.AddCheck(verdict, measure.SustainCheck(sustained))
	}
	var profile *benchv1.AdversityRecord
	if next.Kind == benchv1.StepAdversity && w.series.Adversity != nil {
		if err := w.series.Adversity.Close(); err != nil {
			return nil, verdict, err
		}
		states, hold, recovery := adversity.Layout(run)
		_, stateFault := adversity.Faults(run, false)
		profile = measure.AdversityStates(states, stateFault, hold, recovery, w.series.Adversity, run.Status.Current.Faults, w.series, w.snapshots)
	}
	record := measure.StepRecord(next.Index, next.Active, w.want, merged, merged.Summarize(), verdict)
	record.Fault, record.Sustain, record.Adversity = fault, sustained, profile
	record.StartSkew = w.startSkew()
	record.LatencyRatio = measure.Round3(sla.LatencyRatio(merged, w.criteria))
	record.Telemetry = w.series.Summary()
	record.Isolation = measure.IsolationOf(w.snapshots)
	record.NewOrders = measure.StepLedgerOf(w.snapshots, w.want)
	record.Telemetry.Bottleneck = measure.StepBottleneck(w.series, record)
	if merged.Phase != snapshot.PhaseDone {
		record.Reasons = append(record.Reasons, fmt.Sprintf("ended early after %s: the verdict could no longer change", merged.Measured.Round(time.Second)))
	}
	return record, verdict, nil
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

// collectSeries merges the intervals every pod has sealed into the step's series, samples the
// pods' resource use, and stores the series when it grew.
func (r *Reconciler) collectSeries(ctx context.Context, run *benchv1.BenchmarkRun, index int32, st *measure.StepSeries, snapshots []*snapshot.Snapshot, pods []corev1.Pod) error {
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

func (r *Reconciler) snapshotURL(podIP string) string {
	if r.Config.SnapshotURL != nil {
		return r.Config.SnapshotURL(podIP)
	}
	return fmt.Sprintf("http://%s:%d", podIP, jobs.SnapshotPort)
}

// stepPods lists the step's client pods, read directly: the manager keeps no cluster-wide pod cache.
func (r *Reconciler) stepPods(ctx context.Context, run *benchv1.BenchmarkRun, index int32) ([]corev1.Pod, error) {
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

// firstSettings are the settings the run asked for, as its first step read them back, the sized
// ones left out (engines.Unsized); nil before the environment was read.
func firstSettings(run *benchv1.BenchmarkRun) []benchv1.EngineSetting {
	if env := run.Status.Environment; env != nil {
		return engines.Unsized(env.Tuning)
	}
	return nil
}
