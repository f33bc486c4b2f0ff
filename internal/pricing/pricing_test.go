package pricing

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func resources(kind string, cpu, memory string) corev1.ResourceRequirements {
	l := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	if kind == "limits" {
		return corev1.ResourceRequirements{Limits: l}
	}
	return corev1.ResourceRequirements{Requests: l}
}

func size(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

func group(role string, n int32, r corev1.ResourceRequirements, storage string) benchv1.DatabasePodGroup {
	g := benchv1.DatabasePodGroup{Role: role, Count: n, Resources: r}
	if storage != "" {
		g.Storage = size(storage)
	}
	return g
}

func db(groups ...benchv1.DatabasePodGroup) benchv1.DatabaseDescription {
	return benchv1.DatabaseDescription{Pods: groups}
}

func node(name, instanceType string) benchv1.NodeEnvironment {
	return benchv1.NodeEnvironment{Name: name, Labels: map[string]string{benchv1.DefaultPricingNodeLabel: instanceType}}
}

var userPrices = benchv1.PricingSpec{Currency: "USD", VCPUHour: "0.05", MemoryGiBHour: "0.005", StorageGiBMonth: "0.1"}

func f(v float64) *float64 { return &v }

func TestOf(t *testing.T) {
	nodePrices := benchv1.PricingSpec{Currency: "EUR", NodeHour: map[string]benchv1.Price{"m.large": "0.2"}, StorageGiBMonth: "0.1"}
	withLoad := group("instance", 1, resources("requests", "500m", "4Gi"), "10Gi")
	load := resources("requests", "2", "4Gi")
	withLoad.LoadResources = &load
	for _, tc := range []struct {
		name  string
		spec  benchv1.PricingSpec
		db    benchv1.DatabaseDescription
		nodes []benchv1.NodeEnvironment
		tpmC  float64
		// want: rule, monthly cost, cost per tpmC a month, over 3 years, tpmC per currency;
		// nil figures are absent.
		rule                            benchv1.PricingRule
		monthly, perMonth, per3y, perCu *float64
		notPriced                       string // a part of NotPriced
	}{
		// (2·0.05 + 4·0.005)·730 + 10·0.1 = 88.6 an instance; the primary and both standbys.
		{name: "a primary and two standbys at their requests", spec: userPrices,
			db: db(group("instance", 3, resources("requests", "2", "4Gi"), "10Gi")), tpmC: 1000,
			rule: benchv1.PricingRequests, monthly: f(265.8), perMonth: f(0.2658), per3y: f(9.5688), perCu: f(3.76223)},
		{name: "one instance: the standbys are what triples it", spec: userPrices,
			db: db(group("instance", 1, resources("requests", "2", "4Gi"), "10Gi")), tpmC: 1000,
			rule: benchv1.PricingRequests, monthly: f(88.6), perMonth: f(0.0886), per3y: f(3.1896), perCu: f(11.2867)},
		// (1·0.05 + 2·0.005)·730 + 10·0.1 = 44.8.
		{name: "limits when no request is declared", spec: userPrices,
			db: db(group("instance", 1, resources("limits", "1", "2Gi"), "10Gi")), tpmC: 448,
			rule: benchv1.PricingLimits, monthly: f(44.8), perMonth: f(0.1), per3y: f(3.6), perCu: f(10)},
		// Storage nodes (1·0.05 + 1·0.005)·730 + 20·0.1 = 42.15 each; database nodes 40.15 each,
		// no volume.
		{name: "storage and compute nodes both priced", spec: userPrices,
			db: db(group("storage node", 3, resources("requests", "1", "1Gi"), "20Gi"),
				group("database node", 2, resources("requests", "1", "1Gi"), "")), tpmC: 2067.5,
			rule: benchv1.PricingRequests, monthly: f(206.75), perMonth: f(0.1), per3y: f(3.6), perCu: f(10)},
		// (0.5·0.05 + 4·0.005)·730 + 10·0.1 = 33.85: the measured 500m, not the load's 2 CPUs.
		{name: "the measured resources, not loadResources", spec: userPrices, db: db(withLoad), tpmC: 100,
			rule: benchv1.PricingRequests, monthly: f(33.85), perMonth: f(0.3385), per3y: f(12.186), perCu: f(2.95421)},
		{name: "a CPU price alone needs no memory declared", spec: benchv1.PricingSpec{Currency: "USD", VCPUHour: "0.048"},
			db: db(group("node", 3, corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}, "10Gi")), tpmC: 26.28,
			rule: benchv1.PricingRequests, monthly: f(26.28), perMonth: f(1), per3y: f(36), perCu: f(1)},
		// 3 nodes · 0.2 · 730 + 30 GiB · 0.1 = 441.
		{name: "dedicated nodes by instance type, volumes beside them", spec: nodePrices,
			db:    db(group("instance", 3, corev1.ResourceRequirements{}, "10Gi")),
			nodes: []benchv1.NodeEnvironment{node("n3", "m.large"), node("n1", "m.large"), node("n2", "m.large")}, tpmC: 4410,
			rule: benchv1.PricingDedicatedNodes, monthly: f(441), perMonth: f(0.1), per3y: f(3.6), perCu: f(10)},
		{name: "no compliant step: the cost alone", spec: userPrices,
			db:   db(group("instance", 1, resources("requests", "2", "4Gi"), "10Gi")),
			rule: benchv1.PricingRequests, monthly: f(88.6)},
		{name: "zero userPrices cost nothing and buy no ratio", spec: benchv1.PricingSpec{Currency: "USD", VCPUHour: "0", MemoryGiBHour: "0.0"},
			db: db(group("instance", 1, resources("requests", "2", "4Gi"), "10Gi")), tpmC: 100,
			rule: benchv1.PricingRequests, monthly: f(0), perMonth: f(0), per3y: f(0)},
		{name: "no resources declared", spec: userPrices, db: db(group("instance", 3, corev1.ResourceRequirements{}, "10Gi")), tpmC: 1000,
			notPriced: "the database's instance pods declare no cpu and memory request or limit"},
		{name: "an external database", spec: userPrices, db: db(), tpmC: 1000,
			notPriced: "an external database"},
		{name: "a node whose type has no price", spec: nodePrices, db: db(group("instance", 1, corev1.ResourceRequirements{}, "10Gi")),
			nodes: []benchv1.NodeEnvironment{node("n1", "x.huge")}, tpmC: 1000,
			notPriced: "node n1 is node.kubernetes.io/instance-type=x.huge, which spec.pricing.nodeHour does not price"},
		{name: "a node without the label", spec: nodePrices, db: db(group("instance", 1, corev1.ResourceRequirements{}, "10Gi")),
			nodes: []benchv1.NodeEnvironment{{Name: "n1"}}, tpmC: 1000,
			notPriced: "node n1 has no label node.kubernetes.io/instance-type"},
		{name: "no node recorded", spec: nodePrices, db: db(group("instance", 1, corev1.ResourceRequirements{}, "10Gi")), tpmC: 1000,
			notPriced: "status.environment.nodes"},
		{name: "a price admission would refuse", spec: benchv1.PricingSpec{Currency: "USD", VCPUHour: "1/3"},
			db: db(group("instance", 1, resources("requests", "2", "4Gi"), "10Gi")), tpmC: 1000,
			notPriced: `spec.pricing.vCPUHour "1/3" is not a decimal price`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			got := Of(&spec, tc.db, tc.nodes, tc.tpmC)
			if got.Rule != tc.rule {
				t.Errorf("rule %q, want %q", got.Rule, tc.rule)
			}
			if tc.notPriced != "" && !strings.Contains(got.NotPriced, tc.notPriced) {
				t.Errorf("notPriced %q, want it to say %q", got.NotPriced, tc.notPriced)
			}
			if tc.notPriced == "" && got.NotPriced != "" {
				t.Errorf("not priced: %s", got.NotPriced)
			}
			for _, c := range []struct {
				field     string
				got, want *float64
			}{{"monthlyCost", got.MonthlyCost, tc.monthly}, {"costPerTpmCMonth", got.CostPerTpmCMonth, tc.perMonth},
				{"costPerTpmC3Years", got.CostPerTpmC3Years, tc.per3y}, {"tpmCPerCurrency", got.TpmCPerCurrency, tc.perCu}} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s %s, want %s", c.field, show(c.got), show(c.want))
				}
			}
			if got.Currency != spec.Currency || !strings.Contains(strings.Join(got.Unpriced, "; "), "client, loader") {
				t.Errorf("currency %q, unpriced %q", got.Currency, got.Unpriced)
			}
		})
	}
}

func show(v *float64) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprint(*v)
}

// The run's client pods never enter the price, whatever their resources; the items name what was
// priced.
func TestForRunPricesTheDatabaseNotTheClients(t *testing.T) {
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Pricing: &userPrices}}
	run.Spec.Workload.Clients.Pods = 8
	run.Spec.Workload.Clients.Resources = resources("requests", "16", "64Gi")
	got := ForRun(run, db(group("instance", 3, resources("requests", "2", "4Gi"), "10Gi")), 1000)
	if got.MonthlyCost == nil || *got.MonthlyCost != 265.8 {
		t.Fatalf("monthly cost %v, want 265.8 (three instances, no client)", show(got.MonthlyCost))
	}
	want := []benchv1.PricedItem{{What: "3 × instance", VCPU: size("6"), Memory: size("12Gi"), Storage: size("30Gi"), MonthlyCost: 265.8}}
	if len(got.Items) != 1 || got.Items[0].What != want[0].What || got.Items[0].VCPU.Cmp(*want[0].VCPU) != 0 ||
		got.Items[0].Memory.Cmp(*want[0].Memory) != 0 || got.Items[0].Storage.Cmp(*want[0].Storage) != 0 || got.Items[0].MonthlyCost != 265.8 {
		t.Errorf("items %+v, want %+v", got.Items, want)
	}
	if ForRun(&benchv1.BenchmarkRun{}, db(), 1000) != nil {
		t.Error("a run without spec.pricing is priced")
	}
}

// Nodes priced as dedicated that also ran client pods are named as a caveat.
func TestForRunNamesNodesSharedWithClients(t *testing.T) {
	spec := benchv1.PricingSpec{Currency: "USD", NodeHour: map[string]benchv1.Price{"m.large": "0.2"}}
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Pricing: &spec}}
	run.Status.Environment = &benchv1.RunEnvironment{Nodes: []benchv1.NodeEnvironment{node("n1", "m.large")}}
	run.Status.Steps = []benchv1.StepResult{{Placement: &benchv1.StepPlacement{ClientsOnDatabaseNodes: []string{"n1"}}}, {}}
	got := ForRun(run, db(group("instance", 1, corev1.ResourceRequirements{}, "")), 100)
	if got.Rule != benchv1.PricingDedicatedNodes || len(got.Caveats) != 1 || !strings.Contains(got.Caveats[0], "client pods (n1)") {
		t.Errorf("caveats %q (rule %s), want n1 named", got.Caveats, got.Rule)
	}
	run.Status.Steps = nil
	if got := ForRun(run, db(group("instance", 1, corev1.ResourceRequirements{}, "")), 100); len(got.Caveats) != 0 {
		t.Errorf("caveats %q without shared nodes", got.Caveats)
	}
}
