// Package podmetrics samples what a run's database and client pods use while a step runs: CPU and
// memory from the cluster's resource metrics API (metrics.k8s.io, resources.go), disk and network
// from the nodes' kubelet cAdvisor metrics (kubelet.go), into the step's series (internal/measure).
// Without either the step goes on, and its series says why the figures are absent.
package podmetrics

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"
)

// Sampler reads the pods' metrics.
type Sampler struct {
	// Reader lists PodMetrics uncached.
	Reader client.Reader
	// Nodes reads a node's kubelet cAdvisor metrics; nil reads none (--kubelet-metrics=false).
	Nodes NodeMetricsReader
	// Timeout bounds each call: one node's scrape, one list of the resource metrics API (0:
	// ScrapeTimeout).
	Timeout time.Duration
}

// Pods are the pods one sample covers: by name, their role in the series (measure.RoleDatabase,
// measure.RoleClient) and CPU limit; Selectors select them for the metrics API's list.
type Pods struct {
	Namespace string
	Pods      []corev1.Pod
	Roles     map[string]string
	Limits    map[string]int64
	Selectors []client.MatchingLabels
}

// Add adds pods of a role to the sample, selected by selector.
func (p *Pods) Add(role string, selector client.MatchingLabels, pods ...corev1.Pod) {
	if p.Roles == nil {
		p.Roles, p.Limits = map[string]string{}, map[string]int64{}
	}
	for _, pod := range pods {
		p.Roles[pod.Name], p.Limits[pod.Name] = role, CPULimitMillis(pod)
	}
	p.Pods = append(p.Pods, pods...)
	if selector != nil {
		p.Selectors = append(p.Selectors, selector)
	}
}

// Sample records the pods' current resource use and their disk and network rates since the last
// sample in st; nothing before the step's series has an origin.
func (s Sampler) Sample(ctx context.Context, st *measure.StepSeries, pods Pods) {
	if st.Origin.IsZero() {
		return
	}
	s.resources(ctx, st, pods)
	s.io(ctx, st, pods)
}
