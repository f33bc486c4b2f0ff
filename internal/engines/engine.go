// Package engines turns a BenchmarkRun's spec.database into the database operator's own objects,
// reads their readiness, and tells client pods how to connect. One sub-package per backend; the
// builders are pure, and the controller applies what they return with server-side apply.
package engines

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Backend deploys and observes one engine's database.
type Backend interface {
	// Desired returns the vendor objects to apply for the run, named and namespaced, without owner
	// references (the controller adds them according to the teardown policy).
	Desired(run *benchv1.BenchmarkRun) ([]*unstructured.Unstructured, error)

	// Observed lists the objects whose state decides readiness: the vendor objects and, where the
	// vendor's status is not enough, objects the vendor operator creates.
	Observed(run *benchv1.BenchmarkRun) []Ref

	// Readiness judges the observed objects; a missing object is absent from the map.
	Readiness(run *benchv1.BenchmarkRun, observed map[Ref]*unstructured.Unstructured) Readiness

	// Connection tells client and loader pods how to reach the database.
	Connection(run *benchv1.BenchmarkRun) Connection

	// DatabasePods selects the database's pods in the run's namespace (their resource use and
	// nodes are recorded with every step); nil when the operator deployed none.
	DatabasePods(run *benchv1.BenchmarkRun) map[string]string

	// Sizing is what Desired sized from the database's memory (sizing.go), for the run's status;
	// nil when the database has no memory request or limit, or the operator deploys none.
	Sizing(run *benchv1.BenchmarkRun) *benchv1.DatabaseSizing

	// Operator is the database operator Desired's objects are written for (operator.go); nil when
	// the backend deploys nothing.
	Operator() *Operator
}

// Ref names one object of a run's database.
type Ref struct {
	GVK  schema.GroupVersionKind
	Name string
}

// Readiness is whether the database accepts clients, and why not.
type Readiness struct {
	Ready bool
	// Reason is a CamelCase word for conditions and events; Message says it for people.
	Reason, Message string
}

// Connection is what a pod needs to connect: the `tpcc --engine` value and the URL, which comes
// from a Secret (never copied into the pod spec or the run's status) or is a plain string. A
// backend fills where the database is; the registry adds what the client needs from the engine
// (Engine, Isolation, Ledger).
type Connection struct {
	// Engine is the tpcc client's --engine value: the engine's dialect (Engine.Dialect).
	Engine string
	// Isolation is the level every transaction of the run's clients runs at: workload.isolation,
	// or the engine's default.
	Isolation benchv1.Isolation
	// Ledger says whether the client can check the New-Order ledger against the database.
	Ledger bool
	// URL without credentials, used when URLFrom is nil.
	URL string
	// URLFrom is the Secret key holding the full URL.
	URLFrom *corev1.SecretKeySelector
	// Endpoint is what status shows: host:port or a gRPC endpoint and database path.
	Endpoint string
	// Volumes and VolumeMounts carry client certificates.
	Volumes      []corev1.Volume
	VolumeMounts []corev1.VolumeMount
	// DatabasePods selects the database's pods (Backend.DatabasePods), which loader and client
	// pods avoid by default (docs/placement.md); nil for an external database.
	DatabasePods map[string]string
	// LoaderSettings are engine settings the loader applies before it loads, name: value
	// (CockroachDB's cluster settings: SET CLUSTER SETTING); the other engines' operators apply
	// theirs from the vendor object.
	LoaderSettings map[string]string
	// ReadSettings name the settings the sampling client pod reads back from the database (the
	// run's requested ones: Tuner), for status.environment.tuning.
	ReadSettings []string
	// Pooler is a connection pooler the steps' client pods connect through instead of the URL's
	// host (the loaders and the checks connect directly); nil when there is none.
	Pooler *PoolerEndpoint
}

// PoolerEndpoint is where a connection pooler listens and how it pools: the client's
// --pooler-endpoint and --pooler-mode.
type PoolerEndpoint struct {
	// Endpoint is host:port.
	Endpoint string
	// Mode is transaction or session.
	Mode string
}

// DatabaseName is the name of the vendor database object of a run (CloudNativePG Cluster,
// CrdbCluster, YDB Database).
func DatabaseName(run *benchv1.BenchmarkRun) string { return BaseName(run) + "-db" }

// BaseName is what a run's database objects are named after: the run, or, when it reuses the
// database an earlier run kept (spec.database.reuse), the run that first deployed it
// (status.databaseOf, which the operator resolves along the chain of reuses before anything is
// written; until then the run named in reuse).
func BaseName(run *benchv1.BenchmarkRun) string {
	if r := run.Spec.Database.Reuse; r != nil {
		if run.Status.DatabaseOf != "" {
			return run.Status.DatabaseOf
		}
		return r.Run
	}
	return run.Name
}

// Labels mark every object the operator creates for a run.
func Labels(run *benchv1.BenchmarkRun) map[string]string {
	return map[string]string{
		"app.kubernetes.io/managed-by": "tpcc-operator",
		"bench.oltp.io/run":            run.Name,
	}
}

// SetLabels adds the run's labels to an object's own.
func SetLabels(u *unstructured.Unstructured, run *benchv1.BenchmarkRun) {
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range Labels(run) {
		labels[k] = v
	}
	u.SetLabels(labels)
}

// NewObject returns an empty unstructured object of a kind, named and namespaced for the run.
func NewObject(gvk schema.GroupVersionKind, name string, run *benchv1.BenchmarkRun) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	u.SetName(name)
	u.SetNamespace(run.Namespace)
	SetLabels(u, run)
	return u
}
