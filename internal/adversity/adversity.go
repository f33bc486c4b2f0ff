// Package adversity lays out the adversity phase (spec.adversity): one step of kind Adversity
// whose states follow one another, each held for hold and followed by recovery, each but Baseline
// a fault the step applies at the state's start. It is pure: the run's plan, its measurement and
// its report read the same layout.
package adversity

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Adversity defaults.
const (
	DefaultPercent  = 70
	DefaultHold     = 2 * time.Minute
	DefaultRecovery = time.Minute
	DefaultDelay    = 20 * time.Millisecond
)

// Layout is the phase's states, hold and recovery with the defaults applied.
func Layout(run *benchv1.BenchmarkRun) (states []benchv1.AdversityState, hold, recovery time.Duration) {
	a := run.Spec.Adversity
	if a == nil {
		return nil, 0, 0
	}
	states, hold, recovery = a.States, DefaultHold, DefaultRecovery
	if len(states) == 0 {
		states = benchv1.DefaultAdversityStates
	}
	if a.Hold != nil {
		hold = a.Hold.Duration
	}
	if a.Recovery != nil {
		recovery = a.Recovery.Duration
	}
	return states, hold, recovery
}

// Measured is the adversity step's measured interval: every state with its recovery.
func Measured(run *benchv1.BenchmarkRun) time.Duration {
	states, hold, recovery := Layout(run)
	return time.Duration(len(states)) * (hold + recovery)
}

// Faults are the faults of the adversity step, one per state but Baseline, at its
// state's start, and for each state the index of its fault (-1: none). hasPrimary says whether
// the engine's operator names a single writer (it can KillPrimary): the states then aim at the
// primary and its standbys, otherwise at the first pod (the "primary") and the last.
func Faults(run *benchv1.BenchmarkRun, hasPrimary bool) ([]benchv1.Fault, []int) {
	states, hold, recovery := Layout(run)
	a := run.Spec.Adversity
	delay := DefaultDelay
	if a != nil && a.Delay != nil {
		delay = a.Delay.Duration
	}
	var faults []benchv1.Fault
	index := make([]int, len(states))
	for i, s := range states {
		at := metav1.Duration{Duration: time.Duration(i) * (hold + recovery)}
		f := benchv1.Fault{At: at, In: benchv1.FaultInEveryStep}
		network := func(action benchv1.FaultAction, target benchv1.FaultTarget) {
			f.Action, f.Target, f.Duration = action, target, &metav1.Duration{Duration: hold}
		}
		switch s {
		case benchv1.AdversityBaseline:
			index[i] = -1
			continue
		case benchv1.AdversityStandbyLost:
			f.Action, f.Target = benchv1.FaultKillPod, benchv1.FaultTargetStandby
		case benchv1.AdversityNetworkDelay:
			network(benchv1.FaultNetworkDelay, benchv1.FaultTargetStandby)
			if hasPrimary {
				f.Target = benchv1.FaultTargetStandbys
			}
			f.Delay = &metav1.Duration{Duration: delay}
		case benchv1.AdversityPartition:
			network(benchv1.FaultPartition, benchv1.FaultTargetStandby)
			if a != nil {
				f.Clients = a.Clients
			}
		case benchv1.AdversityPrimaryLost:
			f.Action = benchv1.FaultKillPrimary
			if !hasPrimary {
				f.Action, f.Ordinal = benchv1.FaultKillPod, new(int32)
			}
		case benchv1.AdversityNodeLost:
			f.Action = benchv1.FaultMark
		}
		index[i] = len(faults)
		faults = append(faults, f)
	}
	return faults, index
}
