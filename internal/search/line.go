package search

// lineSearch is the state of the adaptive line search after some steps.
// Invariant: highestPass < cur < lowestFail, so every step shrinks the
// bracket and the search ends after at most Warehouses steps (in practice a
// logarithmic number, see the tests).
type lineSearch struct {
	warehouses  int
	precision   int
	highestPass int // 0 until a step passes
	lowestFail  int // warehouses+1 until a step fails
	cur         int
	step        int // signed: the last move
	first       bool
	overshot    bool
}

func newLineSearch(p Params) *lineSearch {
	precision := p.precision()
	return &lineSearch{
		warehouses:  p.Warehouses,
		precision:   precision,
		highestPass: 0,
		lowestFail:  p.Warehouses + 1,
		cur:         p.start(),
		step:        precision,
		first:       true,
	}
}

// nextLine is the line search's decision after the recorded steps.
func nextLine(p Params, steps []StepOutcome) (Decision, error) {
	return replay(p, steps, decideLine)
}

func decideLine(p Params, steps []StepOutcome) Decision {
	s := newLineSearch(p)
	for _, step := range steps {
		s.record(step.Compliant)
	}
	lo, hi := stepAt(steps, s.highestPass, true), stepAt(steps, s.lowestFail, false)
	if s.done() {
		return finished(p, s.highestPass, s.lowestFail, lo, hi, s.precision)
	}
	return Decision{Run: s.cur, Kind: Full, HighestCompliant: s.highestPass, LowestNonCompliant: s.lowestFail, CompliantStep: lo, NonCompliantStep: hi}
}

// stepAt is the index of the last full step at active warehouses with that
// outcome, or -1.
func stepAt(steps []StepOutcome, active int, compliant bool) int {
	for i := len(steps) - 1; i >= 0; i-- {
		if s := steps[i]; s.ActiveWarehouses == active && s.Compliant == compliant && s.kind() == Full {
			return i
		}
	}
	return -1
}

func (s *lineSearch) done() bool {
	return closed(s.highestPass, s.lowestFail, s.warehouses, s.precision)
}

// record takes the outcome at cur and moves cur to the next count.
func (s *lineSearch) record(pass bool) {
	direction := -1
	if pass {
		s.highestPass = s.cur
		direction = 1
	} else {
		s.lowestFail = s.cur
	}
	if s.done() {
		return
	}
	switch {
	case s.first:
		s.first = false
		s.step = direction * s.step
	case direction*s.step < 0: // the result disagrees with the direction: overshot
		s.overshot = true
		s.step = -s.step / 2
	case s.overshot:
		s.step /= 2
	default:
		s.step *= 2
	}
	// Stay strictly inside the bracket; this also turns a step halved to 0
	// into a move of one warehouse.
	lowest := s.highestPass - s.cur + 1
	highest := s.lowestFail - s.cur - 1
	s.step = min(max(s.step, lowest), highest)
	s.cur += s.step
}
