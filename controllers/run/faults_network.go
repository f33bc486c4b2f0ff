package run

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
)

// Network faults (NetworkDelay, Partition) are not the manager's to apply: it creates one
// NetworkFault per target pod, owned by the run, naming the pod (and its UID), its peers (the
// database's other pods, by name) and when to heal; the opt-in fault injector on the pod's node
// resolves the peers' addresses (with the ClusterIPs of the Services in front of them), applies
// the fault inside the pod's network namespace and heals it then, whether or not the manager is
// still there. The manager gains no privilege for it but creating and reading NetworkFaults.
// +kubebuilder:rbac:groups=bench.oltp.io,resources=networkfaults,verbs=get;list;create

// injectorWait is how long the manager waits for the fault injector to take a NetworkFault
// before it records the injection Failed (the injector is not installed, or not on that node).
const injectorWait = 30 * time.Second

// Labels of a NetworkFault beside the run's: the step and the index in spec.faults.
const faultLabel = "bench.oltp.io/fault"

func isNetworkFault(a benchv1.FaultAction) bool {
	return a == benchv1.FaultNetworkDelay || a == benchv1.FaultPartition
}

// databasePods lists the run's database pods, by name.
func (r *Reconciler) databasePods(ctx context.Context, run *benchv1.BenchmarkRun) ([]corev1.Pod, error) {
	list := &corev1.PodList{}
	if err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), client.MatchingLabels(r.backend(run).DatabasePods(run))); err != nil {
		return nil, fmt.Errorf("listing the database's pods: %w", err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items, nil
}

// networkTargets names the pods a network fault applies to, from the engine operator's report.
func networkTargets(run *benchv1.BenchmarkRun, f benchv1.Fault, targets engines.FaultTargets, observed map[engines.Ref]*unstructured.Unstructured,
	roles engines.Roles, pods []corev1.Pod, replicated bool) ([]string, error) {
	switch f.Target {
	case benchv1.FaultTargetPrimary:
		if roles.Primary == "" {
			return nil, fmt.Errorf("target Primary: the database's operator reports no primary")
		}
		return []string{roles.Primary}, nil
	case benchv1.FaultTargetStandbys:
		if !replicated || roles.Primary == "" {
			return nil, fmt.Errorf("target Standbys: the database's operator reports no primary and standbys")
		}
		var out []string
		for _, p := range pods {
			if p.Name != roles.Primary {
				out = append(out, p.Name)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("target Standbys: the database has no standby")
		}
		return out, nil
	case benchv1.FaultTargetStandby:
		for _, p := range pods {
			if roles.Primary != "" && p.Name != roles.Primary {
				return []string{p.Name}, nil
			}
		}
		if roles.Primary == "" && len(pods) > 0 {
			return []string{pods[len(pods)-1].Name}, nil
		}
		return nil, fmt.Errorf("target Standby: the database has no pod that does not serve writes")
	case benchv1.FaultTargetPod:
		name, err := targets.FaultPod(run, benchv1.Fault{Action: benchv1.FaultKillPod, Ordinal: f.Ordinal}, observed)
		if err != nil {
			return nil, err
		}
		return []string{name}, nil
	}
	return nil, fmt.Errorf("target %q: want Primary, Standbys, Standby or Pod", f.Target)
}

// hasPrimary says whether the run's engine names a single writer (its operator reports a
// primary a fault can aim at).
func (r *Reconciler) hasPrimary(run *benchv1.BenchmarkRun) bool {
	return r.engine(run).Capabilities().Supports(benchv1.FaultKillPrimary)
}

// faultPod names the pod a deleting fault aims at: by its target (the adversity phase's), or as
// the engine names it (KillPrimary, KillPod's ordinal).
func (r *Reconciler) faultPod(ctx context.Context, run *benchv1.BenchmarkRun, targets engines.FaultTargets, f benchv1.Fault,
	observed map[engines.Ref]*unstructured.Unstructured, roles engines.Roles) (string, error) {
	if f.Target == "" {
		return targets.FaultPod(run, f, observed)
	}
	pods, err := r.databasePods(ctx, run)
	if err != nil {
		return "", err
	}
	names, err := r.targetNames(run, f, targets, observed, roles, pods)
	if err != nil {
		return "", err
	}
	return names[0], nil
}

// targetNames names the pods f's target designates among the database's pods (networkTargets),
// telling it whether the engine replicates to standbys.
func (r *Reconciler) targetNames(run *benchv1.BenchmarkRun, f benchv1.Fault, targets engines.FaultTargets,
	observed map[engines.Ref]*unstructured.Unstructured, roles engines.Roles, pods []corev1.Pod) ([]string, error) {
	_, replicated := r.backend(run).(engines.Replication)
	return networkTargets(run, f, targets, observed, roles, pods, replicated)
}

// peerPods are the database's pods other than the targets, by name.
func peerPods(pods []corev1.Pod, targets []string) []string {
	var out []string
	for _, p := range pods {
		if !slices.Contains(targets, p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}

// networkFaultName names the NetworkFault of spec.faults[fault] on a pod in a step.
func networkFaultName(run *benchv1.BenchmarkRun, index int32, fault int, pod string) string {
	name := fmt.Sprintf("%s-s%d-f%d-%s", run.Name, index, fault, pod)
	if len(name) > 253 {
		name = name[:253]
	}
	return name
}

// networkFaultObject is the NetworkFault that applies f to pod until the given time.
func networkFaultObject(run *benchv1.BenchmarkRun, index int32, fi int, f benchv1.Fault, pod *corev1.Pod, peers []string, until time.Time) *benchv1.NetworkFault {
	// peers are pod names: the injector resolves their addresses.
	l := engines.Labels(run)
	l[jobs.StepLabel] = strconv.Itoa(int(index))
	l[faultLabel] = strconv.Itoa(fi)
	nf := &benchv1.NetworkFault{
		ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: networkFaultName(run, index, fi, pod.Name), Labels: l},
		Spec: benchv1.NetworkFaultSpec{Pod: pod.Name, PodUID: string(pod.UID), Action: benchv1.NetworkPartition,
			PeerPods: peers, CutOthers: f.Clients == benchv1.FaultClientsCut, Until: metav1.Time{Time: until}},
	}
	if f.Action == benchv1.FaultNetworkDelay {
		nf.Spec.Action, nf.Spec.Delay, nf.Spec.Jitter = benchv1.NetworkDelay, f.Delay, f.Jitter
	}
	return nf
}

// decideNetwork names the pods a due network fault applies to and checks each belongs to the run's
// database; a refusal is recorded Failed with the reason.
func (r *Reconciler) decideNetwork(ctx context.Context, run *benchv1.BenchmarkRun, targets engines.FaultTargets, inj benchv1.FaultInjection,
	f benchv1.Fault, observed map[engines.Ref]*unstructured.Unstructured, roles engines.Roles) (benchv1.FaultInjection, error) {
	pods, err := r.databasePods(ctx, run)
	if err != nil {
		return inj, err
	}
	names, err := r.targetNames(run, f, targets, observed, roles, pods)
	if err != nil {
		inj.State, inj.Message = benchv1.FaultFailed, err.Error()
		return inj, nil
	}
	for _, n := range names {
		i := slices.IndexFunc(pods, func(p corev1.Pod) bool { return p.Name == n })
		if i < 0 {
			inj.State, inj.Message = benchv1.FaultFailed, fmt.Sprintf("pod %s does not exist", n)
			return inj, nil
		}
		if err := r.verifyDatabasePod(run, targets, &pods[i], observed); err != nil {
			inj.State, inj.Message = benchv1.FaultFailed, "refused: "+err.Error()
			return inj, nil
		}
	}
	inj.Pods, inj.State, inj.Time = names, benchv1.FaultInjecting, &metav1.MicroTime{Time: time.Now()}
	return inj, nil
}

// injectNetwork creates the NetworkFaults of an injection (again, after a restart: those that
// exist are kept), healing duration after it was decided.
func (r *Reconciler) injectNetwork(ctx context.Context, run *benchv1.BenchmarkRun, index int32, inj benchv1.FaultInjection, f benchv1.Fault) error {
	pods, err := r.databasePods(ctx, run)
	if err != nil {
		return err
	}
	peers := peerPods(pods, inj.Pods)
	if len(peers) == 0 {
		return fmt.Errorf("the database has no other pod to cut or delay %s from", strings.Join(inj.Pods, ", "))
	}
	until := inj.Time.Add(f.Duration.Duration)
	for _, name := range inj.Pods {
		i := slices.IndexFunc(pods, func(p corev1.Pod) bool { return p.Name == name })
		if i < 0 {
			return fmt.Errorf("pod %s is gone", name)
		}
		if err := r.createOnce(ctx, run, networkFaultObject(run, index, int(inj.Fault), f, &pods[i], peers, until)); err != nil {
			return err
		}
	}
	r.Recorder.Eventf(run, nil, corev1.EventTypeWarning, "FaultInjected", string(f.Action), "step %d: %s on %s until %s (peers %s)",
		index, f.Action, strings.Join(inj.Pods, ", "), until.UTC().Format(time.RFC3339), strings.Join(peers, ", "))
	return nil
}

// networkSeen updates an injection from its NetworkFaults: the mechanism the injector used, a
// failure (or no injector within injectorWait), when every one was healed, and ready once healed
// with the database whole.
func networkSeen(inj benchv1.FaultInjection, nfs []benchv1.NetworkFault, whole bool, now time.Time) benchv1.FaultInjection {
	healed, applied := 0, 0
	var last time.Time
	for _, nf := range nfs {
		st := nf.Status
		switch st.Phase {
		case benchv1.NetworkFaultFailed:
			inj.State, inj.Message = benchv1.FaultFailed, fmt.Sprintf("pod %s: %s", nf.Spec.Pod, st.Message)
			return inj
		case benchv1.NetworkFaultActive, benchv1.NetworkFaultHealed:
			applied++
			inj.Mechanism = st.Mechanism
		}
		if st.Phase == benchv1.NetworkFaultHealed && st.HealedTime != nil {
			healed++
			if st.HealedTime.After(last) {
				last = st.HealedTime.Time
			}
		}
	}
	if applied < len(inj.Pods) && inj.Time != nil && now.Sub(inj.Time.Time) > injectorWait {
		inj.State = benchv1.FaultFailed
		inj.Message = fmt.Sprintf("no fault injector applied it within %s on the node of every pod (%d of %d): install it with hack/fault-injector.sh install (docs/failover.md)",
			injectorWait, applied, len(inj.Pods))
		return inj
	}
	if healed == len(inj.Pods) && inj.HealedTime == nil {
		inj.HealedTime = &metav1.MicroTime{Time: last}
	}
	if inj.HealedTime != nil && whole && inj.ReadyTime == nil {
		inj.ReadyTime = &metav1.MicroTime{Time: now}
	}
	return inj
}

// networkFaults lists the NetworkFaults of one injection.
func (r *Reconciler) networkFaults(ctx context.Context, run *benchv1.BenchmarkRun, index int32, fault int32) ([]benchv1.NetworkFault, error) {
	list := &benchv1.NetworkFaultList{}
	sel := engines.Labels(run)
	sel[jobs.StepLabel] = strconv.Itoa(int(index))
	sel[faultLabel] = strconv.Itoa(int(fault))
	if err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), client.MatchingLabels(sel)); err != nil {
		return nil, fmt.Errorf("listing NetworkFaults: %w", err)
	}
	return list.Items, nil
}
