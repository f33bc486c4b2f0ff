package report

import (
	"math"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// tTable holds Student's t quantiles t(0.975, df) for df = 1..30: the half-width of a two-sided
// 95 % confidence interval of a mean is t·s/√n with df = n-1.
var tTable = [...]float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// T975 is Student's t quantile t(0.975, df); beyond the table the normal quantile 1.960.
func T975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if df > len(tTable) {
		return 1.960
	}
	return tTable[df-1]
}

// MinRunsForInterval is the number of runs from which a figure carries a confidence interval: with
// two, t(0.975, 1) = 12.7 makes the interval too wide to say anything.
const MinRunsForInterval = 3

// Summarize is the mean, min and max of values and, with MinRunsForInterval or more, the 95 %
// confidence interval of the mean (Student's t, sample standard deviation). Figures are rounded to
// 0.01. It returns nil for no values.
func Summarize(values []float64) *benchv1.Statistic {
	if len(values) == 0 {
		return nil
	}
	n := float64(len(values))
	sum, lo, hi := 0.0, values[0], values[0]
	for _, v := range values {
		sum += v
		lo, hi = min(lo, v), max(hi, v)
	}
	mean := sum / n
	s := &benchv1.Statistic{Mean: round2(mean), Min: round2(lo), Max: round2(hi)}
	if len(values) >= MinRunsForInterval {
		squares := 0.0
		for _, v := range values {
			squares += (v - mean) * (v - mean)
		}
		sd := math.Sqrt(squares / (n - 1))
		half := T975(len(values)-1) * sd / math.Sqrt(n)
		s.CI95 = &benchv1.Interval{Low: round2(mean - half), High: round2(mean + half)}
	}
	return s
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
