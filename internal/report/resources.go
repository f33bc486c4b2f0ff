package report

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Resources are the total CPU and memory the database's pods request.
type Resources struct {
	// Pods the operator deploys for the database (0 for an external one).
	Pods int32 `json:"pods"`
	// CPU and Memory requested by all of them together; absent when none is requested.
	CPU    *resource.Quantity `json:"cpu,omitempty"`
	Memory *resource.Quantity `json:"memory,omitempty"`
}

// ResourcesOf totals the requests of a database's pods, group by group as its engine described
// them (a request a pod lacks defaults to its limit).
func ResourcesOf(db benchv1.DatabaseDescription) Resources {
	return resourcesOf(db, false)
}

// LimitsOf totals the limits of a database's pods (a resource some pod has no limit for is absent).
func LimitsOf(db benchv1.DatabaseDescription) Resources {
	return resourcesOf(db, true)
}

func resourcesOf(db benchv1.DatabaseDescription, limits bool) Resources {
	var r Resources
	for _, g := range db.Pods {
		r.Pods += g.Count
	}
	if r.Pods == 0 {
		return r
	}
	total := func(name corev1.ResourceName) *resource.Quantity {
		var sum *resource.Quantity
		for _, g := range db.Pods {
			q, ok := g.Resources.Limits[name]
			if !limits {
				if q, ok = g.Resources.Requests[name]; !ok {
					q, ok = g.Resources.Limits[name] // requests default to limits
				}
			}
			if !ok {
				return nil
			}
			t := q.DeepCopy()
			t.Mul(int64(g.Count))
			if sum == nil {
				sum = &t
			} else {
				sum.Add(t)
			}
		}
		return sum
	}
	r.CPU, r.Memory = total(corev1.ResourceCPU), total(corev1.ResourceMemory)
	return r
}

// String is "24 CPU, 96Gi memory in 3 pods".
func (r Resources) String() string {
	if r.Pods == 0 {
		return "not deployed by the operator"
	}
	cpu, memory := "no CPU request", "no memory request"
	if r.CPU != nil {
		cpu = r.CPU.String() + " CPU"
	}
	if r.Memory != nil {
		memory = r.Memory.String() + " memory"
	}
	return fmt.Sprintf("%s, %s in %d %s", cpu, memory, r.Pods, pluralWord(int(r.Pods), "pod", "pods"))
}

// same says whether two totals request the same CPU and memory.
func (r Resources) same(o Resources) bool {
	eq := func(a, b *resource.Quantity) bool {
		if a == nil || b == nil {
			return a == nil && b == nil
		}
		return a.Cmp(*b) == 0
	}
	return eq(r.CPU, o.CPU) && eq(r.Memory, o.Memory)
}

// RequirementsWords says a container's requests and limits of cpu and memory in a few words:
// "requests cpu=100m memory=256Mi, limits cpu=150m memory=1Gi" ("none" for an empty side).
func RequirementsWords(r corev1.ResourceRequirements) string {
	list := func(l corev1.ResourceList) string {
		s := ""
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := l[name]; ok {
				s += fmt.Sprintf(" %s=%s", name, q.String())
			}
		}
		if s == "" {
			return " none"
		}
		return s
	}
	return "requests" + list(r.Requests) + ", limits" + list(r.Limits)
}

// resourceSwitchLine is the report's line on a database deployed and loaded under other resources
// than it was measured with (its description's load resources); empty for any other run.
func resourceSwitchLine(run *benchv1.BenchmarkRun) string {
	db := run.Status.Database
	var group *benchv1.DatabasePodGroup
	if db != nil && db.Description != nil {
		for i := range db.Description.Pods {
			if db.Description.Pods[i].LoadResources != nil {
				group = &db.Description.Pods[i]
				break
			}
		}
	}
	if group == nil {
		return ""
	}
	line := fmt.Sprintf("- each %s was deployed and loaded with %s and measured with %s", group.Role, RequirementsWords(*group.LoadResources), RequirementsWords(group.Resources))
	load := run.Status.Load
	switch {
	case db.ResourcesSwitchTime != nil && load != nil && load.CompletionTime != nil:
		line += fmt.Sprintf(": every %s ran with the latter %s after the load ended, before the first step",
			group.Role, db.ResourcesSwitchTime.Sub(load.CompletionTime.Time).Round(time.Second))
	case db.ResourcesSwitchTime != nil:
		line += fmt.Sprintf(": every %s ran with the latter before the first step", group.Role)
	default:
		line += " (not switched yet)"
	}
	return line + "\n"
}
