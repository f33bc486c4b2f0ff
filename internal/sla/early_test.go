package sla

import (
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func allTypes(n int64) map[snapshot.Transaction]int64 {
	out := map[snapshot.Transaction]int64{}
	for _, t := range snapshot.Transactions {
		out[t] = n
	}
	return out
}

func TestDecideAtTheEndIsTheVerdict(t *testing.T) {
	m := compliantStep(t)
	early, err := Decide(m, DefaultCriteria(), Headroom{Remaining: 0})
	if err != nil {
		t.Fatal(err)
	}
	if !early.Final || !early.Verdict.Compliant {
		t.Fatalf("finished compliant step decided %+v", early)
	}
}

func TestDecideEarly(t *testing.T) {
	// 1 000 New-Orders so far, 200 of them above 5 s: p90 fails now. With 1 000
	// more fast ones the p90's nearest rank in 2 000 samples, 1 800, is the last
	// sample at or below 5 s: recoverable; with 999 more the rank in 1 999,
	// ceil(1799.1) = 1 800, lands on a slow sample. (Efficiency is not judged
	// in these cases: so few New-Orders would fail it.)
	slowNewOrders := func(m *snapshot.Merged) {
		withHistogram(m, snapshot.NewOrder, histogramOf(t, map[time.Duration]int64{100 * time.Millisecond: 800, 6 * time.Second: 200}))
	}
	for name, tc := range map[string]struct {
		change       func(m *snapshot.Merged)
		headroom     Headroom
		noEfficiency bool
		wantFinal    bool
		reasons      []string // substrings, one per expected reason, in order
	}{
		"latency lost": {
			change: slowNewOrders, headroom: Headroom{Remaining: time.Minute, MaxMore: map[snapshot.Transaction]int64{snapshot.NewOrder: 999}},
			wantFinal: true, noEfficiency: true, reasons: []string{"NewOrder p90 6.03s > 5s: 200 of 1000 attempts failed or took longer, more than 999 further fast transactions can offset"},
		},
		"latency still recoverable at the edge": {
			change: slowNewOrders, headroom: Headroom{Remaining: time.Minute, MaxMore: map[snapshot.Transaction]int64{snapshot.NewOrder: 1000}},
			noEfficiency: true,
		},
		"latency lost to failed transactions": {
			// 800 fast New-Orders and 200 failed: failures rank above every response time.
			change: func(m *snapshot.Merged) {
				withHistogram(m, snapshot.NewOrder, histogramOf(t, map[time.Duration]int64{100 * time.Millisecond: 800}))
				m.Transactions[snapshot.NewOrder].Errors = 200
			},
			headroom:  Headroom{Remaining: time.Minute, MaxMore: map[snapshot.Transaction]int64{snapshot.NewOrder: 999}},
			wantFinal: true, noEfficiency: true,
			reasons: []string{
				"NewOrder p90 ∞ > 5s: 200 of 1000 attempts failed or took longer",
				"errors NewOrder stay above 1% even if its remaining 999 transactions succeed",
			},
		},
		"latency lost in a bucket the bound cuts through": {
			// Samples at exactly 5 s lie in the bucket 4.981–5.014 s, which reaches above the bound.
			change: func(m *snapshot.Merged) {
				withHistogram(m, snapshot.NewOrder, histogramOf(t, map[time.Duration]int64{100 * time.Millisecond: 800, 5 * time.Second: 200}))
			},
			headroom:  Headroom{Remaining: time.Minute, MaxMore: map[snapshot.Transaction]int64{snapshot.NewOrder: 999}},
			wantFinal: true, noEfficiency: true,
			reasons: []string{"NewOrder p90 5.01s > 5s: 200 of 1000 attempts failed or took longer"},
		},
		"latency with unknown headroom": {
			change: slowNewOrders, headroom: Headroom{Remaining: time.Minute},
		},
		"latency with headroom of other types only": {
			change: slowNewOrders, headroom: Headroom{Remaining: time.Minute, MaxMore: map[snapshot.Transaction]int64{snapshot.Payment: 0}},
		},
		"efficiency unreachable": {
			// 1 000 warehouses, 2 h: 85 % needs 1 311 720 New-Orders; 1 000 000 so
			// far plus at most 300 000 more is not enough.
			change: func(m *snapshot.Merged) {
				withHistogram(m, snapshot.NewOrder, latencies(t, 1_000_000, fixtureLatencyBase))
				m.Measured = 100 * time.Minute
			},
			headroom:  Headroom{Remaining: 20 * time.Minute, MaxMore: map[snapshot.Transaction]int64{snapshot.NewOrder: 300_000}},
			wantFinal: true, reasons: []string{"efficiency can reach at most 84.24% < 85% (1000000 New-Orders so far, at most 300000 more in 20m0s)"},
		},
		"efficiency reachable": {
			change: func(m *snapshot.Merged) {
				withHistogram(m, snapshot.NewOrder, latencies(t, 1_000_000, fixtureLatencyBase))
				m.Measured = 100 * time.Minute
			},
			headroom: Headroom{Remaining: 20 * time.Minute, MaxMore: map[snapshot.Transaction]int64{snapshot.NewOrder: 320_000}},
		},
		"errors unreachable": {
			change:    func(m *snapshot.Merged) { m.Transactions[snapshot.Delivery].Errors = 60_000 },
			headroom:  Headroom{Remaining: time.Minute, MaxMore: allTypes(500_000)},
			wantFinal: true, reasons: []string{
				"errors stay above 1% even if the remaining 2500000 transactions succeed",
				"errors Delivery stay above 1% even if its remaining 500000 transactions succeed: at least 8.658% (60000 errors)",
			},
		},
		"one type's errors unreachable": {
			// All types together can recover (60 000 of 7 303 243 attempts would be 0.82 %);
			// Delivery alone cannot (60 000 of 992 973).
			change:    func(m *snapshot.Merged) { m.Transactions[snapshot.Delivery].Errors = 60_000 },
			headroom:  Headroom{Remaining: time.Minute, MaxMore: allTypes(800_000)},
			wantFinal: true, reasons: []string{"errors Delivery stay above 1% even if its remaining 800000 transactions succeed: at least 6.042% (60000 errors)"},
		},
		"errors recoverable": {
			change:   func(m *snapshot.Merged) { m.Transactions[snapshot.Delivery].Errors = 60_000 },
			headroom: Headroom{Remaining: time.Minute, MaxMore: allTypes(6_000_000)},
		},
		"errors with their type unknown": {
			change: func(m *snapshot.Merged) { m.Transactions[snapshot.Delivery].Errors = 60_000 },
			headroom: Headroom{Remaining: time.Minute, MaxMore: map[snapshot.Transaction]int64{
				snapshot.NewOrder: 0, snapshot.Payment: 0, snapshot.OrderStatus: 0, snapshot.StockLevel: 0}},
		},
		"failed pod": {
			change: func(m *snapshot.Merged) {
				m.Failures = []snapshot.PodFailure{{Pod: "run-1", Message: "terminal panic"}}
			},
			headroom: Headroom{Remaining: time.Minute}, wantFinal: true, reasons: []string{"pod run-1 failed: terminal panic"},
		},
		"bad C-Run constant": {
			change:   func(m *snapshot.Merged) { m.Constants.CLastRun = m.Constants.CLastLoad + 112 },
			headroom: Headroom{Remaining: time.Minute}, wantFinal: true, reasons: []string{"delta 112 violates Clause 2.1.6.1"},
		},
		"mix failing now is not final": {
			change: func(m *snapshot.Merged) {
				withHistogram(m, snapshot.Payment, latencies(t, 1_000, fixtureLatencyBase))
			},
			headroom: Headroom{Remaining: time.Minute, MaxMore: allTypes(0)},
		},
		"healthy step is not final": {
			change:   func(*snapshot.Merged) {},
			headroom: Headroom{Remaining: time.Minute, MaxMore: SpecWaitMaxMore(10_000, time.Minute)},
		},
	} {
		t.Run(name, func(t *testing.T) {
			m := compliantStep(t)
			tc.change(m)
			c := DefaultCriteria()
			if tc.noEfficiency {
				c.MinEfficiencyPercent = 0
			}
			early, err := Decide(m, c, tc.headroom)
			if err != nil {
				t.Fatal(err)
			}
			if early.Final != tc.wantFinal {
				t.Fatalf("final = %v, want %v (%+v)", early.Final, tc.wantFinal, early.Verdict)
			}
			if !tc.wantFinal {
				return
			}
			if early.Verdict.Compliant || len(early.Verdict.Reasons) != len(tc.reasons) {
				t.Fatalf("verdict %+v, want non-compliant with reasons containing %q", early.Verdict, tc.reasons)
			}
			for i, want := range tc.reasons {
				if !strings.Contains(early.Verdict.Reasons[i], want) {
					t.Errorf("reason %d = %q, want it to contain %q", i, early.Verdict.Reasons[i], want)
				}
			}
		})
	}
}

// TestDecideNeverContradictsTheFinalVerdict plays the latency rule out: when
// Decide declares a loss with headroom k, adding any k fast samples must
// still fail Judge's latency check, and when it does not, k fast samples must
// pass it. Slow samples sit above the bound (7 s) or in the bucket it cuts
// through (5 s); failed transactions rank above both.
func TestDecideNeverContradictsTheFinalVerdict(t *testing.T) {
	bound := LatencyBound{Transaction: snapshot.NewOrder, Percentile: 90, Max: 5 * time.Second}
	for _, slowAt := range []time.Duration{7 * time.Second, 5 * time.Second} {
		for _, failed := range []int64{0, 3, 20} {
			for slow := int64(0); slow <= 60; slow += 7 {
				for fast := int64(0); fast <= 300; fast += 13 {
					for more := int64(0); more <= 400; more += 37 {
						if slow+failed == 0 {
							continue
						}
						mt := &snapshot.MergedTransaction{Errors: failed, Histogram: histogramOf(t, map[time.Duration]int64{
							10 * time.Millisecond: fast, slowAt: slow})}
						_, lost := latencyLost(mt, bound, more)
						_ = mt.Histogram.RecordValues(10_000, more)
						final := latencyCheck(mt, bound)
						if lost && final.Status != Fail {
							t.Fatalf("fast %d slow %d at %v, failed %d, more %d: declared lost but all-fast future passes: %s", fast, slow, slowAt, failed, more, final.Detail)
						}
						if !lost && final.Status == Fail {
							t.Fatalf("fast %d slow %d at %v, failed %d, more %d: not declared lost but the best future fails: %s", fast, slow, slowAt, failed, more, final.Detail)
						}
					}
				}
			}
		}
	}
}

func TestSpecWaitMaxMore(t *testing.T) {
	got := SpecWaitMaxMore(100, time.Minute)
	want := map[snapshot.Transaction]int64{
		snapshot.NewOrder: 100 * (3 + 1), snapshot.Payment: 100 * (20 + 1),
		snapshot.OrderStatus: 100 * 31, snapshot.Delivery: 100 * 31, snapshot.StockLevel: 100 * 31,
	}
	for tx, n := range want {
		if got[tx] != n {
			t.Errorf("%s: %d, want %d", tx, got[tx], n)
		}
	}
	if got := SpecWaitMaxMore(10, -time.Second)[snapshot.NewOrder]; got != 10 {
		t.Errorf("no time left: %d New-Orders, want the 10 already keyed", got)
	}
}
