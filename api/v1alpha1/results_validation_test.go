package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// spec.results, spec.retainReports and a suite's spec.baseline (docs/results.md) at admission.
func TestResultsFieldsAtAdmission(t *testing.T) {
	ctx := context.Background()
	secretRef := map[string]any{"secretRef": map[string]any{"name": "results-app"}}
	for i, tc := range []struct {
		name string
		obj  client.Object
		want string // "" : accepted
	}{
		{"a run naming its results database", manifest(t, "results-ok", set("spec.results", secretRef), set("spec.retainReports", true)), ""},
		{"a run opting out of the default", manifest(t, "results-off", set("spec.results", map[string]any{"disabled": true})), ""},
		{"secretRef and disabled", manifest(t, "", set("spec.results", map[string]any{"secretRef": map[string]any{"name": "x"}, "disabled": true})),
			"results: secretRef and disabled exclude each other"},
		{"a Secret without a name", manifest(t, "", set("spec.results", map[string]any{"secretRef": map[string]any{"name": ""}})),
			"spec.results.secretRef.name"},
		{"a suite with a baseline by labels", suiteManifest(t, "baseline-labels", func(s map[string]any) {
			s["results"], s["baseline"] = secretRef, map[string]any{"matchLabels": map[string]any{"pipeline": "nightly"}, "tolerancePercent": "2.5"}
		}), ""},
		{"a suite with a baseline by name", suiteManifest(t, "baseline-name", func(s map[string]any) {
			s["baseline"] = map[string]any{"suite": "nightly-a"}
		}), ""},
		{"a baseline naming neither", suiteManifest(t, "", func(s map[string]any) { s["baseline"] = map[string]any{} }),
			"baseline: name exactly one of suite and matchLabels"},
		{"a baseline naming both", suiteManifest(t, "", func(s map[string]any) {
			s["baseline"] = map[string]any{"suite": "a", "matchLabels": map[string]any{"k": "v"}}
		}), "baseline: name exactly one of suite and matchLabels"},
		{"a tolerance above 100", suiteManifest(t, "", func(s map[string]any) {
			s["baseline"] = map[string]any{"suite": "a", "tolerancePercent": "150"}
		}), "tolerancePercent must be between 0 and 100"},
		{"a tolerance that is no number", suiteManifest(t, "", func(s map[string]any) {
			s["baseline"] = map[string]any{"suite": "a", "tolerancePercent": "5%"}
		}), "spec.baseline.tolerancePercent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.obj.GetName() == "" {
				tc.obj.SetName(fmt.Sprintf("results-invalid-%d", i))
			}
			err := k8s.Create(ctx, tc.obj, client.FieldValidation(metav1.FieldValidationStrict))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("%v, want a rejection mentioning %q", err, tc.want)
			}
		})
	}

	// A suite's baseline defaults to a 5 % tolerance; a run's results may change after creation.
	suite := &benchv1.BenchmarkSuite{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "default", Name: "baseline-name"}, suite); err != nil {
		t.Fatal(err)
	}
	if suite.Spec.Baseline.TolerancePercent != "5" {
		t.Errorf("default tolerance %q, want 5", suite.Spec.Baseline.TolerancePercent)
	}
	run := &benchv1.BenchmarkRun{}
	run.Namespace, run.Name = "default", "results-off"
	if err := k8s.Patch(ctx, run, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"results":{"disabled":null,"secretRef":{"name":"later"}},"retainReports":true}}`))); err != nil {
		t.Errorf("giving a run a results database after creation: %v", err)
	}
}
