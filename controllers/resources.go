package controllers

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

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
)

// +kubebuilder:rbac:groups=metrics.k8s.io,resources=pods,verbs=list

// podMetricsGVK is the resource metrics API's pod kind (metrics-server and its peers serve it).
var podMetricsGVK = schema.GroupVersionKind{Group: "metrics.k8s.io", Version: "v1beta1", Kind: "PodMetricsList"}

// sampleResources reads the current CPU and memory of the database pods and the step's client
// pods from the cluster's resource metrics API into the step's series. Without the API the series
// says so and the step goes on.
func (r *BenchmarkRunReconciler) sampleResources(ctx context.Context, run *benchv1.BenchmarkRun, st *measure.StepSeries, clients []corev1.Pod) {
	if st.Origin.IsZero() {
		return
	}
	limits := map[string]int64{}
	roles := map[string]string{}
	for _, p := range clients {
		roles[p.Name], limits[p.Name] = measure.RoleClient, cpuLimitMillis(p)
	}
	selectors := []client.MatchingLabels{}
	all := append([]corev1.Pod(nil), clients...)
	if sel := r.backend(run).DatabasePods(run); sel != nil {
		selectors = append(selectors, sel)
		pods := &corev1.PodList{}
		if err := r.APIReader.List(ctx, pods, client.InNamespace(run.Namespace), client.MatchingLabels(sel)); err == nil {
			for _, p := range pods.Items {
				roles[p.Name], limits[p.Name] = measure.RoleDatabase, cpuLimitMillis(p)
			}
			all = append(all, pods.Items...)
		}
	}
	defer r.sampleIO(ctx, st, run.Namespace, all, roles)
	if len(clients) > 0 {
		selectors = append(selectors, client.MatchingLabels{jobs.StepLabel: clients[0].Labels[jobs.StepLabel],
			jobs.ComponentLabel: jobs.ComponentClient, "bench.oltp.io/run": run.Name})
	}
	for _, sel := range selectors {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(podMetricsGVK)
		if err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), sel); err != nil {
			st.ResourceMetrics = resourceMetricsAbsent(err)
			return
		}
		st.ResourceMetrics = measure.ResourceMetricsSource
		for _, item := range list.Items {
			role, ok := roles[item.GetName()]
			if !ok {
				continue
			}
			at, cpu, memory, err := podMetricsSample(item.Object)
			if err != nil {
				continue
			}
			st.AddResources(item.GetName(), role, limits[item.GetName()], at, cpu, memory)
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

// cpuLimitMillis is the sum of a pod's containers' CPU limits; 0 when any container has none.
func cpuLimitMillis(p corev1.Pod) int64 {
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
