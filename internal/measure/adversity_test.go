package measure

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Three states of 30 s + 30 s on a 10 s series: Baseline at 10 New-Orders/s, a standby lost at
// 60 s (commits stop 4 s in one pod, 3 s in both: the outage is what both saw), a network delay at
// 120 s healed at 150 s whose throughput comes back at 160 s; a later gap of 20 s belongs to no
// state's window.
func TestAdversityStates(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	states := []benchv1.AdversityState{benchv1.AdversityBaseline, benchv1.AdversityStandbyLost, benchv1.AdversityNetworkDelay}
	w := &SustainWatch{LengthSeconds: 10, Windows: []sustainWindow{
		{Seconds: 60, TpmC: 600, P90Micros: map[snapshot.Transaction]int64{snapshot.NewOrder: 12000}},
		{Seconds: 60, TpmC: 540, P90Micros: map[snapshot.Transaction]int64{snapshot.NewOrder: 15000}, Errors: map[snapshot.Transaction]int64{snapshot.Payment: 3}},
		{Seconds: 60, TpmC: 400, P90Micros: map[snapshot.Transaction]int64{snapshot.NewOrder: 35000}},
	}}
	// New-Orders per 10 s interval, from the origin t0 (no ramp-up).
	per10 := []int64{100, 100, 100, 100, 100, 100, 70, 100, 100, 100, 100, 100, 20, 20, 20, 40, 95, 100}
	idx := make([]int, len(per10))
	for i := range idx {
		idx[i] = i
	}
	st := &StepSeries{Origin: t0, Series: snapshot.CompactSeries{Start: t0, LengthSeconds: 10, Index: idx,
		Types: map[snapshot.Transaction]*snapshot.CompactColumns{snapshot.NewOrder: {Completed: per10}}}}
	mark := func(label string, at float64) snapshot.Mark { return snapshot.Mark{Label: label, Time: sec(at)} }
	rec := func(gaps ...[2]float64) *snapshot.Snapshot {
		r := &snapshot.CommitRecord{Marks: []snapshot.Mark{mark("fault-0", 60), mark("fault-1", 120)}, MinGapSeconds: 1,
			LastCommit: sec(179.9), TerminalsStart: t0, Ended: sec(180)}
		for _, g := range gaps {
			r.Gaps = append(r.Gaps, snapshot.CommitGap{From: sec(g[0]), To: sec(g[1])})
		}
		return &snapshot.Snapshot{Commits: r}
	}
	snaps := []*snapshot.Snapshot{rec([2]float64{60.5, 64.5}, [2]float64{200, 220}), rec([2]float64{61, 64}, [2]float64{200, 220})}
	at := func(s float64) *metav1.MicroTime { return &metav1.MicroTime{Time: sec(s)} }
	injections := []benchv1.FaultInjection{
		{Fault: 0, State: benchv1.FaultInjected, Time: at(60), ClientTime: at(60)},
		{Fault: 1, State: benchv1.FaultInjected, Time: at(120), ClientTime: at(120), HealedTime: at(150)},
	}
	got := AdversityStates(states, []int{-1, 0, 1}, 30*time.Second, 30*time.Second, w, injections, st, snaps)
	if len(got.States) != 3 || got.Hold.Duration != 30*time.Second {
		t.Fatalf("%+v", got)
	}
	base, lost, delay := got.States[0], got.States[1], got.States[2]
	if base.TpmC != 600 || base.Injection != nil || base.Unavailability != nil || base.NotMeasured != "" {
		t.Errorf("baseline %+v", base)
	}
	if lost.Start.Duration != time.Minute || lost.P90[benchv1.NewOrder].Duration != 15*time.Millisecond || lost.Errors[benchv1.Payment] != 3 {
		t.Errorf("standby lost %+v", lost)
	}
	if lost.Unavailability == nil || lost.Unavailability.Duration != 3*time.Second {
		t.Errorf("standby lost: unavailability %v, want the 3 s both pods went without a commit", lost.Unavailability)
	}
	// Its throughput dipped to 7/s in [60, 70): 90 % of the baseline's 10/s came back at 70 s.
	if lost.Recovery == nil || lost.Recovery.Duration != 10*time.Second {
		t.Errorf("standby lost: recovery %v, want 10s", lost.Recovery)
	}
	// The delay healed at 150 s; 9.5/s came back in [160, 170).
	if delay.Recovery == nil || delay.Recovery.Duration != 10*time.Second || delay.Unavailability == nil || delay.Unavailability.Duration != 0 {
		t.Errorf("network delay: recovery %v, unavailability %v (the gap at 200 s is no state's)", delay.Recovery, delay.Unavailability)
	}

	// Without a Baseline, a fault never applied, and a state past the step's end: each said.
	got = AdversityStates([]benchv1.AdversityState{benchv1.AdversityStandbyLost, benchv1.AdversityPartition, benchv1.AdversityPrimaryLost}, []int{0, 1, 2},
		30*time.Second, 30*time.Second, &SustainWatch{Windows: w.Windows[:2]},
		[]benchv1.FaultInjection{injections[0], {Fault: 1, State: benchv1.FaultFailed, Message: "no fault injector applied it"}}, st, snaps)
	for i, want := range []string{"recovery: no Baseline state to recover to", "its fault was Failed: no fault injector applied it", "the state was not measured"} {
		if !strings.Contains(got.States[i].NotMeasured, want) {
			t.Errorf("state %d: not measured %q, want %q", i, got.States[i].NotMeasured, want)
		}
	}
}

// The watch's windows are in the step's own intervals: one second when it applies faults, as its
// clients measure then, the run's interval otherwise.
func TestNewAdversityWatch(t *testing.T) {
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Workload: benchv1.WorkloadSpec{Warehouses: 5,
		RampUp: &metav1.Duration{Duration: 10 * time.Second}, Interval: &metav1.Duration{Duration: 5 * time.Second}}}}
	w := NewAdversityWatch(run, 5, sla.Criteria{}, 5, 30*time.Second, 20*time.Second, true)
	if w.LengthSeconds != 1 || w.From != 10 || w.Size != 50 || w.To != 260 {
		t.Errorf("with faults: %+v, want 1 s intervals from 10, 50 a state, to 260", *w)
	}
	w = NewAdversityWatch(run, 5, sla.Criteria{}, 1, 30*time.Second, 20*time.Second, false)
	if w.LengthSeconds != 5 || w.From != 2 || w.Size != 10 || w.To != 12 {
		t.Errorf("Baseline alone: %+v, want the run's 5 s intervals from 2, 10 a state, to 12", *w)
	}
}
