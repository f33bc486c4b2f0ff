package searchsim

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/search"
)

// testSweep records counts from..to with the given compliant verdicts per count (one repeat per
// verdict); a repeat's probe has the same verdict, its figures name the repeat.
func testSweep(from int, verdicts ...[]bool) *Sweep {
	s := &Sweep{RampUpSeconds: 60, DurationSeconds: 300, ProbeSeconds: 60,
		SLA: SweepSLA{MinEfficiencyPercent: 85, MaxErrorPercent: 1}}
	for i, vs := range verdicts {
		for r, ok := range vs {
			f := StepFigures{MeasuredSeconds: 300, EfficiencyPercent: float64(90 + r), LatencyRatio: 0.5, Compliant: ok}
			if !ok {
				f.MeasuredSeconds = 120 // ended early
			}
			p := f
			p.MeasuredSeconds = 60
			s.Steps = append(s.Steps, SweepStep{Active: from + i, Repeat: r + 1, Full: f, Probe: p, Whole: f})
		}
	}
	return s
}

func TestTrueBoundary(t *testing.T) {
	T, F := true, false
	for _, tc := range []struct {
		name    string
		sweep   *Sweep
		loaded  int
		want    int
		wantErr string
	}{
		{"majority crossing", testSweep(10, []bool{T, T, T}, []bool{T, F, T}, []bool{F, T, F}, []bool{F, F, F}), 13, 11, ""},
		{"a majority pass above the first majority failure does not count",
			testSweep(10, []bool{T, T, T}, []bool{F, F, T}, []bool{T, T, F}, []bool{F, F, F}), 13, 10, ""},
		{"every count up to loaded passes", testSweep(10, []bool{T, T, T}, []bool{T, T, F}, []bool{F, F, F}), 11, 11, ""},
		{"a tie is not a majority", testSweep(10, []bool{T, T}, []bool{T, F}), 11, 10, ""},
		{"boundary below the sweep", testSweep(10, []bool{F, F, T}, []bool{F, F, F}), 11, 0, "boundary lies below the sweep"},
		{"loaded beyond the sweep", testSweep(10, []bool{T}, []bool{F}), 12, 0, "beyond the recorded range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.sweep.TrueBoundary(tc.loaded)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case got != tc.want:
				t.Errorf("TrueBoundary(%d) = %d, want %d", tc.loaded, got, tc.want)
			}
		})
	}
}

func TestSweepValidate(t *testing.T) {
	ok := testSweep(10, []bool{true}, []bool{false})
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	gap := testSweep(10, []bool{true}, []bool{false})
	gap.Steps[1].Active = 12
	if err := gap.Validate(); err == nil || !strings.Contains(err.Error(), "count 11 is missing") {
		t.Errorf("a gap in the counts: %v", err)
	}
	long := testSweep(10, []bool{true})
	long.ProbeSeconds = 400
	if err := long.Validate(); err == nil || !strings.Contains(err.Error(), "step lengths") {
		t.Errorf("a probe longer than a full step: %v", err)
	}
}

// A trial hands out the repeats at a count in its drawn order, a different recording for each
// step at that count, full or probe figures by the step's kind, and counts the search time as
// status.result.searchTime does.
func TestTrialRun(t *testing.T) {
	T, F := true, false
	// 10 and 11 pass in every repeat, 12 fails in every repeat: the line search from 11 runs 11,
	// 12 (fail) and stops at 11 with the bracket 11..12.
	s := testSweep(10, []bool{T, T, T}, []bool{T, T, T}, []bool{F, F, F})
	trial := s.NewTrial(rand.New(rand.NewPCG(1, 2)))
	p := search.Params{Mode: search.MaxCompliant, Strategy: search.LineSearch, Warehouses: 12, Start: 11}
	o, err := trial.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	if o.Decision.MaxCompliant != 11 || len(o.Steps) != 2 || o.Full != 2 || o.Probes != 0 {
		t.Fatalf("line search: %+v", o)
	}
	// Two full steps of 1 + 5 minutes; the failing one ended after 2 of its 5 measured minutes.
	if o.Minutes != 12 || o.EarlyMinutes != 6+3 {
		t.Errorf("minutes %g (early %g), want 12 (9)", o.Minutes, o.EarlyMinutes)
	}
	// The first step at 11 is the first repeat of the trial's order at 11: its efficiency names it.
	if want := trial.order[11][0].Full.EfficiencyPercent; o.Steps[0].EfficiencyPercent != want {
		t.Errorf("first step at 11: efficiency %g, want the order's first repeat's %g", o.Steps[0].EfficiencyPercent, want)
	}

	// The guided search with probes: a probe takes the probe figures and a probe's time.
	g, err := trial.Run(search.Params{Mode: search.MaxCompliant, Strategy: search.Guided, Warehouses: 12, Start: 11, Probes: true, MinEfficiencyPercent: 85})
	if err != nil {
		t.Fatal(err)
	}
	probes, full := 0, 0
	used := map[int]int{}
	for _, st := range g.Steps {
		if st.Kind == search.Probe {
			probes++
		} else {
			full++
		}
		if want := trial.order[st.ActiveWarehouses][used[st.ActiveWarehouses]%3].Full.EfficiencyPercent; st.EfficiencyPercent != want {
			t.Errorf("step at %d: efficiency %g, want the next repeat's %g", st.ActiveWarehouses, st.EfficiencyPercent, want)
		}
		used[st.ActiveWarehouses]++
	}
	if probes == 0 || g.Probes != probes || g.Full != full || g.Minutes != float64(2*probes+6*full) {
		t.Errorf("guided: %d probes, %d full, minutes %g: %+v", probes, full, g.Minutes, g)
	}

	// A count outside the sweep is an error, not a made-up measurement.
	if _, err := trial.Run(search.Params{Mode: search.MaxCompliant, Strategy: search.LineSearch, Warehouses: 20, Start: 15}); err == nil ||
		!strings.Contains(err.Error(), "asked for 15 active warehouses") {
		t.Errorf("a count outside the sweep: %v", err)
	}
}

// A search that asks for more steps at a count than the sweep has repeats reuses them and says so.
func TestTrialReusesRepeats(t *testing.T) {
	s := testSweep(1, []bool{true})
	trial := s.NewTrial(rand.New(rand.NewPCG(1, 2)))
	// Guided over 1..1: a probe at 1, then the full step at 1 confirms: two steps, one repeat.
	o, err := trial.Run(search.Params{Mode: search.MaxCompliant, Strategy: search.Guided, Warehouses: 1, Probes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Steps) != 2 || o.Reused != 1 || o.Decision.MaxCompliant != 1 {
		t.Errorf("steps %d, reused %d, answer %d: want 2, 1, 1", len(o.Steps), o.Reused, o.Decision.MaxCompliant)
	}
}
