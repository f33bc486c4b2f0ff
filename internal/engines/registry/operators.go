package registry

import (
	"fmt"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// OperatorReport is one engine's database operator as the manager found it at start.
type OperatorReport struct {
	Engine   benchv1.Engine
	Operator engines.Operator
	Support  engines.Support
}

// CheckOperators checks the database operator of each engine of the registry with the objects of
// a representative run (every optional field set, so that every field the builders write is
// checked), for the manager's start-up log. Engines that deploy nothing are skipped.
func (r *Registry) CheckOperators(checker *engines.OperatorChecker) ([]OperatorReport, error) {
	var out []OperatorReport
	for _, e := range r.Engines() {
		run := representativeRun(e)
		backend := e.Backend("")
		op := backend.Operator()
		if op == nil {
			continue
		}
		desired, err := backend.Desired(run)
		if err != nil {
			return nil, fmt.Errorf("%s: building the representative objects: %w", e.Name(), err)
		}
		support, err := checker.Check(desired)
		if err != nil {
			return nil, err
		}
		out = append(out, OperatorReport{Engine: e.Name(), Operator: *op, Support: support})
	}
	return out, nil
}

// representativeRun is a run of an engine with the optional database fields set.
func representativeRun(e engines.Engine) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{}
	run.Name, run.Namespace = "operator-check", "default"
	run.Spec.Database.Engine = e.Name()
	run.Spec.Workload.Warehouses = 10
	e.Representative(&run.Spec.Database)
	return run
}
