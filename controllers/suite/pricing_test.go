package suite

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
)

// A suite's runs get its spec.pricing, unless their database gives its own; without either they
// are not priced.
func TestSuiteRunPricing(t *testing.T) {
	own := &benchv1.PricingSpec{Currency: "EUR", VCPUHour: "0.05"}
	shared := &benchv1.PricingSpec{Currency: "USD", VCPUHour: "0.048", MemoryGiBHour: "0.0065"}
	suite := &benchv1.BenchmarkSuite{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "s"}, Spec: benchv1.BenchmarkSuiteSpec{
		Databases: []benchv1.SuiteDatabase{
			{Name: "a", Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}},
			{Name: "b", Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}, Pricing: own},
		},
		Pricing: shared,
	}}
	plan := suitePlan(suite)
	a, b := suiteRun(registry.Default(), suite, plan[0], "", "").Spec.Pricing, suiteRun(registry.Default(), suite, plan[1], "", "").Spec.Pricing
	if a == nil || !reflect.DeepEqual(a, shared) || a == shared {
		t.Errorf("a's pricing %+v, want a copy of the suite's", a)
	}
	if b == nil || !reflect.DeepEqual(b, own) {
		t.Errorf("b's pricing %+v, want its own", b)
	}
	suite.Spec.Pricing = nil
	if p := suiteRun(registry.Default(), suite, plan[0], "", "").Spec.Pricing; p != nil {
		t.Errorf("an unpriced suite's run is priced: %+v", p)
	}
}
