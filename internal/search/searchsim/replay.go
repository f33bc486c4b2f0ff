package searchsim

import (
	"fmt"
	"math/rand/v2"

	"github.com/tpcc-operator/tpcc-operator/internal/search"
)

// Trial is one replay of a recorded sweep: for every recorded count a random order of its
// repeats. A search run against the trial gets, for its i-th step at a count, the i-th repeat of
// that order (wrapping around once the repeats are used up): a full step gets that repeat's full
// figures, a probe its probe figures, so two steps at one count are two different recordings
// whenever the sweep has them. Every strategy run against the same trial meets the same
// recordings in the same order (common random numbers).
type Trial struct {
	sweep *Sweep
	order map[int][]SweepStep
}

// NewTrial draws a trial from rng.
func (s *Sweep) NewTrial(rng *rand.Rand) *Trial {
	t := &Trial{sweep: s, order: map[int][]SweepStep{}}
	for _, w := range s.Counts() {
		steps := s.At(w)
		rng.Shuffle(len(steps), func(i, j int) { steps[i], steps[j] = steps[j], steps[i] })
		t.order[w] = steps
	}
	return t
}

// ReplayOutcome is a whole search replayed against a trial.
type ReplayOutcome struct {
	Decision search.Decision
	Steps    []search.StepOutcome
	// Minutes is the search time as controllers/run/result.go counts it (status.result.searchTime):
	// every step's ramp-up plus its planned measured interval, at the sweep's step lengths.
	Minutes float64
	// EarlyMinutes counts the measured time a step actually ran: a step certain to fail ends early.
	EarlyMinutes float64
	Probes, Full int
	// Reused counts steps that got a repeat this search had already used at that count (it asked
	// for more steps at the count than the sweep has repeats).
	Reused int
}

// Run drives the search p against the trial until it answers. It fails if the search asks for a
// count the sweep did not record.
func (t *Trial) Run(p search.Params) (ReplayOutcome, error) {
	var out ReplayOutcome
	used := map[int]int{}
	ramp := t.sweep.RampUpSeconds / 60
	for range maxSteps {
		d, err := search.Next(p, out.Steps)
		if err != nil {
			return out, err
		}
		if d.Done {
			out.Decision = d
			return out, nil
		}
		repeats := t.order[d.Run]
		if len(repeats) == 0 {
			return out, fmt.Errorf("the search asked for %d active warehouses; the sweep recorded %d..%d", d.Run, t.sweep.Counts()[0], t.sweep.Counts()[len(t.sweep.Counts())-1])
		}
		i := used[d.Run]
		used[d.Run]++
		if i >= len(repeats) {
			out.Reused++
		}
		rec := repeats[i%len(repeats)]
		f, planned := rec.Full, t.sweep.DurationSeconds
		if d.Kind == search.Probe {
			f, planned = rec.Probe, t.sweep.ProbeSeconds
			out.Probes++
		} else {
			out.Full++
		}
		out.Minutes += ramp + planned/60
		out.EarlyMinutes += ramp + f.MeasuredSeconds/60
		out.Steps = append(out.Steps, search.StepOutcome{
			ActiveWarehouses: d.Run, Compliant: f.Compliant, Kind: d.Kind, Measured: true,
			EfficiencyPercent: f.EfficiencyPercent, LatencyRatio: f.LatencyRatio, ErrorPercent: f.ErrorPercent,
		})
	}
	return out, fmt.Errorf("no answer after %d steps", maxSteps)
}

// PassRate is the share of the recorded full-length repeats at active warehouses that were
// compliant, and how many there are.
func (s *Sweep) PassRate(active int) (float64, int) {
	steps := s.At(active)
	pass := 0
	for _, st := range steps {
		if st.Full.Compliant {
			pass++
		}
	}
	if len(steps) == 0 {
		return 0, 0
	}
	return float64(pass) / float64(len(steps)), len(steps)
}

// TrueBoundary is the sweep's answer for a search over 1..loaded: the highest count up to which
// every recorded count was compliant in a majority of its full-length repeats (the first count
// from the bottom of the range where the majority fails, minus one), or loaded if none up to it
// fails. It fails if the lowest recorded count already fails in the majority (the boundary lies
// below the sweep) or loaded lies beyond the recorded range.
func (s *Sweep) TrueBoundary(loaded int) (int, error) {
	counts := s.Counts()
	if loaded > counts[len(counts)-1] {
		return 0, fmt.Errorf("loaded %d is beyond the recorded range %d..%d", loaded, counts[0], counts[len(counts)-1])
	}
	for _, w := range counts {
		if w > loaded {
			break
		}
		if rate, _ := s.PassRate(w); rate <= 0.5 {
			if w == counts[0] {
				return 0, fmt.Errorf("the lowest recorded count %d fails in %.0f %% of its repeats: the boundary lies below the sweep", w, 100*(1-rate))
			}
			return w - 1, nil
		}
	}
	return loaded, nil
}
