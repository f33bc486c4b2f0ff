package engines

import (
	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// LoadCPU is the CPU, in millicores, of the database pods a run's load writes through, as e
// describes the database db deploys (workload.LoaderPods sizes the loaders from it): each pod's
// load resources (else its measured ones), their CPU request, else their limit. An engine whose
// writes go through one pod (Capabilities.SingleWriter) counts the largest pod; others count
// every pod. 0 when some pod declares no CPU, or for an external database: the operator then
// does not know the database's CPU.
func LoadCPU(e Engine, db benchv1.DatabaseSpec) int64 {
	if db.External != nil {
		return 0
	}
	return loadCPU(e.Describe(db).Pods, e.Capabilities().SingleWriter)
}

// loadCPU is LoadCPU over described pod groups.
func loadCPU(groups []benchv1.DatabasePodGroup, singleWriter bool) int64 {
	var total, largest int64
	for _, g := range groups {
		if g.Count < 1 {
			continue
		}
		r := g.Resources
		if g.LoadResources != nil {
			r = *g.LoadResources
		}
		q, ok := r.Requests[corev1.ResourceCPU]
		if !ok {
			q, ok = r.Limits[corev1.ResourceCPU]
		}
		if !ok || q.MilliValue() <= 0 {
			return 0
		}
		total += q.MilliValue() * int64(g.Count)
		largest = max(largest, q.MilliValue())
	}
	if singleWriter {
		return largest
	}
	return total
}
