// Package testdb is an engine that exists only for tests: it proves that adding an engine is its
// own folder, registered beside the builtin ones, with no shared file touched. Its Kubernetes side
// (this file) deploys a ConfigMap that the test marks ready, as a database operator would mark its
// database; its wire side (driver.go) speaks the PostgreSQL wire protocol under its own dialect
// name. The API's engine enum, the one other place a real engine adds itself, is extended in the
// test's API server only.
package testdb

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

const (
	// Name is the engine's spec.database.engine value.
	Name benchv1.Engine = "TestDB"
	// Dialect is its client's --engine value.
	Dialect = "testdb"
	// ReadyKey is the ConfigMap key the test sets to "true" when the database accepts clients.
	ReadyKey = "ready"
	// PodLabel selects the database's pods (there are none: the database is the test's server).
	PodLabel = "testdb.bench.oltp.io/database"
)

// ConfigMapGVK is the kind of the object the engine deploys.
var ConfigMapGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")

// Engine is the test engine. URL is where its clients connect: the test's PostgreSQL server.
type Engine struct {
	URL string
}

var _ engines.Engine = Engine{}

// Name implements engines.Engine.
func (Engine) Name() benchv1.Engine { return Name }

// Dialect implements engines.Engine.
func (Engine) Dialect() string { return Dialect }

// Backend implements engines.Engine.
func (e Engine) Backend(image string) engines.Backend { return Backend{url: e.URL, image: image} }

// Capabilities implements engines.Engine: it checks the ledger (its wire is PostgreSQL's) and
// runs repeatable read by default, refusing serializable, so that shared code's isolation paths
// see an engine unlike the builtin ones.
func (Engine) Capabilities() engines.Capabilities {
	return engines.Capabilities{
		Ledger: true,
		Isolation: engines.IsolationSupport{
			Default: benchv1.IsolationRepeatableRead,
			Refused: map[benchv1.Isolation]string{benchv1.IsolationSerializable: "TestDB runs no serializable transactions"},
			Caveat:  "TestDB's repeatable read is the test server's snapshot isolation",
		},
	}
}

// Describe implements engines.Engine.
func (Engine) Describe(benchv1.DatabaseSpec) benchv1.DatabaseDescription {
	return benchv1.DatabaseDescription{
		Deployment: "TestDB, one ConfigMap standing for the database, clients on the test's server",
		Durability: benchv1.Durability{Words: "the test server's own WAL flush", Level: benchv1.DurabilityOneCopy,
			Loses: "it loses acknowledged commits when the test server's disk is lost"},
		Pods:   []benchv1.DatabasePodGroup{{Role: "test server", Count: 1}},
		Tuning: benchv1.DatabaseTuning{Words: "sets nothing"},
	}
}

// Representative implements engines.Engine: the engine has no optional fields.
func (Engine) Representative(*benchv1.DatabaseSpec) {}

// WithoutLoad implements engines.Engine: nothing of its spec applies only to the load.
func (Engine) WithoutLoad(*benchv1.DatabaseSpec) {}

// LegacyImageFlag implements engines.Engine: the engine is newer than --image ENGINE=REF.
func (Engine) LegacyImageFlag() (string, string) { return "", "" }

// Backend deploys the engine's ConfigMap.
type Backend struct {
	url, image string
}

var _ engines.Backend = Backend{}

// Desired implements engines.Backend: one ConfigMap named like every engine's database object,
// recording the operand image.
func (b Backend) Desired(run *benchv1.BenchmarkRun) ([]*unstructured.Unstructured, error) {
	cm := engines.NewObject(ConfigMapGVK, engines.DatabaseName(run), run)
	image := b.image
	if image == "" {
		image = "testdb:default"
	}
	if err := unstructured.SetNestedStringMap(cm.Object, map[string]string{"image": image}, "data"); err != nil {
		return nil, err
	}
	return []*unstructured.Unstructured{cm}, nil
}

// Observed implements engines.Backend: the ConfigMap.
func (Backend) Observed(run *benchv1.BenchmarkRun) []engines.Ref {
	return []engines.Ref{{GVK: ConfigMapGVK, Name: engines.DatabaseName(run)}}
}

// Readiness implements engines.Backend: ready once the test sets ReadyKey.
func (Backend) Readiness(run *benchv1.BenchmarkRun, observed map[engines.Ref]*unstructured.Unstructured) engines.Readiness {
	name := engines.DatabaseName(run)
	cm, ok := observed[engines.Ref{GVK: ConfigMapGVK, Name: name}]
	if !ok {
		return engines.Readiness{Reason: "TestDBMissing", Message: fmt.Sprintf("ConfigMap %s does not exist yet", name)}
	}
	if ready, _, _ := unstructured.NestedString(cm.Object, "data", ReadyKey); ready != "true" {
		return engines.Readiness{Reason: "TestDBStarting", Message: fmt.Sprintf("ConfigMap %s is not marked ready", name)}
	}
	return engines.Readiness{Ready: true, Reason: "TestDBReady", Message: fmt.Sprintf("ConfigMap %s is marked ready", name)}
}

// Connection implements engines.Backend: the test server's URL, a plain string (it holds no
// credentials).
func (b Backend) Connection(run *benchv1.BenchmarkRun) engines.Connection {
	return engines.Connection{URL: b.url, Endpoint: "testdb/" + engines.DatabaseName(run), DatabasePods: map[string]string{PodLabel: engines.BaseName(run)}}
}

// DatabasePods implements engines.Backend.
func (Backend) DatabasePods(run *benchv1.BenchmarkRun) map[string]string {
	return map[string]string{PodLabel: engines.BaseName(run)}
}

// Sizing implements engines.Backend: the test server is sized by nobody.
func (Backend) Sizing(*benchv1.BenchmarkRun) *benchv1.DatabaseSizing { return nil }

// Operator implements engines.Backend: the ConfigMap is the core API's, which every API server
// serves; the operator's start-up check reads its schema like any vendor kind's.
func (Backend) Operator() *engines.Operator {
	return &engines.Operator{Name: "the Kubernetes API (ConfigMap)", Version: "v1", Install: "nothing to install"}
}

// SeparateNodes implements engines.Engine: its one ConfigMap needs no node.
func (Engine) SeparateNodes(benchv1.DatabaseSpec) int { return 0 }
