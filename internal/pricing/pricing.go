// Package pricing prices a run's database the way TPC prices a system under test: every database
// pod (standbys, replicas, storage and compute nodes included) at its requests, else its limits,
// or the nodes the pods ran on when spec.pricing prices nodes; and the pods' volumes. Client,
// loader and operator pods are not priced. It is pure: prices are decimal strings read exactly
// (math/big), and only the figures written to status are rounded.
package pricing

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Unpriced is what every price leaves out, as status.result.pricePerformance.unpriced says it.
var Unpriced = []string{"client, loader and consistency-check pods (the driver, not the system under test)", "the tpcc-operator manager"}

// Of prices the database db describes under spec for a result of tpmC. nodes are the nodes that
// ran the database's pods (status.environment.nodes), read by the DedicatedNodes rule. Nil
// without spec; a price that cannot be computed says why in NotPriced and gives no figure.
func Of(spec *benchv1.PricingSpec, db benchv1.DatabaseDescription, nodes []benchv1.NodeEnvironment, tpmC float64) *benchv1.PricePerformance {
	if spec == nil {
		return nil
	}
	out := &benchv1.PricePerformance{Currency: spec.Currency, Unpriced: append([]string(nil), Unpriced...)}
	prices, err := parse(spec)
	if err != nil {
		out.NotPriced = err.Error()
		return out
	}
	groups := podGroups(db)
	if len(groups) == 0 {
		out.NotPriced = "the operator deployed no database pods for this run (an external database): their resources are unknown"
		return out
	}
	var items []benchv1.PricedItem
	var total *big.Rat
	if len(spec.NodeHour) > 0 {
		out.Rule = benchv1.PricingDedicatedNodes
		items, total, err = byNodes(spec, prices, nodes)
		if err == nil {
			if v, cost := volumes(groups, prices); v != nil {
				items = append(items, *v)
				total.Add(total, cost)
			}
		}
	} else {
		out.Rule, items, total, err = byResources(groups, prices)
	}
	if err != nil {
		out.Rule = ""
		out.NotPriced = err.Error()
		return out
	}
	if prices.storageGiBMonth == nil {
		out.Unpriced = append(out.Unpriced, "the database's volumes (spec.pricing.storageGiBMonth is not set)")
	}
	out.Items = items
	monthly, _ := total.Float64()
	out.MonthlyCost = ptr(round(monthly))
	if tpmC > 0 {
		perMonth := new(big.Rat).Quo(total, ratFloat(tpmC))
		pm, _ := perMonth.Float64()
		out.CostPerTpmCMonth = ptr(round(pm))
		out.CostPerTpmC3Years = ptr(round(pm * benchv1.MonthsPerTerm))
		if total.Sign() > 0 {
			per, _ := new(big.Rat).Quo(ratFloat(tpmC), total).Float64()
			out.TpmCPerCurrency = ptr(round(per))
		}
	}
	return out
}

// prices are spec.pricing's prices read exactly; nil when not given.
type prices struct {
	vcpuHour, memoryGiBHour, storageGiBMonth *big.Rat
	nodeHour                                 map[string]*big.Rat
}

// parse reads every price, naming the field of one that is not a decimal of zero or more.
func parse(spec *benchv1.PricingSpec) (prices, error) {
	var p prices
	one := func(field string, v benchv1.Price) (*big.Rat, error) {
		if v == "" {
			return nil, nil
		}
		r, ok := new(big.Rat).SetString(string(v))
		if !ok || r.Sign() < 0 || !decimal(string(v)) {
			return nil, fmt.Errorf("spec.pricing.%s %q is not a decimal price of zero or more", field, v)
		}
		return r, nil
	}
	var err error
	if p.vcpuHour, err = one("vCPUHour", spec.VCPUHour); err != nil {
		return p, err
	}
	if p.memoryGiBHour, err = one("memoryGiBHour", spec.MemoryGiBHour); err != nil {
		return p, err
	}
	if p.storageGiBMonth, err = one("storageGiBMonth", spec.StorageGiBMonth); err != nil {
		return p, err
	}
	if len(spec.NodeHour) > 0 {
		p.nodeHour = map[string]*big.Rat{}
		for k, v := range spec.NodeHour {
			if p.nodeHour[k], err = one(fmt.Sprintf("nodeHour[%s]", k), v); err != nil {
				return p, err
			}
		}
	}
	return p, nil
}

// decimal is whether s is digits with at most one decimal point: what admission accepts, and
// nothing big.Rat reads beyond it (fractions, exponents, signs).
func decimal(s string) bool {
	dot := false
	digits := 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

func podGroups(db benchv1.DatabaseDescription) []benchv1.DatabasePodGroup {
	var out []benchv1.DatabasePodGroup
	for _, g := range db.Pods {
		if g.Count > 0 {
			out = append(out, g)
		}
	}
	return out
}

// byResources prices each pod group at its requests, else its limits, for the resources priced.
// The rule is Requests when every group has its requests, else Limits.
func byResources(groups []benchv1.DatabasePodGroup, p prices) (benchv1.PricingRule, []benchv1.PricedItem, *big.Rat, error) {
	rule := benchv1.PricingRequests
	total := new(big.Rat)
	var items []benchv1.PricedItem
	for _, g := range groups {
		list, usedLimits, err := groupResources(g, p)
		if err != nil {
			return "", nil, nil, err
		}
		if usedLimits {
			rule = benchv1.PricingLimits
		}
		n := big.NewRat(int64(g.Count), 1)
		item := benchv1.PricedItem{What: fmt.Sprintf("%d × %s", g.Count, g.Role)}
		hourly := new(big.Rat)
		if q, ok := list[corev1.ResourceCPU]; ok && p.vcpuHour != nil {
			hourly.Add(hourly, new(big.Rat).Mul(vcpus(q), p.vcpuHour))
			item.VCPU = times(q, g.Count)
		}
		if q, ok := list[corev1.ResourceMemory]; ok && p.memoryGiBHour != nil {
			hourly.Add(hourly, new(big.Rat).Mul(gib(q), p.memoryGiBHour))
			item.Memory = times(q, g.Count)
		}
		cost := new(big.Rat).Mul(hourly, big.NewRat(benchv1.HoursPerMonth, 1))
		if g.Storage != nil && p.storageGiBMonth != nil {
			cost.Add(cost, new(big.Rat).Mul(gib(*g.Storage), p.storageGiBMonth))
			item.Storage = times(*g.Storage, g.Count)
		}
		cost.Mul(cost, n)
		total.Add(total, cost)
		item.MonthlyCost = money(cost)
		items = append(items, item)
	}
	return rule, items, total, nil
}

// groupResources is what a pod group is priced at: its requests of each priced resource, or, when
// it requests none of them, its limits (usedLimits); an error when it declares neither.
func groupResources(g benchv1.DatabasePodGroup, p prices) (corev1.ResourceList, bool, error) {
	var needed []corev1.ResourceName
	if p.vcpuHour != nil {
		needed = append(needed, corev1.ResourceCPU)
	}
	if p.memoryGiBHour != nil {
		needed = append(needed, corev1.ResourceMemory)
	}
	has := func(l corev1.ResourceList) bool {
		for _, r := range needed {
			if _, ok := l[r]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has(g.Resources.Requests):
		return g.Resources.Requests, false, nil
	case has(g.Resources.Limits):
		return g.Resources.Limits, true, nil
	}
	return nil, false, fmt.Errorf("the database's %s pods declare no %s request or limit (its engine block's resources), so they cannot be priced; give them resources or price by node (spec.pricing.nodeHour)",
		g.Role, names(needed))
}

// byNodes prices every node that ran a database pod at nodeHour by its label's value.
func byNodes(spec *benchv1.PricingSpec, p prices, nodes []benchv1.NodeEnvironment) ([]benchv1.PricedItem, *big.Rat, error) {
	if len(nodes) == 0 {
		return nil, nil, fmt.Errorf("no node of the database's pods is recorded (status.environment.nodes), so spec.pricing.nodeHour prices nothing")
	}
	label := spec.EffectiveNodeLabel()
	sorted := append([]benchv1.NodeEnvironment(nil), nodes...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	total := new(big.Rat)
	var items []benchv1.PricedItem
	for _, n := range sorted {
		value, ok := n.Labels[label]
		if !ok {
			return nil, nil, fmt.Errorf("node %s has no label %s (spec.pricing.nodeLabel), so spec.pricing.nodeHour cannot price it", n.Name, label)
		}
		price, ok := p.nodeHour[value]
		if !ok {
			return nil, nil, fmt.Errorf("node %s is %s=%s, which spec.pricing.nodeHour does not price", n.Name, label, value)
		}
		cost := new(big.Rat).Mul(price, big.NewRat(benchv1.HoursPerMonth, 1))
		total.Add(total, cost)
		items = append(items, benchv1.PricedItem{What: fmt.Sprintf("node %s (%s)", n.Name, value), VCPU: n.CPU, Memory: n.Memory, MonthlyCost: money(cost)})
	}
	return items, total, nil
}

// volumes prices every database pod's volumes together; nil without storageGiBMonth or volumes.
func volumes(groups []benchv1.DatabasePodGroup, p prices) (*benchv1.PricedItem, *big.Rat) {
	if p.storageGiBMonth == nil {
		return nil, nil
	}
	var bytes int64
	for _, g := range groups {
		if g.Storage != nil {
			bytes += g.Storage.Value() * int64(g.Count)
		}
	}
	if bytes == 0 {
		return nil, nil
	}
	q := resource.NewQuantity(bytes, resource.BinarySI)
	cost := new(big.Rat).Mul(gib(*q), p.storageGiBMonth)
	return &benchv1.PricedItem{What: "volumes", Storage: q, MonthlyCost: money(cost)}, cost
}

func vcpus(q resource.Quantity) *big.Rat { return big.NewRat(q.MilliValue(), 1000) }
func gib(q resource.Quantity) *big.Rat   { return big.NewRat(q.Value(), 1<<30) }

func times(q resource.Quantity, n int32) *resource.Quantity {
	if q.Format == resource.DecimalSI && q.MilliValue()%1000 != 0 {
		return resource.NewMilliQuantity(q.MilliValue()*int64(n), q.Format)
	}
	return resource.NewQuantity(q.Value()*int64(n), q.Format)
}

func names(rs []corev1.ResourceName) string {
	if len(rs) == 2 {
		return string(rs[0]) + " and " + string(rs[1])
	}
	if len(rs) == 1 {
		return string(rs[0])
	}
	return "resource"
}

func ratFloat(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }

func money(r *big.Rat) float64 {
	f, _ := r.Float64()
	return round(f)
}

// round keeps 6 significant digits: amounts and ratios range from thousandths (a cost per tpmC)
// to thousands.
func round(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return r
}

func ptr(v float64) *float64 { return &v }

// ForRun prices the run's database as db describes it (the resources its steps measured it with,
// not its loadResources) for a result of tpmC: spec.pricing, and the database's nodes from
// status.environment. Nothing of the run's client or loader pods enters it.
func ForRun(run *benchv1.BenchmarkRun, db benchv1.DatabaseDescription, tpmC float64) *benchv1.PricePerformance {
	var nodes []benchv1.NodeEnvironment
	if env := run.Status.Environment; env != nil {
		nodes = env.Nodes
	}
	out := Of(run.Spec.Pricing, db, nodes, tpmC)
	if out != nil && out.Rule == benchv1.PricingDedicatedNodes {
		if shared := clientsOnDatabaseNodes(run.Status.Steps); len(shared) > 0 {
			out.Caveats = append(out.Caveats, fmt.Sprintf("nodes priced as the database's also ran client pods (%s): they were not dedicated to it",
				strings.Join(shared, ", ")))
		}
	}
	return out
}

// clientsOnDatabaseNodes are the nodes any step found running a client pod beside a database pod.
func clientsOnDatabaseNodes(steps []benchv1.StepResult) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range steps {
		if s.Placement == nil {
			continue
		}
		for _, n := range s.Placement.ClientsOnDatabaseNodes {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
