package measure

import (
	"fmt"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// StartSkew is how far apart a step's client pods began their measured intervals: the spread of
// the measurement starts their snapshots report (Times.MeasurementStart, each in its pod's own
// clock), with the pods that began first and last. It is known once every pod has begun; before
// that Known is false.
type StartSkew struct {
	Known bool
	// Skew is the latest start minus the earliest.
	Skew time.Duration
	// First and Last name the pods that began first and last.
	First, Last string
}

// StartSkewOf reads the start skew from a step's snapshots; a pod that has not begun measuring yet
// (no measurement start) leaves it unknown.
func StartSkewOf(snapshots []*snapshot.Snapshot) StartSkew {
	var out StartSkew
	var first, last time.Time
	for _, s := range snapshots {
		if s == nil || s.Times.MeasurementStart.IsZero() {
			return StartSkew{}
		}
		start := s.Times.MeasurementStart
		if first.IsZero() || start.Before(first) {
			first, out.First = start, s.Identity.Pod
		}
		if last.IsZero() || start.After(last) {
			last, out.Last = start, s.Identity.Pod
		}
	}
	if len(snapshots) == 0 {
		return StartSkew{}
	}
	out.Known, out.Skew = true, last.Sub(first)
	return out
}

// SkewInterval is the bound on a step's start skew: one interval of its time series (a fault
// step's pods measure at workload.FaultInterval). Pods whose starts lie further apart put different
// wall-clock stretches under the same interval index, and the merge divides the pods' summed
// counts by the longest measured interval, so the step's figures would not describe one window.
func SkewInterval(interval time.Duration, faultStep bool) time.Duration {
	if faultStep {
		return workload.FaultInterval
	}
	return interval
}

// SkewBreaks is the cause that makes a step inconclusive when its pods began measuring more than
// one series interval apart; "" when they did not, or not every pod has begun.
func SkewBreaks(skew StartSkew, interval time.Duration) string {
	if !skew.Known || interval <= 0 || skew.Skew <= interval {
		return ""
	}
	return fmt.Sprintf("client pods began measuring %s apart (%s first, %s last), more than one series interval (%s): the pods did not start together",
		skew.Skew.Round(time.Millisecond), skew.First, skew.Last, interval)
}
