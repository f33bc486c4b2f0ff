package measure

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// NewAdversityWatch accumulates the adversity step's states as its intervals are collected: one
// window of hold + recovery per state, from the end of the ramp-up; each window's figures are
// exact (merged histograms), as a sustained phase's. A step that applies faults measures at
// one-second intervals (workload.FaultInterval), as its clients do.
func NewAdversityWatch(run *benchv1.BenchmarkRun, active int32, criteria sla.Criteria, states int, hold, recovery time.Duration, faultStep bool) *SustainWatch {
	interval := workload.Interval(run)
	if faultStep {
		interval = workload.FaultInterval
	}
	slot := hold + recovery
	return newWindowWatch(run, active, criteria, interval, slot, time.Duration(states)*slot)
}

// AdversityStates is what the adversity step showed state by state: each state's window of the
// watch, the outage after its mark in the clients' commit records (within its window), and the
// time from the disruption's end (a deletion; a network fault's heal) until New-Orders came back
// to 90 % of the Baseline state's rate. stateFault maps each state to its fault's index (-1:
// none); injections are the step's. What cannot be measured is said in the state's NotMeasured.
func AdversityStates(states []benchv1.AdversityState, stateFault []int, hold, recovery time.Duration, w *SustainWatch,
	injections []benchv1.FaultInjection, st *StepSeries, snapshots []*snapshot.Snapshot) *benchv1.AdversityRecord {
	rec := &benchv1.AdversityRecord{Hold: metav1.Duration{Duration: hold}, Recovery: metav1.Duration{Duration: recovery}}
	slot := hold + recovery
	records, pods := make([]*snapshot.CommitRecord, len(snapshots)), make([]string, len(snapshots))
	for i, s := range snapshots {
		records[i], pods[i] = s.Commits, s.Identity.Pod
	}
	baseline := -1.0 // New-Orders per second in the Baseline state
	for i, s := range states {
		if s == benchv1.AdversityBaseline && w != nil && i < len(w.Windows) && w.Windows[i].Seconds > 0 {
			baseline = float64(w.Windows[i].TpmC) / 60
		}
	}
	for i, s := range states {
		sr := benchv1.AdversityStateRecord{State: s, Start: metav1.Duration{Duration: time.Duration(i) * slot}}
		var missing []string
		if w != nil && i < len(w.Windows) {
			win := w.Windows[i]
			sr.TpmC = win.TpmC
			for t, us := range win.P90Micros {
				if sr.P90 == nil {
					sr.P90 = map[benchv1.Transaction]metav1.Duration{}
				}
				sr.P90[benchv1.Transaction(t)] = metav1.Duration{Duration: time.Duration(us) * time.Microsecond}
			}
			for t, n := range win.Errors {
				if n > 0 {
					if sr.Errors == nil {
						sr.Errors = map[benchv1.Transaction]int64{}
					}
					sr.Errors[benchv1.Transaction(t)] = n
				}
			}
		} else {
			missing = append(missing, "the state was not measured: the step ended before it")
		}
		if i < len(stateFault) && stateFault[i] >= 0 {
			inj := Injection(injections, stateFault[i])
			switch {
			case inj == nil:
				missing = append(missing, "its fault was never applied")
			case inj.State != benchv1.FaultInjected:
				missing = append(missing, fmt.Sprintf("its fault was %s: %s", inj.State, inj.Message))
			default:
				idx := int32(stateFault[i])
				sr.Injection = &idx
				outage, err := sla.MeasureOutageWithin(records, pods, FaultLabel(stateFault[i]), slot)
				if err != nil {
					missing = append(missing, "unavailability: "+err.Error())
				} else {
					sr.Unavailability = &metav1.Duration{Duration: outage.Unavailability.Round(time.Millisecond)}
				}
				if baseline <= 0 {
					missing = append(missing, "recovery: no Baseline state to recover to")
				} else if st != nil && inj.ClientTime != nil {
					from := inj.ClientTime.Time
					if inj.HealedTime != nil && inj.Time != nil { // a network fault: from its heal
						from = from.Add(inj.HealedTime.Sub(inj.Time.Time))
					}
					end := inj.ClientTime.Add(slot)
					if d, ok := recoveredAfter(st, from, end, 0.9*baseline); ok {
						sr.Recovery = &metav1.Duration{Duration: d}
					}
				}
			}
		}
		sr.NotMeasured = strings.Join(missing, "; ")
		rec.States = append(rec.States, sr)
	}
	return rec
}

// recoveredAfter is the time from from until the start of the first series entry that begins at
// or after it (and before end) whose New-Orders per second reach rate: to a series interval's
// resolution, never shorter than it was.
func recoveredAfter(st *StepSeries, from, end time.Time, rate float64) (time.Duration, bool) {
	s := &st.Series
	length := time.Duration(s.LengthSeconds * float64(time.Second))
	no := s.Types[snapshot.NewOrder]
	if length <= 0 || no == nil || st.Origin.IsZero() {
		return 0, false
	}
	for i, idx := range s.Index {
		at := st.Origin.Add(time.Duration(idx) * length)
		if at.Before(from) || !at.Before(end) { // an entry that began before holds time before the disruption's end
			continue
		}
		seconds := float64(s.SpanOf(i)) * length.Seconds()
		if float64(no.Completed[i])/seconds >= rate {
			return at.Sub(from).Round(time.Second), true
		}
	}
	return 0, false
}
