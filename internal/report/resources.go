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

// ResourcesOf totals the requests of a database's pods: PostgreSQL's instances, CockroachDB's
// nodes, YDB's storage and database nodes (each gets the block's resources).
func ResourcesOf(db benchv1.DatabaseSpec) Resources {
	return resourcesOf(db, false)
}

// LimitsOf totals the limits of a database's pods (a resource some pod has no limit for is absent).
func LimitsOf(db benchv1.DatabaseSpec) Resources {
	return resourcesOf(db, true)
}

func resourcesOf(db benchv1.DatabaseSpec, limits bool) Resources {
	if db.External != nil {
		return Resources{}
	}
	var pods int32
	var per corev1.ResourceRequirements
	switch db.Engine {
	case benchv1.EngineCockroachDB:
		c := db.EffectiveCockroach()
		pods, per = c.Nodes, c.Resources
	case benchv1.EngineYDB:
		y := db.EffectiveYDB()
		pods, per = y.StorageNodes+y.DatabaseNodes, y.Resources
	default:
		p := db.EffectivePostgres()
		pods, per = p.Instances, p.Resources
	}
	r := Resources{Pods: pods}
	total := func(name corev1.ResourceName) *resource.Quantity {
		if limits {
			q, ok := per.Limits[name]
			if !ok {
				return nil
			}
			t := q.DeepCopy()
			t.Mul(int64(pods))
			return &t
		}
		q, ok := per.Requests[name]
		if !ok {
			if q, ok = per.Limits[name]; !ok { // requests default to limits
				return nil
			}
		}
		t := q.DeepCopy()
		t.Mul(int64(pods))
		return &t
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
// than it was measured with (postgres.loadResources); empty for any other run.
func resourceSwitchLine(run *benchv1.BenchmarkRun) string {
	pg := run.Spec.Database.Postgres
	if pg == nil || pg.LoadResources == nil || run.Spec.Database.Reuse != nil {
		return ""
	}
	line := fmt.Sprintf("- each instance was deployed and loaded with %s and measured with %s", RequirementsWords(*pg.LoadResources), RequirementsWords(pg.Resources))
	db, load := run.Status.Database, run.Status.Load
	switch {
	case db != nil && db.ResourcesSwitchTime != nil && load != nil && load.CompletionTime != nil:
		line += fmt.Sprintf(": every instance ran with the latter %s after the load ended, before the first step",
			db.ResourcesSwitchTime.Sub(load.CompletionTime.Time).Round(time.Second))
	case db != nil && db.ResourcesSwitchTime != nil:
		line += ": every instance ran with the latter before the first step"
	default:
		line += " (not switched yet)"
	}
	return line + "\n"
}
