package run

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/controllers/run/plan"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// Faults (spec.faults) are applied while a step measures: at the planned offset into its measured
// interval the operator deletes one pod of the run's own database, exactly once, or asks the fault
// injector for a network fault on some of them (faults_network.go), and watches what the engine's
// operator does. The step then records the outage the clients saw (from their
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

// setInjection writes one injection into the status of the step under way.
func (r *Reconciler) setInjection(ctx context.Context, run *benchv1.BenchmarkRun, index int32, inj benchv1.FaultInjection) error {
	return r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if s.Current == nil || s.Current.Index != index {
			return
		}
		if old := measure.Injection(s.Current.Faults, int(inj.Fault)); old != nil {
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
func (r *Reconciler) applyFaults(ctx context.Context, run *benchv1.BenchmarkRun, index int32, faults []int, st *measure.StepSeries, measured time.Duration, mark markFunc, hold bool) (time.Duration, error) {
	if len(faults) == 0 || st.Origin.IsZero() || run.Status.Current == nil {
		return 0, nil
	}
	_, rampUp := workload.Durations(run)
	start := st.Origin.Add(rampUp)
	targets, ok := r.backend(run).(engines.FaultTargets)
	var next time.Duration
	stepFaults := plan.StepFaults(run, run.Status.Current.Kind, r.hasPrimary(run))
	for _, fi := range faults {
		if fi >= len(stepFaults) {
			continue
		}
		f := stepFaults[fi]
		planned := start.Add(f.At.Duration)
		inj := measure.Injection(run.Status.Current.Faults, fi)
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
		if isNetworkFault(f.Action) {
			if err := r.injectNetwork(ctx, run, index, *inj, f); err != nil {
				done.State, done.Message = benchv1.FaultFailed, err.Error()
			}
		} else if inj.Pod != "" {
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
func (r *Reconciler) observeFaultTargets(ctx context.Context, run *benchv1.BenchmarkRun, targets engines.FaultTargets) (map[engines.Ref]*unstructured.Unstructured, error) {
	return r.observe(ctx, run, append(r.backend(run).Observed(run), targets.OwnerChain(run)...))
}

// decideInjection names the pod a due fault deletes and checks it belongs to the run's database.
// A refusal is recorded as Failed with the reason; nothing is deleted.
func (r *Reconciler) decideInjection(ctx context.Context, run *benchv1.BenchmarkRun, targets engines.FaultTargets, fi int, f benchv1.Fault, planned time.Time) (benchv1.FaultInjection, error) {
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
	if isNetworkFault(f.Action) {
		return r.decideNetwork(ctx, run, targets, inj, f, observed, roles)
	}
	name, err := r.faultPod(ctx, run, targets, f, observed, roles)
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
func (r *Reconciler) verifyDatabasePod(run *benchv1.BenchmarkRun, targets engines.FaultTargets, pod *corev1.Pod, observed map[engines.Ref]*unstructured.Unstructured) error {
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
func (r *Reconciler) deletePod(ctx context.Context, run *benchv1.BenchmarkRun, name string, uid types.UID) (deleted bool, err error) {
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
