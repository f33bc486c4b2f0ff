package report

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// PriceDisclaimer is what every price-performance figure is said with.
const PriceDisclaimer = "The prices are the user's (spec.pricing), not quoted by any vendor, and the figure is derived from TPC-C as this operator runs it; it is not a TPC price/performance result (no TPC pricing specification audit, no maintenance, software or client costs)."

// priceBlock is a run's price-performance section: what the price is and how it was made, and
// the lines priced. Nil for a run without spec.pricing.
type priceBlock struct {
	Sentences []string
	Rows      [][]string
}

var priceHeader = []string{"<priced", "vCPU", "memory", "storage", "per month"}

// priceBlockOf is the section of result's pricePerformance; its ratios carry a floor result's
// bound: at least the tpmC per currency, at most the cost per tpmC.
func priceBlockOf(run *benchv1.BenchmarkRun, result benchv1.Result) *priceBlock {
	pp := result.PricePerformance
	if pp == nil {
		return nil
	}
	b := &priceBlock{}
	if pp.NotPriced != "" {
		b.Sentences = append(b.Sentences, "Not priced: "+pp.NotPriced+".")
	} else if pp.MonthlyCost != nil {
		floor := result.EffectiveBound(run.Spec.Workload.Warehouses).Floor()
		s := fmt.Sprintf("The database costs %s a month (%d hours) priced at %s", Money(*pp.MonthlyCost, pp.Currency), benchv1.HoursPerMonth, ruleWords(pp.Rule))
		if pp.CostPerTpmCMonth != nil {
			le, ge := "", ""
			if floor {
				le, ge = "≤ ", "≥ "
			}
			s += fmt.Sprintf(": %s%s per tpmC a month, %s%s per tpmC over a %d-month term", le, Money(*pp.CostPerTpmCMonth, pp.Currency),
				le, Money(*pp.CostPerTpmC3Years, pp.Currency), benchv1.MonthsPerTerm)
			if pp.TpmCPerCurrency != nil {
				s += fmt.Sprintf(", %s%s tpmC per %s a month", ge, Figure(*pp.TpmCPerCurrency), pp.Currency)
			}
			if floor {
				s += " (the result is a floor, so its price-performance is one too)"
			}
		} else {
			s += "; no compliant result, so no cost per tpmC"
		}
		b.Sentences = append(b.Sentences, s+".")
		for _, it := range pp.Items {
			b.Rows = append(b.Rows, []string{it.What, priced(it.VCPU, false), priced(it.Memory, true), priced(it.Storage, true), Money(it.MonthlyCost, pp.Currency)})
		}
	}
	for _, c := range pp.Caveats {
		b.Sentences = append(b.Sentences, "Caveat: "+c+".")
	}
	if len(pp.Unpriced) > 0 {
		b.Sentences = append(b.Sentences, "Not priced: "+strings.Join(pp.Unpriced, "; ")+".")
	}
	b.Sentences = append(b.Sentences, PriceDisclaimer)
	return b
}

// ruleWords says what a pricing rule priced.
func ruleWords(r benchv1.PricingRule) string {
	switch r {
	case benchv1.PricingRequests:
		return "every database pod's CPU and memory requests and its volumes"
	case benchv1.PricingLimits:
		return "every database pod's CPU and memory limits (where it requests none) and its volumes"
	case benchv1.PricingDedicatedNodes:
		return "the nodes dedicated to the database's pods and its volumes"
	}
	return string(r)
}

// Money writes an amount with its currency: "57.75 USD", "0.0123 USD".
func Money(v float64, currency string) string { return Figure(v) + " " + currency }

// Figure writes a figure of up to 6 significant digits without an exponent.
func Figure(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func priced(q *resource.Quantity, bytes bool) string {
	if q == nil {
		return "—"
	}
	if bytes {
		return fmt.Sprintf("%s GiB", Figure(float64(q.Value())/(1<<30)))
	}
	return cores(*q)
}

// priceMarkdown is the section in the Markdown report; "" without one.
func priceMarkdown(b *priceBlock) string {
	if b == nil {
		return ""
	}
	var s strings.Builder
	s.WriteString("\n## Price-performance\n\n")
	for _, line := range b.Sentences {
		fmt.Fprintf(&s, "%s\n\n", line)
	}
	if len(b.Rows) > 0 {
		fmt.Fprintf(&s, "| %s |\n|---|---:|---:|---:|---:|\n", strings.ReplaceAll(strings.Join(priceHeader, " | "), "<", ""))
		for _, r := range b.Rows {
			fmt.Fprintf(&s, "| %s |\n", strings.Join(r, " | "))
		}
	}
	return s.String()
}

// priceHTML is the section in the HTML report.
func priceHTML(p *page, b *priceBlock) {
	if b == nil {
		return
	}
	p.h(2, "Price-performance")
	for _, line := range b.Sentences {
		p.para(line)
	}
	if len(b.Rows) > 0 {
		p.table(priceHeader, b.Rows, nil)
	}
}

// PriceSentence is a result's price-performance in one line, for `kubectl tpcc status`: the cost
// and its ratios (bounded as the result is), or why it was not priced, and the disclaimer in
// short; "" without spec.pricing.
func PriceSentence(run *benchv1.BenchmarkRun, result benchv1.Result) string {
	b := priceBlockOf(run, result)
	if b == nil {
		return ""
	}
	return strings.TrimSuffix(b.Sentences[0], ".") + " (prices are the user's, not quoted; TPC-C-derived, not a TPC price/performance result)"
}
