package search

import "math"

// The guided search.
//
// Evidence. Full-length steps bracket the answer: the highest compliant full
// step below the lowest non-compliant one. Probes bracket it more finely
// inside that full bracket; a probe outside it (contradicted by a full step)
// is ignored, so a confirmation that disagrees with the probes resumes the
// search from the full-length evidence.
//
// Phases. While the probe bracket is wider than the precision, the next step
// is a probe placed at an estimate of the boundary (below). Once it is
// narrow, full-length steps confirm it (confirm, below). The search ends
// when full-length steps alone close the bracket, exactly as the line search
// ends: a compliant full step within precision below a non-compliant one, a
// compliant full step at the loaded count, or a non-compliant one at 1.
//
// Estimates. A TPC-C client with keying and think times is a closed system:
// N terminals, each thinking Z seconds between transactions. By the
// interactive response time law, throughput is N/(R+Z), so efficiency (the
// share of the zero-response-time rate) is Z/(R+Z), and once the database is
// saturated at a throughput C, the mean response time grows linearly with the
// terminals: R = N/C − Z. One saturated step at W warehouses with efficiency
// e therefore predicts the whole curve beyond it: efficiency at W' is e·W/W',
// so efficiency reaches the SLA's minimum m at W·e/m; and response times,
// scaled by the ratio r of the step's worst percentile to its bound, reach
// the bound at W·(e + (1−e)/r). Errors have no such law: between a compliant
// and a non-compliant step the search interpolates each failing criterion's
// log headroom linearly. A step is taken as saturated below 95 % efficiency,
// above which efficiency is within the sampling noise of short steps. An
// estimate the steps contradict — a pass more than half a precision above
// it, or a failure as far below — is dropped, and the search bisects
// (modelEstimate).
//
// Placement. With estimate E, the next probe goes half a precision to the
// side whose bracket end is farther from E (E − p/2 to raise the compliant
// end, E + p/2 to lower the other), so two accurate estimates close the
// bracket. When the probes keep landing on the side the estimate did not
// expect, the offset doubles with each one, as the line search's steps do,
// so a poor model costs a logarithmic number of probes, not a linear one.
// Every step stays strictly inside the bracket, so the search terminates.

// probing reports whether the guided search narrows the bracket with probes,
// from what is known before the run: the domain and the steps' lengths.
// Narrowing a bracket of U precisions takes about k = log2 U steps, probes
// or full-length ones (bisection; the estimates do better on smooth curves,
// and probes, noisier, do worse on rough ones). With probes, the k probes,
// of time c_P each, are followed by at least two full-length confirmations
// of c_F: k·c_P + 2·c_F. Without, the full-length narrowing steps are the
// confirmations themselves: max(k, 2)·c_F. Probes pay when
// k > 2·c_F/(c_F − c_P). At the operator's defaults (2-minute ramp-up,
// 10-minute steps, 2-minute probes: c_P = c_F/3) that is k > 3, a domain of
// more than 8 precisions; a probe as long as a step never pays. U is the
// whole domain, Warehouses/precision, whatever the start: how far a start
// estimate is from the boundary is not known before the run.
func (p Params) probing() bool {
	if !p.Probes {
		return false
	}
	if p.StepTime <= 0 || p.ProbeTime <= 0 {
		return true
	}
	if p.ProbeTime >= p.StepTime {
		return false
	}
	units := float64(p.Warehouses) / float64(p.precision())
	full, probe := p.StepTime.Seconds(), p.ProbeTime.Seconds()
	return math.Log2(units) > 2*full/(full-probe)
}

// saturatedEfficiency is the efficiency (percent) below which a step's
// figures are used to extrapolate the capacity curve.
const saturatedEfficiency = 95.0

// bracket is the evidence after some steps: the full-length bracket and the
// probe bracket inside it, with the indexes of the steps at their ends (-1 at
// a virtual end: 0 below the domain, Warehouses+1 above it).
type bracket struct {
	fullLo, fullHi         int
	fullLoStep, fullHiStep int
	lo, hi                 int
	loStep, hiStep         int
}

func gather(n int, steps []StepOutcome) bracket {
	b := bracket{fullLo: 0, fullHi: n + 1, fullLoStep: -1, fullHiStep: -1}
	for i, s := range steps {
		if s.kind() == Full && !s.Compliant && s.ActiveWarehouses < b.fullHi {
			b.fullHi, b.fullHiStep = s.ActiveWarehouses, i
		}
	}
	for i, s := range steps {
		if s.kind() == Full && s.Compliant && s.ActiveWarehouses > b.fullLo && s.ActiveWarehouses < b.fullHi {
			b.fullLo, b.fullLoStep = s.ActiveWarehouses, i
		}
	}
	b.lo, b.hi, b.loStep, b.hiStep = b.fullLo, b.fullHi, b.fullLoStep, b.fullHiStep
	for i, s := range steps {
		if s.kind() == Probe && !s.Compliant && s.ActiveWarehouses > b.fullLo && s.ActiveWarehouses < b.hi {
			b.hi, b.hiStep = s.ActiveWarehouses, i
		}
	}
	for i, s := range steps {
		if s.kind() == Probe && s.Compliant && s.ActiveWarehouses > b.lo && s.ActiveWarehouses < b.hi {
			b.lo, b.loStep = s.ActiveWarehouses, i
		}
	}
	return b
}

func nextGuided(p Params, steps []StepOutcome) (Decision, error) {
	return replay(p, steps, decideGuided)
}

func decideGuided(p Params, steps []StepOutcome) Decision {
	n, precision := p.Warehouses, p.precision()
	b := gather(n, steps)
	if closed(b.fullLo, b.fullHi, n, precision) {
		return finished(p, b.fullLo, b.fullHi, b.fullLoStep, b.fullHiStep, precision)
	}
	d := Decision{HighestCompliant: b.fullLo, LowestNonCompliant: b.fullHi, CompliantStep: b.fullLoStep, NonCompliantStep: b.fullHiStep}
	narrowing := Full
	if p.probing() {
		narrowing = Probe
	}
	switch {
	case len(steps) == 0:
		d.Run, d.Kind = p.start(), narrowing
	case !closed(b.lo, b.hi, n, precision):
		d.Run, d.Kind = place(p, steps, b, precision), narrowing
	default:
		d.Run, d.Kind = confirm(p, steps, b, precision), Full
	}
	return d
}

// confirm chooses the next full-length step once the probes have bracketed
// the boundary within precision: a pass half a precision below the estimated
// boundary, then a failure one precision above the highest full-length pass.
// Centring the pair on the estimate, rather than confirming the probes' own
// ends, gives both confirmations half a precision of margin against the
// noise that separates a probe from a full step, and puts the answer in the
// middle of where a line search lands (anywhere in the precision below the
// boundary).
func confirm(p Params, steps []StepOutcome, b bracket, precision int) int {
	n := p.Warehouses
	switch {
	case b.lo == n: // everything passed: the loaded count, at full length
		return n
	case b.hi == 1: // nothing passed: 1, at full length
		return 1
	}
	boundary := modelEstimate(p, steps, b)
	if math.IsNaN(boundary) {
		boundary = float64(b.lo+b.hi) / 2
	}
	boundary = within(p, boundary, b.fullLo, b.fullHi)
	// Full steps that keep contradicting the probes (the last k full steps
	// all failed where a pass was expected, or all passed) move the next
	// confirmation by a doubling distance, so probes biased against full
	// steps cost a logarithmic number of full steps.
	k, lastPassed := fullStreak(steps)
	pass := int(math.Round(boundary - float64(precision)/2))
	if !lastPassed {
		pass -= precision * (1<<min(k, 30) - 1)
	}
	if pass = max(1, pass); pass > b.fullLo {
		return min(pass, b.fullHi-1)
	}
	fail := b.fullLo + precision
	if lastPassed && k > 1 {
		fail = b.fullLo + precision<<min(k-1, 30)
	}
	return min(fail, b.fullHi-1)
}

// fullStreak is how many of the most recent full-length steps (probes
// between them aside) had the same outcome, and that outcome.
func fullStreak(steps []StepOutcome) (int, bool) {
	k, outcome := 0, false
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].kind() != Full {
			continue
		}
		if k > 0 && steps[i].Compliant != outcome {
			break
		}
		k, outcome = k+1, steps[i].Compliant
	}
	return k, outcome
}

// place chooses the next narrowing step strictly inside the probe bracket.
func place(p Params, steps []StepOutcome, b bracket, precision int) int {
	n := p.Warehouses
	lo, hi := float64(b.lo), float64(b.hi)
	e := estimate(p, steps, b)
	half := max(float64(precision)/2, 0.5)
	// How surely the estimate must expect the step that closes the bracket
	// to land on its side before the search aims there. A probe that closes
	// the bracket leads to the full-length confirmations, which a probe on
	// the wrong side of the boundary sends the wrong way: it asks for a
	// quarter-precision margin. A full-length step that closes the bracket
	// ends the search, and on the wrong side it only narrows the bracket as
	// any other step would: the estimate's side is enough.
	margin := 0.0
	if p.probing() {
		margin = half / 2
	}

	// The outcomes since the last change of outcome: a run of passes means
	// the boundary is higher than the estimates said, a run of failures lower.
	last := steps[len(steps)-1].Compliant
	streak := 0
	for i := len(steps) - 1; i >= 0 && steps[i].Compliant == last; i-- {
		streak++
	}
	grow := func(aimPass bool) float64 {
		if aimPass == last { // the run agrees with the direction of this probe
			return 1
		}
		// A probe aimed to pass after one failure is the normal squeeze;
		// after two or more the estimates keep landing too high, and the
		// offset doubles with each (and likewise upwards).
		return math.Exp2(float64(min(streak-1, 30)))
	}

	// Full-length narrowing (a domain of few precisions) from a start the
	// user gave, without an estimate from the figures and with one end
	// still open, moves as the line search does from its start: one
	// precision, doubling while the outcomes agree. Doubling the count
	// instead, as without a start, jumps to the domain's end, a step the
	// user's estimate says is wasted.
	lineMove := !p.probing() && p.Start > 0 && math.IsNaN(modelEstimate(p, steps, b))
	move := float64(precision) * math.Exp2(float64(min(streak-1, 30)))

	var x float64
	switch {
	case lineMove && b.hi == n+1 && b.lo >= 1 && last:
		x = lo + move
	case lineMove && b.lo == 0 && b.hi <= n && !last:
		x = hi - move
	case b.hi == n+1 && e >= float64(n)-half: // the top must be measured to end there
		x = float64(n)
	case b.lo == 0 && e <= 1+half: // likewise the bottom
		x = 1
	case e-lo >= hi-e: // the compliant end is the farther one: raise it
		x = math.Floor(e - half*grow(true))
		// Where a pass at hi − precision is still expected, aim there: it
		// closes the bracket.
		if closing := hi - float64(precision); x < closing && e-closing >= margin {
			x = closing
		}
	default: // lower the non-compliant end
		x = math.Ceil(e + half*grow(false))
		if closing := lo + float64(precision); x > closing && closing-e >= margin {
			x = closing
		}
	}
	return int(min(max(x, lo+1), hi-1))
}

// rawEstimate is where compliance is expected to end from the steps'
// figures, NaN when they tell nothing.
func rawEstimate(p Params, steps []StepOutcome, b bracket) float64 {
	point := func(i int) *StepOutcome {
		if i < 0 || !steps[i].Measured {
			return nil
		}
		return &steps[i]
	}
	loPt, hiPt := point(b.loStep), point(b.hiStep)
	saturated := func(s *StepOutcome) bool {
		return s != nil && s.EfficiencyPercent > 0 && s.EfficiencyPercent < saturatedEfficiency
	}

	e := p.fit(steps, b)
	switch {
	case !math.IsNaN(e):
		// Two or more saturated steps: the weighted fit (below) averages
		// their noise. Errors still come from the bracket's ends.
		if loPt != nil && hiPt != nil {
			if v := p.interpolateErrors(*loPt, *hiPt); !math.IsNaN(v) && v < e {
				e = v
			}
		}
	case loPt != nil && hiPt != nil:
		// Both ends measured: interpolate between them where both are on
		// the saturated part of the curve (or neither is), else extrapolate
		// from the saturated one. Errors, which no law predicts, are
		// interpolated whenever they fail at the non-compliant end.
		switch {
		case saturated(loPt) == saturated(hiPt):
			e = p.interpolate(*loPt, *hiPt)
		case saturated(hiPt):
			e = p.extrapolate(*hiPt)
		default:
			e = p.extrapolate(*loPt)
		}
		if v := p.interpolateErrors(*loPt, *hiPt); !math.IsNaN(v) && (math.IsNaN(e) || v < e) {
			e = v
		}
	case loPt != nil && saturated(loPt):
		e = p.extrapolate(*loPt)
	case hiPt != nil && saturated(hiPt):
		e = p.extrapolate(*hiPt)
	}
	return e
}

// modelEstimate is rawEstimate unless the steps contradict it: NaN when a
// step passed more than falsifiedMargin precisions above where the estimate
// says compliance ends, or failed as far below it. Such an estimate rests on
// a step that did not measure the curve the later ones did (the first step
// of a run on a cold database, a step disturbed by a neighbour: a first step
// at 20 warehouses measured at 44 % efficiency predicts an end at 10.5, and
// the same database then passes 9, 11, 12 … 16 —
// TestGuidedRecoversFromAFalsifiedEstimate),
// and clamped to the bracket's end it would move the search one precision a
// step; the search bisects instead, as it does without figures.
func modelEstimate(p Params, steps []StepOutcome, b bracket) float64 {
	e := rawEstimate(p, steps, b)
	margin := falsifiedMargin * float64(p.precision())
	if b.lo >= 1 && e < float64(b.lo)-margin || b.hi <= p.Warehouses && e > float64(b.hi)+margin {
		return math.NaN()
	}
	return e
}

// falsifiedMargin is how far (in precisions) a measured pass may lie above the
// estimated end of compliance, or a failure below it, before the estimate is
// taken as contradicted rather than noisy.
const falsifiedMargin = 0.5

// estimate is where compliance is expected to end, inside the probe bracket.
func estimate(p Params, steps []StepOutcome, b bracket) float64 {
	return within(p, modelEstimate(p, steps, b), b.lo, b.hi)
}

// within is e, or where the bracket (lo, hi) ends the search otherwise has no
// estimate, clamped into [lo, hi] (hi at most the loaded count).
func within(p Params, e float64, blo, bhi int) float64 {
	n := p.Warehouses
	lo, hi := float64(blo), float64(min(bhi, n))
	if math.IsNaN(e) {
		switch {
		case bhi == n+1: // nothing failed yet: double
			e = 2 * max(lo, 1)
		case blo == 0: // nothing passed yet: halve
			e = hi / 2
		default:
			e = (lo + hi) / 2
		}
	}
	return min(max(e, lo), hi)
}

// fit estimates the boundary from every measured saturated step (and, for
// latency, every step that failed a latency bound), by weighted
// least squares in the coordinates the response time law makes linear (the
// inverse of efficiency, the latency ratio), weighting steps by their
// closeness to the bracket so the curvature near the knee and far-away steps
// count little. It returns the lowest crossing of a criterion's bound on a
// rising line, NaN with fewer than two such steps at different counts.
func (p Params) fit(steps []StepOutcome, b bracket) float64 {
	hi := min(b.hi, p.Warehouses)
	center := float64(b.lo+hi) / 2
	scale := max(float64(hi-b.lo), 2*float64(p.precision()), 0.02*center)
	var eff, lat line
	for _, s := range steps {
		if !s.Measured || s.EfficiencyPercent <= 0 {
			continue
		}
		// A step that failed a latency bound is on the latency curve's rising
		// part whatever its efficiency: 16 warehouses failing at 95.9 %
		// efficiency on NewOrder's p90 (ratio 1.59, after 2.94 at 20) is such a
		// point, and without it the search has no estimate and halves to 7
		// instead of stepping to 13 (TestGuidedUsesALatencyFailureAtHighEfficiency).
		saturated := s.EfficiencyPercent < saturatedEfficiency
		if !saturated && s.LatencyRatio < 1 {
			continue
		}
		w := float64(s.ActiveWarehouses)
		d := (w - center) / scale
		weight := 1 / (1 + d*d)
		if saturated {
			eff.add(w, 100/s.EfficiencyPercent, weight)
		}
		if s.LatencyRatio > 0 {
			lat.add(w, s.LatencyRatio, weight)
		}
	}
	est := math.NaN()
	if m := p.minEfficiency(); m > 0 {
		est = eff.reach(100 / m)
	}
	if v := lat.reach(1); !math.IsNaN(v) && (math.IsNaN(est) || v < est) {
		est = v
	}
	return est
}

// line accumulates a weighted least-squares straight line y = a + b·x.
type line struct {
	n, sw, sx, sy, sxx, sxy float64
	first                   float64
	distinct                bool
}

func (l *line) add(x, y, w float64) {
	if l.n == 0 {
		l.first = x
	} else if x != l.first {
		l.distinct = true
	}
	l.n++
	l.sw += w
	l.sx += w * x
	l.sy += w * y
	l.sxx += w * x * x
	l.sxy += w * x * y
}

// reach is the x where the line reaches y, NaN unless the line is fitted on
// two or more distinct x and rises.
func (l *line) reach(y float64) float64 {
	if !l.distinct {
		return math.NaN()
	}
	mx, my := l.sx/l.sw, l.sy/l.sw
	varx := l.sxx/l.sw - mx*mx
	if varx <= 0 {
		return math.NaN()
	}
	slope := (l.sxy/l.sw - mx*my) / varx
	if slope <= 0 {
		return math.NaN()
	}
	return mx + (y-my)/slope
}

// extrapolate is the one-step estimate of the boundary from a saturated step
// (see the comment at the top): where efficiency falls to the minimum or the
// worst latency bound is reached, whichever comes first; NaN if neither can
// be estimated.
func (p Params) extrapolate(s StepOutcome) float64 {
	w, e := float64(s.ActiveWarehouses), min(s.EfficiencyPercent/100, 1)
	est := math.NaN()
	if m := p.minEfficiency() / 100; m > 0 && e > 0 {
		est = w * e / m
	}
	if s.LatencyRatio > 0 {
		if v := w * (e + (1-e)/s.LatencyRatio); math.IsNaN(est) || v < est {
			est = v
		}
	}
	return est
}

// interpolate places each criterion that fails at step b where it crosses its
// bound on the straight line through steps a and b, in the coordinates the
// response time law makes linear in warehouses once saturated: the inverse
// of efficiency, and the latency ratio. It returns the lowest crossing, NaN
// if no efficiency or latency criterion fails at b.
func (p Params) interpolate(a, b StepOutcome) float64 {
	est := math.NaN()
	consider := func(v float64) {
		if !math.IsNaN(v) && (math.IsNaN(est) || v < est) {
			est = v
		}
	}
	if m := p.minEfficiency(); m > 0 && a.EfficiencyPercent > 0 && b.EfficiencyPercent > 0 {
		consider(crossing(a, b, 100/a.EfficiencyPercent, 100/b.EfficiencyPercent, 100/m))
	}
	if a.LatencyRatio > 0 && b.LatencyRatio > 0 {
		consider(crossing(a, b, a.LatencyRatio, b.LatencyRatio, 1))
	}
	return est
}

// interpolateErrors is where the error share reaches its bound, interpolating
// its logarithm (errors grow exponentially with contention) between a and b;
// NaN unless errors fail at b.
func (p Params) interpolateErrors(a, b StepOutcome) float64 {
	m := p.maxErrors()
	if m <= 0 {
		return math.NaN()
	}
	level := func(s StepOutcome) float64 { return math.Log(max(s.ErrorPercent, m/100)) }
	return crossing(a, b, level(a), level(b), math.Log(m))
}

// crossing is where the line through (a, va) and (b, vb) reaches bound, given
// va within it and vb beyond it (both "above the bound" meaning failure); NaN
// otherwise.
func crossing(a, b StepOutcome, va, vb, bound float64) float64 {
	if vb <= bound || va >= vb {
		return math.NaN()
	}
	wa, wb := float64(a.ActiveWarehouses), float64(b.ActiveWarehouses)
	return wa + (wb-wa)*(bound-va)/(vb-va)
}

func (p Params) minEfficiency() float64 { return p.MinEfficiencyPercent }

func (p Params) maxErrors() float64 { return p.MaxErrorPercent }
