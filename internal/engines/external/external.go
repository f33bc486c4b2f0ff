// Package external benchmarks an existing database: nothing is deployed, and the connection URI
// comes from a Secret the user names.
package external

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// SecretGVK is the kind of the Secret holding the URI.
var SecretGVK = corev1.SchemeGroupVersion.WithKind("Secret")

// Backend reads an external database's Secret.
type Backend struct{}

// Desired implements engines.Backend: nothing to deploy.
func (Backend) Desired(*benchv1.BenchmarkRun) ([]*unstructured.Unstructured, error) { return nil, nil }

// Sizing implements engines.Backend: an external database is sized by whoever runs it.
func (Backend) Sizing(*benchv1.BenchmarkRun) *benchv1.DatabaseSizing { return nil }

// Operator is nil: an external database needs no operator.
func (Backend) Operator() *engines.Operator { return nil }

func secretRef(run *benchv1.BenchmarkRun) benchv1.SecretKeyRef {
	ref := run.Spec.Database.External.SecretRef
	if ref.Key == "" {
		ref.Key = "uri"
	}
	return ref
}

// Observed implements engines.Backend: the Secret.
func (Backend) Observed(run *benchv1.BenchmarkRun) []engines.Ref {
	return []engines.Ref{{GVK: SecretGVK, Name: secretRef(run).Name}}
}

// Readiness implements engines.Backend: the Secret exists and its key holds a value. The value is
// never read into status, events or logs.
func (Backend) Readiness(run *benchv1.BenchmarkRun, observed map[engines.Ref]*unstructured.Unstructured) engines.Readiness {
	ref := secretRef(run)
	secret, ok := observed[engines.Ref{GVK: SecretGVK, Name: ref.Name}]
	if !ok {
		return engines.Readiness{Reason: "SecretMissing", Message: fmt.Sprintf("Secret %s (spec.database.external.secretRef) does not exist", ref.Name)}
	}
	value, _, _ := unstructured.NestedString(secret.Object, "data", ref.Key)
	if value == "" {
		return engines.Readiness{Reason: "SecretKeyMissing", Message: fmt.Sprintf("Secret %s has no value under key %q (spec.database.external.secretRef.key)", ref.Name, ref.Key)}
	}
	return engines.Readiness{Ready: true, Reason: "ExternalDatabase", Message: fmt.Sprintf("using the external database named by Secret %s", ref.Name)}
}

// DatabasePods implements engines.Backend: an external database has no pods of the run.
func (Backend) DatabasePods(*benchv1.BenchmarkRun) map[string]string { return nil }

// Connection implements engines.Backend: the URI from the Secret; the registry adds the engine's
// client dialect.
func (Backend) Connection(run *benchv1.BenchmarkRun) engines.Connection {
	ref := secretRef(run)
	return engines.Connection{
		URLFrom: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: ref.Name},
			Key:                  ref.Key,
		},
		Endpoint: fmt.Sprintf("external (Secret %s, key %s)", ref.Name, ref.Key),
	}
}
