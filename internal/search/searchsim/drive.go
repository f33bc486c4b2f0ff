package searchsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/search"
)

// Timing is the length of the steps a search runs: every step ramps up, then
// measures Duration (full) or Probe (probe).
type Timing struct {
	RampUp, Duration, Probe time.Duration
}

// Times is p with the time a full-length step and a probe of t take, ramp-up
// included: what the guided search chooses its shape from (search.Params).
func (t Timing) Times(p search.Params) search.Params {
	p.StepTime, p.ProbeTime = t.RampUp+t.Duration, t.RampUp+t.Probe
	return p
}

// StudyTiming is the operator's default: 2-minute ramp-up, 10-minute steps,
// probes of a fifth of that.
var StudyTiming = Timing{RampUp: 2 * time.Minute, Duration: 10 * time.Minute, Probe: 2 * time.Minute}

// Outcome is a whole search against one database.
type Outcome struct {
	Decision search.Decision
	Steps    []search.StepOutcome
	Minutes  float64 // measured time including ramp-ups, to the answer
	Probes   int
	Full     int
}

// maxSteps guards the simulation against a search that never ends.
const maxSteps = 500

// Run drives the search p against db until it answers.
func Run(p search.Params, db Database, t Timing) (Outcome, error) {
	var out Outcome
	for range maxSteps {
		d, err := search.Next(p, out.Steps)
		if err != nil {
			return out, err
		}
		if d.Done {
			out.Decision = d
			return out, nil
		}
		length := t.Duration
		if d.Kind == search.Probe {
			length = t.Probe
			out.Probes++
		} else {
			out.Full++
		}
		f := db.Measure(d.Run, length)
		out.Minutes += (t.RampUp + length).Minutes()
		out.Steps = append(out.Steps, search.StepOutcome{
			ActiveWarehouses: d.Run, Compliant: f.Compliant, Kind: d.Kind, Measured: true,
			EfficiencyPercent: f.EfficiencyPercent, LatencyRatio: float64(f.Latency) / float64(db.SLA.LatencyLimit),
			ErrorPercent: f.ErrorPercent,
		})
	}
	return out, fmt.Errorf("%s: no answer after %d steps", db.Name, maxSteps)
}

// Params is the search over a case's loaded warehouses with its SLA's
// thresholds, from the default start.
func (c Case) Params(strategy search.Strategy) search.Params {
	return search.Params{Mode: search.MaxCompliant, Strategy: strategy, Warehouses: c.Warehouses, Probes: strategy == search.Guided,
		MinEfficiencyPercent: c.DB.SLA.MinEfficiencyPercent, MaxErrorPercent: c.DB.SLA.MaxErrorPercent}
}

// Case is a simulated database with the warehouse count loaded for it.
type Case struct {
	DB         Database
	Warehouses int
	// Target is the boundary the case was generated around (the noiseless
	// boundary may differ by rounding, or be the loaded count when every
	// count passes).
	Target int
}

// TPCCSLA is the BenchmarkRun default: 85 % efficiency, p90 within 5 s
// (the New-Order, Payment, Order-Status and Delivery bound), 1 % errors.
var TPCCSLA = SLA{MinEfficiencyPercent: 85, LatencyLimit: 5 * time.Second, MaxErrorPercent: 1}

// Population is count simulated databases, reproducible from seed: boundaries
// log-uniform in 1..20 000 warehouses; half like a single writer with synchronous
// standbys (short base latency, sharp knee, long tail), half like the distributed engines (higher
// base latency, gentle knee, short tail); compliance ended by latency (half),
// efficiency (a quarter) or errors (a quarter); loaded warehouses 1.15–4× the
// boundary, and for one case in twenty fewer than the boundary (every count
// passes).
//
// noise scales the measurement noise of every database (1: the model's
// calibration, see Measure; 0: none).
func Population(count int, seed uint64, noise float64) []Case {
	return population(count, seed, noise, 0)
}

// AtLoaded is count simulated databases of Population's curve shapes, each
// with loaded warehouses and its boundary loaded/4..loaded/1.15 (uniform in
// the ratio): a study at one size.
func AtLoaded(count int, seed uint64, noise float64, loaded int) []Case {
	return population(count, seed, noise, loaded)
}

// population is Population, or AtLoaded when loaded > 0.
func population(count int, seed uint64, noise float64, loaded int) []Case {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	between := func(a, b float64) float64 { return a + (b-a)*rng.Float64() }
	cases := make([]Case, 0, count)
	for i := range count {
		db := Database{Name: fmt.Sprintf("db%04d", i), SLA: TPCCSLA, Think: 21 * time.Second, Noise: noise, Seed: rng.Uint64()}
		distributed := rng.IntN(2) == 1
		if distributed {
			db.Name += "-distributed"
			db.Base = time.Duration(between(40, 150) * float64(time.Millisecond))
			db.Knee, db.Tail = between(0.08, 0.3), between(1.6, 2)
		} else {
			db.Name += "-single-writer"
			db.Base = time.Duration(between(5, 40) * float64(time.Millisecond))
			db.Knee, db.Tail = between(0.02, 0.1), between(2, 4)
		}
		switch k := rng.IntN(4); {
		case k < 2:
			db.Boundary = ByLatency
		case k == 2:
			db.Boundary = ByEfficiency
			db.Tail = between(1, 1.2) // p90 under 5 s while efficiency falls to 85 %
		default:
			db.Boundary = ByErrors
		}
		target := math.Exp(between(0, math.Log(20000)))
		if loaded > 0 {
			target = float64(loaded) / between(1.15, 4)
		}
		ratio := db.unitBoundary() // boundary / capacity without errors
		if db.Boundary == ByErrors {
			onset := between(0.5, 0.95) // of the boundary without errors
			db.Capacity = target / (onset * ratio)
			db.ErrorOnset, db.ErrorWidth = target, between(0.02, 0.1)
		} else {
			db.Capacity = target / ratio
		}
		warehouses := target * between(1.15, 4)
		if rng.IntN(20) == 0 {
			warehouses = target * between(0.5, 0.95)
		}
		if loaded > 0 {
			warehouses = float64(loaded)
		}
		cases = append(cases, Case{DB: db, Warehouses: max(1, int(math.Round(warehouses))), Target: max(1, int(target))})
	}
	return cases
}

// unitBoundary is where the noiseless model leaves compliance, in multiples
// of Capacity, ignoring errors: it depends only on the curve's shape.
func (d Database) unitBoundary() float64 {
	d.Capacity, d.ErrorOnset = 1, 0
	lo, hi := 0.0, 100.0
	for range 100 {
		mid := (lo + hi) / 2
		eff, worst, _ := d.expected(mid)
		if 100*eff >= d.SLA.MinEfficiencyPercent && worst <= d.SLA.LatencyLimit {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
