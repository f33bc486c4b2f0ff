package podmetrics

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"
)

// +kubebuilder:rbac:groups=metrics.k8s.io,resources=pods,verbs=list

// podMetricsGVK is the resource metrics API's pod kind (metrics-server and its peers serve it).
var podMetricsGVK = schema.GroupVersionKind{Group: "metrics.k8s.io", Version: "v1beta1", Kind: "PodMetricsList"}

// resources reads the pods' current CPU and memory from the cluster's resource metrics API into
// st, each list within Timeout (0: ScrapeTimeout). Without the API the series says so.
func (s Sampler) resources(ctx context.Context, st *measure.StepSeries, pods Pods) {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = ScrapeTimeout
	}
	for _, sel := range pods.Selectors {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(podMetricsGVK)
		lctx, cancel := context.WithTimeout(ctx, timeout)
		err := s.Reader.List(lctx, list, client.InNamespace(pods.Namespace), sel)
		cancel()
		if err != nil {
			st.ResourceMetrics = resourceMetricsAbsent(err)
			return
		}
		st.ResourceMetrics = measure.ResourceMetricsSource
		for _, item := range list.Items {
			role, ok := pods.Roles[item.GetName()]
			if !ok {
				continue
			}
			at, cpu, memory, err := podMetricsSample(item.Object)
			if err != nil {
				continue
			}
			st.AddResources(item.GetName(), role, pods.Limits[item.GetName()], at, cpu, memory)
		}
	}
}

// resourceMetricsAbsent says why there are no resource figures.
func resourceMetricsAbsent(err error) string {
	switch {
	case meta.IsNoMatchError(err), apierrors.IsNotFound(err):
		return "absent: the cluster serves no metrics.k8s.io API (install metrics-server)"
	case apierrors.IsForbidden(err):
		return "absent: the operator may not list metrics.k8s.io pods"
	default:
		return fmt.Sprintf("absent: metrics.k8s.io: %v", err)
	}
}

// podMetricsSample sums a PodMetrics object's containers: the sample's time (the end of its
// window), CPU in millicores and memory (working set) in bytes. It is pure.
func podMetricsSample(obj map[string]any) (time.Time, int64, int64, error) {
	ts, _, _ := unstructured.NestedString(obj, "timestamp")
	at, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return time.Time{}, 0, 0, fmt.Errorf("timestamp %q: %w", ts, err)
	}
	containers, _, _ := unstructured.NestedSlice(obj, "containers")
	var cpu, memory int64
	for _, c := range containers {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		usage, _, _ := unstructured.NestedStringMap(cm, "usage")
		if q, err := resource.ParseQuantity(usage["cpu"]); err == nil {
			cpu += q.MilliValue()
		}
		if q, err := resource.ParseQuantity(usage["memory"]); err == nil {
			memory += q.Value()
		}
	}
	return at, cpu, memory, nil
}

// CPULimitMillis is the sum of a pod's containers' CPU limits; 0 when any container has none.
func CPULimitMillis(p corev1.Pod) int64 {
	var total int64
	for _, c := range p.Spec.Containers {
		q, ok := c.Resources.Limits[corev1.ResourceCPU]
		if !ok {
			return 0
		}
		total += q.MilliValue()
	}
	return total
}
