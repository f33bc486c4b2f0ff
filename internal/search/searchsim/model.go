// Package searchsim simulates databases under the TPC-C client's closed-loop
// load, so capacity-search strategies can be compared over thousands of them
// in the tests and benchmarks of package search, without a database.
//
// A Database is a closed system: 10 terminals per active warehouse, each
// cycling through keying, thinking (Think, 21 s on average under the spec's
// mix) and a transaction. Its throughput saturates at the rate of Capacity
// warehouses; past that, by the interactive response time law, the mean
// response time grows linearly with the terminals (R = N/C − Z), smoothed
// around the knee by Knee (wider for the distributed engines' gentler
// curve). Efficiency is Z/(R+Z); the worst latency percentile is Tail times
// the mean response time (PostgreSQL's long tail: 2–4×; the distributed
// engines: 1.3–2×) on top of Base; errors, where the model has them, grow
// exponentially with load from ErrorOnset. Measurements carry noise that
// shrinks with the step's length as real sampling does: a count-sampling
// part (1/√n) and a drift part (checkpoints, compactions) that averages out
// over longer steps.
package searchsim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"
)

// SLA is what a simulated step is judged against.
type SLA struct {
	MinEfficiencyPercent float64
	LatencyLimit         time.Duration
	MaxErrorPercent      float64
}

// Boundary names the criterion that ends compliance for a database.
type Boundary string

const (
	ByLatency    Boundary = "latency"
	ByEfficiency Boundary = "efficiency"
	ByErrors     Boundary = "errors"
)

// Database is a simulated database and the SLA it is measured against.
type Database struct {
	Name       string
	Boundary   Boundary
	SLA        SLA
	Capacity   float64       // warehouses whose offered load saturates the database
	Think      time.Duration // mean keying + think time per transaction (Z)
	Base       time.Duration // worst-percentile response time at light load
	Knee       float64       // width of the transition into saturation, relative
	Tail       float64       // worst percentile / mean response time under queueing
	ErrorOnset float64       // warehouses where errors reach the SLA's bound (0: no errors)
	ErrorWidth float64       // relative load increase that multiplies errors by e
	Noise      float64       // multiplies every noise term's standard deviation (0: no noise)
	Seed       uint64
}

// The drift part of the measurement noise of a 10-minute step, relative
// (standard deviation of the logarithm); its variance scales with 10 minutes
// over the step's length. Latency drifts most (checkpoints come and go),
// efficiency least (it counts transactions, which average over the step).
const (
	driftLatency    = 0.005
	driftEfficiency = 0.001
	driftErrors     = 0.02
)

// Figures are one step's measurements.
type Figures struct {
	EfficiencyPercent float64
	Latency           time.Duration // the worst bound's percentile
	ErrorPercent      float64
	Compliant         bool
}

// expected are the noiseless figures at w active warehouses.
func (d Database) expected(w float64) (eff float64, worst time.Duration, errPct float64) {
	z := d.Think.Seconds()
	x := w/d.Capacity - 1
	queue := z * (x + math.Sqrt(x*x+d.Knee*d.Knee)) / 2
	eff = z / (queue + z)
	worst = d.Base + time.Duration(d.Tail*queue*float64(time.Second))
	if d.ErrorOnset > 0 {
		errPct = d.SLA.MaxErrorPercent * math.Exp((w-d.ErrorOnset)/(d.ErrorWidth*d.ErrorOnset))
	}
	return eff, worst, errPct
}

func (d Database) judge(f *Figures) {
	f.Compliant = f.EfficiencyPercent >= d.SLA.MinEfficiencyPercent && f.Latency <= d.SLA.LatencyLimit &&
		f.ErrorPercent <= d.SLA.MaxErrorPercent
}

// Expected are the noiseless figures of a step at active warehouses.
func (d Database) Expected(active int) Figures {
	eff, worst, errPct := d.expected(float64(active))
	f := Figures{EfficiencyPercent: 100 * eff, Latency: worst, ErrorPercent: errPct}
	d.judge(&f)
	return f
}

// Measure is a step of the given measured length at active warehouses. The
// same database, count and length always measure the same figures (common
// random numbers: two strategies that run the same step see the same
// result), and a different length or count draws new noise.
func (d Database) Measure(active int, length time.Duration) Figures {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", active, length)
	rng := rand.New(rand.NewPCG(d.Seed, h.Sum64()))

	eff, worst, errPct := d.expected(float64(active))
	minutes := length.Minutes()
	drift := 10 / minutes // drift variance relative to a 10-minute step
	newOrders := max(12.86*float64(active)*eff*minutes, 1)
	noisy := func(v, sd float64) float64 { return v * math.Exp(d.Noise*sd*rng.NormFloat64()) }

	f := Figures{
		EfficiencyPercent: 100 * noisy(eff, math.Sqrt(1/newOrders+driftEfficiency*driftEfficiency*drift)),
		Latency:           time.Duration(noisy(float64(worst), math.Sqrt(1.7/newOrders+driftLatency*driftLatency*drift))),
	}
	if errPct > 0 {
		failed := max(newOrders*2.2*errPct/100, 1) // all five types fail, not only New-Order
		f.ErrorPercent = noisy(errPct, math.Sqrt(1/failed+driftErrors*driftErrors*drift))
	}
	d.judge(&f)
	return f
}

// Boundary is the noiseless answer: the largest active count (1..limit) the
// database is compliant at, 0 if none.
func (d Database) TrueBoundary(limit int) int {
	lo, hi := 0, limit+1 // Expected(lo) compliant (or lo = 0), Expected(hi) not (or hi = limit+1)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if d.Expected(mid).Compliant {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
