package sla

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestJudgeCompliantStep(t *testing.T) {
	v, err := Judge(compliantStep(t), DefaultCriteria())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Compliant || !v.SpecCompliant || len(v.Reasons) != 0 || len(v.Notes) != 0 {
		t.Fatalf("compliant step judged %+v", v)
	}
	for _, ch := range v.Checks {
		if ch.Status != Pass {
			t.Errorf("check %q: %s (%s), want pass", ch.Name, ch.Status, ch.Detail)
		}
	}
	wantDetail := "NewOrder p90 180ms ≤ 5s"
	if !slices.ContainsFunc(v.Checks, func(c Check) bool { return c.Detail == wantDetail }) {
		t.Errorf("no check reads %q in %+v", wantDetail, v.Checks)
	}
}

// TestJudgeFailures changes one thing of a compliant step per case; the step
// must fail with exactly the reasons listed.
func TestJudgeFailures(t *testing.T) {
	for name, tc := range map[string]struct {
		change  func(m *snapshot.Merged)
		reasons []string // substrings, one per expected reason, in order
	}{
		"latency above bound": {
			change: func(m *snapshot.Merged) {
				withHistogram(m, snapshot.NewOrder, histogramOf(t, map[time.Duration]int64{
					100 * time.Millisecond: 850_000, 6200 * time.Millisecond: 590_000}))
			},
			reasons: []string{"NewOrder p90 6.23s > 5s"},
		},
		"latency one bucket above bound": {
			change: func(m *snapshot.Merged) {
				withHistogram(m, snapshot.StockLevel, histogramOf(t, map[time.Duration]int64{20_200 * time.Millisecond: fixtureOthers}))
			},
			reasons: []string{"StockLevel p90 20.3s > 20s"},
		},
		"no sample of a bounded type": {
			change:  func(m *snapshot.Merged) { withHistogram(m, snapshot.Delivery, snapshot.NewHistogram()) },
			reasons: []string{"Delivery p90: no completed Delivery transaction", "mix Delivery 0.00% < 4%"},
		},
		"zero New-Orders": {
			change: func(m *snapshot.Merged) {
				withHistogram(m, snapshot.NewOrder, snapshot.NewHistogram())
				m.Audit.OrderLineCounts = [snapshot.OrderLineCountsLen]int64{}
				m.Audit.RemoteOrderLines = 0
			},
			reasons: []string{
				"no New-Order completed in the 2h0m0s measured interval",
				"NewOrder p90: no completed NewOrder transaction",
				"efficiency 0.00% (0.0 tpmC on 1000 warehouses) < 85%",
			},
		},
		"efficiency below minimum": {
			change: func(m *snapshot.Merged) {
				setWarehouses(m, 1200)
			},
			reasons: []string{"efficiency 77.76% (12000.0 tpmC on 1200 warehouses) < 85%"},
		},
		"errors above bound": {
			change:  func(m *snapshot.Merged) { m.Transactions[snapshot.Payment].Errors = 40_000 },
			reasons: []string{"errors 1.218% (40000 of 3283243 transactions) > 1%", "errors Payment 2.769% (40000 of 1444324 attempts) > 1%"},
		},
		"Payment share below 43 %": {
			change: func(m *snapshot.Merged) {
				withHistogram(m, snapshot.Payment, latencies(t, 1_300_000, fixtureLatencyBase))
				m.Audit.RemotePayments, m.Audit.PaymentsByLastName = 1_300_000*15/100, 1_300_000*60/100
			},
			reasons: []string{"mix Payment 41.42% < 43%"},
		},
		"rollbacks outside window": {
			change: func(m *snapshot.Merged) {
				m.Transactions[snapshot.NewOrder].Rollbacks, m.Transactions[snapshot.NewOrder].Commits = 17_280, fixtureNewOrders-17_280
			},
			reasons: []string{"audit New-Order rollbacks (9.2.2.5.1) 1.200% (17280 of 1440000 New-Orders) outside 0.9–1.1%"},
		},
		"remote lines outside window": {
			change:  func(m *snapshot.Merged) { m.Audit.RemoteOrderLines = 2 * m.Audit.RemoteOrderLines },
			reasons: []string{"audit remote order lines (9.2.2.5.3) 2.000%"},
		},
		"mean order lines outside window": {
			change: func(m *snapshot.Merged) {
				m.Audit.OrderLineCounts = [snapshot.OrderLineCountsLen]int64{snapshot.OrderLineCountsLen - 1: fixtureNewOrders}
				m.Audit.RemoteOrderLines = fixtureNewOrders * 15 / 100
			},
			reasons: []string{"audit mean order lines (9.2.2.5.2) 15.000 over 1440000 New-Orders outside 9.5–10.5"},
		},
		"remote payments outside window": {
			change:  func(m *snapshot.Merged) { m.Audit.RemotePayments = fixturePayments * 17 / 100 },
			reasons: []string{"audit remote payments (9.2.2.5.4) 17.000%"},
		},
		"payments by name outside window": {
			change:  func(m *snapshot.Merged) { m.Audit.PaymentsByLastName = fixturePayments / 2 },
			reasons: []string{"audit Payments by last name (9.2.2.5.5) 50.000%"},
		},
		"order-status by name outside window": {
			change:  func(m *snapshot.Merged) { m.Audit.OrderStatusByLastName = fixtureOthers * 64 / 100 },
			reasons: []string{"audit Order-Status by last name (9.2.2.5.6) 63.999% (85102 of 132973 Order-Statuses) outside 57–63%"},
		},
		"skipped deliveries above 1 %": {
			change:  func(m *snapshot.Merged) { m.Audit.SkippedDeliveryDistricts = 20_000 },
			reasons: []string{"audit skipped deliveries (9.2.1.7) 1.483% > 1%"},
		},
		"C-Run delta excluded": {
			change:  func(m *snapshot.Merged) { m.Constants.CLastRun = m.Constants.CLastLoad + 96 },
			reasons: []string{"C_LAST C-Run 253, C-Load 157: delta 96 violates Clause 2.1.6.1"},
		},
		"C-Run equal to C-Load": {
			change:  func(m *snapshot.Merged) { m.Constants.CLastRun = m.Constants.CLastLoad },
			reasons: []string{"delta 0 violates"},
		},
		"a pod failed": {
			change: func(m *snapshot.Merged) {
				m.Failures = []snapshot.PodFailure{{Pod: "run-3", Message: "lost connection to server"}}
			},
			reasons: []string{"pod run-3 failed: lost connection to server"},
		},
		"a pod is missing": {
			change:  func(m *snapshot.Merged) { m.DrivenWarehouses, m.Terminals = 900, 9000 },
			reasons: []string{"snapshots cover 900 of 1000 active warehouses: pods are missing"},
		},
		"too many terminals with spec waits": {
			change:  func(m *snapshot.Merged) { m.Terminals = 20_000 },
			reasons: []string{"20000 terminals drive 1000 warehouses: spec waits need 10 per warehouse (10000)"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			m := compliantStep(t)
			tc.change(m)
			v, err := Judge(m, DefaultCriteria())
			if err != nil {
				t.Fatal(err)
			}
			if v.Compliant || v.SpecCompliant {
				t.Fatalf("judged compliant=%v spec=%v, want both false; checks %+v", v.Compliant, v.SpecCompliant, v.Checks)
			}
			if len(v.Reasons) != len(tc.reasons) {
				t.Fatalf("reasons %q, want %d containing %q", v.Reasons, len(tc.reasons), tc.reasons)
			}
			for i, want := range tc.reasons {
				if !strings.Contains(v.Reasons[i], want) {
					t.Errorf("reason %d = %q, want it to contain %q", i, v.Reasons[i], want)
				}
			}
		})
	}
}

// TestJudgeLatencyAtTheBound: every New-Order recorded at exactly the bound lies in a bucket
// that reaches above it (but at 1 µs, where buckets are 1 µs wide), so the bound fails; every
// New-Order at the top of the last bucket wholly below the bound passes.
func TestJudgeLatencyAtTheBound(t *testing.T) {
	for _, tc := range []struct {
		bound, sample time.Duration
		compliant     bool
	}{
		{5 * time.Second, 5 * time.Second, false},
		{5 * time.Second, 4_980_735 * time.Microsecond, true},
		{20 * time.Second, 20 * time.Second, false},
		{20 * time.Second, 19_922_943 * time.Microsecond, true},
		{150 * time.Millisecond, 150 * time.Millisecond, false},
		{150 * time.Millisecond, 149_503 * time.Microsecond, true},
		{1 * time.Microsecond, 1 * time.Microsecond, true},
	} {
		m := compliantStep(t)
		withHistogram(m, snapshot.NewOrder, histogramOf(t, map[time.Duration]int64{tc.sample: fixtureNewOrders}))
		c := DefaultCriteria()
		c.Latency = []LatencyBound{{Transaction: snapshot.NewOrder, Percentile: 90, Max: tc.bound}}
		v, err := Judge(m, c)
		if err != nil {
			t.Fatal(err)
		}
		if v.Compliant != tc.compliant {
			t.Errorf("every New-Order at %v, bound %v: compliant %v, want %v (%q)", tc.sample, tc.bound, v.Compliant, tc.compliant, v.Reasons)
		}
	}
}

func TestJudgeNonSpecRunsAreCompliantButNotSpecCompliant(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(m *snapshot.Merged)
		note   string
	}{
		"no waits": {change: func(m *snapshot.Merged) { m.Wait = snapshot.WaitNone }, note: "wait mode none"},
		"ten-minute interval": {
			change: func(m *snapshot.Merged) {
				m.Measured = 10 * time.Minute
				setWarehouses(m, 12_000)
			},
			note: "measured interval 10m0s is shorter than the 2h0m0s",
		},
		"audits skipped": {
			change: func(m *snapshot.Merged) {
				// 60 000 New-Orders in 5 minutes: 12 000 tpmC, too few for the rollback window.
				m.Measured = 5 * time.Minute
				withHistogram(m, snapshot.NewOrder, latencies(t, 60_000, fixtureLatencyBase))
				m.Transactions[snapshot.NewOrder].Rollbacks, m.Transactions[snapshot.NewOrder].Commits = 600, 59_400
				m.Audit.OrderLineCounts = [snapshot.OrderLineCountsLen]int64{5: 60_000}
				m.Audit.RemoteOrderLines = 6_000
			},
			note: "checks skipped for too few samples",
		},
	} {
		t.Run(name, func(t *testing.T) {
			m := compliantStep(t)
			tc.change(m)
			v, err := Judge(m, DefaultCriteria())
			if err != nil {
				t.Fatal(err)
			}
			if !v.Compliant || v.SpecCompliant {
				t.Fatalf("compliant=%v spec=%v reasons %q, want compliant but not spec-compliant", v.Compliant, v.SpecCompliant, v.Reasons)
			}
			if !slices.ContainsFunc(v.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("notes %q lack %q", v.Notes, tc.note)
			}
		})
	}
}

func TestAuditSampleSizeRule(t *testing.T) {
	for _, tc := range []struct {
		window auditWindow
		want   int64
	}{
		{rollbackWindow, 158_400},   // 16·0.0099/0.001²
		{remoteLineWindow, 633_600}, // 16·0.0099/0.0005²
		{remotePayWindow, 20_400},   // 16·0.1275/0.01²
		{payByNameWindow, 4_267},    // 16·0.24/0.03²
		{meanLinesWindow, 640},      // 16·10/0.5²
	} {
		if got := tc.window.minSample(); got < tc.want-1 || got > tc.want+1 {
			t.Errorf("%s: minimum sample %d, want %d", tc.window.name, got, tc.want)
		}
	}
}

func TestJudgeSkipsAuditsOnSmallSamples(t *testing.T) {
	// One warehouse for ten minutes: ~129 New-Orders, ~290 transactions.
	m := compliantStep(t)
	setWarehouses(m, 1)
	m.Measured = 10 * time.Minute
	for tx, n := range map[snapshot.Transaction]int64{snapshot.NewOrder: 125, snapshot.Payment: 120, snapshot.OrderStatus: 12, snapshot.Delivery: 12, snapshot.StockLevel: 12} {
		m.Transactions[tx].Rollbacks = 0
		withHistogram(m, tx, latencies(t, n, fixtureLatencyBase))
	}
	m.Transactions[snapshot.NewOrder].Rollbacks, m.Transactions[snapshot.NewOrder].Commits = 3, 122 // 2.4 %: outside the window
	m.Audit = snapshot.Audit{OrderLineCounts: [snapshot.OrderLineCountsLen]int64{5: 125}, RemoteOrderLines: 30, RemotePayments: 30,
		PaymentsByLastName: 50, OrderStatusByLastName: 2, DeliveredDistricts: 120}
	v, err := Judge(m, DefaultCriteria())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Compliant {
		t.Fatalf("small step non-compliant: %q", v.Reasons)
	}
	var skipped int
	for _, ch := range v.Checks {
		if ch.Status == Skipped {
			skipped++
			if !strings.Contains(ch.Detail, "skipped: too few transactions (281, 10000 needed)") {
				t.Errorf("skipped check reads %q", ch.Detail)
			}
		}
	}
	if want := 4 + 7; skipped != want { // four mix minimums, seven audits
		t.Errorf("%d checks skipped, want %d", skipped, want)
	}

	// Not a single Delivery: its bound was asked for and cannot be judged. Missing data never
	// passes: the step is inconclusive, naming the bound; nothing failed, so it is no evidence of
	// non-compliance either.
	withHistogram(m, snapshot.Delivery, snapshot.NewHistogram())
	if v, err = Judge(m, DefaultCriteria()); err != nil {
		t.Fatal(err)
	}
	if v.Compliant || !v.Inconclusive || v.SpecCompliant || len(v.Reasons) != 1 ||
		!strings.Contains(v.Reasons[0], "Delivery p90: cannot be judged: no Delivery transaction completed in the measured interval") {
		t.Errorf("small step without Delivery: compliant %v, inconclusive %v, reasons %q", v.Compliant, v.Inconclusive, v.Reasons)
	}

	// In a probe, which only narrows a search, the unmeasured bound is skipped instead: the
	// full-length step that confirms the probe judges it.
	probe := DefaultCriteria()
	probe.UnmeasuredBoundsSkipped = true
	if v, err = Judge(m, probe); err != nil {
		t.Fatal(err)
	}
	skipped = 0
	for _, ch := range v.Checks {
		if ch.Status == Skipped {
			skipped++
		}
	}
	if !v.Compliant || v.Inconclusive || !slices.ContainsFunc(v.Checks, func(c Check) bool {
		return c.Status == Skipped && strings.Contains(c.Detail, "Delivery p90: skipped: too few Delivery transactions")
	}) {
		t.Errorf("probe without Delivery: compliant %v, checks %+v", v.Compliant, v.Checks)
	}
	if want := 4 + 7 + 1; skipped != want {
		t.Errorf("%d checks skipped, want %d", skipped, want)
	}

	// A failure wins over missing data: with efficiency broken too, the step is non-compliant.
	broken := DefaultCriteria()
	broken.MinEfficiencyPercent = 99.9
	if v, err = Judge(m, broken); err != nil {
		t.Fatal(err)
	}
	if v.Compliant || v.Inconclusive || len(v.Reasons) != 1 || !strings.Contains(v.Reasons[0], "efficiency") {
		t.Errorf("failing step without Delivery: inconclusive %v, reasons %q", v.Inconclusive, v.Reasons)
	}
}

func TestJudgeRejectsBadCriteria(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(c *Criteria)
		want   string
	}{
		"unknown transaction": {change: func(c *Criteria) { c.Latency[0].Transaction = "Refund" }, want: `latency[0].transaction: unknown transaction "Refund"`},
		"percentile 0":        {change: func(c *Criteria) { c.Latency[1].Percentile = 0 }, want: "latency[1].percentile: 0 is outside (0, 100)"},
		"percentile 100":      {change: func(c *Criteria) { c.Latency[1].Percentile = 100 }, want: "latency[1].percentile: 100"},
		"zero max":            {change: func(c *Criteria) { c.Latency[2].Max = 0 }, want: "latency[2].max"},
		"efficiency 101":      {change: func(c *Criteria) { c.MinEfficiencyPercent = 101 }, want: "minEfficiencyPercent: 101"},
		"negative errors":     {change: func(c *Criteria) { c.MaxErrorPercent = -1 }, want: "maxErrorPercent: -1"},
		"negative audit":      {change: func(c *Criteria) { c.MinAuditTransactions = -1 }, want: "minAuditTransactions"},
	} {
		t.Run(name, func(t *testing.T) {
			c := DefaultCriteria()
			tc.change(&c)
			_, err := Judge(compliantStep(t), c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		6_201_343 * time.Microsecond: "6.2s",
		105_023 * time.Microsecond:   "105ms",
		1_234 * time.Microsecond:     "1.23ms",
		20 * time.Second:             "20s",
		10 * time.Minute:             "10m0s",
		999 * time.Nanosecond:        "999ns",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestJudgeRejectsIncompleteMerge(t *testing.T) {
	m := compliantStep(t)
	delete(m.Transactions, snapshot.StockLevel)
	if _, err := Judge(m, DefaultCriteria()); err == nil || !strings.Contains(err.Error(), "transactions.StockLevel is missing") {
		t.Errorf("error = %v, want the missing type named", err)
	}
	m = compliantStep(t)
	m.ActiveWarehouses = 0
	if _, err := Decide(m, DefaultCriteria(), Headroom{Remaining: time.Minute}); err == nil || !strings.Contains(err.Error(), "activeWarehouses 0") {
		t.Errorf("error = %v, want activeWarehouses named", err)
	}
}

// A share below its minimum fails only beyond the deck's sampling: 10 000 transactions from one
// pod of 40 terminals put the Payment share within ±0.12 points (one deviation) of the deck's
// 43.3 %, from four pods within ±0.23; within four deviations the check is skipped, naming it.
func TestMixBelowMinimumJudgedAgainstTheDecksSampling(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pods    int
		payment float64
		want    Status
		detail  string
	}{
		{"at the deck's share", 1, 43.3, Pass, "mix Payment 43.30% ≥ 43%"},
		{"just below, one pod", 1, 42.9, Skipped, "within 4 standard deviations (0.12 points each) of the deck's 43.3% over 10000 transactions from 1 pods"},
		{"far below, one pod", 1, 42.7, Fail, "mix Payment 42.70% < 43%"},
		{"below, four pods", 4, 42.5, Skipped, "from 4 pods: the deck's sampling, not a skewed mix"},
		{"far below, four pods", 4, 42.3, Fail, "mix Payment 42.30% < 43%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &snapshot.Merged{Pods: tc.pods, Terminals: 40}
			sum := snapshot.Summary{TotalCompleted: 10_000, MixPercent: map[snapshot.Transaction]float64{
				snapshot.Payment: tc.payment, snapshot.OrderStatus: 4.1, snapshot.Delivery: 4.1, snapshot.StockLevel: 4.1}}
			var got *Check
			for _, c := range mixChecks(m, sum, DefaultMinAuditTransactions) {
				if c.Name == "mix Payment" {
					got = &c
				} else if c.Status != Pass {
					t.Errorf("%s: %s (%s)", c.Name, c.Status, c.Detail)
				}
			}
			if got == nil || got.Status != tc.want || !strings.Contains(got.Detail, tc.detail) {
				t.Fatalf("mix Payment = %+v, want %s with %q", got, tc.want, tc.detail)
			}
		})
	}
}
