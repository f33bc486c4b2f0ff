package run

import (
	"context"
	"encoding/json"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// reconcileFinalCheck runs, once the run's last step is recorded and before its result is
// published, the TPC-C consistency check over the whole dataset (jobs.FinalCheckJob) and judges
// the run's New-Order ledger against the orders the database gained; it records both in
// status.finalCheck, once.
func (r *Reconciler) reconcileFinalCheck(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	if run.Status.FinalCheck != nil {
		return true, ctrl.Result{}, nil
	}
	// A database measured under smaller resources than it was loaded with is checked under the
	// load's (resource_restore.go).
	restored, gaveUp, res, err := r.restoreLoadResources(ctx, run)
	if gaveUp != "" {
		return true, ctrl.Result{}, r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			if s.FinalCheck == nil {
				s.FinalCheck = &benchv1.ConsistencyCheck{Error: gaveUp}
			}
		})
	}
	if err != nil || !restored {
		return false, res, err
	}
	check := jobs.FinalCheckJob(run, r.connection(run), r.Config.Jobs)
	if err := r.createOnce(ctx, run, check); err != nil {
		return false, ctrl.Result{}, err
	}
	if err := r.Get(ctx, client.ObjectKeyFromObject(check), check); err != nil {
		return false, ctrl.Result{}, client.IgnoreNotFound(err)
	}
	summary, err := r.checkSummary(ctx, run, check)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	var outcome *benchv1.ConsistencyCheck
	switch failed := kube.JobCondition(check, batchv1.JobFailed); {
	case summary != nil:
		outcome = finalCheckOutcome(*summary, run)
	case failed != nil:
		outcome = &benchv1.ConsistencyCheck{Error: fmt.Sprintf("Job %s failed without a verdict (its log says why): %s", check.Name, failed.Message)}
	default:
		return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, nil
	}
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if s.FinalCheck == nil {
			s.FinalCheck = outcome
		}
	}); err != nil {
		return false, ctrl.Result{}, err
	}
	r.deleteJob(ctx, run, check)
	return true, ctrl.Result{}, nil
}

// checkSummary reads the summary the check wrote as its container's termination message, from the
// first of the Job's pods that ended with one (exit code 0: the conditions held; 1: one did not);
// nil while none has.
func (r *Reconciler) checkSummary(ctx context.Context, run *benchv1.BenchmarkRun, job *batchv1.Job) (*snapshot.CheckSummary, error) {
	messages, err := r.terminationMessages(ctx, run, job, false)
	if err != nil {
		return nil, err
	}
	for _, m := range messages {
		var s snapshot.CheckSummary
		if err := json.Unmarshal([]byte(m.text), &s); err != nil || s.Conditions == 0 {
			continue // not a summary: a message of another failure
		}
		return &s, nil
	}
	return nil, nil
}

// terminationMessage is what a Job's pod's tpcc container wrote when it ended.
type terminationMessage struct{ pod, text string }

// terminationMessages lists the non-empty termination messages of the tpcc containers of job's
// pods that ended (only those that exited 0 when succeededOnly), in the pods' list order.
func (r *Reconciler) terminationMessages(ctx context.Context, run *benchv1.BenchmarkRun, job *batchv1.Job, succeededOnly bool) ([]terminationMessage, error) {
	pods := &corev1.PodList{}
	if err := r.APIReader.List(ctx, pods, client.InNamespace(run.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}); err != nil {
		return nil, fmt.Errorf("listing the pods of Job %s: %w", job.Name, err)
	}
	var out []terminationMessage
	for _, p := range pods.Items {
		for _, c := range p.Status.ContainerStatuses {
			if t := c.State.Terminated; c.Name == "tpcc" && t != nil && t.Message != "" && (!succeededOnly || t.ExitCode == 0) {
				out = append(out, terminationMessage{pod: p.Name, text: t.Message})
			}
		}
	}
	return out, nil
}

// finalCheckOutcome is the recorded check: the conditions' summary and the run's ledger.
func finalCheckOutcome(s snapshot.CheckSummary, run *benchv1.BenchmarkRun) *benchv1.ConsistencyCheck {
	out := &benchv1.ConsistencyCheck{Conditions: int32(s.Conditions), ConditionsPassed: int32(s.Passed),
		Duration: &metav1.Duration{Duration: s.Elapsed.Round(1e6)}}
	if f := s.FirstFailure; f != nil {
		out.FirstFailure = fmt.Sprintf("%s %s", f.ID, f.Name)
		if f.Detail != "" {
			out.FirstFailure += ": first offender " + f.Detail
		}
	}
	var start *benchv1.DatasetStatus
	if run.Status.Load != nil {
		start = run.Status.Load.Dataset
	}
	out.Ledger = measure.RunLedgerOf(start, s.Dataset, run.Status.Steps)
	out.Passed = s.Pass() && (!out.Ledger.Checked || out.Ledger.Pass)
	return out
}

// finalCheckFailure says why the run fails for what the check after its last step found; "" when
// it passed or was never made (a run whose status predates it).
func finalCheckFailure(c *benchv1.ConsistencyCheck) (reason, message string) {
	switch {
	case c == nil || c.Passed:
	case c.Error != "":
		reason = "ConsistencyCheckFailed"
		message = "the consistency check after the last step gave no verdict: " + c.Error
	case c.FirstFailure != "":
		reason = "InconsistentAfterRun"
		message = fmt.Sprintf("the consistency check after the last step failed (%d of %d conditions held): %s", c.ConditionsPassed, c.Conditions, c.FirstFailure)
	default:
		reason = "AcknowledgedCommitLost"
		message = "the New-Order ledger after the last step failed: " + c.Ledger.Detail
	}
	return reason, message
}
