package report

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/pricing"
)

// pricedSuite is three databases of 3 runs each, priced: pg-async measures more but costs more
// a vCPU-hour (its own pricing), and pg-big's result is a floor.
func pricedSuite() Comparison {
	suitePrice := &benchv1.PricingSpec{Currency: "USD", VCPUHour: "0.048", MemoryGiBHour: "0.0065", StorageGiBMonth: "0.08"}
	spec := benchv1.BenchmarkSuiteSpec{Repeats: 3, Pricing: suitePrice,
		Workload: benchv1.WorkloadSpec{Warehouses: 300, Duration: pdur(10 * time.Minute), RampUp: pdur(2 * time.Minute), Wait: benchv1.WaitSpec},
		SLA:      benchv1.SLASpec{MinEfficiencyPercent: i32(90)},
		Databases: []benchv1.SuiteDatabase{
			{Name: "pg-sync", Database: withResources(pg(3, 2, "remote_apply"), "4", "16Gi")},
			{Name: "pg-async", Database: withResources(pg(3, 0, "on"), "4", "16Gi"),
				Pricing: &benchv1.PricingSpec{Currency: "USD", VCPUHour: "0.096", MemoryGiBHour: "0.0065", StorageGiBMonth: "0.08"}},
			{Name: "pg-big", Database: withResources(pg(3, 2, "remote_apply"), "8", "32Gi")},
		}}
	tpmC := map[string][]float64{"pg-sync": {1600, 1650, 1700}, "pg-async": {2100, 2180, 2220}, "pg-big": {3800, 3810, 3850}}
	var runs []benchv1.SuiteRunRecord
	for r := int32(1); r <= 3; r++ {
		for _, d := range spec.Databases {
			name := fmt.Sprintf("study-%s-%d", d.Name, r)
			t := tpmC[d.Name][r-1]
			bound := benchv1.BoundBracketed
			if d.Name == "pg-big" {
				bound = benchv1.BoundAllLoadedCompliant
			}
			price := spec.Pricing
			if d.Pricing != nil {
				price = d.Pricing
			}
			runs = append(runs, benchv1.SuiteRunRecord{Name: name, Database: d.Name, Repeat: r, Phase: benchv1.PhaseSucceeded,
				StartTime: &metav1.Time{Time: t0}, CompletionTime: &metav1.Time{Time: t0.Add(time.Hour)}, Report: name + "-report",
				Result: &benchv1.SuiteRunResult{MaxCompliantWarehouses: int32(t / 12.5), Bound: bound, TpmC: t, Efficiency: 97,
					PricePerformance: pricing.Of(price, describe(d.Database), nil, t)}})
		}
	}
	return mustCompare(Input{Suite: "study", Namespace: "bench", Spec: spec, Runs: runs, Generated: t0.Add(16 * time.Hour)})
}

func TestPricedComparisonGolden(t *testing.T) {
	c := pricedSuite()
	md := Markdown(c)
	golden(t, "suite-priced.md", md)
	page := ComparisonHTML(c, nil)
	wellFormed(t, page)
	for _, doc := range []string{md, page} {
		for _, want := range []string{"Price-performance", "not quoted", "not a TPC price/performance result", "client, loader and operator pods are not priced"} {
			if !strings.Contains(doc, want) {
				t.Errorf("the comparison does not say %q", want)
			}
		}
	}
}

// Ranked by both: pg-async has the most tpmC of the bracketed databases, pg-sync the most tpmC
// per dollar; pg-big's floor is ranked by neither and its ratios are bounds. The repeats'
// interval is carried through: tpmC per dollar is the tpmC's interval over the monthly cost.
func TestPricedComparisonRanksByBoth(t *testing.T) {
	c := pricedSuite()
	ranks := map[string][2]int32{}
	for _, r := range c.Results {
		if r.PricePerformance == nil {
			t.Fatalf("%s has no price-performance", r.Database)
		}
		ranks[r.Database] = [2]int32{r.PricePerformance.TpmCRank, r.PricePerformance.Rank}
	}
	want := map[string][2]int32{"pg-sync": {2, 1}, "pg-async": {1, 2}, "pg-big": {0, 0}}
	for db, w := range want {
		if ranks[db] != w {
			t.Errorf("%s ranked %v (by tpmC, by price-performance), want %v", db, ranks[db], w)
		}
	}
	sync := c.Results[0]
	pp := sync.PricePerformance
	cost := *pp.MonthlyCost
	// (4·0.048 + 16·0.0065)·730 + 10·0.08 = 216.88 an instance, three instances.
	if cost != 650.64 {
		t.Errorf("pg-sync costs %v a month, want 650.64", cost)
	}
	if sync.TpmC.CI95 == nil || pp.TpmCPerCurrency.CI95 == nil || pp.CostPerTpmCMonth.CI95 == nil {
		t.Fatalf("no interval carried: tpmC %+v, per currency %+v", sync.TpmC, pp.TpmCPerCurrency)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-4*math.Abs(b) }
	if !close(pp.TpmCPerCurrency.CI95.Low, sync.TpmC.CI95.Low/cost) || !close(pp.TpmCPerCurrency.CI95.High, sync.TpmC.CI95.High/cost) {
		t.Errorf("tpmC per dollar interval %+v, want tpmC's %+v over %v", pp.TpmCPerCurrency.CI95, sync.TpmC.CI95, cost)
	}
	if !close(pp.CostPerTpmCMonth.CI95.Low, cost/sync.TpmC.CI95.High) || !close(pp.CostPerTpmCMonth.CI95.High, cost/sync.TpmC.CI95.Low) {
		t.Errorf("cost per tpmC interval %+v, want %v over tpmC's %+v", pp.CostPerTpmCMonth.CI95, cost, sync.TpmC.CI95)
	}
	row := priceComparisonRows(c)[2]
	if !strings.HasPrefix(row[3], "≥ ") || !strings.HasPrefix(row[4], "≤ ") || !strings.HasPrefix(row[5], "≤ ") {
		t.Errorf("the floor's ratios are not bounds: %q", row)
	}
}

// A comparison without pricing has no price-performance section; databases priced in two
// currencies are not ranked by it, and a note says so.
func TestComparisonPricingEdges(t *testing.T) {
	c, _ := suite3()
	if strings.Contains(Markdown(c), "Price-performance") {
		t.Error("an unpriced suite's comparison has a price-performance section")
	}
	c = pricedSuite()
	c.Results[1].PricePerformance.Currency = "EUR"
	for i := range c.Results {
		c.Results[i].PricePerformance.Rank, c.Results[i].PricePerformance.TpmCRank = 0, 0
	}
	rankPrices(&c)
	if c.Results[0].PricePerformance.Rank != 0 || c.Results[0].PricePerformance.TpmCRank != 2 {
		t.Errorf("ranks across currencies: %+v", c.Results[0].PricePerformance)
	}
	if n := priceNotes(c); len(n) != 1 || !strings.Contains(n[0], "2 currencies") {
		t.Errorf("notes %q", n)
	}
}
