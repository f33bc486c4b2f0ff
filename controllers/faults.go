package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// Faults (spec.faults) are applied while a step measures: at the planned offset into its measured
// interval the operator deletes one pod of the run's own database, exactly once, and watches what
// the engine's operator does. The step then records the outage the clients saw (from their
// one-second series), the ledger of acknowledged New-Orders against the database, and, after the
// step, the TPC-C consistency conditions.
//
// Exactly once: the injection is written to status.current.faults (state Injecting, with the pod's
// name and UID) before the pod is deleted, and the deletion carries that UID as a precondition. A
// restarted operator that finds Injecting repeats the deletion, which removes that pod instance if
// it still exists and nothing otherwise (a re-created pod of the same name has another UID).

// The operator deletes database pods for spec.faults only: each is checked, right before, to be
// a pod of the run's own deployed database (labels and controller chain).
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;delete

// faultScope is the scope of a fault with the default applied.
func faultScope(f benchv1.Fault) benchv1.FaultScope {
	if f.In == "" {
		return benchv1.FaultInResultStep
	}
	return f.In
}

// appliedFaults are the indices in spec.faults of the faults a step of this kind applies.
func appliedFaults(run *benchv1.BenchmarkRun, kind benchv1.StepKind) []int {
	if kind == benchv1.StepSustain { // the sustained phase measures the load alone
		return nil
	}
	var out []int
	for i, f := range run.Spec.Faults {
		if (kind == benchv1.StepFault) == (faultScope(f) == benchv1.FaultInResultStep) {
			out = append(out, i)
		}
	}
	return out
}

// faultStepPlan says whether the search's end calls for the fault step, and at how many active
// warehouses: the result's, when some fault applies in the result step, no conclusive fault step
// has run yet, and a compliant load was found.
func faultStepPlan(run *benchv1.BenchmarkRun, d search.Decision) (int32, bool) {
	if len(appliedFaults(run, benchv1.StepFault)) == 0 {
		return 0, false
	}
	for _, s := range run.Status.Steps {
		if s.Kind == benchv1.StepFault && s.EffectiveVerdict() != benchv1.VerdictInconclusive {
			return 0, false // an inconclusive one is retried
		}
	}
	result := resultOf(run, d, searchEvidence(run.Status.Steps))
	if result.Step == nil || result.MaxCompliantWarehouses < 1 {
		return 0, false
	}
	return result.MaxCompliantWarehouses, true
}

// findInjection is the recorded injection of spec.faults[fault], nil when none.
func findInjection(list []benchv1.FaultInjection, fault int) *benchv1.FaultInjection {
	for i := range list {
		if int(list[i].Fault) == fault {
			return &list[i]
		}
	}
	return nil
}

// setInjection writes one injection into the status of the step under way.
func (r *BenchmarkRunReconciler) setInjection(ctx context.Context, run *benchv1.BenchmarkRun, index int32, inj benchv1.FaultInjection) error {
	return r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if s.Current == nil || s.Current.Index != index {
			return
		}
		if old := findInjection(s.Current.Faults, int(inj.Fault)); old != nil {
			*old = inj
			return
		}
		s.Current.Faults = append(s.Current.Faults, inj)
		sort.Slice(s.Current.Faults, func(i, j int) bool { return s.Current.Faults[i].Fault < s.Current.Faults[j].Fault })
	})
}

// applyFaults applies the step's faults that are due, repeats an injection a restarted operator
// left Injecting, and records what the engine's operator did since. hold applies no new fault
// (the step is already inconclusive); an injection under way is still finished. It returns how
// long until the next planned fault (0: none pending).
//
// Each injection is: decided and recorded Injecting (the pod and its UID), the moment marked in
// every client pod's clock (mark), the pod deleted with its UID as a precondition, then recorded
// Injected with the marked client time. A restarted operator repeats the mark (the pods return
// the first moment) and the deletion (which finds the pod gone, or a re-created one it does not
// touch). Mark disrupts nothing: the disruption is the user's.
func (r *BenchmarkRunReconciler) applyFaults(ctx context.Context, run *benchv1.BenchmarkRun, index int32, faults []int, st *measure.StepSeries, measured time.Duration, mark markFunc, hold bool) (time.Duration, error) {
	if len(faults) == 0 || st.Origin.IsZero() || run.Status.Current == nil {
		return 0, nil
	}
	_, rampUp := workload.Durations(run)
	start := st.Origin.Add(rampUp)
	targets, ok := r.backend(run).(engines.FaultTargets)
	var next time.Duration
	for _, fi := range faults {
		f := run.Spec.Faults[fi]
		planned := start.Add(f.At.Duration)
		inj := findInjection(run.Status.Current.Faults, fi)
		if inj != nil && inj.State != benchv1.FaultInjecting {
			continue
		}
		if inj == nil {
			skip := ""
			switch {
			case f.Action != benchv1.FaultMark && (!ok || run.Spec.Database.External != nil):
				skip = "the database was not deployed by the operator: its pods are never touched"
			case f.At.Duration >= measured:
				skip = fmt.Sprintf("at %s is beyond this step's measured interval of %s", f.At.Duration, measured)
			}
			if skip != "" {
				if err := r.setInjection(ctx, run, index, benchv1.FaultInjection{Fault: int32(fi), Action: f.Action, State: benchv1.FaultSkipped, Message: skip}); err != nil {
					return 0, err
				}
				continue
			}
			if hold {
				continue
			}
			if wait := time.Until(planned); wait > 0 {
				if next == 0 || wait < next {
					next = wait
				}
				continue
			}
			decided, err := r.decideInjection(ctx, run, targets, fi, f, planned)
			if err != nil {
				return 0, err
			}
			if err := r.setInjection(ctx, run, index, decided); err != nil {
				return 0, err
			}
			if decided.State != benchv1.FaultInjecting {
				continue
			}
			inj = &decided
		}
		done := *inj
		done.State = benchv1.FaultInjected
		// The moment, in the clients' clocks, before anything is disrupted.
		clientTime, err := mark(ctx, measure.FaultLabel(fi))
		if !clientTime.IsZero() {
			done.ClientTime = &metav1.MicroTime{Time: clientTime}
		}
		if err != nil {
			done.Message = "the outage cannot be measured from every client: " + err.Error()
		}
		if inj.Pod != "" {
			if deleted, err := r.deletePod(ctx, run, inj.Pod, types.UID(inj.PodUID)); err != nil {
				done.State, done.Message = benchv1.FaultFailed, err.Error()
			} else if deleted { // a repeated deletion (after a restart) that found the pod gone says nothing
				r.Recorder.Eventf(run, nil, corev1.EventTypeWarning, "FaultInjected", "DeletePod", "step %d: %s deleted pod %s (planned %s)",
					index, f.Action, inj.Pod, inj.PlannedTime.UTC().Format(time.RFC3339))
			}
		} else if inj.State == benchv1.FaultInjecting {
			r.Recorder.Eventf(run, nil, corev1.EventTypeNormal, "FaultMarked", "Mark", "step %d: %s marked at %s: the disruption is yours now",
				index, f.Action, done.Time.UTC().Format(time.RFC3339Nano))
		}
		if err := r.setInjection(ctx, run, index, done); err != nil {
			return 0, err
		}
	}
	if ok {
		if err := r.observeFailover(ctx, run, index, targets, st); err != nil {
			return 0, err
		}
	}
	return next, nil
}

// markFunc marks a moment under a label in every client pod's clock and returns it in the first
// pod's; an error names the pods it could not mark.
type markFunc func(ctx context.Context, label string) (time.Time, error)

// observeFaultTargets reads the database's objects and the controller chain of its pods.
func (r *BenchmarkRunReconciler) observeFaultTargets(ctx context.Context, run *benchv1.BenchmarkRun, targets engines.FaultTargets) (map[engines.Ref]*unstructured.Unstructured, error) {
	return r.observe(ctx, run, append(r.backend(run).Observed(run), targets.OwnerChain(run)...))
}

// decideInjection names the pod a due fault deletes and checks it belongs to the run's database.
// A refusal is recorded as Failed with the reason; nothing is deleted.
func (r *BenchmarkRunReconciler) decideInjection(ctx context.Context, run *benchv1.BenchmarkRun, targets engines.FaultTargets, fi int, f benchv1.Fault, planned time.Time) (benchv1.FaultInjection, error) {
	inj := benchv1.FaultInjection{Fault: int32(fi), Action: f.Action, PlannedTime: &metav1.MicroTime{Time: planned}}
	if targets == nil || run.Spec.Database.External != nil { // Mark on a database the operator did not deploy
		inj.State, inj.Time = benchv1.FaultInjecting, &metav1.MicroTime{Time: time.Now()}
		return inj, nil
	}
	observed, err := r.observeFaultTargets(ctx, run, targets)
	if err != nil {
		return inj, err
	}
	roles := targets.Roles(run, observed)
	inj.PrimaryBefore = roles.Primary
	if f.Action == benchv1.FaultMark {
		inj.State, inj.Time = benchv1.FaultInjecting, &metav1.MicroTime{Time: time.Now()}
		return inj, nil
	}
	name, err := targets.FaultPod(run, f, observed)
	if err != nil {
		inj.State, inj.Message = benchv1.FaultFailed, err.Error()
		return inj, nil
	}
	inj.Pod = name
	pod := &corev1.Pod{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, pod); err != nil {
		if apierrors.IsNotFound(err) {
			inj.State, inj.Message = benchv1.FaultFailed, fmt.Sprintf("pod %s does not exist", name)
			return inj, nil
		}
		return inj, err
	}
	if err := r.verifyDatabasePod(run, targets, pod, observed); err != nil {
		inj.State, inj.Message = benchv1.FaultFailed, "refused: "+err.Error()
		return inj, nil
	}
	inj.PodUID, inj.State, inj.Time = string(pod.UID), benchv1.FaultInjecting, &metav1.MicroTime{Time: time.Now()}
	return inj, nil
}

// verifyDatabasePod checks that a pod is one of the run's own database: it carries the backend's
// pod labels, and its controller chain leads to a vendor object labelled with the run. The chain's
// objects are those just read for the decision (observed).
func (r *BenchmarkRunReconciler) verifyDatabasePod(run *benchv1.BenchmarkRun, targets engines.FaultTargets, pod *corev1.Pod, observed map[engines.Ref]*unstructured.Unstructured) error {
	for k, v := range r.backend(run).DatabasePods(run) {
		if pod.Labels[k] != v {
			return fmt.Errorf("pod %s lacks the label %s=%s of the run's database", pod.Name, k, v)
		}
	}
	var obj client.Object = pod
	for _, ref := range targets.OwnerChain(run) {
		owner := metav1.GetControllerOf(obj)
		if owner == nil || owner.Kind != ref.GVK.Kind || owner.Name != ref.Name {
			return fmt.Errorf("%s %s is not controlled by %s %s", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), ref.GVK.Kind, ref.Name)
		}
		u := observed[ref]
		if u == nil {
			return fmt.Errorf("%s %s does not exist", ref.GVK.Kind, ref.Name)
		}
		if u.GetUID() != owner.UID {
			return fmt.Errorf("%s %s is another object than the one controlling %s", ref.GVK.Kind, ref.Name, obj.GetName())
		}
		obj = u
	}
	if !kube.OwnedBy(obj, run) {
		return fmt.Errorf("%s is not the database of run %s (uid %s): %s", obj.GetName(), run.Name, run.UID, kube.Whose(obj))
	}
	return nil
}

// deletePod deletes one pod instance with no grace period — the database gets no chance to shut
// down cleanly, as when its machine dies. A pod already gone, or re-created under the name with
// another UID, is not touched.
func (r *BenchmarkRunReconciler) deletePod(ctx context.Context, run *benchv1.BenchmarkRun, name string, uid types.UID) (deleted bool, err error) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: name}}
	err = r.Delete(ctx, pod, client.Preconditions{UID: &uid}, client.GracePeriodSeconds(0))
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		return false, nil
	}
	return false, fmt.Errorf("deleting pod %s: %w", name, err)
}

// observeFailover records, for each injection, the primary the engine's operator chose after it
// and when the deleted pod's replacement and every instance were ready again. Each is recorded
// once, when first seen.
func (r *BenchmarkRunReconciler) observeFailover(ctx context.Context, run *benchv1.BenchmarkRun, index int32, targets engines.FaultTargets, st *measure.StepSeries) error {
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
	updated, err := r.failoverSeen(ctx, run, targets, pending)
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
func (r *BenchmarkRunReconciler) failoverSeen(ctx context.Context, run *benchv1.BenchmarkRun, targets engines.FaultTargets, pending []benchv1.FaultInjection) ([]benchv1.FaultInjection, error) {
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
		if inj.Pod == "" {
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
		if changed.PrimaryAfter != inj.PrimaryAfter || changed.ReadyTime != nil || changed.DegradedTime != inj.DegradedTime {
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
func (r *BenchmarkRunReconciler) awaitRecovery(ctx context.Context, run *benchv1.BenchmarkRun, step int) (bool, error) {
	targets, ok := r.backend(run).(engines.FaultTargets)
	if !ok {
		return true, nil
	}
	var pending []benchv1.FaultInjection
	for _, inj := range run.Status.Steps[step].Fault.Injections {
		if inj.State == benchv1.FaultInjected && inj.ReadyTime == nil && inj.Time != nil && time.Since(inj.Time.Time) < readyWait &&
			(inj.Pod != "" || inj.DegradedTime != nil) { // a Mark nobody saw degrade has nothing to recover from
			pending = append(pending, inj)
		}
	}
	if len(pending) == 0 {
		return true, nil
	}
	updated, err := r.failoverSeen(ctx, run, targets, pending)
	if err != nil {
		return false, err
	}
	if len(updated) > 0 {
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			if step >= len(s.Steps) || s.Steps[step].Fault == nil {
				return
			}
			for _, u := range updated {
				if old := findInjection(s.Steps[step].Fault.Injections, int(u.Fault)); old != nil {
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
func (r *BenchmarkRunReconciler) reconcileFaultCheck(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
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
func (r *BenchmarkRunReconciler) checkAfterFault(ctx context.Context, run *benchv1.BenchmarkRun, i int) (bool, error) {
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
