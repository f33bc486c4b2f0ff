package report

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/pricing"
)

// priced20 is run20 with spec.pricing and its price-performance: three instances of 2 vCPU and
// 8 GiB requested, 10 GiB volumes each.
func priced20(bound benchv1.ResultBound) *benchv1.BenchmarkRun {
	run := run20()
	run.Spec.Database.Postgres.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")}}
	run.Spec.Pricing = &benchv1.PricingSpec{Currency: "USD", VCPUHour: "0.048", MemoryGiBHour: "0.0065", StorageGiBMonth: "0.08"}
	run = described(run)
	run.Status.Result.Bound = bound
	run.Status.Result.PricePerformance = pricing.ForRun(run, DescriptionOf(run), run.Status.Result.TpmC)
	return run
}

func TestPricedRunGolden(t *testing.T) {
	run := priced20(benchv1.BoundBracketed)
	md := RunMarkdown(run, *run.Status.Result)
	golden(t, "run20-priced.md", md)
	page := RunHTML(RunInput{Run: run, Result: *run.Status.Result, Generated: t0.Add(3 * time.Hour)})
	wellFormed(t, page)
	for _, doc := range []string{md, page} {
		for _, want := range []string{"Price-performance", "not quoted", "not a TPC price/performance result",
			"the tpcc-operator manager", "client, loader and consistency-check pods", "3 × instance"} {
			if !strings.Contains(doc, want) {
				t.Errorf("the report does not say %q", want)
			}
		}
	}
	if section := priceMarkdown(priceBlockOf(run, *run.Status.Result)); strings.ContainsAny(section, "≤≥") {
		t.Errorf("a bracketed result's price-performance is written as a bound:\n%s", section)
	}
}

// A floor result's price-performance is a floor too: at most its cost per tpmC, at least its
// tpmC per currency.
func TestPricedFloorIsABound(t *testing.T) {
	run := priced20(benchv1.BoundAllLoadedCompliant)
	pp := run.Status.Result.PricePerformance
	md := RunMarkdown(run, *run.Status.Result)
	for _, want := range []string{"≤ " + Money(*pp.CostPerTpmCMonth, "USD") + " per tpmC a month", "≥ " + Figure(*pp.TpmCPerCurrency) + " tpmC per USD",
		"the result is a floor, so its price-performance is one too"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report does not say %q", want)
		}
	}
}

// A run without spec.pricing has no price-performance section.
func TestUnpricedRunHasNoPriceSection(t *testing.T) {
	run := described(run20())
	if md := RunMarkdown(run, *run.Status.Result); strings.Contains(md, "Price-performance") {
		t.Error("an unpriced run's report has a price-performance section")
	}
}
