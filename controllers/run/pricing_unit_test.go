package run

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// A node's pricing label is recorded only when the run prices nodes, so that an unpriced run's
// environment (and report) is what it was without pricing.
func TestNodeEnvironmentRecordsThePricingLabel(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{
		benchv1.DefaultPricingNodeLabel: "m6i.2xlarge", "pool": "db"}}}
	for _, tc := range []struct {
		name    string
		pricing *benchv1.PricingSpec
		want    map[string]string
	}{
		{"no pricing", nil, nil},
		{"pricing by resources", &benchv1.PricingSpec{Currency: "USD", VCPUHour: "0.04"}, nil},
		{"pricing by node", &benchv1.PricingSpec{Currency: "USD", NodeHour: map[string]benchv1.Price{"m6i.2xlarge": "0.384"}},
			map[string]string{benchv1.DefaultPricingNodeLabel: "m6i.2xlarge"}},
		{"pricing by another label", &benchv1.PricingSpec{Currency: "USD", NodeLabel: "pool", NodeHour: map[string]benchv1.Price{"db": "1"}},
			map[string]string{"pool": "db"}},
	} {
		run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Pricing: tc.pricing}}
		if got := nodeEnvironment(node, pricingLabel(run)).Labels; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: labels %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A run that fails has no compliant result and so no cost per tpmC; its monthly cost stands.
func TestFailedRunKeepsNoCostPerTpmC(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	result := benchv1.Result{TpmC: 100, PricePerformance: &benchv1.PricePerformance{Currency: "USD", MonthlyCost: f(57.75),
		CostPerTpmCMonth: f(0.5775), CostPerTpmC3Years: f(20.79), TpmCPerCurrency: f(1.7316)}}
	qualifyResult(&benchv1.BenchmarkRun{}, &result, "LedgerMismatch", "an acknowledged New-Order is missing", metav1.ConditionTrue, "", "")
	pp := result.PricePerformance
	if pp.MonthlyCost == nil || pp.CostPerTpmCMonth != nil || pp.CostPerTpmC3Years != nil || pp.TpmCPerCurrency != nil {
		t.Errorf("a failed run's price-performance %+v, want its monthly cost alone", pp)
	}
}
