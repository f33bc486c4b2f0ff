package sla

import (
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// thinStep is a ten-minute step of 18 warehouses with spec waits that completed 5 000
// transactions (2 250 New-Orders: 97 % efficiency), too few for the mix and audit windows; each
// type's samples spread over 20–200 ms.
func thinStep(t testing.TB) *snapshot.Merged {
	t.Helper()
	m := compliantStep(t)
	setWarehouses(m, 18)
	m.Pods, m.Measured = 1, 10*time.Minute
	for tx, n := range map[snapshot.Transaction]int64{
		snapshot.NewOrder: 2250, snapshot.Payment: 2150, snapshot.OrderStatus: 200, snapshot.Delivery: 150, snapshot.StockLevel: 250,
	} {
		m.Transactions[tx].Rollbacks = 0
		withHistogram(m, tx, latencies(t, n, fixtureLatencyBase))
	}
	m.Audit = snapshot.Audit{OrderLineCounts: [snapshot.OrderLineCountsLen]int64{5: 2250}, RemoteOrderLines: 225, RemotePayments: 322,
		PaymentsByLastName: 1290, OrderStatusByLastName: 120, DeliveredDistricts: 1500}
	return m
}

// TestJudgeErrorsPerType: errors are bounded per transaction type as well as over all of them,
// and a failed transaction ranks above the bound in its type's latency percentile. 45 failed
// Deliveries of 195 are 0.9 % of the step's 5 045 attempts, within the bound on all types
// together: without the per-type bound and the failures in the percentile, the step passed.
func TestJudgeErrorsPerType(t *testing.T) {
	for _, tc := range []struct {
		name      string
		errors    map[snapshot.Transaction]int64
		maxErrors float64 // Criteria.MaxErrorPercent when not 0
		reasons   []string
	}{
		{name: "no errors"},
		{name: "Delivery 150 ok and 45 failed", errors: map[snapshot.Transaction]int64{snapshot.Delivery: 45}, reasons: []string{
			"Delivery p90 ∞ > 5s: 45 of 195 Delivery attempts failed, each an infinite response time: the p90 (attempt 176 of 195) is one of them",
			"errors Delivery 23.077% (45 of 195 attempts) > 1%",
		}},
		{name: "failed Deliveries break the p90 even where the error bound allows them", maxErrors: 25,
			errors:  map[snapshot.Transaction]int64{snapshot.Delivery: 45},
			reasons: []string{"Delivery p90 ∞ > 5s: 45 of 195 Delivery attempts failed"}},
		{name: "one failed Delivery of 151 is within 1 %", errors: map[snapshot.Transaction]int64{snapshot.Delivery: 1}},
		{name: "two failed Deliveries of 152 are not", errors: map[snapshot.Transaction]int64{snapshot.Delivery: 2},
			reasons: []string{"errors Delivery 1.316% (2 of 152 attempts) > 1%"}},
		{name: "Payment within 1 %", errors: map[snapshot.Transaction]int64{snapshot.Payment: 21}},
		{name: "Payment above 1 %", errors: map[snapshot.Transaction]int64{snapshot.Payment: 22},
			reasons: []string{"errors Payment 1.013% (22 of 2172 attempts) > 1%"}},
		{name: "no error tolerated at 0 %", maxErrors: -1, errors: map[snapshot.Transaction]int64{snapshot.StockLevel: 1},
			reasons: []string{"errors 0.020% (1 of 5001 transactions) > 0%", "errors StockLevel 0.398% (1 of 251 attempts) > 0%"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := thinStep(t)
			for tx, n := range tc.errors {
				m.Transactions[tx].Errors = n
			}
			c := DefaultCriteria()
			switch {
			case tc.maxErrors > 0:
				c.MaxErrorPercent = tc.maxErrors
			case tc.maxErrors < 0:
				c.MaxErrorPercent = 0
			}
			v, err := Judge(m, c)
			if err != nil {
				t.Fatal(err)
			}
			if v.Compliant != (len(tc.reasons) == 0) || len(v.Reasons) != len(tc.reasons) {
				t.Fatalf("compliant %v, reasons %q, want %d containing %q", v.Compliant, v.Reasons, len(tc.reasons), tc.reasons)
			}
			for i, want := range tc.reasons {
				if !strings.Contains(v.Reasons[i], want) {
					t.Errorf("reason %d = %q, want it to contain %q", i, v.Reasons[i], want)
				}
			}
		})
	}
}

func TestTypeErrorCheckDetail(t *testing.T) {
	for _, tc := range []struct {
		errors, attempts int64
		max              float64
		want             Status
		detail           string
	}{
		{0, 0, 1, Pass, "errors Delivery 0.000% (0 of 0 attempts) ≤ 1%"},
		{1, 12, 1, Pass, "errors Delivery 8.333% (1 of 12 attempts): a single error, tolerated below the 100 attempts at which 1% allows one"},
		{2, 12, 1, Fail, "errors Delivery 16.667% (2 of 12 attempts) > 1%"},
		{1, 12, 0, Fail, "errors Delivery 8.333% (1 of 12 attempts) > 0%"},
		{10, 1000, 1, Pass, "errors Delivery 1.000% (10 of 1000 attempts) ≤ 1%"},
		{11, 1000, 1, Fail, "errors Delivery 1.100% (11 of 1000 attempts) > 1%"},
		{1, 40, 2.5, Pass, "errors Delivery 2.500% (1 of 40 attempts) ≤ 2.5%"},
		{1, 39, 2.5, Pass, "tolerated below the 40 attempts at which 2.5% allows one"},
	} {
		got := typeErrorCheck(snapshot.Delivery, tc.errors, tc.attempts, tc.max)
		if got.Status != tc.want || !strings.Contains(got.Detail, tc.detail) {
			t.Errorf("%d of %d at %g%%: %s (%s), want %s with %q", tc.errors, tc.attempts, tc.max, got.Status, got.Detail, tc.want, tc.detail)
		}
	}
}
