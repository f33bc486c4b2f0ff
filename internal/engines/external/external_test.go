package external

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

func TestExternal(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "x"},
		Spec: benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB,
			External: &benchv1.ExternalSpec{SecretRef: benchv1.SecretKeyRef{Name: "db"}}}}}
	b := Backend{}
	if objects, err := b.Desired(run); err != nil || len(objects) != 0 {
		t.Fatalf("desired = %v, %v; want nothing deployed", objects, err)
	}
	ref := b.Observed(run)[0]
	secret := func(data map[string]any) map[engines.Ref]*unstructured.Unstructured {
		return map[engines.Ref]*unstructured.Unstructured{ref: {Object: map[string]any{"data": data}}}
	}
	for _, tc := range []struct {
		name     string
		observed map[engines.Ref]*unstructured.Unstructured
		ready    bool
		reason   string
	}{
		{"no secret", nil, false, "SecretMissing"},
		{"no key", secret(map[string]any{"url": "cG9zdGdyZXM6Ly8="}), false, "SecretKeyMissing"},
		{"ready", secret(map[string]any{"uri": "cG9zdGdyZXM6Ly8="}), true, "ExternalDatabase"},
	} {
		if got := b.Readiness(run, tc.observed); got.Ready != tc.ready || got.Reason != tc.reason {
			t.Errorf("%s: %+v", tc.name, got)
		}
	}
	c := b.Connection(run) // the registry adds the engine's dialect (registry_test.go)
	if c.Engine != "" || c.URLFrom == nil || c.URLFrom.Name != "db" || c.URLFrom.Key != "uri" || c.URL != "" {
		t.Errorf("connection = %+v", c)
	}
}
