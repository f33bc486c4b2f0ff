package injector

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Peers are the IPv4 addresses a fault applies between its pod and: extra (spec.peers), the IPs
// of the peer pods, and the ClusterIPs of the Services that select any of them — a standby reaches
// its primary through such a Service, whose address is what leaves the standby's namespace.
func Peers(peerPods []corev1.Pod, services []corev1.Service, extra []string) []string {
	seen := map[string]bool{}
	var peers []string
	add := func(ip string) {
		if ip != "" && ip != corev1.ClusterIPNone && !seen[ip] && !strings.Contains(ip, ":") {
			seen[ip] = true
			peers = append(peers, ip)
		}
	}
	for _, ip := range extra {
		add(ip)
	}
	for _, p := range peerPods {
		add(p.Status.PodIP)
	}
	for _, s := range services {
		if len(s.Spec.Selector) == 0 {
			continue
		}
		sel := labels.SelectorFromSet(s.Spec.Selector)
		for _, p := range peerPods {
			if sel.Matches(labels.Set(p.Labels)) {
				add(s.Spec.ClusterIP)
				break
			}
		}
	}
	sort.Strings(peers)
	return peers
}

// resolvePeers reads the peer pods and the Services of the NetworkFault's namespace.
func (r *Reconciler) resolvePeers(ctx context.Context, nf *benchv1.NetworkFault) ([]string, error) {
	var pods []corev1.Pod
	for _, name := range nf.Spec.PeerPods {
		p := &corev1.Pod{}
		if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: nf.Namespace, Name: name}, p); err != nil {
			if client.IgnoreNotFound(err) == nil {
				continue // gone (deleted by another fault): no address to cut it from
			}
			return nil, fmt.Errorf("reading peer pod %s: %w", name, err)
		}
		pods = append(pods, *p)
	}
	services := &corev1.ServiceList{}
	if len(pods) > 0 {
		if err := r.APIReader.List(ctx, services, client.InNamespace(nf.Namespace)); err != nil {
			return nil, fmt.Errorf("listing the Services of namespace %s: %w", nf.Namespace, err)
		}
	}
	return Peers(pods, services.Items, nf.Spec.Peers), nil
}
