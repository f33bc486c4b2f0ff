package run

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
)

// After a fault: the failover the engine's operator performed (observeFailover), the database
// ready again before the next step (awaitRecovery), and the TPC-C consistency conditions checked
// on the data the fault step left (reconcileFaultCheck); a run whose fault step broke its
// promises fails (faultFailure).

// observeFailover records, for each injection, the primary the engine's operator chose after it
// and when the deleted pod's replacement and every instance were ready again. Each is recorded
// once, when first seen.
func (r *Reconciler) observeFailover(ctx context.Context, run *benchv1.BenchmarkRun, index int32, targets engines.FaultTargets, st *measure.StepSeries) error {
	var pending []benchv1.FaultInjection
	for _, inj := range run.Status.Current.Faults {
		if inj.State == benchv1.FaultInjected && inj.ReadyTime == nil {
			pending = append(pending, inj)
		}
	}
	if measure.OpenFaultWindow(run, st) {
		if err := r.saveSeries(ctx, run, index, st); err != nil {
			return err
		}
	}
	updated, err := r.failoverSeen(ctx, run, index, targets, pending)
	if err != nil {
		return err
	}
	for _, inj := range updated {
		if err := r.setInjection(ctx, run, index, inj); err != nil {
			return err
		}
	}
	return nil
}

// failoverSeen reads what the engine's operator reports now and returns the injections whose
// record it changes: the new primary and its promotion time, and the time the deleted pod's
// replacement (another UID) and every instance were ready again.
func (r *Reconciler) failoverSeen(ctx context.Context, run *benchv1.BenchmarkRun, index int32, targets engines.FaultTargets, pending []benchv1.FaultInjection) ([]benchv1.FaultInjection, error) {
	if len(pending) == 0 {
		return nil, nil
	}
	observed, err := r.observeFaultTargets(ctx, run, targets)
	if err != nil {
		return nil, err
	}
	roles := targets.Roles(run, observed)
	now := time.Now()
	var out []benchv1.FaultInjection
	for _, inj := range pending {
		changed := inj
		if roles.Primary != "" && inj.PrimaryBefore != "" && roles.Primary != inj.PrimaryBefore && inj.PrimaryAfter == "" {
			changed.PrimaryAfter = roles.Primary
			at := roles.PrimarySince
			if at.IsZero() || at.Before(inj.Time.Time) {
				at = now
			}
			changed.PromotedTime = &metav1.MicroTime{Time: at}
		}
		whole := roles.Instances > 0 && roles.Ready >= roles.Instances
		if len(inj.Pods) > 0 {
			nfs, err := r.networkFaults(ctx, run, index, inj.Fault)
			if err != nil {
				return nil, err
			}
			changed = networkSeen(changed, nfs, whole, now)
		} else if inj.Pod == "" {
			// Mark: the disruption is the user's. Whole again counts once the engine's operator
			// was seen degraded after the mark (fewer instances ready than desired).
			if !whole && inj.DegradedTime == nil && roles.Instances > 0 {
				changed.DegradedTime = &metav1.MicroTime{Time: now}
			}
			if whole && inj.DegradedTime != nil {
				changed.ReadyTime = &metav1.MicroTime{Time: now}
			}
		} else {
			pod := &corev1.Pod{}
			err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: inj.Pod}, pod)
			if err != nil && !apierrors.IsNotFound(err) {
				return nil, err
			}
			replaced := err == nil && string(pod.UID) != inj.PodUID && engines.PodReady(pod)
			if replaced && whole {
				changed.ReadyTime = &metav1.MicroTime{Time: now}
			}
		}
		if !apiequality.Semantic.DeepEqual(changed, inj) {
			out = append(out, changed)
		}
	}
	return out, nil
}

// readyWait bounds how long after a fault the run waits, once its fault step is recorded, for the
// database to be whole again (the deleted instance back and ready) before it goes on: a suite's
// next run, or a retained database, should not start degraded. Past it the injection keeps no
// readyTime, which says so.
const readyWait = 5 * time.Minute

// awaitRecovery records, after a fault step, when the database was whole again; it returns false
// while it still waits.
func (r *Reconciler) awaitRecovery(ctx context.Context, run *benchv1.BenchmarkRun, step int) (bool, error) {
	targets, ok := r.backend(run).(engines.FaultTargets)
	if !ok {
		return true, nil
	}
	var pending []benchv1.FaultInjection
	for _, inj := range run.Status.Steps[step].Fault.Injections {
		if inj.State == benchv1.FaultInjected && inj.ReadyTime == nil && inj.Time != nil && time.Since(inj.Time.Time) < readyWait &&
			(inj.Pod != "" || len(inj.Pods) > 0 || inj.DegradedTime != nil) { // a Mark nobody saw degrade has nothing to recover from
			pending = append(pending, inj)
		}
	}
	if len(pending) == 0 {
		return true, nil
	}
	updated, err := r.failoverSeen(ctx, run, run.Status.Steps[step].Index, targets, pending)
	if err != nil {
		return false, err
	}
	if len(updated) > 0 {
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			if step >= len(s.Steps) || s.Steps[step].Fault == nil {
				return
			}
			for _, u := range updated {
				if old := measure.Injection(s.Steps[step].Fault.Injections, int(u.Fault)); old != nil {
					*old = u
				}
			}
		}); err != nil {
			return false, err
		}
	}
	return len(updated) == len(pending) && measure.AllReady(updated), nil
}

// reconcileFaultCheck runs, after every step that applied a fault (whatever its verdict), the
// TPC-C consistency check and records its outcome in that step, once; and it waits, up to
// readyWait after the fault, for the database to be whole again before the next step starts.
func (r *Reconciler) reconcileFaultCheck(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	for i, s := range run.Status.Steps {
		if s.Fault == nil || measure.FirstInjection(s.Fault.Injections) == nil {
			continue
		}
		whole, err := r.awaitRecovery(ctx, run, i)
		if err != nil {
			return false, ctrl.Result{}, err
		}
		if s.Fault.Consistency == "" {
			if done, err := r.checkAfterFault(ctx, run, i); err != nil || !done {
				return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, err
			}
		}
		if !whole {
			return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, nil
		}
	}
	return true, ctrl.Result{}, nil
}

// checkAfterFault runs the consistency check Job after step i and records its outcome; it
// reports whether the outcome is recorded.
func (r *Reconciler) checkAfterFault(ctx context.Context, run *benchv1.BenchmarkRun, i int) (bool, error) {
	step := run.Status.Steps[i]
	check := jobs.FaultCheckJob(run, step.Index, r.connection(run), r.Config.Jobs)
	if err := r.createOnce(ctx, run, check); err != nil {
		return false, err
	}
	if err := r.Get(ctx, client.ObjectKeyFromObject(check), check); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	outcome := ""
	if c := kube.JobCondition(check, "Failed"); c != nil {
		outcome = fmt.Sprintf("failed: Job %s: %s (its log names the TPC-C condition)", check.Name, c.Message)
	} else if kube.JobCondition(check, "Complete") != nil {
		outcome = "passed"
	}
	if outcome == "" {
		return false, nil
	}
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if i < len(s.Steps) && s.Steps[i].Fault != nil && s.Steps[i].Fault.Consistency == "" {
			s.Steps[i].Fault.Consistency = outcome
		}
	}); err != nil {
		return false, err
	}
	r.deleteJob(ctx, run, check)
	return true, nil
}

// faultFailure says why the run fails for what its faults revealed: an acknowledged commit lost,
// or the consistency conditions broken; "" when neither.
func faultFailure(run *benchv1.BenchmarkRun) (reason, message string) {
	var msgs []string
	for _, s := range run.Status.Steps {
		if s.Fault == nil {
			continue
		}
		if l := s.Fault.Ledger; l != nil && len(l.Failures) > 0 { // not checked is no loss
			reason = "AcknowledgedCommitLost"
			msgs = append(msgs, fmt.Sprintf("step %d: the ledger check failed: %s", s.Index, strings.Join(l.Failures, "; ")))
		}
		if c := s.Fault.Consistency; strings.HasPrefix(c, "failed") {
			if reason == "" {
				reason = "InconsistentAfterFault"
			}
			msgs = append(msgs, fmt.Sprintf("step %d: the consistency check %s", s.Index, c))
		}
	}
	return reason, strings.Join(msgs, "; ")
}
