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

// FaultWindow accumulates the exact histograms of the minute after a step's first fault: the
// intervals [From, To) of its series.
type FaultWindow struct {
	From       int                             `json:"from"`
	To         int                             `json:"to"`
	Histograms map[snapshot.Transaction]string `json:"histograms,omitempty"`
}

// add merges one merged interval's histograms into the window when the interval is in it.
func (w *FaultWindow) add(m snapshot.MergedInterval) error {
	if w == nil || m.Index < w.From || m.Index >= w.To {
		return nil
	}
	if w.Histograms == nil {
		w.Histograms = map[snapshot.Transaction]string{}
	}
	for t, mt := range m.Transactions {
		if mt == nil || mt.Histogram == nil || mt.Histogram.TotalCount() == 0 {
			continue
		}
		h := snapshot.NewHistogram()
		if enc := w.Histograms[t]; enc != "" {
			var err error
			if h, err = snapshot.DecodeHistogram(enc); err != nil {
				return fmt.Errorf("the window after the fault: %w", err)
			}
		}
		h.Merge(mt.Histogram)
		enc, err := snapshot.EncodeHistogram(h)
		if err != nil {
			return err
		}
		w.Histograms[t] = enc
	}
	return nil
}

// stats reads the window's percentiles per transaction type.
func (w *FaultWindow) stats() map[benchv1.Transaction]benchv1.TransactionStats {
	if w == nil || len(w.Histograms) == 0 {
		return nil
	}
	out := map[benchv1.Transaction]benchv1.TransactionStats{}
	for t, enc := range w.Histograms {
		h, err := snapshot.DecodeHistogram(enc)
		if err != nil {
			continue
		}
		q := func(p float64) metav1.Duration {
			return metav1.Duration{Duration: snapshot.Micros(snapshot.ValueAtNearestRank(h, p))}
		}
		out[benchv1.Transaction(t)] = benchv1.TransactionStats{Count: h.TotalCount(), P50: q(50), P90: q(90), P95: q(95), P99: q(99),
			Max: metav1.Duration{Duration: snapshot.Micros(h.Max())}}
	}
	return out
}

// OpenFaultWindow starts accumulating the minute after the step's first fault once it is
// applied or under way, and reports whether it did. It runs before any interval is folded (a
// restarted operator collects the intervals it missed first): an injection still Injecting is
// placed by the operator's moment of decision, which precedes the clients' mark.
func OpenFaultWindow(run *benchv1.BenchmarkRun, st *StepSeries) bool {
	if run.Status.Current == nil || st == nil || st.AfterFault != nil || st.LengthSeconds <= 0 || st.Origin.IsZero() {
		return false
	}
	first := FirstInjection(run.Status.Current.Faults)
	if first == nil {
		return false
	}
	length := time.Duration(st.LengthSeconds * float64(time.Second))
	k := sla.FaultIntervalIndex(st.Origin, length, FaultMoment(first))
	st.AfterFault = &FaultWindow{From: k, To: k + int(time.Minute/length)}
	return true
}

// FaultRecord is what a step's faults did and cost, from the injections in status, the step's
// series and the pods' snapshots (want pods planned); it also returns the checks the verdict gets.
//
// The outage is measured from the acknowledged commits of every client pod, each in its own
// clock relative to the fault's mark (sla.MeasureOutage); the baseline, the recovery and the
// errors from the per-second series, against the fault's moment in the first pod's clock. What
// cannot be measured is said, never taken as zero: with sla.maxUnavailability it makes the step
// inconclusive.
func FaultRecord(run *benchv1.BenchmarkRun, injections []benchv1.FaultInjection, st *StepSeries, snapshots []*snapshot.Snapshot, want int32) (*benchv1.FaultRecord, []sla.Check) {
	rec := &benchv1.FaultRecord{Injections: injections, Ledger: LedgerOf(snapshots, want)}
	var checks []sla.Check
	if l := rec.Ledger; l != nil {
		switch {
		case len(l.Failures) > 0:
			detail := fmt.Sprintf("%d acknowledged New-Orders, %d with an unknown outcome, d_next_o_id grew by %d: %s",
				l.Acknowledged, l.Unknown, l.Growth, strings.Join(l.Failures, "; "))
			checks = append(checks, sla.LedgerFailure(detail))
		case len(l.NotChecked) > 0:
			checks = append(checks, sla.Check{Name: "ledger", Status: sla.Inconclusive, Detail: "ledger: not checked: " + strings.Join(l.NotChecked, "; ")})
		}
	}
	first := FirstInjection(injections)
	if first == nil || st == nil || st.Origin.IsZero() {
		return rec, checks
	}
	bound := run.Spec.SLA.MaxUnavailability
	notMeasured := func(why string) (*benchv1.FaultRecord, []sla.Check) {
		rec.Measurement = &benchv1.FaultMeasurement{NotMeasured: why}
		if bound != nil {
			checks = append(checks, sla.Check{Name: "unavailability", Status: sla.Inconclusive, Detail: "unavailability: cannot be judged: " + why})
		}
		return rec, checks
	}
	records, pods := make([]*snapshot.CommitRecord, len(snapshots)), make([]string, len(snapshots))
	for i, s := range snapshots {
		records[i], pods[i] = s.Commits, s.Identity.Pod
	}
	if int32(len(snapshots)) < want {
		return notMeasured(fmt.Sprintf("%d of %d client pods are gone: the commits they saw are unknown", int(want)-len(snapshots), want))
	}
	outage, err := sla.MeasureOutage(records, pods, FaultLabel(int(first.Fault)))
	if err != nil {
		return notMeasured(err.Error())
	}
	_, rampUp := workload.Durations(run)
	figures, err := sla.MeasureFault(st.Series, st.Origin, st.Origin.Add(rampUp), FaultMoment(first))
	if err != nil {
		return notMeasured(err.Error())
	}
	m := &benchv1.FaultMeasurement{
		Unavailability:             metav1.Duration{Duration: outage.Unavailability.Round(time.Millisecond)},
		UnavailableAtEnd:           outage.AtEnd,
		UnavailabilityMethod:       "commits",
		BaselineNewOrdersPerSecond: round2(figures.BaselineNewOrdersPerSecond),
	}
	if outage.Unavailability > 0 {
		m.UnavailableFrom = &metav1.MicroTime{Time: outage.From}
		if !outage.AtEnd {
			m.UnavailableTo = &metav1.MicroTime{Time: outage.To}
		}
	}
	if figures.Recovered {
		m.Recovery = &metav1.Duration{Duration: figures.Recovery.Round(time.Millisecond)}
	}
	for t, n := range figures.Errors {
		if m.Errors == nil {
			m.Errors = map[benchv1.Transaction]int64{}
		}
		m.Errors[benchv1.Transaction(t)] = n
	}
	for _, s := range snapshots {
		m.CommitsUnknown += s.CommitsUnknown()
	}
	m.LatencyAfter = st.AfterFault.stats()
	rec.Measurement = m
	if bound != nil {
		checks = append(checks, sla.UnavailabilityCheck(outage.Unavailability, bound.Duration, outage.AtEnd))
	}
	return rec, checks
}

// LedgerOf sums the pods' ledger checks over a step of want pods; nil when no pod made one. A
// district that could not be checked — a pod that is gone or failed, a reading that failed — is
// named in NotChecked: it is not a lost commit, and the ledger does not pass.
func LedgerOf(snapshots []*snapshot.Snapshot, want int32) *benchv1.LedgerCheck {
	var out *benchv1.LedgerCheck
	checked := 0
	for _, s := range snapshots {
		c := s.LedgerCheck
		if c == nil {
			continue
		}
		if out == nil {
			out = &benchv1.LedgerCheck{Pass: true}
		}
		checked++
		if c.Error != "" {
			out.NotChecked = append(out.NotChecked, fmt.Sprintf("pod %s: %s", s.Identity.Pod, c.Error))
			continue
		}
		out.Pass = out.Pass && c.Pass
		out.Districts += int32(c.Districts)
		out.Acknowledged += c.Acknowledged
		out.Unknown += c.Unknown
		out.Growth += c.Growth
		out.Failures = append(out.Failures, c.Failures...)
	}
	if out == nil {
		return nil
	}
	for _, s := range snapshots {
		if s.LedgerCheck == nil {
			out.NotChecked = append(out.NotChecked, fmt.Sprintf("pod %s: not checked: its run did not end with a check (phase %s)", s.Identity.Pod, s.Phase))
		}
	}
	if missing := int(want) - len(snapshots); missing > 0 {
		out.NotChecked = append(out.NotChecked, fmt.Sprintf("%d of %d client pods are gone: their districts were not checked", missing, want))
	}
	if len(out.NotChecked) > 0 {
		out.Pass = false
	}
	if len(out.Failures) > 10 {
		out.Failures = append(out.Failures[:10], fmt.Sprintf("and %d more", len(out.Failures)-10))
	}
	return out
}

// FaultsPending reports whether a step measuring faults still waits for a pod that ended: its
// ledger check (where the engine has one: ledger) is not served yet.
func FaultsPending(ledger bool, faults []int, snapshots []*snapshot.Snapshot) bool {
	if len(faults) == 0 || !ledger {
		return false
	}
	for _, s := range snapshots {
		if s.Phase == snapshot.PhaseDone && s.LedgerCheck == nil {
			return true
		}
	}
	return false
}

// Injection is the recorded injection of fault (its index in the step's faults), nil when none.
func Injection(list []benchv1.FaultInjection, fault int) *benchv1.FaultInjection {
	for i := range list {
		if int(list[i].Fault) == fault {
			return &list[i]
		}
	}
	return nil
}

// FirstInjection is the earliest applied injection, nil when none was applied.
func FirstInjection(list []benchv1.FaultInjection) *benchv1.FaultInjection {
	var first *benchv1.FaultInjection
	for i := range list {
		inj := &list[i]
		if inj.Time == nil || (inj.State != benchv1.FaultInjected && inj.State != benchv1.FaultInjecting) {
			continue
		}
		if first == nil || inj.Time.Time.Before(first.Time.Time) {
			first = inj
		}
	}
	return first
}

// FaultMoment is when an injection disrupted the database, in the clock of the step's series
// (the clients'): the mark, or, when no client could be marked, the operator's moment.
func FaultMoment(inj *benchv1.FaultInjection) time.Time {
	if inj.ClientTime != nil {
		return inj.ClientTime.Time
	}
	return inj.Time.Time
}

// FaultLabel is the mark of spec.faults[fault] in the clients' commit records.
func FaultLabel(fault int) string { return fmt.Sprintf("fault-%d", fault) }

func AllReady(list []benchv1.FaultInjection) bool {
	for _, inj := range list {
		if inj.ReadyTime == nil {
			return false
		}
	}
	return true
}
