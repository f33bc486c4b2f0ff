// Package registry lists the database engines the operator knows and answers, for any run, which
// engine serves it: its backend, its client connection, its capabilities and its description.
// Adding an engine is its folder under internal/engines, its wire-side driver under internal/tpcc,
// one line in Builtin, and the API's enum.
package registry

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/cockroach"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/external"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/postgres"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/ydb"
)

// Builtin are the engines of this operator, in the order they are documented.
func Builtin() []engines.Engine {
	return []engines.Engine{postgres.Engine{}, cockroach.Engine{}, ydb.Engine{}}
}

// Registry is a list of engines by name.
type Registry struct {
	list   []engines.Engine
	byName map[benchv1.Engine]engines.Engine
}

var builtin = MustNew(Builtin()...)

// Default is the registry of the builtin engines.
func Default() *Registry { return builtin }

// New makes a registry of the engines given; two engines of one name are an error.
func New(list ...engines.Engine) (*Registry, error) {
	r := &Registry{byName: map[benchv1.Engine]engines.Engine{}}
	for _, e := range list {
		if e.Name() == "" || e.Dialect() == "" {
			return nil, fmt.Errorf("engine %T has no name or no client dialect", e)
		}
		if _, dup := r.byName[e.Name()]; dup {
			return nil, fmt.Errorf("engine %s is listed twice", e.Name())
		}
		r.byName[e.Name()] = e
		r.list = append(r.list, e)
	}
	return r, nil
}

// MustNew is New for lists known to be valid.
func MustNew(list ...engines.Engine) *Registry {
	r, err := New(list...)
	if err != nil {
		panic(err)
	}
	return r
}

// With is a registry of r's engines and more: a test's own engine beside the builtin ones.
func (r *Registry) With(more ...engines.Engine) (*Registry, error) {
	return New(append(append([]engines.Engine(nil), r.list...), more...)...)
}

// Engines lists the registry's engines in order.
func (r *Registry) Engines() []engines.Engine { return append([]engines.Engine(nil), r.list...) }

// Names lists the registry's engine names in order.
func (r *Registry) Names() []benchv1.Engine {
	out := make([]benchv1.Engine, len(r.list))
	for i, e := range r.list {
		out[i] = e.Name()
	}
	return out
}

// Lookup is the engine of a name; ok is false when the registry has none of it.
func (r *Registry) Lookup(name benchv1.Engine) (engines.Engine, bool) {
	e, ok := r.byName[name]
	return e, ok
}

// Engine is the engine of a database spec: engines.Unknown when the registry has none of its
// name, which builds nothing and says why.
func (r *Registry) Engine(db benchv1.DatabaseSpec) engines.Engine {
	if e, ok := r.byName[db.Engine]; ok {
		return e
	}
	return engines.Unknown(db.Engine, r.Names())
}

// Backend is a run's database backend: the external database's Secret for spec.database.external,
// else the engine's, with the manager's operand image for the engine when the run names none.
func (r *Registry) Backend(run *benchv1.BenchmarkRun, images Images) engines.Backend {
	if run.Spec.Database.External != nil {
		return external.Backend{}
	}
	e := r.Engine(run.Spec.Database)
	return e.Backend(images[e.Name()])
}

// Connection is how a run's pods reach its database (the backend's Connection), completed with
// what the client needs from the engine: its dialect, the isolation level every transaction runs
// at (workload.isolation or the engine's default: every step passes it explicitly), and whether it
// can check the New-Order ledger.
func (r *Registry) Connection(run *benchv1.BenchmarkRun, backend engines.Backend) engines.Connection {
	e := r.Engine(run.Spec.Database)
	c := backend.Connection(run)
	caps := e.Capabilities()
	c.Engine = e.Dialect()
	c.Isolation = caps.Isolation.Effective(run.Spec.Workload)
	c.Ledger = caps.Ledger
	return c
}

// Describe is the description of a database spec: the engine's own for a database the operator
// deploys; for an external one, its engine and that the operator knows nothing more of it. The
// isolation fields come from the engine's capabilities.
func (r *Registry) Describe(db benchv1.DatabaseSpec) benchv1.DatabaseDescription {
	e := r.Engine(db)
	var d benchv1.DatabaseDescription
	if db.External != nil {
		d = benchv1.DatabaseDescription{
			Deployment: fmt.Sprintf("%s, external", db.Engine),
			Durability: benchv1.Durability{Words: "not known: an external database the operator did not deploy", Level: benchv1.DurabilityUnknown},
			Tuning:     benchv1.DatabaseTuning{Words: "external (tuned by whoever runs it)"},
		}
	} else {
		d = e.Describe(db)
	}
	iso := e.Capabilities().Isolation
	d.Engine, d.DefaultIsolation, d.IsolationCaveat = db.Engine, iso.Default, iso.Caveat
	return d
}

// Described is run itself when its status records its database's description, else a copy with the
// description its spec gives (a run that never deployed its database, or recorded before
// descriptions were): what reports render.
func (r *Registry) Described(run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
	if run.Status.Database != nil && run.Status.Database.Description != nil {
		return run
	}
	out := run.DeepCopy()
	if out.Status.Database == nil {
		out.Status.Database = &benchv1.DatabaseStatus{}
	}
	d := r.Describe(out.Spec.Database)
	out.Status.Database.Description = &d
	return out
}

// Descriptions are a suite's databases described, by database name.
func (r *Registry) Descriptions(databases []benchv1.SuiteDatabase) map[string]benchv1.DatabaseDescription {
	out := make(map[string]benchv1.DatabaseDescription, len(databases))
	for _, d := range databases {
		out[d.Name] = r.Describe(d.Database)
	}
	return out
}

// OperatorObjects is an engine's database operator and the kinds of the objects a run of it
// writes (from a representative run's objects).
type OperatorObjects struct {
	Engine   benchv1.Engine
	Operator engines.Operator
	Kinds    []schema.GroupVersionKind
}

// Operators lists, engine by engine, the database operators runs need and their objects' kinds;
// engines that deploy nothing are left out.
func (r *Registry) Operators() []OperatorObjects {
	var out []OperatorObjects
	for _, e := range r.list {
		b := e.Backend("")
		op := b.Operator()
		if op == nil {
			continue
		}
		run := &benchv1.BenchmarkRun{}
		run.Name, run.Namespace = "run", "default"
		run.Spec.Database.Engine = e.Name()
		run.Spec.Workload.Warehouses = 1
		e.Representative(&run.Spec.Database)
		objects, _ := b.Desired(run)
		o := OperatorObjects{Engine: e.Name(), Operator: *op}
		for _, obj := range objects {
			o.Kinds = append(o.Kinds, obj.GroupVersionKind())
		}
		out = append(out, o)
	}
	return out
}

// AddToScheme adds the typed APIs of the engines that have one (engines.SchemeAdder) to s.
func (r *Registry) AddToScheme(s *runtime.Scheme) error {
	for _, e := range r.list {
		if a, ok := e.(engines.SchemeAdder); ok {
			if err := a.AddToScheme(s); err != nil {
				return fmt.Errorf("%s: %w", e.Name(), err)
			}
		}
	}
	return nil
}
