package engines

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestLoadCPU(t *testing.T) {
	cpu := func(request, limit string) corev1.ResourceRequirements {
		r := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
		if request != "" {
			r.Requests[corev1.ResourceCPU] = resource.MustParse(request)
		}
		if limit != "" {
			r.Limits[corev1.ResourceCPU] = resource.MustParse(limit)
		}
		return r
	}
	loading := func(g benchv1.DatabasePodGroup, r corev1.ResourceRequirements) benchv1.DatabasePodGroup {
		g.LoadResources = &r
		return g
	}
	for _, c := range []struct {
		name         string
		groups       []benchv1.DatabasePodGroup
		singleWriter bool
		want         int64
	}{
		{"no pods (external)", nil, false, 0},
		{"no CPU declared", []benchv1.DatabasePodGroup{{Role: "instance", Count: 3}}, true, 0},
		{"a primary and two standbys of 128 cores: the primary's", []benchv1.DatabasePodGroup{{Role: "instance", Count: 3, Resources: cpu("128", "")}}, true, 128000},
		{"three nodes of 128 cores: all of them", []benchv1.DatabasePodGroup{{Role: "node", Count: 3, Resources: cpu("128", "")}}, false, 384000},
		{"a limit without a request", []benchv1.DatabasePodGroup{{Role: "node", Count: 3, Resources: cpu("", "8")}}, false, 24000},
		{"the load's resources, not the measured ones", []benchv1.DatabasePodGroup{loading(benchv1.DatabasePodGroup{Role: "instance", Count: 3, Resources: cpu("35m", "35m")}, cpu("2", ""))}, true, 2000},
		{"storage and database nodes", []benchv1.DatabasePodGroup{{Role: "storage node", Count: 9, Resources: cpu("16", "")}, {Role: "database node", Count: 3, Resources: cpu("32", "")}}, false, 240000},
		{"one group without CPU: unknown", []benchv1.DatabasePodGroup{{Role: "storage node", Count: 9, Resources: cpu("16", "")}, {Role: "database node", Count: 3}}, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := loadCPU(c.groups, c.singleWriter); got != c.want {
				t.Errorf("loadCPU = %dm, want %dm", got, c.want)
			}
		})
	}
}
