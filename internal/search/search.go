// Package search decides the active-warehouse count of each step of a
// capacity search. It is a pure function of the recorded history, so an
// operator restarted at any moment asks it again and gets the same answer.
//
// MaxCompliant mode has two strategies.
//
// LineSearch is CockroachDB roachtest tpccbench's adaptive line search
// (research/tpcc-rules.md §2.5): start at an estimate with a step of one
// precision unit; while results keep agreeing (pass, pass… or fail, fail…)
// double the step in the same direction; on the first disagreement reverse
// and halve, and keep halving from then on; never leave the open interval
// between the highest compliant and the lowest non-compliant count. It
// differs from tpccbench in what it returns: the highest count actually
// measured compliant (tpccbench returns the midpoint of the final bracket, a
// count never run), and it only treats the ends of the domain as known once
// they were measured: every count up to the loaded warehouses passing needs a
// pass at the loaded count, and "none compliant" a failure at 1. Every step
// is full-length.
//
// Guided (guided.go, the default) uses what each step measured — efficiency,
// the worst latency bound's ratio to its limit, errors — to estimate where
// compliance ends, narrows the bracket with steps placed there — short probe
// steps where the domain is wide enough for them to pay (Params.probing),
// full-length steps otherwise — and then confirms the answer with
// full-length steps. Its answer, like the
// line search's, always rests on full-length steps: a compliant one at the
// answer and, unless the answer is the loaded count, a non-compliant one at
// most one precision above it.
package search

import (
	"fmt"
	"time"
)

// Mode selects how steps are chosen.
type Mode string

const (
	// MaxCompliant searches the largest compliant active-warehouse count.
	MaxCompliant Mode = "MaxCompliant"
	// Fixed runs one step at the loaded warehouse count.
	Fixed Mode = "Fixed"
)

// Strategy is how MaxCompliant chooses its steps.
type Strategy string

const (
	// Guided estimates the boundary from what the steps measured and probes
	// there with short steps; full-length steps confirm the answer.
	Guided Strategy = "Guided"
	// LineSearch is tpccbench's adaptive line search over full-length steps.
	LineSearch Strategy = "LineSearch"
)

// Kind is a step's length class.
type Kind string

const (
	// Full is a step of the workload's whole duration. Answers rest on these.
	Full Kind = "Full"
	// Probe is a shorter step the guided search uses to narrow the bracket.
	Probe Kind = "Probe"
)

// Params are the inputs of a search; they must not change during a search.
type Params struct {
	Mode Mode
	// Strategy of MaxCompliant; empty means Guided.
	Strategy Strategy
	// Warehouses is the loaded warehouse count: the search runs 1..Warehouses.
	Warehouses int
	// Start is the first active count, an estimate of the answer. 0 means the
	// middle of the domain; a value above Warehouses is clamped to it.
	Start int
	// Precision is the bracket width at which the search stops. 0 means
	// DefaultPrecision(Warehouses).
	Precision int
	// Probes lets the guided search measure short probe steps while it
	// narrows the bracket. Without it every guided step is full-length.
	Probes bool
	// StepTime and ProbeTime are what a full-length step and a probe take,
	// ramp-up included. With both set, the guided search probes only where
	// probes pay for themselves (Params.probing); with either 0 it probes
	// whenever Probes is set.
	StepTime, ProbeTime time.Duration
	// MinEfficiencyPercent and MaxErrorPercent are the SLA's thresholds, used
	// only to estimate where compliance ends (each step's verdict is
	// recorded in StepOutcome.Compliant). 0 leaves that criterion out of the
	// estimates.
	MinEfficiencyPercent float64
	MaxErrorPercent      float64
}

// DefaultPrecision is tpccbench's max(1, W/200).
func DefaultPrecision(warehouses int) int { return max(1, warehouses/200) }

// StepOutcome is a measured step as recorded in status. A step that failed or
// crashed is recorded as non-compliant: it never aborts the search.
type StepOutcome struct {
	ActiveWarehouses int
	Compliant        bool
	// Kind of the step; empty means Full.
	Kind Kind
	// Measured is true when the step produced figures (a crashed step has
	// none); the guided search estimates only from measured steps.
	Measured bool
	// EfficiencyPercent is tpmC in percent of 12.86 per active warehouse.
	EfficiencyPercent float64
	// LatencyRatio is the largest ratio of a latency bound's measured
	// percentile to its limit (above 1: that bound failed).
	LatencyRatio float64
	// ErrorPercent is the share of transactions that failed with an error.
	ErrorPercent float64
}

func (s StepOutcome) kind() Kind {
	if s.Kind == "" {
		return Full
	}
	return s.Kind
}

// Decision is what to do next. Either Done is false and Run is the active
// warehouse count of the next step, of kind Kind, or Done is true and
// MaxCompliant is the answer (0 when no count was compliant).
// HighestCompliant and LowestNonCompliant bracket the answer by full-length
// steps so far (0 and Warehouses+1 when no full step has been measured on
// that side). CompliantStep and NonCompliantStep are the indexes of the
// full-length steps at those two counts, -1 where there is none: once Done,
// the steps the answer rests on.
type Decision struct {
	Done               bool
	Run                int
	Kind               Kind
	MaxCompliant       int
	HighestCompliant   int
	LowestNonCompliant int
	CompliantStep      int
	NonCompliantStep   int
	Reason             string
}

// Next replays the recorded steps and returns the next decision. It fails if
// the parameters are invalid or the history is not one this search produces
// (a step at another count or of another kind than it would have chosen, or a
// step after the search finished), which means the parameters changed or
// status is corrupt.
func Next(p Params, steps []StepOutcome) (Decision, error) {
	if err := p.validate(); err != nil {
		return Decision{}, err
	}
	switch {
	case p.Mode == Fixed:
		return nextFixed(p, steps)
	case p.Strategy == LineSearch:
		return nextLine(p, steps)
	default:
		return nextGuided(p, steps)
	}
}

// replay checks each recorded step against what decide chose after the steps
// before it, and returns decide's answer after all of them.
func replay(p Params, steps []StepOutcome, decide func(Params, []StepOutcome) Decision) (Decision, error) {
	for i, step := range steps {
		d := decide(p, steps[:i])
		if d.Done {
			return Decision{}, fmt.Errorf("search history: step %d at %d warehouses was recorded after the search finished at step %d", i+1, step.ActiveWarehouses, i)
		}
		if step.ActiveWarehouses != d.Run {
			return Decision{}, fmt.Errorf("search history: step %d ran %d active warehouses but the search chose %d: the search parameters changed or status is corrupt", i+1, step.ActiveWarehouses, d.Run)
		}
		if step.kind() != d.Kind {
			return Decision{}, fmt.Errorf("search history: step %d was a %s step but the search chose a %s step: the search parameters changed or status is corrupt", i+1, step.kind(), d.Kind)
		}
	}
	return decide(p, steps), nil
}

// finished is the decision once the bracket by full-length steps is closed.
func finished(p Params, lo, hi, loStep, hiStep, precision int) Decision {
	d := Decision{Done: true, MaxCompliant: lo, HighestCompliant: lo, LowestNonCompliant: hi, CompliantStep: loStep, NonCompliantStep: hiStep}
	switch {
	case lo == p.Warehouses:
		d.Reason = fmt.Sprintf("compliant at all %d loaded warehouses: load more warehouses to find the limit", p.Warehouses)
	case hi == 1:
		d.Reason = "no active warehouse count is compliant: 1 warehouse failed"
	default:
		d.Reason = fmt.Sprintf("compliant at %d, non-compliant at %d: within precision %d", lo, hi, precision)
	}
	return d
}

// closed reports whether a bracket (lo, hi) over 1..n answers the search:
// the top passed, the bottom failed, or both sides were measured within
// precision.
func closed(lo, hi, n, precision int) bool {
	if lo == n || hi == 1 {
		return true
	}
	return lo >= 1 && hi <= n && hi-lo <= precision
}

func (p Params) precision() int {
	if p.Precision > 0 {
		return p.Precision
	}
	return DefaultPrecision(p.Warehouses)
}

func (p Params) validate() error {
	if p.Mode != MaxCompliant && p.Mode != Fixed {
		return fmt.Errorf("search mode: %q, want %q or %q", p.Mode, MaxCompliant, Fixed)
	}
	if p.Strategy != "" && p.Strategy != Guided && p.Strategy != LineSearch {
		return fmt.Errorf("search strategy: %q, want %q or %q", p.Strategy, Guided, LineSearch)
	}
	if p.Warehouses < 1 {
		return fmt.Errorf("search warehouses: %d, must be >= 1", p.Warehouses)
	}
	if p.Start < 0 {
		return fmt.Errorf("search start: %d, must be >= 0 (0 = middle of 1..%d)", p.Start, p.Warehouses)
	}
	if p.Precision < 0 {
		return fmt.Errorf("search precision: %d, must be >= 0 (0 = max(1, warehouses/200))", p.Precision)
	}
	if p.StepTime < 0 || p.ProbeTime < 0 {
		return fmt.Errorf("search step times: step %v, probe %v, must be >= 0", p.StepTime, p.ProbeTime)
	}
	if p.MinEfficiencyPercent < 0 || p.MinEfficiencyPercent > 100 {
		return fmt.Errorf("search minimum efficiency: %g %%, must be in 0..100", p.MinEfficiencyPercent)
	}
	if p.MaxErrorPercent < 0 || p.MaxErrorPercent > 100 {
		return fmt.Errorf("search maximum error share: %g %%, must be in 0..100", p.MaxErrorPercent)
	}
	return nil
}

func (p Params) start() int {
	start := p.Start
	if start == 0 {
		start = (p.Warehouses + 1) / 2
	}
	return min(max(start, 1), p.Warehouses)
}

func nextFixed(p Params, steps []StepOutcome) (Decision, error) {
	d := Decision{LowestNonCompliant: p.Warehouses + 1, Kind: Full, CompliantStep: -1, NonCompliantStep: -1}
	switch {
	case len(steps) == 0:
		d.Run = p.Warehouses
		return d, nil
	case len(steps) > 1:
		return Decision{}, fmt.Errorf("search history: fixed mode runs one step, %d are recorded", len(steps))
	case steps[0].ActiveWarehouses != p.Warehouses:
		return Decision{}, fmt.Errorf("search history: fixed mode runs %d warehouses, the recorded step ran %d", p.Warehouses, steps[0].ActiveWarehouses)
	case steps[0].kind() != Full:
		return Decision{}, fmt.Errorf("search history: fixed mode runs one full step, the recorded step is a %s step", steps[0].kind())
	}
	d.Done = true
	if steps[0].Compliant {
		d.MaxCompliant, d.HighestCompliant, d.CompliantStep = p.Warehouses, p.Warehouses, 0
		d.Reason = fmt.Sprintf("fixed mode: compliant at %d warehouses", p.Warehouses)
	} else {
		d.LowestNonCompliant, d.NonCompliantStep = p.Warehouses, 0
		d.Reason = fmt.Sprintf("fixed mode: non-compliant at %d warehouses", p.Warehouses)
	}
	return d, nil
}
