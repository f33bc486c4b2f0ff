package measure

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

var faultOrigin = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// microAt is the microsecond time d after faultOrigin, as injections carry it.
func microAt(d time.Duration) *metav1.MicroTime { return &metav1.MicroTime{Time: faultOrigin.Add(d)} }

// latencies is a histogram of the given response times.
func latencies(ds ...time.Duration) *hdr.Histogram {
	h := snapshot.NewHistogram()
	for _, d := range ds {
		snapshot.RecordLatency(h, d)
	}
	return h
}

// near reports whether a histogram read of want is within its precision.
func near(got, want time.Duration) bool {
	return math.Abs(float64(got-want)) <= float64(want)*snapshot.HistogramMaxRelativeError
}

// ledgerPod is a client pod's snapshot with its ledger check (nil: none served).
func ledgerPod(name string, phase snapshot.Phase, c *snapshot.LedgerCheck) *snapshot.Snapshot {
	return &snapshot.Snapshot{Identity: snapshot.Identity{Pod: name}, Phase: phase, LedgerCheck: c}
}

func TestFaultWindow(t *testing.T) {
	interval := func(index int, hs map[snapshot.Transaction]*hdr.Histogram) snapshot.MergedInterval {
		m := snapshot.MergedInterval{Index: index, Transactions: map[snapshot.Transaction]*snapshot.MergedTransaction{}}
		for tx, h := range hs {
			m.Transactions[tx] = &snapshot.MergedTransaction{Histogram: h}
		}
		return m
	}
	for _, tc := range []struct {
		name      string
		intervals []snapshot.MergedInterval
		// want: per type, the count and the max the window holds.
		want map[benchv1.Transaction][2]int64
	}{
		{"nothing added", nil, nil},
		{"intervals before From and at To are left out", []snapshot.MergedInterval{
			interval(4, map[snapshot.Transaction]*hdr.Histogram{snapshot.NewOrder: latencies(time.Second)}),
			interval(7, map[snapshot.Transaction]*hdr.Histogram{snapshot.NewOrder: latencies(2 * time.Second)}),
		}, nil},
		{"histograms merge across the window's intervals", []snapshot.MergedInterval{
			interval(4, map[snapshot.Transaction]*hdr.Histogram{snapshot.NewOrder: latencies(time.Second)}),
			interval(5, map[snapshot.Transaction]*hdr.Histogram{snapshot.NewOrder: latencies(10*time.Millisecond, 20*time.Millisecond),
				snapshot.Payment: latencies(5 * time.Millisecond)}),
			interval(6, map[snapshot.Transaction]*hdr.Histogram{snapshot.NewOrder: latencies(30 * time.Millisecond)}),
			interval(7, map[snapshot.Transaction]*hdr.Histogram{snapshot.Payment: latencies(3 * time.Second)}),
		}, map[benchv1.Transaction][2]int64{benchv1.NewOrder: {3, 30_000}, benchv1.Payment: {1, 5_000}}},
		{"empty and absent histograms add no type", []snapshot.MergedInterval{
			interval(5, map[snapshot.Transaction]*hdr.Histogram{snapshot.NewOrder: latencies(), snapshot.Delivery: nil,
				snapshot.StockLevel: latencies(40 * time.Millisecond)}),
		}, map[benchv1.Transaction][2]int64{benchv1.StockLevel: {1, 40_000}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &FaultWindow{From: 5, To: 7}
			for _, m := range tc.intervals {
				if err := w.add(m); err != nil {
					t.Fatal(err)
				}
			}
			if len(w.Histograms) != len(tc.want) {
				t.Fatalf("window holds %d types %v, want %d", len(w.Histograms), w.Histograms, len(tc.want))
			}
			stats := w.stats()
			if len(stats) != len(tc.want) {
				t.Fatalf("stats %+v, want %d types", stats, len(tc.want))
			}
			for tx, want := range tc.want {
				got := stats[tx]
				if got.Count != want[0] || !near(got.Max.Duration, snapshot.Micros(want[1])) || got.P50.Duration > got.P99.Duration {
					t.Errorf("%s: %+v, want count %d, max %s", tx, got, want[0], snapshot.Micros(want[1]))
				}
			}
		})
	}

	// A nil window takes nothing; a histogram that does not decode is an error to add to and
	// left out of the stats.
	var none *FaultWindow
	if err := none.add(snapshot.MergedInterval{Index: 5}); err != nil || none.stats() != nil {
		t.Errorf("nil window: %v, %v", err, none.stats())
	}
	bad := &FaultWindow{From: 0, To: 1, Histograms: map[snapshot.Transaction]string{snapshot.NewOrder: "not a histogram"}}
	if err := bad.add(interval(0, map[snapshot.Transaction]*hdr.Histogram{snapshot.NewOrder: latencies(time.Millisecond)})); err == nil {
		t.Error("a corrupt histogram in the window merged without an error")
	}
	if s := bad.stats(); len(s) != 0 {
		t.Errorf("stats of a corrupt histogram: %+v", s)
	}
}

func TestOpenFaultWindow(t *testing.T) {
	injected := func(at, client time.Duration, state string) []benchv1.FaultInjection {
		inj := benchv1.FaultInjection{State: state, Time: microAt(at)}
		if client != 0 {
			inj.ClientTime = microAt(client)
		}
		return []benchv1.FaultInjection{inj}
	}
	for _, tc := range []struct {
		name     string
		current  bool
		faults   []benchv1.FaultInjection
		st       *StepSeries
		opened   bool
		from, to int
	}{
		{"no step under way", false, injected(30*time.Second, 0, benchv1.FaultInjected), &StepSeries{Origin: faultOrigin, LengthSeconds: 1}, false, 0, 0},
		{"no series", true, injected(30*time.Second, 0, benchv1.FaultInjected), nil, false, 0, 0},
		{"already open", true, injected(30*time.Second, 0, benchv1.FaultInjected),
			&StepSeries{Origin: faultOrigin, LengthSeconds: 1, AfterFault: &FaultWindow{From: 3, To: 4}}, false, 3, 4},
		{"no interval length yet", true, injected(30*time.Second, 0, benchv1.FaultInjected), &StepSeries{Origin: faultOrigin}, false, 0, 0},
		{"no origin yet", true, injected(30*time.Second, 0, benchv1.FaultInjected), &StepSeries{LengthSeconds: 1}, false, 0, 0},
		{"nothing applied", true, injected(30*time.Second, 0, benchv1.FaultSkipped), &StepSeries{Origin: faultOrigin, LengthSeconds: 1}, false, 0, 0},
		{"injected, 1-s intervals", true, injected(30500*time.Millisecond, 0, benchv1.FaultInjected),
			&StepSeries{Origin: faultOrigin, LengthSeconds: 1}, true, 30, 90},
		{"injecting, 10-s intervals", true, injected(45*time.Second, 0, benchv1.FaultInjecting),
			&StepSeries{Origin: faultOrigin, LengthSeconds: 10}, true, 4, 10},
		{"the clients' mark places it", true, injected(50*time.Second, 21*time.Second, benchv1.FaultInjected),
			&StepSeries{Origin: faultOrigin, LengthSeconds: 10}, true, 2, 8},
		{"before the origin: interval 0", true, injected(-5*time.Second, 0, benchv1.FaultInjected),
			&StepSeries{Origin: faultOrigin, LengthSeconds: 2}, true, 0, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &benchv1.BenchmarkRun{}
			if tc.current {
				run.Status.Current = &benchv1.StepProgress{Faults: tc.faults}
			}
			if got := OpenFaultWindow(run, tc.st); got != tc.opened {
				t.Fatalf("opened %v, want %v", got, tc.opened)
			}
			if tc.st == nil {
				return
			}
			w := tc.st.AfterFault
			if tc.from == 0 && tc.to == 0 {
				if w != nil {
					t.Errorf("window %+v, want none", w)
				}
				return
			}
			if w == nil || w.From != tc.from || w.To != tc.to {
				t.Errorf("window %+v, want [%d, %d)", w, tc.from, tc.to)
			}
		})
	}
}

func TestLedgerOf(t *testing.T) {
	pass := func(districts int, ack, unknown, growth int64) *snapshot.LedgerCheck {
		return &snapshot.LedgerCheck{Pass: true, Districts: districts, Acknowledged: ack, Unknown: unknown, Growth: growth}
	}
	var many []string
	for i := range 13 {
		many = append(many, fmt.Sprintf("district 1/%d: lost", i+1))
	}
	for _, tc := range []struct {
		name      string
		snapshots []*snapshot.Snapshot
		want      int32
		ledger    *benchv1.LedgerCheck
	}{
		{"no pod checked", []*snapshot.Snapshot{ledgerPod("c-0", snapshot.PhaseDone, nil), ledgerPod("c-1", snapshot.PhaseDone, nil)}, 2, nil},
		{"all pass", []*snapshot.Snapshot{ledgerPod("c-0", snapshot.PhaseDone, pass(10, 100, 2, 101)), ledgerPod("c-1", snapshot.PhaseDone, pass(10, 50, 0, 50))}, 2,
			&benchv1.LedgerCheck{Pass: true, Districts: 20, Acknowledged: 150, Unknown: 2, Growth: 151}},
		{"one failure", []*snapshot.Snapshot{ledgerPod("c-0", snapshot.PhaseDone, pass(10, 100, 0, 100)),
			ledgerPod("c-1", snapshot.PhaseDone, &snapshot.LedgerCheck{Districts: 10, Acknowledged: 50, Growth: 49, Failures: []string{"district 1/3: 5 acknowledged, grew by 4"}})}, 2,
			&benchv1.LedgerCheck{Districts: 20, Acknowledged: 150, Growth: 149, Failures: []string{"district 1/3: 5 acknowledged, grew by 4"}}},
		{"a reading failed", []*snapshot.Snapshot{ledgerPod("c-0", snapshot.PhaseDone, pass(10, 100, 0, 100)),
			ledgerPod("c-1", snapshot.PhaseDone, &snapshot.LedgerCheck{Pass: true, Districts: 10, Acknowledged: 7, Error: "connection refused"})}, 2,
			&benchv1.LedgerCheck{NotChecked: []string{"pod c-1: connection refused"}, Districts: 10, Acknowledged: 100, Growth: 100}},
		{"a pod without a check", []*snapshot.Snapshot{ledgerPod("c-0", snapshot.PhaseDone, pass(10, 100, 0, 100)), ledgerPod("c-1", snapshot.PhaseFailed, nil)}, 2,
			&benchv1.LedgerCheck{NotChecked: []string{"pod c-1: not checked: its run did not end with a check (phase failed)"}, Districts: 10, Acknowledged: 100, Growth: 100}},
		{"pods gone", []*snapshot.Snapshot{ledgerPod("c-0", snapshot.PhaseDone, pass(10, 100, 0, 100))}, 3,
			&benchv1.LedgerCheck{NotChecked: []string{"2 of 3 client pods are gone: their districts were not checked"}, Districts: 10, Acknowledged: 100, Growth: 100}},
		{"10 failures are kept", []*snapshot.Snapshot{ledgerPod("c-0", snapshot.PhaseDone, &snapshot.LedgerCheck{Districts: 10, Failures: many[:6]}),
			ledgerPod("c-1", snapshot.PhaseDone, &snapshot.LedgerCheck{Districts: 10, Failures: many[6:10]})}, 2,
			&benchv1.LedgerCheck{Districts: 20, Failures: many[:10]}},
		{"11 failures are cut to 10", []*snapshot.Snapshot{ledgerPod("c-0", snapshot.PhaseDone, &snapshot.LedgerCheck{Districts: 10, Failures: many[:6]}),
			ledgerPod("c-1", snapshot.PhaseDone, &snapshot.LedgerCheck{Districts: 10, Failures: many[6:11]})}, 2,
			&benchv1.LedgerCheck{Districts: 20, Failures: append(append([]string(nil), many[:10]...), "and 1 more")}},
		{"13 failures are cut to 10", []*snapshot.Snapshot{ledgerPod("c-0", snapshot.PhaseDone, &snapshot.LedgerCheck{Districts: 10, Failures: many[:6]}),
			ledgerPod("c-1", snapshot.PhaseDone, &snapshot.LedgerCheck{Districts: 10, Failures: many[6:]})}, 2,
			&benchv1.LedgerCheck{Districts: 20, Failures: append(append([]string(nil), many[:10]...), "and 3 more")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LedgerOf(tc.snapshots, tc.want); !reflect.DeepEqual(got, tc.ledger) {
				t.Errorf("got  %+v\nwant %+v", got, tc.ledger)
			}
		})
	}
}

func TestFaultsPending(t *testing.T) {
	done := ledgerPod("c-0", snapshot.PhaseDone, nil)
	checked := ledgerPod("c-1", snapshot.PhaseDone, &snapshot.LedgerCheck{Pass: true})
	running := ledgerPod("c-2", snapshot.PhaseMeasuring, nil)
	for _, tc := range []struct {
		name      string
		ledger    bool
		faults    []int
		snapshots []*snapshot.Snapshot
		want      bool
	}{
		{"no faults", true, nil, []*snapshot.Snapshot{done}, false},
		{"an engine without a ledger", false, []int{0}, []*snapshot.Snapshot{done}, false},
		{"a pod done without its check", true, []int{0}, []*snapshot.Snapshot{checked, done}, true},
		{"every done pod checked", true, []int{0}, []*snapshot.Snapshot{checked}, false},
		{"a pod still running", true, []int{0}, []*snapshot.Snapshot{checked, running}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FaultsPending(tc.ledger, tc.faults, tc.snapshots); got != tc.want {
				t.Errorf("pending %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFirstInjection(t *testing.T) {
	inj := func(fault int32, state string, at *metav1.MicroTime) benchv1.FaultInjection {
		return benchv1.FaultInjection{Fault: fault, State: state, Time: at}
	}
	for _, tc := range []struct {
		name string
		list []benchv1.FaultInjection
		want int32 // the fault of the first injection; -1: none
	}{
		{"none", nil, -1},
		{"none applied", []benchv1.FaultInjection{inj(0, benchv1.FaultSkipped, microAt(time.Second)), inj(1, benchv1.FaultFailed, microAt(2*time.Second))}, -1},
		{"applied without a time", []benchv1.FaultInjection{inj(0, benchv1.FaultInjected, nil)}, -1},
		{"injected", []benchv1.FaultInjection{inj(0, benchv1.FaultSkipped, microAt(time.Second)), inj(1, benchv1.FaultInjected, microAt(5*time.Second))}, 1},
		{"injecting counts", []benchv1.FaultInjection{inj(0, benchv1.FaultInjecting, microAt(5*time.Second))}, 0},
		{"earliest wins", []benchv1.FaultInjection{inj(0, benchv1.FaultInjected, microAt(9*time.Second)), inj(1, benchv1.FaultInjecting, microAt(3*time.Second)),
			inj(2, benchv1.FaultInjected, microAt(6*time.Second)), inj(3, benchv1.FaultSkipped, microAt(time.Second))}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FirstInjection(tc.list)
			switch {
			case tc.want < 0 && got != nil:
				t.Errorf("first %+v, want none", got)
			case tc.want >= 0 && (got == nil || got.Fault != tc.want || got != &tc.list[tc.want]):
				t.Errorf("first %+v, want fault %d of the list", got, tc.want)
			}
		})
	}
}

func TestFaultMomentLabelAndReady(t *testing.T) {
	if got := FaultMoment(&benchv1.FaultInjection{Time: microAt(10 * time.Second), ClientTime: microAt(8 * time.Second)}); !got.Equal(faultOrigin.Add(8 * time.Second)) {
		t.Errorf("moment %s, want the clients' mark", got)
	}
	if got := FaultMoment(&benchv1.FaultInjection{Time: microAt(10 * time.Second)}); !got.Equal(faultOrigin.Add(10 * time.Second)) {
		t.Errorf("moment %s, want the operator's time", got)
	}
	if FaultLabel(0) != "fault-0" || FaultLabel(3) != "fault-3" {
		t.Errorf("labels %q, %q", FaultLabel(0), FaultLabel(3))
	}
	ready := benchv1.FaultInjection{ReadyTime: microAt(time.Minute)}
	for _, tc := range []struct {
		name string
		list []benchv1.FaultInjection
		want bool
	}{
		{"none", nil, true},
		{"all ready", []benchv1.FaultInjection{ready, ready}, true},
		{"one not ready", []benchv1.FaultInjection{ready, {}}, false},
	} {
		if got := AllReady(tc.list); got != tc.want {
			t.Errorf("%s: ready %v, want %v", tc.name, got, tc.want)
		}
	}
}

// faultPods are two client pods around a fault marked 30 s after faultOrigin, in clocks 5 s apart:
// the first saw no commit from 0.2 s before its mark to 2.5 s after it, the second from 0.1 s
// before to 2.7 s after; the outage common to both is 2.6 s from 0.1 s before the mark. Both
// passed their ledger checks, with 3 and 1 New-Orders of unknown outcome.
func faultPods() []*snapshot.Snapshot {
	pod := func(name string, clock time.Duration, from, to time.Duration, unknown int64) *snapshot.Snapshot {
		mark := faultOrigin.Add(clock + 30*time.Second)
		return &snapshot.Snapshot{Identity: snapshot.Identity{Pod: name}, Phase: snapshot.PhaseDone,
			LedgerCheck: &snapshot.LedgerCheck{Pass: true, Districts: 10, Acknowledged: 500, Unknown: unknown, Growth: 500 + unknown},
			Ledger:      []snapshot.LedgerDistrict{{WarehouseID: 1, DistrictID: 1, Unknown: unknown}},
			Commits: &snapshot.CommitRecord{Marks: []snapshot.Mark{{Label: "fault-0", Time: mark}},
				Gaps: []snapshot.CommitGap{{From: mark.Add(from), To: mark.Add(to)}}, MinGapSeconds: 0.1,
				TerminalsStart: faultOrigin.Add(clock), LastCommit: faultOrigin.Add(clock + 60*time.Second), Ended: faultOrigin.Add(clock + 60*time.Second)}}
	}
	return []*snapshot.Snapshot{pod("c-0", 0, -200*time.Millisecond, 2500*time.Millisecond, 3),
		pod("c-1", 5*time.Second, -100*time.Millisecond, 2700*time.Millisecond, 1)}
}

// faultSeries is a fault step's series at 1-s intervals 0..59: 10 New-Orders a second, none in
// 30..32 (the fault falls in 30), 2 errors in 31; the window after the fault holds one New-Order
// at 80 ms.
func faultSeries(t *testing.T) *StepSeries {
	cols := &snapshot.CompactColumns{}
	st := &StepSeries{Origin: faultOrigin, LengthSeconds: 1, AfterFault: &FaultWindow{From: 30, To: 90},
		Series: snapshot.CompactSeries{Start: faultOrigin, LengthSeconds: 1, Types: map[snapshot.Transaction]*snapshot.CompactColumns{snapshot.NewOrder: cols}}}
	for i := range 60 {
		st.Series.Index = append(st.Series.Index, i)
		n, e := int64(10), int64(0)
		if i >= 30 && i <= 32 {
			n = 0
		}
		if i == 31 {
			e = 2
		}
		cols.Completed, cols.Errors = append(cols.Completed, n), append(cols.Errors, e)
	}
	m := snapshot.MergedInterval{Index: 31, Transactions: map[snapshot.Transaction]*snapshot.MergedTransaction{snapshot.NewOrder: {Histogram: latencies(80 * time.Millisecond)}}}
	if err := st.AfterFault.add(m); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestFaultRecordNotMeasured(t *testing.T) {
	injected := []benchv1.FaultInjection{{Fault: 0, State: benchv1.FaultInjected, Time: microAt(31 * time.Second), ClientTime: microAt(30 * time.Second)}}
	failedLedger := func() []*snapshot.Snapshot {
		s := faultPods()
		s[1].LedgerCheck = &snapshot.LedgerCheck{Districts: 10, Acknowledged: 9, Growth: 8, Failures: []string{"district 2/4: 9 acknowledged, grew by 8"}}
		return s
	}
	brokenLedger := func() []*snapshot.Snapshot {
		s := faultPods()
		s[0].LedgerCheck = &snapshot.LedgerCheck{Error: "reading failed"}
		return s
	}
	unmarked := func() []*snapshot.Snapshot {
		s := faultPods()
		s[1].Commits = nil
		return s
	}
	noLength := func(t *testing.T) *StepSeries { st := faultSeries(t); st.Series.LengthSeconds = 0; return st }
	for _, tc := range []struct {
		name        string
		bound       bool
		injections  []benchv1.FaultInjection
		st          func(*testing.T) *StepSeries
		snapshots   []*snapshot.Snapshot
		want        int32
		notMeasured string // "": no measurement at all
		checks      []sla.Check
	}{
		{"nothing applied", true, nil, faultSeries, failedLedger(), 2, "",
			[]sla.Check{{Name: "ledger", Status: sla.Fail, Detail: "ledger: 509 acknowledged New-Orders, 3 with an unknown outcome, d_next_o_id grew by 511: district 2/4: 9 acknowledged, grew by 8"}}},
		{"no series", true, injected, func(*testing.T) *StepSeries { return nil }, brokenLedger(), 2, "",
			[]sla.Check{{Name: "ledger", Status: sla.Inconclusive, Detail: "ledger: not checked: pod c-0: reading failed"}}},
		{"a pod gone", true, injected, faultSeries, faultPods()[:1], 2, "1 of 2 client pods are gone: the commits they saw are unknown",
			[]sla.Check{{Name: "ledger", Status: sla.Inconclusive, Detail: "ledger: not checked: 1 of 2 client pods are gone: their districts were not checked"},
				{Name: "unavailability", Status: sla.Inconclusive, Detail: "unavailability: cannot be judged: 1 of 2 client pods are gone: the commits they saw are unknown"}}},
		{"a pod gone, no bound", false, injected, faultSeries, faultPods()[:1], 2, "1 of 2 client pods are gone: the commits they saw are unknown",
			[]sla.Check{{Name: "ledger", Status: sla.Inconclusive, Detail: "ledger: not checked: 1 of 2 client pods are gone: their districts were not checked"}}},
		{"a pod never marked", true, injected, faultSeries, unmarked(), 2, "pod c-1 reported no commit record: it was never marked",
			[]sla.Check{{Name: "unavailability", Status: sla.Inconclusive, Detail: "unavailability: cannot be judged: pod c-1 reported no commit record: it was never marked"}}},
		{"a series without an interval length", true, injected, noLength, faultPods(), 2, "the series has no interval length",
			[]sla.Check{{Name: "unavailability", Status: sla.Inconclusive, Detail: "unavailability: cannot be judged: the series has no interval length"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &benchv1.BenchmarkRun{}
			if tc.bound {
				run.Spec.SLA.MaxUnavailability = &metav1.Duration{Duration: 5 * time.Second}
			}
			rec, checks := FaultRecord(run, tc.injections, tc.st(t), tc.snapshots, tc.want)
			if !reflect.DeepEqual(checks, tc.checks) {
				t.Errorf("checks\n got  %+v\n want %+v", checks, tc.checks)
			}
			if len(rec.Injections) != len(tc.injections) || rec.Ledger == nil {
				t.Errorf("record %+v: want the injections and the ledger", rec)
			}
			switch m := rec.Measurement; {
			case tc.notMeasured == "" && m != nil:
				t.Errorf("measurement %+v, want none", m)
			case tc.notMeasured != "" && (m == nil || m.NotMeasured != tc.notMeasured || m.UnavailabilityMethod != "" || m.Unavailability.Duration != 0):
				t.Errorf("measurement %+v, want not measured: %s", m, tc.notMeasured)
			}
		})
	}
}

func TestFaultRecordMeasured(t *testing.T) {
	injected := []benchv1.FaultInjection{{Fault: 0, State: benchv1.FaultInjected, Time: microAt(31 * time.Second), ClientTime: microAt(30 * time.Second)}}
	for _, tc := range []struct {
		name   string
		bound  time.Duration // 0: no sla.maxUnavailability
		checks []sla.Check
	}{
		{"within the bound", 5 * time.Second, []sla.Check{{Name: "unavailability", Status: sla.Pass, Detail: "unavailability: 2.6s without a commit after the fault ≤ 5s"}}},
		{"over the bound", 2 * time.Second, []sla.Check{{Name: "unavailability", Status: sla.Fail, Detail: "unavailability: 2.6s without a commit after the fault > sla.maxUnavailability 2s"}}},
		{"no bound", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &benchv1.BenchmarkRun{}
			run.Spec.Workload.RampUp = &metav1.Duration{Duration: 10 * time.Second}
			if tc.bound > 0 {
				run.Spec.SLA.MaxUnavailability = &metav1.Duration{Duration: tc.bound}
			}
			rec, checks := FaultRecord(run, injected, faultSeries(t), faultPods(), 2)
			if !reflect.DeepEqual(checks, tc.checks) {
				t.Errorf("checks\n got  %+v\n want %+v", checks, tc.checks)
			}
			if l := rec.Ledger; l == nil || !l.Pass || l.Acknowledged != 1000 || l.Unknown != 4 {
				t.Errorf("ledger %+v", l)
			}
			m := rec.Measurement
			if m == nil {
				t.Fatal("no measurement")
			}
			// The mean of the measured intervals 10..29 before the fault; back to 90 % of it from
			// interval 33 on, 3 s after the mark.
			if m.NotMeasured != "" || m.UnavailabilityMethod != "commits" || m.Unavailability.Duration != 2600*time.Millisecond || m.UnavailableAtEnd ||
				m.BaselineNewOrdersPerSecond != 10 || m.Recovery == nil || m.Recovery.Duration != 3*time.Second || m.CommitsUnknown != 4 {
				t.Errorf("measurement %+v", m)
			}
			if m.UnavailableFrom == nil || !m.UnavailableFrom.Time.Equal(faultOrigin.Add(29900*time.Millisecond)) ||
				m.UnavailableTo == nil || !m.UnavailableTo.Time.Equal(faultOrigin.Add(32500*time.Millisecond)) {
				t.Errorf("unavailable from %v to %v, want 29.9 s to 32.5 s after the origin", m.UnavailableFrom, m.UnavailableTo)
			}
			if !reflect.DeepEqual(m.Errors, map[benchv1.Transaction]int64{benchv1.NewOrder: 2}) {
				t.Errorf("errors %v", m.Errors)
			}
			if a := m.LatencyAfter[benchv1.NewOrder]; len(m.LatencyAfter) != 1 || a.Count != 1 || !near(a.P90.Duration, 80*time.Millisecond) {
				t.Errorf("latency after %+v", m.LatencyAfter)
			}
		})
	}
}

// The minute after a fault reports its percentiles by the nearest rank, as a step does: of 16
// New-Orders of 1..16 ms the p90 is the 15th (HdrHistogram's own rank rule reads the 14th).
func TestFaultWindowStatsReadNearestRank(t *testing.T) {
	h := snapshot.NewHistogram()
	for v := int64(1); v <= 16; v++ {
		_ = h.RecordValue(v * 1000)
	}
	enc, err := snapshot.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	w := &FaultWindow{From: 0, To: 6, Histograms: map[snapshot.Transaction]string{snapshot.NewOrder: enc}}
	got := w.stats()[benchv1.Transaction(snapshot.NewOrder)]
	if want := snapshot.Micros(snapshot.ValueAtRank(h, 15)); got.P90.Duration != want || got.Count != 16 {
		t.Errorf("p90 %s of %d, want the 15th of 16: %s", got.P90.Duration, got.Count, want)
	}
}
