package run

import (
	"context"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// schemaPublishWait is how long a run waits for a served kind's schema to be published before it
// goes on without the field check.
const schemaPublishWait = time.Minute

// reconcileOperator checks, before a run's database objects are first applied, that their
// operator's CRDs are installed and have every field the objects use; otherwise the run fails at
// once, naming the operator version the objects are written for, instead of later (a CRD that
// would prune an unknown field deploys a different database than the run asked for).
func (r *Reconciler) reconcileOperator(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	if run.Status.Database != nil || r.Operators == nil {
		return true, ctrl.Result{}, nil // checked before the first apply; afterwards the objects exist
	}
	backend := r.backend(run)
	op := backend.Operator()
	if op == nil {
		return true, ctrl.Result{}, nil
	}
	desired, err := backend.Desired(run)
	if err != nil {
		return true, ctrl.Result{}, nil // reconcileDatabase fails the run with InvalidDatabase
	}
	support, err := r.Operators.Check(desired)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	switch {
	case len(support.Missing) > 0:
		return false, ctrl.Result{}, r.fail(ctx, run, "DatabaseOperatorMissing", fmt.Sprintf("%s is not installed: %s", op.Name, support.Message(op)))
	case !support.OK():
		return false, ctrl.Result{}, r.fail(ctx, run, "DatabaseOperatorUnsupported", fmt.Sprintf("the installed %s is not a supported version: %s", op.Name, support.Message(op)))
	case len(support.Unchecked) > 0 && time.Since(run.CreationTimestamp.Time) < schemaPublishWait:
		return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, nil // a CRD installed moments ago
	}
	return true, ctrl.Result{}, nil
}
