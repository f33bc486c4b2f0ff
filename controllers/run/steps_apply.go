package run

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/metrics"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// +kubebuilder:rbac:groups="",resources=pods,verbs=list

// Grace periods of a step beyond its ramp-up and measured interval.
const (
	// startupGrace is how long client pods may take to be scheduled, pull and connect.
	startupGrace = 10 * time.Minute
	// collectGrace is how long after the measured interval the final snapshots may take.
	collectGrace = 5 * time.Minute
)

// reconcileSteps runs the search one step at a time: the next step comes from the recorded steps
// (plan.Next), its Job is created once, and the step is recorded (appended, never rewritten) when
// its verdict is final (observeStep). Then the Job goes, and the next pass plans the next step. An
// inconclusive step is not plan.Evidence: the plan asks for the same step again, which is its retry,
// up to search.retries times in a row before the run fails as an infrastructure failure.
func (r *Reconciler) reconcileSteps(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	next, done, reason, message := plan.Next(run)
	if reason != "" {
		return false, ctrl.Result{}, r.fail(ctx, run, reason, message)
	}
	if err := r.deleteRecordedStepJobs(ctx, run, next.Index); err != nil || done {
		return done, ctrl.Result{}, err
	}
	if run.Status.Current == nil || run.Status.Current.Index != next.Index {
		// A step starts only on a database its operator reports ready (step_gate.go).
		if ok, err := r.awaitDatabase(ctx, run, next.Index); err != nil || !ok {
			return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, err
		}
	}
	// Every request to the step's pods from here on presents the run's control token (control.go).
	ctx, err := r.controlContext(ctx, run)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	conn := r.connection(run)
	job, err := r.startStep(ctx, run, next, conn)
	if err != nil || job == nil {
		return false, ctrl.Result{}, err
	}
	outcome, err := r.observeStep(ctx, run, job, next, conn)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if outcome.record == nil {
		return false, ctrl.Result{RequeueAfter: r.nextLook(outcome)}, r.writeProgress(ctx, run, next, outcome)
	}
	if err := r.recordStep(ctx, run, next, outcome); err != nil {
		return false, ctrl.Result{}, err
	}
	r.releasePods(ctx, outcome.podURLs)
	r.deleteJob(ctx, run, job)
	r.forgetSeries(run, next.Index)
	return false, ctrl.Result{Requeue: true}, nil
}

// startStep creates the step's Job once (its pods measure faults when the step applies some) and
// marks the step current in status; nil when the Job is gone already.
func (r *Reconciler) startStep(ctx context.Context, run *benchv1.BenchmarkRun, next plan.Step, conn engines.Connection) (*batchv1.Job, error) {
	job := jobs.StepJob(run, next.Index, next.Active, next.Measured, conn, r.Config.Jobs)
	if len(next.Faults) > 0 {
		jobs.MeasureFaults(job, conn)
	}
	if err := r.createOnce(ctx, run, job); err != nil {
		return nil, err
	}
	if err := r.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if run.Status.Current == nil || run.Status.Current.Index != next.Index {
		pods := *job.Spec.Completions
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			s.Phase = benchv1.PhaseRunning
			s.Current = &benchv1.StepProgress{Index: next.Index, ActiveWarehouses: next.Active, Pods: pods, Kind: next.Kind,
				Duration: &metav1.Duration{Duration: next.Measured}}
		}); err != nil {
			return nil, err
		}
	}
	return job, nil
}

// writeProgress writes a step under way into status.current, keeping the faults applyFaults wrote,
// and exports its live telemetry.
func (r *Reconciler) writeProgress(ctx context.Context, run *benchv1.BenchmarkRun, next plan.Step, outcome stepOutcome) error {
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if s.Current != nil && s.Current.Index == next.Index && outcome.progress != nil {
			outcome.progress.Kind, outcome.progress.Duration = next.Kind, &metav1.Duration{Duration: next.Measured}
			outcome.progress.Faults = s.Current.Faults
			s.Current = outcome.progress
		}
	}); err != nil {
		return err
	}
	metrics.RecordLiveTelemetry(run, outcome.series)
	return nil
}

// nextLook is when to look at a step under way again: the next poll, or its next planned fault
// when that comes first (the fault is applied on time, not up to a poll late).
func (r *Reconciler) nextLook(outcome stepOutcome) time.Duration {
	if outcome.nextFault > 0 && outcome.nextFault < r.Config.PollInterval {
		return outcome.nextFault
	}
	return r.Config.PollInterval
}

// recordStep keeps a finished step's merged data, then appends the step to status exactly once,
// with its kind, length, attempt, client seed and where its pods ran, and announces it.
func (r *Reconciler) recordStep(ctx context.Context, run *benchv1.BenchmarkRun, next plan.Step, outcome stepOutcome) error {
	record := outcome.record
	record.Kind, record.Duration, record.Attempt = next.Kind, &metav1.Duration{Duration: next.Measured}, next.Attempt
	// The --seed of the step's Job (jobs.StepJob).
	record.Seed = jobs.StepSeed(run, next.Index)
	record.Placement = r.stepPlacement(ctx, run, next.Index) // placement.go
	if len(next.Faults) > 0 && record.Fault == nil && run.Status.Current != nil && len(run.Status.Current.Faults) > 0 {
		// A fault step that ended for any reason keeps what was applied (the consistency check
		// after it still runs).
		record.Fault = &benchv1.FaultRecord{Injections: run.Status.Current.Faults}
	}
	if outcome.merged != nil {
		// The step's ConfigMap keeps the whole record: status keeps its summary (boundStepDetail).
		if err := r.writeStepConfigMap(ctx, run, record, outcome.merged, outcome.verdict); err != nil {
			return err
		}
	}
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if int32(len(s.Steps)) == next.Index {
			s.Steps = append(s.Steps, *record)
			boundStepDetail(run, s.Steps)
		}
		s.Current = nil
	}); err != nil {
		return err
	}
	metrics.RecordStepRecorded(run, record)
	eventType := corev1.EventTypeNormal
	if record.Verdict == benchv1.VerdictInconclusive {
		eventType = corev1.EventTypeWarning
	}
	r.Recorder.Eventf(run, nil, eventType, "Step"+string(record.Verdict), "RecordStep", "step %d (%s, %s, attempt %d): %d active warehouses, tpmC %.1f, efficiency %.1f%%, %s%s",
		next.Index, next.Kind, next.Measured, next.Attempt, next.Active, record.TpmC, record.Efficiency, record.Verdict, reasonsSuffix(record.Reasons))
	return nil
}

// startPaused starts the pods still paused, together, once all are ready: it reports whether it
// started any. A pod that cannot be started is named in the error (the others are started).
func (r *Reconciler) startPaused(ctx context.Context, ready []corev1.Pod, urls []string, snapshots []*snapshot.Snapshot) (bool, error) {
	var paused []int
	for i, s := range snapshots {
		if s.Phase == snapshot.PhasePaused {
			paused = append(paused, i)
		}
	}
	errs := r.eachPod(ctx, len(paused), func(ctx context.Context, j int) error {
		if err := snapshot.Start(ctx, r.Config.HTTPClient, urls[paused[j]]); err != nil {
			return fmt.Errorf("starting client pod %s: %w", ready[paused[j]].Name, err)
		}
		return nil
	})
	if err := errors.Join(errs...); err != nil {
		return false, err
	}
	return len(paused) > 0, nil
}

// releasePods ends the pods' linger, all together: their final snapshots are collected.
func (r *Reconciler) releasePods(ctx context.Context, urls []string) {
	r.eachPod(ctx, len(urls), func(ctx context.Context, i int) error {
		if err := snapshot.Stop(ctx, r.Config.HTTPClient, urls[i]); err != nil {
			ctrl.LoggerFrom(ctx).V(1).Info("releasing a client pod", "url", urls[i], "error", err.Error())
		}
		return nil
	})
}

// deleteRecordedStepJobs removes the Jobs of steps already recorded: an operator stopped between
// recording a step and deleting its Job leaves one behind.
func (r *Reconciler) deleteRecordedStepJobs(ctx context.Context, run *benchv1.BenchmarkRun, recorded int32) error {
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

func reasonsSuffix(reasons []string) string {
	if len(reasons) == 0 {
		return ""
	}
	return ": " + strings.Join(reasons, "; ")
}
