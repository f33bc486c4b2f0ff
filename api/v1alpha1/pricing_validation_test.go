package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// spec.pricing (docs/price-performance.md) at admission, on a run and on a suite: decimal prices
// of zero or more are accepted, anything else is rejected naming the field.
func TestPricingAtAdmission(t *testing.T) {
	ctx := context.Background()
	pricing := func(fields map[string]any) map[string]any {
		p := map[string]any{"currency": "USD"}
		for k, v := range fields {
			p[k] = v
		}
		return p
	}
	for i, tc := range []struct {
		name string
		obj  client.Object
		want string // "" : accepted
	}{
		{"decimal prices", manifest(t, "pricing-ok", set("spec.pricing", pricing(map[string]any{
			"vCPUHour": "0.048", "memoryGiBHour": "0.0065", "storageGiBMonth": "0.08"}))), ""},
		{"zero and integer prices", manifest(t, "pricing-zero", set("spec.pricing", pricing(map[string]any{
			"vCPUHour": "0", "memoryGiBHour": "1", "storageGiBMonth": "0.0"}))), ""},
		{"node prices by instance type", manifest(t, "pricing-nodes", set("spec.pricing", pricing(map[string]any{
			"nodeHour": map[string]any{"m6i.2xlarge": "0.384", "c6i.large": "0.085"}, "storageGiBMonth": "0.08"}))), ""},
		{"a negative vCPU price", manifest(t, "", set("spec.pricing", pricing(map[string]any{"vCPUHour": "-1"}))), "spec.pricing.vCPUHour"},
		{"a memory price that is no number", manifest(t, "", set("spec.pricing", pricing(map[string]any{"memoryGiBHour": "abc"}))), "spec.pricing.memoryGiBHour"},
		{"a storage price in exponent form", manifest(t, "", set("spec.pricing", pricing(map[string]any{"vCPUHour": "1", "storageGiBMonth": "1e400"}))), "spec.pricing.storageGiBMonth"},
		{"a price with a currency sign", manifest(t, "", set("spec.pricing", pricing(map[string]any{"vCPUHour": "$0.04"}))), "spec.pricing.vCPUHour"},
		{"a negative node price", manifest(t, "", set("spec.pricing", pricing(map[string]any{"nodeHour": map[string]any{"m6i.2xlarge": "-0.3"}}))), "spec.pricing.nodeHour.m6i.2xlarge"},
		{"no currency", manifest(t, "", set("spec.pricing", map[string]any{"vCPUHour": "0.04"})), "spec.pricing.currency"},
		{"a currency that is no code", manifest(t, "", set("spec.pricing", pricing(map[string]any{"currency": "dollars", "vCPUHour": "0.04"}))), "spec.pricing.currency"},
		{"no price at all", manifest(t, "", set("spec.pricing", pricing(map[string]any{"storageGiBMonth": "0.08"}))), "pricing: give vCPUHour, memoryGiBHour or nodeHour"},
		{"a suite's pricing", suiteManifest(t, "pricing-suite", func(s map[string]any) {
			s["pricing"] = pricing(map[string]any{"vCPUHour": "0.048", "memoryGiBHour": "0.0065"})
			database(s, 0)["pricing"] = pricing(map[string]any{"currency": "EUR", "vCPUHour": "0.05"})
		}), ""},
		{"a suite's negative price", suiteManifest(t, "", func(s map[string]any) {
			s["pricing"] = pricing(map[string]any{"vCPUHour": "-0.048"})
		}), "spec.pricing.vCPUHour"},
		{"a suite database's malformed price", suiteManifest(t, "", func(s map[string]any) {
			database(s, 0)["pricing"] = pricing(map[string]any{"memoryGiBHour": "0.5.1"})
		}), "spec.databases[0].pricing.memoryGiBHour"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.obj.GetName() == "" {
				tc.obj.SetName(fmt.Sprintf("pricing-invalid-%d", i))
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

	// nodeLabel defaults to the instance type.
	run := &benchv1.BenchmarkRun{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "default", Name: "pricing-nodes"}, run); err != nil {
		t.Fatal(err)
	}
	if got := run.Spec.Pricing.NodeLabel; got != benchv1.DefaultPricingNodeLabel {
		t.Errorf("nodeLabel %q, want the default %q", got, benchv1.DefaultPricingNodeLabel)
	}
}
