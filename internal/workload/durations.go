package workload

import (
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Durations are the step's measured interval and ramp-up, with the API defaults for unset fields.
func Durations(run *benchv1.BenchmarkRun) (duration, rampUp time.Duration) {
	duration, rampUp = 10*time.Minute, 2*time.Minute
	if d := run.Spec.Workload.Duration; d != nil {
		duration = d.Duration
	}
	if r := run.Spec.Workload.RampUp; r != nil {
		rampUp = r.Duration
	}
	return duration, rampUp
}

// Interval is the length of one interval of a step's time series: workload.interval, default 10 s.
// Pod 0 of every step samples the database's signals at each interval's end (--telemetry-shard 0).
func Interval(run *benchv1.BenchmarkRun) time.Duration {
	if i := run.Spec.Workload.Interval; i != nil && i.Duration > 0 {
		return i.Duration
	}
	return snapshot.DefaultInterval
}

// ProbeDuration is the measured interval of the guided search's probe steps: search.probeDuration,
// default a fifth of workload.duration — at least benchv1.MinSpecProbeDuration (one New-Order
// cycle) with wait Spec, at least one second with wait None, at most the whole duration.
func ProbeDuration(run *benchv1.BenchmarkRun) time.Duration {
	duration, _ := Durations(run)
	if p := run.Spec.Search.ProbeDuration; p != nil {
		return min(p.Duration, duration)
	}
	floor := time.Second
	if run.Spec.Workload.Wait != benchv1.WaitNone {
		floor = benchv1.MinSpecProbeDuration
	}
	return min(max(duration/5, floor), duration)
}

// FaultInterval is the length of a fault step's time series intervals: the outage and the recovery
// are read from per-second commit counts.
const FaultInterval = time.Second
