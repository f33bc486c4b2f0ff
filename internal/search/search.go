// Package search decides the active-warehouse count of each step of a
// capacity search. It is a pure function of the recorded history, so an
// operator restarted at any moment asks it again and gets the same answer.
//
// MaxCompliant mode is CockroachDB roachtest tpccbench's adaptive line
// search (research/tpcc-rules.md §2.5): start at an estimate with a step of
// one precision unit; while results keep agreeing (pass, pass… or fail,
// fail…) double the step in the same direction; on the first disagreement
// reverse and halve, and keep halving from then on; never leave the open
// interval between the highest compliant and the lowest non-compliant count.
// It differs from tpccbench in what it returns: the highest count actually
// measured compliant (tpccbench returns the midpoint of the final bracket,
// a count never run), and it only treats the ends of the domain as known
// once they were measured: every count up to the loaded warehouses passing
// needs a pass at the loaded count, and "none compliant" a failure at 1.
package search

import (
	"fmt"
)

// Mode selects how steps are chosen.
type Mode string

const (
	// MaxCompliant searches the largest compliant active-warehouse count.
	MaxCompliant Mode = "MaxCompliant"
	// Fixed runs one step at the loaded warehouse count.
	Fixed Mode = "Fixed"
)

// Params are the inputs of a search; they must not change during a search.
type Params struct {
	Mode Mode
	// Warehouses is the loaded warehouse count: the search runs 1..Warehouses.
	Warehouses int
	// Start is the first active count, an estimate of the answer. 0 means the
	// middle of the domain; a value above Warehouses is clamped to it.
	Start int
	// Precision is the bracket width at which the search stops. 0 means
	// DefaultPrecision(Warehouses).
	Precision int
}

// DefaultPrecision is tpccbench's max(1, W/200).
func DefaultPrecision(warehouses int) int { return max(1, warehouses/200) }

// StepOutcome is a measured step as recorded in status. A step that failed or
// crashed is recorded as non-compliant: it never aborts the search.
type StepOutcome struct {
	ActiveWarehouses int
	Compliant        bool
}

// Decision is what to do next. Either Done is false and Run is the active
// warehouse count of the next step, or Done is true and MaxCompliant is the
// answer (0 when no count was compliant). HighestCompliant and
// LowestNonCompliant bracket the answer so far (0 and Warehouses+1 when no
// step has been measured on that side).
type Decision struct {
	Done               bool
	Run                int
	MaxCompliant       int
	HighestCompliant   int
	LowestNonCompliant int
	Reason             string
}

// Next replays the recorded steps and returns the next decision. It fails if
// the parameters are invalid or the history is not one this search produces
// (a step at another count than it would have chosen, or a step after the
// search finished), which means the parameters changed or status is corrupt.
func Next(p Params, steps []StepOutcome) (Decision, error) {
	if err := p.validate(); err != nil {
		return Decision{}, err
	}
	if p.Mode == Fixed {
		return nextFixed(p, steps)
	}
	s := newLineSearch(p)
	for i, step := range steps {
		if s.done() {
			return Decision{}, fmt.Errorf("search history: step %d at %d warehouses was recorded after the search finished at step %d", i+1, step.ActiveWarehouses, i)
		}
		if step.ActiveWarehouses != s.cur {
			return Decision{}, fmt.Errorf("search history: step %d ran %d active warehouses but the search chose %d: the search parameters changed or status is corrupt", i+1, step.ActiveWarehouses, s.cur)
		}
		s.record(step.Compliant)
	}
	d := Decision{HighestCompliant: s.highestPass, LowestNonCompliant: s.lowestFail}
	if !s.done() {
		d.Run = s.cur
		return d, nil
	}
	d.Done = true
	d.MaxCompliant = s.highestPass
	switch {
	case s.highestPass == p.Warehouses:
		d.Reason = fmt.Sprintf("compliant at all %d loaded warehouses: load more warehouses to find the limit", p.Warehouses)
	case s.lowestFail == 1:
		d.Reason = "no active warehouse count is compliant: 1 warehouse failed"
	default:
		d.Reason = fmt.Sprintf("compliant at %d, non-compliant at %d: within precision %d", s.highestPass, s.lowestFail, s.precision)
	}
	return d, nil
}

func (p Params) validate() error {
	if p.Mode != MaxCompliant && p.Mode != Fixed {
		return fmt.Errorf("search mode: %q, want %q or %q", p.Mode, MaxCompliant, Fixed)
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
	return nil
}

func nextFixed(p Params, steps []StepOutcome) (Decision, error) {
	d := Decision{LowestNonCompliant: p.Warehouses + 1}
	switch {
	case len(steps) == 0:
		d.Run = p.Warehouses
		return d, nil
	case len(steps) > 1:
		return Decision{}, fmt.Errorf("search history: fixed mode runs one step, %d are recorded", len(steps))
	case steps[0].ActiveWarehouses != p.Warehouses:
		return Decision{}, fmt.Errorf("search history: fixed mode runs %d warehouses, the recorded step ran %d", p.Warehouses, steps[0].ActiveWarehouses)
	}
	d.Done = true
	if steps[0].Compliant {
		d.MaxCompliant, d.HighestCompliant = p.Warehouses, p.Warehouses
		d.Reason = fmt.Sprintf("fixed mode: compliant at %d warehouses", p.Warehouses)
	} else {
		d.LowestNonCompliant = p.Warehouses
		d.Reason = fmt.Sprintf("fixed mode: non-compliant at %d warehouses", p.Warehouses)
	}
	return d, nil
}
