package tpcc

import (
	"math"
	"testing"
	"time"
)

func TestThinkTimeDistribution(t *testing.T) {
	rng := NewRand(42, 9)
	const n = 200_000
	mean := 12 * time.Second
	var sum float64
	var longest time.Duration
	for range n {
		d := ThinkTime(rng, mean)
		if d < 0 {
			t.Fatalf("negative think time %v", d)
		}
		sum += d.Seconds()
		longest = max(longest, d)
	}
	// Truncation at 10× removes e^-10·11 ≈ 0.05 % of the mean; the sample mean's sd is mean/√n ≈ 0.2 %.
	if got := sum / n; math.Abs(got-12) > 0.1 {
		t.Errorf("mean think time %.3fs, want 12s ± 0.1", got)
	}
	if longest > 10*mean {
		t.Errorf("think time %v above the 10× mean truncation", longest)
	}
	if longest < 5*mean {
		t.Errorf("longest of %d draws is %v: the tail is missing", n, longest)
	}
}

func TestParseWaitMode(t *testing.T) {
	for _, tc := range []struct {
		in      string
		wantErr bool
	}{{"spec", false}, {"none", false}, {"Spec", true}, {"", true}, {"fast", true}} {
		_, err := ParseWaitMode(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseWaitMode(%q) error %v, wantErr %v", tc.in, err, tc.wantErr)
		}
	}
}

func TestKeyingAndThinkTimesGiveTheSpecCeiling(t *testing.T) {
	// With the nominal 45/43/4/4/4 mix and zero response time, 10 terminals make 12.86 New-Orders
	// a minute (Clause 4.1; research/tpcc-rules.md §1.4).
	share := [txTypes]float64{0.45, 0.43, 0.04, 0.04, 0.04}
	var cycle float64
	for tt := range txTypes {
		cycle += share[tt] * (KeyingTime[tt] + MeanThinkTime[tt]).Seconds()
	}
	if got := 10 * 60 / cycle * 0.45; math.Abs(got-12.86) > 0.01 {
		t.Fatalf("ceiling %.3f tpmC per warehouse, want 12.86", got)
	}
}
