package k6ext

import (
	"context"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// sealGrace is how long after an interval's end it is sealed: transactions completing right at
// the boundary are recorded by then (one arriving later still counts, in the next interval).
func sealGrace(interval time.Duration) time.Duration { return min(interval/10, 250*time.Millisecond) }

// intervalLoop samples the database (with --telemetry) and the pool at each interval's end and
// seals the interval a short grace later with them, until done. Sampling at the boundary itself
// puts an event (a checkpoint, a stalled standby) in the interval in which it happened.
func (s *Session) intervalLoop(ctx context.Context, done <-chan struct{}) {
	grace := sealGrace(s.cfg.Interval)
	next := 1
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	wait := func(at time.Time) bool {
		timer.Reset(time.Until(at))
		select {
		case <-timer.C:
			return true
		case <-done:
		case <-ctx.Done():
		}
		return false
	}
	for {
		if !wait(s.recorder.IntervalBoundary(next)) {
			return
		}
		annotate := s.annotator(ctx)
		// After a stall, seal everything that ended; the annotation goes to the latest.
		upTo := max(s.recorder.IntervalIndex(time.Now()), next)
		if !wait(s.recorder.IntervalBoundary(upTo).Add(grace)) {
			// The run ended within the grace: finishIntervals seals this interval with this sample.
			s.pendingAnnotate = annotate
			return
		}
		s.recorder.SealIntervals(upTo, annotate)
		next = upTo + 1
	}
}

// annotator samples the database (with --telemetry) and the pool now and returns the function
// that completes the interval being sealed with them.
func (s *Session) annotator(ctx context.Context) func(*snapshot.Interval) {
	s.mu.Lock()
	sampler, ex := s.telemetry, s.executor
	s.mu.Unlock()
	var tel *snapshot.Telemetry
	if sampler != nil {
		sctx, cancel := context.WithTimeout(ctx, max(s.cfg.Interval/2, time.Second))
		tel = sampler.Sample(sctx)
		cancel()
		s.mu.Lock()
		s.telemetryLog = append(s.telemetryLog, tel)
		s.mu.Unlock()
	}
	var pool *snapshot.ClientSignals
	if ps, ok := ex.(tpcc.PoolStatser); ok {
		cur := ps.PoolStats()
		signals := tpcc.PoolSignals(s.lastPool, cur)
		s.lastPool = cur
		pool = &signals
	}
	return func(iv *snapshot.Interval) {
		iv.Telemetry = tel
		if pool != nil {
			if iv.Client == nil {
				iv.Client = &snapshot.ClientSignals{}
			}
			iv.Client.PoolAcquires, iv.Client.PoolWaits, iv.Client.PoolWaitSeconds = pool.PoolAcquires, pool.PoolWaits, pool.PoolWaitSeconds
		}
	}
}

// TelemetrySamples returns every database telemetry sample of the run so far (kept apart from the
// intervals, which a reader may have collected): the replication verdict reads them.
func (s *Session) TelemetrySamples() []*snapshot.Telemetry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*snapshot.Telemetry(nil), s.telemetryLog...)
}

// finishIntervals seals the series to the end of the run: first the intervals that ended before
// the loop could seal them (each sealing samples the database for its last interval), then the
// last, partial one.
func (s *Session) finishIntervals(ctx context.Context) {
	if upTo := s.recorder.IntervalIndex(time.Now()); upTo > s.recorder.SealedIntervals() {
		annotate := s.pendingAnnotate
		if annotate == nil {
			annotate = s.annotator(ctx)
		}
		s.recorder.SealIntervals(upTo, annotate)
	}
	s.recorder.FinishIntervals(time.Now(), s.annotator(ctx))
}
