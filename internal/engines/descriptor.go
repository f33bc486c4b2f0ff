package engines

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Engine is everything shared code knows of one database engine. Each engine's folder
// (internal/engines/<engine>) implements it and internal/engines/registry lists them: controllers,
// jobs and reports ask an Engine and never compare engine names.
type Engine interface {
	// Name is the engine's spec.database.engine value.
	Name() benchv1.Engine
	// Dialect is the tpcc client's --engine value: the wire-side driver that speaks to it
	// (internal/tpcc).
	Dialect() string
	// Backend builds and observes the engine's deployed database; image is the operand image used
	// when a run names none ("": the engine's own default).
	Backend(image string) Backend
	// Capabilities say what the engine and its backend support.
	Capabilities() Capabilities
	// Describe is the engine's account of a database it deploys from db (defaults applied): the
	// topology, what a commit waits for, the pods and what db asks of the engine. The registry
	// adds the isolation fields from Capabilities.
	Describe(db benchv1.DatabaseSpec) benchv1.DatabaseDescription
	// SeparateNodes is how many of the pods of a database it deploys from db (defaults applied)
	// the default placement (InstancesOnePerNode) puts each on a node of its own: the nodes a run
	// needs before anything is deployed (FitNodes).
	SeparateNodes(db benchv1.DatabaseSpec) int
	// Representative sets every optional field of db's engine block, so that every field Backend
	// writes is checked against the served CRDs (the manager's start-up check).
	Representative(db *benchv1.DatabaseSpec)
	// WithoutLoad drops from db what applies only while a run loads its data: a suite's run that
	// takes over or restores loaded data loads nothing.
	WithoutLoad(db *benchv1.DatabaseSpec)
	// LegacyImageFlag is the manager's flag and environment variable that named the operand image
	// before --image ENGINE=REF; they keep working, deprecated.
	LegacyImageFlag() (flag, env string)
}

// Capabilities say what an engine supports. Shared code reads them instead of naming engines.
type Capabilities struct {
	// Snapshot: the backend keeps a run's loaded data as volume snapshots and deploys later runs
	// from them (its Backend is a Snapshotter).
	Snapshot bool
	// Faults are the fault actions the backend can aim at the database's pods (its Backend is a
	// FaultTargets).
	Faults []benchv1.FaultAction
	// Replication: the primary reports its standbys (its Backend is a Replication).
	Replication bool
	// Ledger: the client checks the New-Order ledger against the database (tpcc run
	// --ledger-check).
	Ledger bool
	// UnloggedTables: the engine has tables that write no log (postgres.tables or external.tables
	// Unlogged).
	UnloggedTables bool
	// Isolation is what the engine offers of workload.isolation.
	Isolation IsolationSupport
	// SingleWriter: every write goes through one pod (a primary), so the load's streams are sized
	// from that pod's CPU, not from every pod's (LoadCPU).
	SingleWriter bool
}

// IsolationSupport is the isolation levels an engine runs.
type IsolationSupport struct {
	// Default is the level when workload.isolation is omitted.
	Default benchv1.Isolation
	// Refused says, by level, why the engine does not offer it.
	Refused map[benchv1.Isolation]string
	// Caveat says, in the engine's terms, what its levels mean where that differs from their
	// names; empty when nothing needs saying.
	Caveat string
}

// Supports says whether the engine can fault with action a.
func (c Capabilities) Supports(a benchv1.FaultAction) bool {
	for _, f := range c.Faults {
		if f == a {
			return true
		}
	}
	return false
}

// Effective is workload.isolation, or the default when it is omitted.
func (s IsolationSupport) Effective(w benchv1.WorkloadSpec) benchv1.Isolation {
	if w.Isolation != "" {
		return w.Isolation
	}
	return s.Default
}

// Unknown is what a lookup of an engine no registry lists returns: its backend builds nothing and
// says why, naming spec.database.engine and the engines that are known; it supports nothing; its
// description says it is unknown. A run of it fails with InvalidDatabase instead of being taken
// for another engine.
func Unknown(name benchv1.Engine, known []benchv1.Engine) Engine {
	return unknown{name: name, known: known}
}

type unknown struct {
	name  benchv1.Engine
	known []benchv1.Engine
}

func (u unknown) err() error {
	names := make([]string, len(u.known))
	for i, k := range u.known {
		names[i] = string(k)
	}
	return fmt.Errorf("spec.database.engine %q is not an engine this operator knows (it knows %s)", u.name, strings.Join(names, ", "))
}

func (u unknown) Name() benchv1.Engine                   { return u.name }
func (u unknown) Dialect() string                        { return "" }
func (u unknown) Capabilities() Capabilities             { return Capabilities{} }
func (u unknown) Representative(*benchv1.DatabaseSpec)   {}
func (u unknown) SeparateNodes(benchv1.DatabaseSpec) int { return 0 }
func (u unknown) WithoutLoad(*benchv1.DatabaseSpec)      {}
func (u unknown) LegacyImageFlag() (string, string)      { return "", "" }
func (u unknown) Backend(string) Backend                 { return unknownBackend{u} }

func (u unknown) Describe(benchv1.DatabaseSpec) benchv1.DatabaseDescription {
	return benchv1.DatabaseDescription{Engine: u.name, Deployment: u.err().Error(),
		Durability: benchv1.Durability{Words: "not known: " + u.err().Error(), Level: benchv1.DurabilityUnknown},
		Tuning:     benchv1.DatabaseTuning{Words: "not known"}}
}

type unknownBackend struct{ u unknown }

func (b unknownBackend) Desired(*benchv1.BenchmarkRun) ([]*unstructured.Unstructured, error) {
	return nil, b.u.err()
}
func (unknownBackend) Observed(*benchv1.BenchmarkRun) []Ref { return nil }
func (b unknownBackend) Readiness(*benchv1.BenchmarkRun, map[Ref]*unstructured.Unstructured) Readiness {
	return Readiness{Reason: "UnknownEngine", Message: b.u.err().Error()}
}
func (unknownBackend) Connection(*benchv1.BenchmarkRun) Connection          { return Connection{} }
func (unknownBackend) DatabasePods(*benchv1.BenchmarkRun) map[string]string { return nil }
func (unknownBackend) Sizing(*benchv1.BenchmarkRun) *benchv1.DatabaseSizing { return nil }
func (unknownBackend) Operator() *Operator                                  { return nil }

// RepresentativeResources are the resources of an engine's representative run: requests and
// limits of CPU and memory, so that every field the builders write from them is set.
func RepresentativeResources() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("2Gi")},
	}
}

// SchemeAdder is an Engine whose objects have Go types the manager's scheme must know (a typed
// vendor API).
type SchemeAdder interface {
	AddToScheme(s *runtime.Scheme) error
}
