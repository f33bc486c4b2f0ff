package injector

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func netPod(name, ip string, l map[string]string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}, Status: corev1.PodStatus{PodIP: ip}}
}

func svc(name, ip string, sel map[string]string) corev1.Service {
	return corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{ClusterIP: ip, Selector: sel}}
}

func TestPeers(t *testing.T) {
	pg := map[string]string{"cnpg.io/cluster": "db"}
	primary := map[string]string{"cnpg.io/cluster": "db", "role": "primary"}
	pods := []corev1.Pod{netPod("db-1", "10.0.0.1", primary), netPod("db-2", "10.0.0.2", pg), netPod("db-3", "10.0.0.3", pg)}
	services := []corev1.Service{
		svc("db-rw", "10.96.0.1", map[string]string{"role": "primary"}),
		svc("db-r", "10.96.0.2", map[string]string{"cnpg.io/cluster": "db"}),
		svc("headless", corev1.ClusterIPNone, pg),
		svc("external", "10.96.0.9", nil),
		svc("other", "10.96.0.8", map[string]string{"app": "clients"}),
	}
	for _, tc := range []struct {
		name  string
		peers []corev1.Pod
		extra []string
		want  string
	}{
		{"the standbys': the primary and the Services that select it", pods[:1], nil, "10.0.0.1,10.96.0.1,10.96.0.2"},
		{"the primary's: the standbys and the Services selecting any of them", pods[1:], nil, "10.0.0.2,10.0.0.3,10.96.0.2"},
		{"further addresses, once each", pods[:1], []string{"10.0.0.9", "10.0.0.1", "fd00::1"}, "10.0.0.1,10.0.0.9,10.96.0.1,10.96.0.2"},
		{"no peer", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(Peers(tc.peers, services, tc.extra), ","); got != tc.want {
				t.Errorf("peers %q, want %q", got, tc.want)
			}
		})
	}
}
