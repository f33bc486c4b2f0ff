package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// drive runs a search against an oracle the way the operator does: ask Next,
// run the step, record it, ask again.
func drive(t *testing.T, p Params, compliant func(active int) bool) (Decision, []StepOutcome) {
	t.Helper()
	return driveGuided(t, p, func(n int, _ Kind) StepOutcome { return StepOutcome{Compliant: compliant(n)} })
}

func monotone(boundary int) func(int) bool { return func(n int) bool { return n <= boundary } }

func runs(steps []StepOutcome) []int {
	var out []int
	for _, s := range steps {
		out = append(out, s.ActiveWarehouses)
	}
	return out
}

func TestSearchScenarios(t *testing.T) {
	for name, tc := range map[string]struct {
		params    Params
		oracle    func(int) bool
		want      int
		wantRuns  []int // nil: not checked
		reasonHas string
	}{
		"one warehouse passes": {
			params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 1}, oracle: monotone(1),
			want: 1, wantRuns: []int{1}, reasonHas: "compliant at all 1 loaded warehouses",
		},
		"one warehouse fails": {
			params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 1}, oracle: monotone(0),
			want: 0, wantRuns: []int{1}, reasonHas: "no active warehouse count is compliant",
		},
		"start above max is clamped": {
			params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 100, Start: 500}, oracle: monotone(97),
			want: 97, wantRuns: []int{100, 99, 97, 98},
		},
		"all pass ends at the loaded count": {
			params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 2000, Start: 1000}, oracle: monotone(2000),
			want: 2000, wantRuns: []int{1000, 1010, 1030, 1070, 1150, 1310, 1630, 2000},
			reasonHas: "load more warehouses",
		},
		"all fail ends with a failure at 1": {
			params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 2000, Start: 1000}, oracle: monotone(0),
			want: 0, wantRuns: []int{1000, 990, 970, 930, 850, 690, 370, 1},
			reasonHas: "1 warehouse failed",
		},
		"tpccbench-like search": {
			// Doubles up from the estimate, overshoots, then halves back.
			params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 2000, Start: 1000}, oracle: monotone(1234),
			want: 1230, wantRuns: []int{1000, 1010, 1030, 1070, 1150, 1310, 1230, 1270, 1250, 1240},
			reasonHas: "compliant at 1230, non-compliant at 1240: within precision 10",
		},
		"a crashed step counts as non-compliant": {
			// The step at 1070 crashed (recorded non-compliant) although 1234 would pass:
			// the search carries on below it and reports the best measured count.
			params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 2000, Start: 1000},
			oracle: func(n int) bool { return n != 1070 && n <= 1234 },
			want:   1060, wantRuns: []int{1000, 1010, 1030, 1070, 1050, 1060},
		},
		"default start and precision": {
			params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 400}, oracle: monotone(123),
			want: 122, wantRuns: []int{200, 198, 194, 186, 170, 138, 74, 106, 122, 130, 126, 124},
		},
		"fixed mode compliant": {
			params: Params{Mode: Fixed, Warehouses: 100}, oracle: monotone(100),
			want: 100, wantRuns: []int{100}, reasonHas: "fixed mode: compliant at 100",
		},
		"fixed mode non-compliant": {
			params: Params{Mode: Fixed, Warehouses: 100}, oracle: monotone(99),
			want: 0, wantRuns: []int{100}, reasonHas: "fixed mode: non-compliant at 100",
		},
	} {
		t.Run(name, func(t *testing.T) {
			d, steps := drive(t, tc.params, tc.oracle)
			if d.MaxCompliant != tc.want {
				t.Errorf("MaxCompliant = %d, want %d (runs %v)", d.MaxCompliant, tc.want, runs(steps))
			}
			if tc.wantRuns != nil && !slices.Equal(runs(steps), tc.wantRuns) {
				t.Errorf("runs %v, want %v", runs(steps), tc.wantRuns)
			}
			if !strings.Contains(d.Reason, tc.reasonHas) {
				t.Errorf("reason %q lacks %q", d.Reason, tc.reasonHas)
			}
		})
	}
}

// TestSearchMonotoneOracle checks, for every boundary W* of several domains,
// that the answer is a measured compliant count within precision below W*
// and that the step count stays logarithmic.
func TestSearchMonotoneOracle(t *testing.T) {
	for _, w := range []int{1, 2, 3, 7, 10, 199, 200, 201, 1000, 2000} {
		precision := DefaultPrecision(w)
		limit := stepBound(w, precision)
		for _, start := range []int{0, 1, w / 3, w} {
			for boundary := 0; boundary <= w; boundary++ {
				p := Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: w, Start: start}
				d, steps := drive(t, p, monotone(boundary))
				if d.MaxCompliant > boundary || d.MaxCompliant <= boundary-precision {
					t.Fatalf("W=%d start=%d W*=%d: answer %d not in (W*-%d, W*]; runs %v", w, start, boundary, d.MaxCompliant, precision, runs(steps))
				}
				if d.MaxCompliant > 0 && !measured(steps, d.MaxCompliant, true) {
					t.Fatalf("W=%d W*=%d: answer %d was never measured compliant", w, boundary, d.MaxCompliant)
				}
				if len(steps) > limit {
					t.Fatalf("W=%d start=%d W*=%d: %d steps > bound %d; runs %v", w, start, boundary, len(steps), limit, runs(steps))
				}
			}
		}
	}
}

// stepBound is the step budget the tests hold the search to: doubling away
// from the start, then halving back, each about log2(W/precision) steps,
// plus a few steps for reaching the ends of the domain exactly.
func stepBound(warehouses, precision int) int {
	return 2*int(math.Ceil(math.Log2(float64(warehouses)/float64(precision)+1))) + 4
}

func measured(steps []StepOutcome, n int, compliant bool) bool {
	for _, s := range steps {
		if s.ActiveWarehouses == n && s.Compliant == compliant {
			return true
		}
	}
	return false
}

// TestSearchNoisyOracle flips results at random near the boundary, as real
// steps do when a database sits at its limit: the search must still end
// within the step budget, answer a measured compliant count, and land near W*.
func TestSearchNoisyOracle(t *testing.T) {
	const w = 2000
	precision := DefaultPrecision(w)
	noiseBand := w / 50 // results within 2 % of W* are coin flips
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 3000 {
		boundary := rng.IntN(w + 1)
		oracle := func(n int) bool {
			if d := n - boundary; d >= -noiseBand && d <= noiseBand && rng.Float64() < 0.3 {
				return n > boundary // flipped
			}
			return n <= boundary
		}
		d, steps := drive(t, Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: w, Start: 1 + rng.IntN(w)}, oracle)
		if len(steps) > stepBound(w, precision) {
			t.Fatalf("trial %d W*=%d: %d steps > %d; runs %v", trial, boundary, len(steps), stepBound(w, precision), runs(steps))
		}
		if d.MaxCompliant < boundary-noiseBand-precision || d.MaxCompliant > boundary+noiseBand {
			t.Fatalf("trial %d W*=%d: answer %d farther than the noise band %d (+ precision %d)", trial, boundary, d.MaxCompliant, noiseBand, precision)
		}
		if d.MaxCompliant > 0 && !measured(steps, d.MaxCompliant, true) {
			t.Fatalf("trial %d: answer %d was never measured compliant", trial, d.MaxCompliant)
		}
	}
}

// TestSearchPropertyStepCount covers every boundary 1..2000 of a 2000-warehouse
// domain from a random estimate and holds the search to its step budget.
func TestSearchPropertyStepCount(t *testing.T) {
	const w = 2000
	rng := rand.New(rand.NewPCG(3, 5))
	worst := 0
	for boundary := 1; boundary <= w; boundary++ {
		_, steps := drive(t, Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: w, Start: 1 + rng.IntN(w)}, monotone(boundary))
		worst = max(worst, len(steps))
	}
	if limit := stepBound(w, DefaultPrecision(w)); worst > limit {
		t.Fatalf("worst case %d steps > %d", worst, limit)
	}
	t.Logf("worst case over W* in 1..%d: %d steps (budget %d)", w, worst, stepBound(w, DefaultPrecision(w)))
}

func TestNextIsAPureFunctionOfHistory(t *testing.T) {
	p := Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 2000, Start: 1000}
	_, steps := drive(t, p, monotone(1500))
	for i := range steps {
		first, err := Next(p, steps[:i])
		if err != nil {
			t.Fatal(err)
		}
		again, err := Next(p, append([]StepOutcome(nil), steps[:i]...))
		if err != nil {
			t.Fatal(err)
		}
		if first != again || first.Run != steps[i].ActiveWarehouses {
			t.Fatalf("after %d steps: %+v then %+v, recorded next run %d", i, first, again, steps[i].ActiveWarehouses)
		}
	}
}

func TestNextRejects(t *testing.T) {
	search := Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 100, Start: 50}
	for name, tc := range map[string]struct {
		params Params
		steps  []StepOutcome
		want   string
	}{
		"unknown mode":       {params: Params{Mode: "Binary", Warehouses: 10}, want: `search mode: "Binary"`},
		"no warehouses":      {params: Params{Mode: MaxCompliant}, want: "search warehouses: 0"},
		"negative start":     {params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 10, Start: -1}, want: "search start: -1"},
		"negative precision": {params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 10, Precision: -2}, want: "search precision: -2"},
		"diverging history": {
			params: search, steps: []StepOutcome{{ActiveWarehouses: 50, Compliant: true}, {ActiveWarehouses: 52, Compliant: true}},
			want: "step 2 ran 52 active warehouses but the search chose 51",
		},
		"step after the end": {
			params: Params{Mode: MaxCompliant, Strategy: LineSearch, Warehouses: 1}, steps: []StepOutcome{{ActiveWarehouses: 1, Compliant: true}, {ActiveWarehouses: 1, Compliant: true}},
			want: "recorded after the search finished",
		},
		"fixed with two steps": {
			params: Params{Mode: Fixed, Warehouses: 10}, steps: []StepOutcome{{ActiveWarehouses: 10, Compliant: true}, {ActiveWarehouses: 10, Compliant: true}},
			want: "fixed mode runs one step, 2 are recorded",
		},
		"fixed at another count": {
			params: Params{Mode: Fixed, Warehouses: 10}, steps: []StepOutcome{{ActiveWarehouses: 9, Compliant: true}},
			want: "fixed mode runs 10 warehouses, the recorded step ran 9",
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Next(tc.params, tc.steps)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
