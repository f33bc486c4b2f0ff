// Package injector is the fault injector's controller: on each node, it applies the NetworkFaults
// whose pod runs there (internal/netfault does the applying) and heals them at their spec.until,
// or sooner when they are deleted. It runs privileged, in its own namespace, only where it was
// installed (hack/fault-injector.sh); the manager only creates and reads NetworkFaults.
package injector

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/netfault"
)

// Finalizer holds a NetworkFault the injector applied until it is healed.
const Finalizer = "bench.oltp.io/network-fault"

// Reconciler applies and heals the NetworkFaults of the pods on its node.
type Reconciler struct {
	client.Client
	// APIReader reads pods uncached: the injector watches no pods.
	APIReader client.Reader
	// Node is the node this injector runs on; Proc its view of the host's /proc.
	Node, Proc string
	Injector   *netfault.Injector
	Now        func() time.Time
}

// SetupWithManager registers the reconciler for NetworkFaults.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&benchv1.NetworkFault{}).Named("networkfault").Complete(r)
}

// Reconcile moves one NetworkFault: apply it (phase "" → Active or Failed), heal it at until or on
// deletion (→ Healed), and drop the finalizer once nothing of it is left.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	nf := &benchv1.NetworkFault{}
	if err := r.Get(ctx, req.NamespacedName, nf); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if nf.Status.Node != "" && nf.Status.Node != r.Node {
		return ctrl.Result{}, nil // another node's injector applied it
	}
	pod := &corev1.Pod{}
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: nf.Namespace, Name: nf.Spec.Pod}, pod)
	switch {
	case apierrors.IsNotFound(err):
		pod = nil
	case err != nil:
		return ctrl.Result{}, err
	}
	if nf.Status.Node == "" && (pod == nil || pod.Spec.NodeName != r.Node) {
		return ctrl.Result{}, nil // not on this node (or gone before anyone took it)
	}
	id := string(nf.UID)
	// pid is a process in the pod's network namespace (0: the pod instance is gone), looked for
	// in /proc only by the reconciles that enter the namespace.
	pid := func() int {
		if pod == nil || string(pod.UID) != nf.Spec.PodUID {
			return 0
		}
		p, _ := netfault.PodPID(r.Proc, nf.Spec.PodUID)
		return p
	}
	now := r.Now()
	if !nf.DeletionTimestamp.IsZero() || (nf.Status.Phase == benchv1.NetworkFaultActive && !now.Before(nf.Spec.Until.Time)) {
		return ctrl.Result{}, r.heal(ctx, nf, id, pid, now)
	}
	switch nf.Status.Phase {
	case "":
		return r.apply(ctx, nf, pod, id, pid(), now)
	case benchv1.NetworkFaultActive:
		if nf.Status.Mechanism == netfault.MechanismToxiproxy && !r.Injector.Active(id) {
			// This injector restarted: its proxy went with it. Apply again until the end.
			if _, err := r.Injector.Apply(ctx, id, toFault(nf, nf.Status.Peers, pod, pid())); err != nil {
				return ctrl.Result{}, r.heal(ctx, nf, id, pid, now)
			}
		}
		return ctrl.Result{RequeueAfter: nf.Spec.Until.Sub(now)}, nil
	}
	return ctrl.Result{}, r.dropFinalizer(ctx, nf)
}

func (r *Reconciler) apply(ctx context.Context, nf *benchv1.NetworkFault, pod *corev1.Pod, id string, pid int, now time.Time) (ctrl.Result, error) {
	fail := func(msg string) (ctrl.Result, error) {
		nf.Status = benchv1.NetworkFaultStatus{Phase: benchv1.NetworkFaultFailed, Node: r.Node, Message: msg}
		return ctrl.Result{}, r.Status().Update(ctx, nf)
	}
	switch {
	case string(pod.UID) != nf.Spec.PodUID:
		return fail(fmt.Sprintf("pod %s is another instance (uid %s) than the one named (%s)", pod.Name, pod.UID, nf.Spec.PodUID))
	case !now.Before(nf.Spec.Until.Time):
		return fail("until had passed before the fault could be applied")
	case pid == 0:
		return fail(fmt.Sprintf("no process of pod %s (uid %s) found on node %s", pod.Name, pod.UID, r.Node))
	}
	if controllerutil.AddFinalizer(nf, Finalizer) {
		if err := r.Update(ctx, nf); err != nil {
			return ctrl.Result{}, err
		}
	}
	peers, err := r.resolvePeers(ctx, nf)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(peers) == 0 {
		return fail("no peer has an address: the fault would apply to nothing")
	}
	applied, err := r.Injector.Apply(ctx, id, toFault(nf, peers, pod, pid))
	if err != nil {
		return fail("applying: " + err.Error())
	}
	nf.Status = benchv1.NetworkFaultStatus{Phase: benchv1.NetworkFaultActive, Node: r.Node, Mechanism: applied.Mechanism, Peers: peers,
		AppliedTime: &metav1.MicroTime{Time: r.Now()}, Message: applied.Note}
	if err := r.Status().Update(ctx, nf); err != nil {
		_ = r.Injector.Heal(ctx, id, pid) // nothing is left applied that status does not say
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: nf.Spec.Until.Sub(now)}, nil
}

// heal removes an applied fault (pid 0: the pod's namespace is gone with it), records it, and
// lets the object go.
func (r *Reconciler) heal(ctx context.Context, nf *benchv1.NetworkFault, id string, podPID func() int, now time.Time) error {
	if nf.Status.Phase == benchv1.NetworkFaultActive {
		pid := podPID()
		if err := r.Injector.Heal(ctx, id, pid); err != nil {
			return fmt.Errorf("healing %s on pod %s: %w", nf.Name, nf.Spec.Pod, err) // retried: not healed yet
		}
		nf.Status.Phase, nf.Status.HealedTime = benchv1.NetworkFaultHealed, &metav1.MicroTime{Time: now}
		if pid == 0 {
			nf.Status.Message = "the pod's network namespace was gone: nothing was left to heal"
		}
		if nf.DeletionTimestamp.IsZero() {
			if err := r.Status().Update(ctx, nf); err != nil {
				return err
			}
		}
	}
	return r.dropFinalizer(ctx, nf)
}

func (r *Reconciler) dropFinalizer(ctx context.Context, nf *benchv1.NetworkFault) error {
	if controllerutil.RemoveFinalizer(nf, Finalizer) {
		return client.IgnoreNotFound(r.Update(ctx, nf))
	}
	return nil
}

// toFault is the NetworkFault as netfault applies it to the process pid of pod, between it and
// peers.
func toFault(nf *benchv1.NetworkFault, peers []string, pod *corev1.Pod, pid int) netfault.Fault {
	f := netfault.Fault{PID: pid, Action: netfault.Partition, CutOthers: nf.Spec.CutOthers}
	if nf.Spec.Action == benchv1.NetworkDelay {
		f.Action = netfault.Delay
	}
	if nf.Spec.Delay != nil {
		f.Delay = nf.Spec.Delay.Duration
	}
	if nf.Spec.Jitter != nil {
		f.Jitter = nf.Spec.Jitter.Duration
	}
	for _, p := range peers {
		if a, err := netip.ParseAddr(p); err == nil {
			f.Peers = append(f.Peers, a)
		}
	}
	if pod != nil {
		f.Node, _ = netip.ParseAddr(pod.Status.HostIP)
	}
	return f
}
