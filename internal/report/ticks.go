package report

import (
	"math"
	"strconv"
)

// niceTicks returns about n round tick values covering [lo, hi]: multiples of a step of 1, 2,
// 2.5 or 5 times a power of ten. An empty range (hi ≤ lo) is widened to [lo, lo+1].
func niceTicks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []float64
	first, last := math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
	for k := first; k <= last; k++ {
		v, _ := strconv.ParseFloat(strconv.FormatFloat(k*step, 'g', 12, 64), 64)
		ticks = append(ticks, v+0) // +0: no "-0"
	}
	return ticks
}

// tickLabels formats an axis's ticks as num does, but with as many decimals as the ticks need to
// be written exactly: 0, 0.005, 0.01 … reads "0.005", not "0.01" twice. Distinct ticks therefore
// always get distinct labels.
func tickLabels(ticks []float64) []string {
	d := tickDecimals(ticks)
	out := make([]string, len(ticks))
	for i, v := range ticks {
		if math.Abs(v) >= 1e4 {
			out[i] = num(v) // thousands and millions: "12.5k", exact at any step
			continue
		}
		scale := math.Pow(10, float64(d))
		out[i] = strconv.FormatFloat(math.Round(v*scale)/scale+0, 'f', -1, 64)
	}
	return out
}

// tickDecimals is the fewest decimals (at most 12) that write every tick exactly.
func tickDecimals(ticks []float64) int {
	for d := 0; d < 12; d++ {
		scale := math.Pow(10, float64(d))
		exact := true
		for _, v := range ticks {
			if x := v * scale; math.Abs(x-math.Round(x)) > 1e-6*math.Max(1, math.Abs(x)) {
				exact = false
				break
			}
		}
		if exact {
			return d
		}
	}
	return 12
}
