package run

import (
	"context"
	"math"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
)

// A run with spec.pricing ends with status.result.pricePerformance: its three instances (the
// primary and both standbys) at their requests and volumes, its client pods not priced; the
// report's price-performance section carries the result's floor.
func TestPricedRunRecordsPricePerformance(t *testing.T) {
	ns := ct.NewNamespace(t, "priced")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 8, 4)
	three := int32(3)
	run.Spec.Database.Postgres = &benchv1.PostgresSpec{Instances: three, Storage: benchv1.StorageSpec{Size: resource.MustParse("10Gi")},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}}}
	run.Spec.Workload.Clients.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")}}
	run.Spec.Pricing = &benchv1.PricingSpec{Currency: "USD", VCPUHour: "0.04", MemoryGiBHour: "0.005", StorageGiBMonth: "0.1"}
	ct.CreateLoaded(t, run)
	got := ct.DriveSteps(t, run, pods, ct.Boundary(1000), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	if got.Status.Result == nil || got.Status.Result.PricePerformance == nil {
		t.Fatalf("no pricePerformance in %+v", got.Status.Result)
	}
	r := got.Status.Result
	pp := r.PricePerformance
	// (0.5·0.04 + 1·0.005)·730 + 10·0.1 = 19.25 an instance, three instances; no client.
	if pp.Rule != benchv1.PricingRequests || pp.MonthlyCost == nil || *pp.MonthlyCost != 57.75 || pp.NotPriced != "" {
		t.Fatalf("pricePerformance %+v, want 57.75 USD a month at the requests", pp)
	}
	if len(pp.Items) != 1 || pp.Items[0].What != "3 × instance" {
		t.Errorf("items %+v, want the three instances", pp.Items)
	}
	if r.TpmC <= 0 || pp.CostPerTpmCMonth == nil || math.Abs(*pp.CostPerTpmCMonth-57.75/r.TpmC) > 1e-4*57.75/r.TpmC ||
		pp.CostPerTpmC3Years == nil || math.Abs(*pp.CostPerTpmC3Years-36*57.75/r.TpmC) > 1e-4*36*57.75/r.TpmC ||
		pp.TpmCPerCurrency == nil || math.Abs(*pp.TpmCPerCurrency-r.TpmC/57.75) > 1e-4*r.TpmC/57.75 {
		t.Errorf("pricePerformance %+v for tpmC %v", pp, r.TpmC)
	}
	if !strings.Contains(strings.Join(pp.Unpriced, "; "), "client") {
		t.Errorf("unpriced %q does not name the client pods", pp.Unpriced)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: got.Status.Report.ConfigMapName}, cm); err != nil {
		t.Fatalf("report: %v", err)
	}
	for _, key := range []string{"report.md", "report.html"} {
		for _, want := range []string{"Price-performance", "57.75 USD", "not quoted", "not a TPC price/performance result", "≥"} {
			if !strings.Contains(cm.Data[key], want) {
				t.Errorf("%s does not say %q", key, want)
			}
		}
	}
	if !strings.Contains(cm.Data["report.json"], `"pricePerformance"`) {
		t.Error("report.json has no pricePerformance")
	}
}
