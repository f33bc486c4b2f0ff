package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
)

// OperatorChecker checks database objects against what the API server serves: their kinds, and
// every field they set, from the served OpenAPI v3 documents (engines.CheckObjects). Reading those
// needs no RBAC beyond what every authenticated user has (system:discovery).
type OperatorChecker struct {
	Discovery discovery.DiscoveryInterface
	OpenAPI   openapi.Client
}

// NewOperatorChecker reads the OpenAPI documents of the API server of cfg, uncached: an operator
// installed after the manager started is seen by the next run.
func NewOperatorChecker(cfg *rest.Config) (*OperatorChecker, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &OperatorChecker{Discovery: dc, OpenAPI: dc.OpenAPIV3()}, nil
}

// Check fetches the OpenAPI documents of the objects' group versions and checks the objects.
func (c *OperatorChecker) Check(objects []*unstructured.Unstructured) (engines.Support, error) {
	paths, err := c.OpenAPI.Paths()
	if err != nil {
		return engines.Support{}, fmt.Errorf("listing the served OpenAPI v3 documents: %w", err)
	}
	docs := map[schema.GroupVersion]*spec3.OpenAPI{}
	served := map[schema.GroupVersionKind]bool{}
	for _, gv := range engines.GroupVersions(objects) {
		resources, err := c.Discovery.ServerResourcesForGroupVersion(gv.String())
		if apierrors.IsNotFound(err) {
			continue // the group version is not served
		}
		if err != nil {
			return engines.Support{}, fmt.Errorf("discovering %s: %w", gv, err)
		}
		for _, r := range resources.APIResources {
			served[gv.WithKind(r.Kind)] = true
		}
		path := "apis/" + gv.Group + "/" + gv.Version
		if gv.Group == "" {
			path = "api/" + gv.Version
		}
		served, ok := paths[path]
		if !ok {
			continue // not published yet: CheckObjects reports its kinds unchecked
		}
		body, err := served.Schema("application/json")
		if err != nil {
			return engines.Support{}, fmt.Errorf("reading the OpenAPI v3 document of %s: %w", gv, err)
		}
		doc := &spec3.OpenAPI{}
		if err := json.Unmarshal(body, doc); err != nil {
			return engines.Support{}, fmt.Errorf("decoding the OpenAPI v3 document of %s: %w", gv, err)
		}
		docs[gv] = doc
	}
	return engines.CheckObjects(func(gvk schema.GroupVersionKind) bool { return served[gvk] }, docs, objects), nil
}

// schemaPublishWait is how long a run waits for a served kind's schema to be published before it
// goes on without the field check.
const schemaPublishWait = time.Minute

// reconcileOperator checks, before a run's database objects are first applied, that their
// operator's CRDs are installed and have every field the objects use; otherwise the run fails at
// once, naming the operator version the objects are written for, instead of later (a CRD that
// would prune an unknown field deploys a different database than the run asked for).
func (r *BenchmarkRunReconciler) reconcileOperator(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
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

// OperatorReport is one engine's database operator as the manager found it at start.
type OperatorReport struct {
	Engine   benchv1.Engine
	Operator engines.Operator
	Support  engines.Support
}

// CheckOperators checks the database operator of each engine of the registry with the objects of
// a representative run (every optional field set, so that every field the builders write is
// checked), for the manager's start-up log. Engines that deploy nothing are skipped.
func CheckOperators(checker *OperatorChecker, reg *registry.Registry) ([]OperatorReport, error) {
	var out []OperatorReport
	for _, e := range reg.Engines() {
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
