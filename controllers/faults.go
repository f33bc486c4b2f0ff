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
	"github.com/tpcc-operator/tpcc-operator/internal/search"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
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
		if s.Kind == benchv1.StepFault && stepVerdict(s) != benchv1.VerdictInconclusive {
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
func (r *BenchmarkRunReconciler) applyFaults(ctx context.Context, run *benchv1.BenchmarkRun, index int32, faults []int, st *stepSeries, measured time.Duration, mark markFunc, hold bool) (time.Duration, error) {
	if len(faults) == 0 || st.Origin.IsZero() || run.Status.Current == nil {
		return 0, nil
	}
	_, rampUp := jobs.Durations(run)
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
		clientTime, err := mark(ctx, faultLabel(fi))
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

// faultMoment is when an injection disrupted the database, in the clock of the step's series
// (the clients'): the mark, or, when no client could be marked, the operator's moment.
func faultMoment(inj *benchv1.FaultInjection) time.Time {
	if inj.ClientTime != nil {
		return inj.ClientTime.Time
	}
	return inj.Time.Time
}

// faultLabel is the mark of spec.faults[fault] in the clients' commit records.
func faultLabel(fault int) string { return fmt.Sprintf("fault-%d", fault) }

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
	if !ownedBy(obj, run) {
		return fmt.Errorf("%s is not the database of run %s (uid %s): %s", obj.GetName(), run.Name, run.UID, whose(obj))
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

// openFaultWindow starts accumulating the minute after the step's first fault once it is
// applied or under way, and reports whether it did. It runs before any interval is folded (a
// restarted operator collects the intervals it missed first): an injection still Injecting is
// placed by the operator's moment of decision, which precedes the clients' mark.
func openFaultWindow(run *benchv1.BenchmarkRun, st *stepSeries) bool {
	if run.Status.Current == nil || st == nil || st.AfterFault != nil || st.LengthSeconds <= 0 || st.Origin.IsZero() {
		return false
	}
	first := firstInjection(run.Status.Current.Faults)
	if first == nil {
		return false
	}
	length := time.Duration(st.LengthSeconds * float64(time.Second))
	k := sla.FaultIntervalIndex(st.Origin, length, faultMoment(first))
	st.AfterFault = &faultWindow{From: k, To: k + int(time.Minute/length)}
	return true
}

// observeFailover records, for each injection, the primary the engine's operator chose after it
// and when the deleted pod's replacement and every instance were ready again. Each is recorded
// once, when first seen.
func (r *BenchmarkRunReconciler) observeFailover(ctx context.Context, run *benchv1.BenchmarkRun, index int32, targets engines.FaultTargets, st *stepSeries) error {
	var pending []benchv1.FaultInjection
	for _, inj := range run.Status.Current.Faults {
		if inj.State == benchv1.FaultInjected && inj.ReadyTime == nil {
			pending = append(pending, inj)
		}
	}
	if openFaultWindow(run, st) {
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
	return len(updated) == len(pending) && allReady(updated), nil
}

func allReady(list []benchv1.FaultInjection) bool {
	for _, inj := range list {
		if inj.ReadyTime == nil {
			return false
		}
	}
	return true
}

// firstInjection is the earliest applied injection, nil when none was applied.
func firstInjection(list []benchv1.FaultInjection) *benchv1.FaultInjection {
	var first *benchv1.FaultInjection
	for i := range list {
		inj := &list[i]
		if inj.Time == nil || (inj.State != benchv1.FaultInjected && inj.State != benchv1.FaultInjecting) {
			continue
		}
		if first == nil || inj.Time.Time.Before(first.Time.Time) {
			first = inj
		}
	}
	return first
}

// faultsPending reports whether a step measuring faults still waits for a pod that ended: its
// ledger check (where the engine has one) is not served yet.
func faultsPending(conn engines.Connection, faults []int, snapshots []*snapshot.Snapshot) bool {
	if len(faults) == 0 || !conn.Ledger {
		return false
	}
	for _, s := range snapshots {
		if s.Phase == snapshot.PhaseDone && s.LedgerCheck == nil {
			return true
		}
	}
	return false
}

// ledgerOf sums the pods' ledger checks over a step of want pods; nil when no pod made one. A
// district that could not be checked — a pod that is gone or failed, a reading that failed — is
// named in NotChecked: it is not a lost commit, and the ledger does not pass.
func ledgerOf(snapshots []*snapshot.Snapshot, want int32) *benchv1.LedgerCheck {
	var out *benchv1.LedgerCheck
	checked := 0
	for _, s := range snapshots {
		c := s.LedgerCheck
		if c == nil {
			continue
		}
		if out == nil {
			out = &benchv1.LedgerCheck{Pass: true}
		}
		checked++
		if c.Error != "" {
			out.NotChecked = append(out.NotChecked, fmt.Sprintf("pod %s: %s", s.Identity.Pod, c.Error))
			continue
		}
		out.Pass = out.Pass && c.Pass
		out.Districts += int32(c.Districts)
		out.Acknowledged += c.Acknowledged
		out.Unknown += c.Unknown
		out.Growth += c.Growth
		out.Failures = append(out.Failures, c.Failures...)
	}
	if out == nil {
		return nil
	}
	for _, s := range snapshots {
		if s.LedgerCheck == nil {
			out.NotChecked = append(out.NotChecked, fmt.Sprintf("pod %s: not checked: its run did not end with a check (phase %s)", s.Identity.Pod, s.Phase))
		}
	}
	if missing := int(want) - len(snapshots); missing > 0 {
		out.NotChecked = append(out.NotChecked, fmt.Sprintf("%d of %d client pods are gone: their districts were not checked", missing, want))
	}
	if len(out.NotChecked) > 0 {
		out.Pass = false
	}
	if len(out.Failures) > 10 {
		out.Failures = append(out.Failures[:10], fmt.Sprintf("and %d more", len(out.Failures)-10))
	}
	return out
}

// faultRecord is what a step's faults did and cost, from the injections in status, the step's
// series and the pods' snapshots (want pods planned); it also returns the checks the verdict gets.
//
// The outage is measured from the acknowledged commits of every client pod, each in its own
// clock relative to the fault's mark (sla.MeasureOutage); the baseline, the recovery and the
// errors from the per-second series, against the fault's moment in the first pod's clock. What
// cannot be measured is said, never taken as zero: with sla.maxUnavailability it makes the step
// inconclusive.
func faultRecord(run *benchv1.BenchmarkRun, injections []benchv1.FaultInjection, st *stepSeries, snapshots []*snapshot.Snapshot, want int32) (*benchv1.FaultRecord, []sla.Check) {
	rec := &benchv1.FaultRecord{Injections: injections, Ledger: ledgerOf(snapshots, want)}
	var checks []sla.Check
	if l := rec.Ledger; l != nil {
		switch {
		case len(l.Failures) > 0:
			detail := fmt.Sprintf("%d acknowledged New-Orders, %d with an unknown outcome, d_next_o_id grew by %d: %s",
				l.Acknowledged, l.Unknown, l.Growth, strings.Join(l.Failures, "; "))
			checks = append(checks, sla.LedgerFailure(detail))
		case len(l.NotChecked) > 0:
			checks = append(checks, sla.Check{Name: "ledger", Status: sla.Inconclusive, Detail: "ledger: not checked: " + strings.Join(l.NotChecked, "; ")})
		}
	}
	first := firstInjection(injections)
	if first == nil || st == nil || st.Origin.IsZero() {
		return rec, checks
	}
	bound := run.Spec.SLA.MaxUnavailability
	notMeasured := func(why string) (*benchv1.FaultRecord, []sla.Check) {
		rec.Measurement = &benchv1.FaultMeasurement{NotMeasured: why}
		if bound != nil {
			checks = append(checks, sla.Check{Name: "unavailability", Status: sla.Inconclusive, Detail: "unavailability: cannot be judged: " + why})
		}
		return rec, checks
	}
	records, pods := make([]*snapshot.CommitRecord, len(snapshots)), make([]string, len(snapshots))
	for i, s := range snapshots {
		records[i], pods[i] = s.Commits, s.Identity.Pod
	}
	if int32(len(snapshots)) < want {
		return notMeasured(fmt.Sprintf("%d of %d client pods are gone: the commits they saw are unknown", int(want)-len(snapshots), want))
	}
	outage, err := sla.MeasureOutage(records, pods, faultLabel(int(first.Fault)))
	if err != nil {
		return notMeasured(err.Error())
	}
	_, rampUp := jobs.Durations(run)
	figures, err := sla.MeasureFault(st.Series, st.Origin, st.Origin.Add(rampUp), faultMoment(first))
	if err != nil {
		return notMeasured(err.Error())
	}
	m := &benchv1.FaultMeasurement{
		Unavailability:             metav1.Duration{Duration: outage.Unavailability.Round(time.Millisecond)},
		UnavailableAtEnd:           outage.AtEnd,
		UnavailabilityMethod:       "commits",
		BaselineNewOrdersPerSecond: round2(figures.BaselineNewOrdersPerSecond),
	}
	if outage.Unavailability > 0 {
		m.UnavailableFrom = &metav1.MicroTime{Time: outage.From}
		if !outage.AtEnd {
			m.UnavailableTo = &metav1.MicroTime{Time: outage.To}
		}
	}
	if figures.Recovered {
		m.Recovery = &metav1.Duration{Duration: figures.Recovery.Round(time.Millisecond)}
	}
	for t, n := range figures.Errors {
		if m.Errors == nil {
			m.Errors = map[benchv1.Transaction]int64{}
		}
		m.Errors[benchv1.Transaction(t)] = n
	}
	for _, s := range snapshots {
		for _, d := range s.Ledger {
			m.CommitsUnknown += d.Unknown
		}
	}
	m.LatencyAfter = st.AfterFault.stats()
	rec.Measurement = m
	if bound != nil {
		checks = append(checks, sla.UnavailabilityCheck(outage.Unavailability, bound.Duration, outage.AtEnd))
	}
	return rec, checks
}

// faultWindow accumulates the exact histograms of the minute after a step's first fault: the
// intervals [From, To) of its series.
type faultWindow struct {
	From       int                             `json:"from"`
	To         int                             `json:"to"`
	Histograms map[snapshot.Transaction]string `json:"histograms,omitempty"`
}

// add merges one merged interval's histograms into the window when the interval is in it.
func (w *faultWindow) add(m snapshot.MergedInterval) error {
	if w == nil || m.Index < w.From || m.Index >= w.To {
		return nil
	}
	if w.Histograms == nil {
		w.Histograms = map[snapshot.Transaction]string{}
	}
	for t, mt := range m.Transactions {
		if mt == nil || mt.Histogram == nil || mt.Histogram.TotalCount() == 0 {
			continue
		}
		h := snapshot.NewHistogram()
		if enc := w.Histograms[t]; enc != "" {
			var err error
			if h, err = snapshot.DecodeHistogram(enc); err != nil {
				return fmt.Errorf("the window after the fault: %w", err)
			}
		}
		h.Merge(mt.Histogram)
		enc, err := snapshot.EncodeHistogram(h)
		if err != nil {
			return err
		}
		w.Histograms[t] = enc
	}
	return nil
}

// stats reads the window's percentiles per transaction type.
func (w *faultWindow) stats() map[benchv1.Transaction]benchv1.TransactionStats {
	if w == nil || len(w.Histograms) == 0 {
		return nil
	}
	out := map[benchv1.Transaction]benchv1.TransactionStats{}
	for t, enc := range w.Histograms {
		h, err := snapshot.DecodeHistogram(enc)
		if err != nil {
			continue
		}
		q := func(p float64) metav1.Duration {
			return metav1.Duration{Duration: snapshot.Micros(h.ValueAtQuantile(p))}
		}
		out[benchv1.Transaction(t)] = benchv1.TransactionStats{Count: h.TotalCount(), P50: q(50), P90: q(90), P95: q(95), P99: q(99),
			Max: metav1.Duration{Duration: snapshot.Micros(h.Max())}}
	}
	return out
}

// reconcileFaultCheck runs, after every step that applied a fault (whatever its verdict), the
// TPC-C consistency check and records its outcome in that step, once; and it waits, up to
// readyWait after the fault, for the database to be whole again before the next step starts.
func (r *BenchmarkRunReconciler) reconcileFaultCheck(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	for i, s := range run.Status.Steps {
		if s.Fault == nil || firstInjection(s.Fault.Injections) == nil {
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
	if c := jobCondition(check, "Failed"); c != nil {
		outcome = fmt.Sprintf("failed: Job %s: %s (its log names the TPC-C condition)", check.Name, c.Message)
	} else if jobCondition(check, "Complete") != nil {
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
