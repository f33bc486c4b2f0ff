package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// addPricePerformance sets a database's price-performance over its succeeded runs, when they
// were priced. With one monthly cost for every run (one configuration, one price) the ratios are
// the tpmC's figures and confidence interval divided by it, the cost per tpmC their reciprocal;
// with costs that differ (nodes of other types), each run's ratio is summarised instead.
func addPricePerformance(r *benchv1.SuiteDatabaseResult, database string, runs []benchv1.SuiteRunRecord) {
	var tpmC, costs []float64
	var out *benchv1.PricePerformanceStatistic
	for _, run := range runs {
		if run.Database != database || run.Phase != benchv1.PhaseSucceeded || run.Result == nil || run.Result.PricePerformance == nil {
			continue
		}
		pp := run.Result.PricePerformance
		if out == nil {
			out = &benchv1.PricePerformanceStatistic{Currency: pp.Currency, Rule: pp.Rule}
		}
		switch {
		case pp.NotPriced != "":
			out.NotPriced = pp.NotPriced
		case pp.MonthlyCost != nil:
			tpmC, costs = append(tpmC, run.Result.TpmC), append(costs, *pp.MonthlyCost)
		}
	}
	if out == nil {
		return
	}
	r.PricePerformance = out
	if out.NotPriced != "" || len(costs) == 0 {
		out.Rule = ""
		return
	}
	constant := true
	for _, c := range costs {
		constant = constant && c == costs[0]
	}
	if constant {
		cost := costs[0]
		out.MonthlyCost = &cost
		if cost <= 0 {
			return
		}
		t := raw(tpmC)
		out.TpmCPerCurrency = t.scaled(func(v float64) float64 { return v / cost }, false)
		if t.min > 0 {
			out.CostPerTpmCMonth = t.scaled(func(v float64) float64 { return cost / v }, true)
			out.CostPerTpmC3Years = t.scaled(func(v float64) float64 { return cost * benchv1.MonthsPerTerm / v }, true)
		}
		return
	}
	var sum float64
	per, perTpmC, per3y := make([]float64, len(costs)), []float64{}, []float64{}
	for i, c := range costs {
		sum += c
		if c > 0 {
			per[i] = tpmC[i] / c
		}
		if tpmC[i] > 0 {
			perTpmC, per3y = append(perTpmC, c/tpmC[i]), append(per3y, c*benchv1.MonthsPerTerm/tpmC[i])
		}
	}
	mean := sig6(sum / float64(len(costs)))
	out.MonthlyCost = &mean
	out.TpmCPerCurrency = raw(per).scaled(func(v float64) float64 { return v }, false)
	if len(perTpmC) == len(costs) {
		out.CostPerTpmCMonth = raw(perTpmC).scaled(func(v float64) float64 { return v }, false)
		out.CostPerTpmC3Years = raw(per3y).scaled(func(v float64) float64 { return v }, false)
	}
}

// rawStat is a statistic before rounding: mean, range and the 95 % interval's half width.
type rawStat struct{ mean, min, max, half float64 }

func raw(values []float64) rawStat {
	s := rawStat{mean: math.NaN()}
	if len(values) == 0 {
		return s
	}
	n := float64(len(values))
	sum := 0.0
	s.min, s.max = values[0], values[0]
	for _, v := range values {
		sum += v
		s.min, s.max = min(s.min, v), max(s.max, v)
	}
	s.mean = sum / n
	s.half = math.NaN()
	if len(values) >= MinRunsForInterval {
		squares := 0.0
		for _, v := range values {
			squares += (v - s.mean) * (v - s.mean)
		}
		s.half = T975(len(values)-1) * math.Sqrt(squares/(n-1)) / math.Sqrt(n)
	}
	return s
}

// scaled is the statistic of f of the values; a decreasing f (reciprocal) swaps the ends of the
// range and the interval. Figures keep 6 significant digits.
func (s rawStat) scaled(f func(float64) float64, decreasing bool) *benchv1.Statistic {
	if math.IsNaN(s.mean) {
		return nil
	}
	lo, hi := f(s.min), f(s.max)
	if decreasing {
		lo, hi = hi, lo
	}
	out := &benchv1.Statistic{Mean: sig6(f(s.mean)), Min: sig6(lo), Max: sig6(hi)}
	if !math.IsNaN(s.half) {
		a, b := s.mean-s.half, s.mean+s.half
		if decreasing && a <= 0 {
			return out // a reciprocal of an interval reaching zero has no upper end
		}
		ilo, ihi := f(a), f(b)
		if decreasing {
			ilo, ihi = ihi, ilo
		}
		out.CI95 = &benchv1.Interval{Low: sig6(ilo), High: sig6(ihi)}
	}
	return out
}

func sig6(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return r
}

// rankPrices ranks the priced databases whose result is no floor by mean tpmC and by mean tpmC
// per currency; the latter only when every priced database is priced in one currency.
func rankPrices(c *Comparison) {
	var ranked []int
	currencies := map[string]bool{}
	for i, r := range c.Results {
		pp := r.PricePerformance
		if pp == nil {
			continue
		}
		currencies[pp.Currency] = true
		if r.TpmC != nil && !r.Bound.Floor() && pp.TpmCPerCurrency != nil {
			ranked = append(ranked, i)
		}
	}
	order := func(key func(benchv1.SuiteDatabaseResult) float64, set func(*benchv1.PricePerformanceStatistic, int32)) {
		idx := append([]int(nil), ranked...)
		sort.SliceStable(idx, func(a, b int) bool { return key(c.Results[idx[a]]) > key(c.Results[idx[b]]) })
		for n, i := range idx {
			set(c.Results[i].PricePerformance, int32(n+1))
		}
	}
	order(func(r benchv1.SuiteDatabaseResult) float64 { return r.TpmC.Mean },
		func(p *benchv1.PricePerformanceStatistic, n int32) { p.TpmCRank = n })
	if len(currencies) == 1 {
		order(func(r benchv1.SuiteDatabaseResult) float64 { return r.PricePerformance.TpmCPerCurrency.Mean },
			func(p *benchv1.PricePerformanceStatistic, n int32) { p.Rank = n })
	}
}

// priceNotes say what the price-performance comparison cannot do: rank across currencies.
func priceNotes(c Comparison) []string {
	currencies := map[string]bool{}
	for _, r := range c.Results {
		if r.PricePerformance != nil {
			currencies[r.PricePerformance.Currency] = true
		}
	}
	if len(currencies) > 1 {
		return []string{fmt.Sprintf("price-performance: the databases are priced in %d currencies, so they are not ranked by it", len(currencies))}
	}
	return nil
}

// priced reports whether any database of the comparison has a price-performance.
func (c Comparison) priced() bool {
	for _, r := range c.Results {
		if r.PricePerformance != nil {
			return true
		}
	}
	return false
}

var priceComparisonHeader = []string{"<database", "<priced at", "per month", "tpmC per currency a month", "cost per tpmC a month", "cost per tpmC, 36 months", "rank by tpmC", "rank by price-performance"}

// priceComparisonRows are the price-performance table's rows (Markdown and HTML); a floor's
// ratios are bounds (≥ tpmC per currency, ≤ cost per tpmC).
func priceComparisonRows(c Comparison) [][]string {
	var rows [][]string
	for _, r := range c.Results {
		pp := r.PricePerformance
		if pp == nil {
			rows = append(rows, []string{r.Database, "not priced (no spec.pricing)", "-", "-", "-", "-", "-", "-"})
			continue
		}
		if pp.NotPriced != "" {
			rows = append(rows, []string{r.Database, "not priced: " + pp.NotPriced, "-", "-", "-", "-", "-", "-"})
			continue
		}
		monthly := "-"
		if pp.MonthlyCost != nil {
			monthly = Money(*pp.MonthlyCost, pp.Currency)
		}
		le := func(s string) string {
			if r.Bound.Floor() && s != "-" {
				return "≤ " + s
			}
			return s
		}
		rank := func(n int32) string {
			if n == 0 {
				return "-"
			}
			return fmt.Sprint(n)
		}
		rows = append(rows, []string{r.Database, string(pp.Rule), monthly, floorCell(r.Bound, sigCell(pp.TpmCPerCurrency)),
			le(sigCell(pp.CostPerTpmCMonth)), le(sigCell(pp.CostPerTpmC3Years)), rank(pp.TpmCRank), rank(pp.Rank)})
	}
	return rows
}

// sigCell is statCell for figures of 6 significant digits.
func sigCell(s *benchv1.Statistic) string {
	if s == nil {
		return "-"
	}
	switch {
	case s.CI95 != nil:
		return fmt.Sprintf("%s (95 %% CI %s–%s; %s–%s)", Figure(s.Mean), Figure(s.CI95.Low), Figure(s.CI95.High), Figure(s.Min), Figure(s.Max))
	case s.Min != s.Max:
		return fmt.Sprintf("%s (%s–%s)", Figure(s.Mean), Figure(s.Min), Figure(s.Max))
	}
	return Figure(s.Mean)
}

// priceComparisonWords follow the table: how the figures are made, and the disclaimer.
const priceComparisonWords = "Each run's database is priced at spec.pricing: every database pod (standbys, replicas, storage and compute nodes included) at its requests (Requests), its limits (Limits) or the nodes it ran on (DedicatedNodes), and its volumes; client, loader and operator pods are not priced. A figure is the mean over the runs with a result, its range and, from 3 runs on, the tpmC's 95 % confidence interval divided by the monthly cost (one cost per database configuration). ≥ and ≤ mark a floor's ratios, which are not ranked. "

// writeMarkdownTable writes a table whose "<"-prefixed columns align left.
func writeMarkdownTable(b *strings.Builder, header []string, rows [][]string) {
	h := append([]string(nil), header...)
	align := make([]string, len(h))
	for i, c := range h {
		align[i] = "---:"
		if strings.HasPrefix(c, "<") {
			h[i], align[i] = c[1:], "---"
		}
	}
	fmt.Fprintf(b, "| %s |\n|%s|\n", strings.Join(h, " | "), strings.Join(align, "|"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i := range r {
			cells[i] = cell(r[i])
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
}

// comparisonPrices is the HTML comparison's price-performance section, when any database is
// priced.
func comparisonPrices(p *page, c Comparison) {
	if !c.priced() {
		return
	}
	p.h(2, "Price-performance")
	p.table(priceComparisonHeader, priceComparisonRows(c), nil)
	p.para(priceComparisonWords + PriceDisclaimer)
}
