package report

import (
	"fmt"
	"math"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// boundSentence says what the result's warehouse count is (status.result.bound): the capacity
// within precision, or only a floor ("≥ N") and what finds the capacity above it. A result
// recorded before bounds existed gets the bound its other fields show, or "unknown"; a run with
// no result yet gets "".
func boundSentence(run *benchv1.BenchmarkRun, result benchv1.Result) string {
	if result.Bound == "" && run.Status.Result == nil {
		return ""
	}
	b := result.EffectiveBound(run.Spec.Workload.Warehouses)
	n := b.Warehouses(result.MaxCompliantWarehouses)
	switch b {
	case benchv1.BoundBracketed:
		return fmt.Sprintf("Bound: Bracketed — the capacity is %s active warehouses within the search's precision of %d.", n, max(1, result.Precision))
	case benchv1.BoundAllLoadedCompliant:
		return fmt.Sprintf("Bound: AllLoadedCompliant — a floor, not a capacity: the capacity is %s active warehouses, since every loaded warehouse was compliant; load more warehouses to find it.", n)
	case benchv1.BoundStepsExhausted:
		if result.Step == nil {
			return "Bound: StepsExhausted — search.maxSteps stopped the search before any full-length step was compliant: raise search.maxSteps."
		}
		return fmt.Sprintf("Bound: StepsExhausted — a floor, not a capacity: the capacity is %s active warehouses; search.maxSteps stopped the search before a non-compliant full-length step bracketed it: raise search.maxSteps.", n)
	case benchv1.BoundNoneCompliant:
		return "Bound: NoneCompliant — no step was compliant."
	}
	return "Bound: unknown — the result was recorded before results named their bound, and its figures do not show it."
}

// restsOnSentence names the full-length steps a result rests on ("" when none).
func restsOnSentence(result benchv1.Result) string {
	if len(result.RestsOn) == 0 {
		return ""
	}
	return fmt.Sprintf("The result rests on the full-length %s %s", pluralWord(len(result.RestsOn), "step", "steps"), joinInt32(result.RestsOn))
}

// precisionSentence says how far counting noise alone moves the result's tpmC: n New-Orders
// counted in the result's step vary by about √n (1/√n relative, one standard deviation; the
// keying and think times of TPC-C's terminals make the count close to Poisson). It is "" when
// the noise is under 1 % (more than 10 000 New-Orders) or there is no result step. An efficiency
// above 100 % is put against that noise: within three times it, chance; beyond, with spec waits,
// the terminals were paced faster than the keying and think times allow.
func precisionSentence(run *benchv1.BenchmarkRun, result benchv1.Result) string {
	if result.Step == nil || int(*result.Step) >= len(run.Status.Steps) {
		return ""
	}
	s := run.Status.Steps[*result.Step]
	minutes := measure.MeasuredMinutes(s)
	n := s.TpmC * minutes
	if n <= 0 {
		return ""
	}
	noise := countingNoisePercent(n)
	if noise < 1 {
		return ""
	}
	out := fmt.Sprintf("Precision: step %d counted %.0f New-Orders in %s, so counting noise alone moves its tpmC by about ±%.1f %% (1/√n; ±%.1f %% at 95 %%): a longer workload.duration narrows it.",
		s.Index, n, minutesWords(minutes), noise, 1.96*noise)
	if s.Efficiency <= 100 {
		return out
	}
	excess := s.Efficiency/100 - 1 // relative excess over the ceiling, against noise/100
	switch {
	case run.Spec.Workload.Wait == benchv1.WaitNone:
		out += fmt.Sprintf(" The efficiency of %.2f %% is above 100 %% because wait None sends transactions without keying or think times: it is not bounded by the spec's ceiling.", s.Efficiency)
	case excess <= 3*noise/100:
		out += fmt.Sprintf(" The efficiency of %.2f %% is above 100 %% by %.1f times that noise: chance, not a faster pace than the spec's.", s.Efficiency, excess/(noise/100))
	default:
		out += fmt.Sprintf(" The efficiency of %.2f %% is above 100 %% by %.1f times that noise: more than chance explains, so the terminals were paced faster than the spec's keying and think times allow.", s.Efficiency, excess/(noise/100))
	}
	return out
}

// countingNoisePercent is how far, in percent, counting noise alone moves a rate measured from n
// events: 100/√n, one standard deviation of a Poisson count (the run's precision line and the
// comparison's precision note).
func countingNoisePercent(n float64) float64 { return 100 / math.Sqrt(n) }

// minutesWords writes a measured interval: "2m0s", "10m0s", "1m30s".
func minutesWords(minutes float64) string {
	return (time.Duration(math.Round(minutes*60)) * time.Second).String()
}
