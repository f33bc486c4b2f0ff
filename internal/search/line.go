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
	start := p.Start
	if start == 0 {
		start = (p.Warehouses + 1) / 2
	}
	precision := p.Precision
	if precision == 0 {
		precision = DefaultPrecision(p.Warehouses)
	}
	return &lineSearch{
		warehouses:  p.Warehouses,
		precision:   precision,
		highestPass: 0,
		lowestFail:  p.Warehouses + 1,
		cur:         min(max(start, 1), p.Warehouses),
		step:        precision,
		first:       true,
	}
}

// done reports whether the bracket is within precision. An end of the domain
// counts only once measured: without a failure the search must pass at the
// loaded count, without a pass it must fail at 1.
func (s *lineSearch) done() bool {
	if s.highestPass == s.warehouses || s.lowestFail == 1 {
		return true
	}
	measuredBoth := s.highestPass >= 1 && s.lowestFail <= s.warehouses
	return measuredBoth && s.lowestFail-s.highestPass <= s.precision
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
