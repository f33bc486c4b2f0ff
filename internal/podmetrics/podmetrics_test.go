package podmetrics

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"
)

func TestPodMetricsSample(t *testing.T) {
	obj := map[string]any{"timestamp": "2026-11-23T10:00:05Z", "window": "10s", "containers": []any{
		map[string]any{"name": "postgres", "usage": map[string]any{"cpu": "1250m", "memory": "512Mi"}},
		map[string]any{"name": "bootstrap", "usage": map[string]any{"cpu": "250000n", "memory": "1Mi"}},
	}}
	at, cpu, memory, err := podMetricsSample(obj)
	if err != nil || !at.Equal(time.Date(2026, 11, 23, 10, 0, 5, 0, time.UTC)) || cpu != 1251 || memory != 513<<20 {
		t.Fatalf("at %v cpu %d memory %d err %v", at, cpu, memory, err)
	}
	if _, _, _, err := podMetricsSample(map[string]any{"timestamp": "soon"}); err == nil {
		t.Fatal("a sample without a valid timestamp was accepted")
	}
}

// Without the permission, the step goes on and says why its disk and network are absent.
func TestIOMetricsAbsentWhenForbidden(t *testing.T) {
	st := &measure.StepSeries{Origin: time.Now(), LengthSeconds: 10}
	s := Sampler{Nodes: func(context.Context, string) ([]byte, error) {
		return nil, apierrors.NewForbidden(corev1.Resource("nodes/proxy"), "node-a", fmt.Errorf("no"))
	}}
	s.io(context.Background(), st, Pods{Namespace: "ns", Pods: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{NodeName: "node-a"}}}})
	if !strings.Contains(st.IOMetrics, "may not get nodes/proxy") {
		t.Errorf("IOMetrics %q", st.IOMetrics)
	}
	s.Nodes = nil
	s.io(context.Background(), st, Pods{Namespace: "ns"})
	if !strings.Contains(st.IOMetrics, "--kubelet-metrics=false") {
		t.Errorf("IOMetrics %q", st.IOMetrics)
	}
}

// A kubelet that never answers costs the poll one Timeout, not one per node: the nodes are read
// together, each within its own deadline, and the series says which node failed.
func TestIOMetricsHungKubeletsCostOneTimeout(t *testing.T) {
	st := &measure.StepSeries{Origin: time.Now(), LengthSeconds: 10}
	s := Sampler{Timeout: 200 * time.Millisecond, Nodes: func(ctx context.Context, node string) ([]byte, error) {
		<-ctx.Done() // hung
		return nil, ctx.Err()
	}}
	var pods []corev1.Pod
	for i := range 5 {
		pods = append(pods, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i)}, Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", i)}})
	}
	start := time.Now()
	s.io(context.Background(), st, Pods{Namespace: "ns", Pods: pods})
	if took := time.Since(start); took < 200*time.Millisecond || took > 600*time.Millisecond {
		t.Errorf("5 hung kubelets took %s, want one timeout of 200ms", took)
	}
	if !strings.Contains(st.IOMetrics, "absent: node node-4: context deadline exceeded") {
		t.Errorf("IOMetrics %q", st.IOMetrics)
	}
}
