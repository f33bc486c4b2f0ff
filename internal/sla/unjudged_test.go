package sla

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// TestVerdictNamesUnjudgedChecks: a step compliant with checks skipped says which, each with the
// count it had and the count judging it needs, one line per cause.
func TestVerdictNamesUnjudgedChecks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		step     func(t *testing.T) *snapshot.Merged
		probe    bool
		unjudged []string // substrings, one per line, in order
	}{
		{name: "every check judged", step: func(t *testing.T) *snapshot.Merged { return compliantStep(t) }},
		{name: "too few transactions for the mix and the audits", step: func(t *testing.T) *snapshot.Merged { return thinStep(t) },
			unjudged: []string{"mix minimums and audit windows not checked (5000 transactions, 10000 needed)"}},
		{name: "too few New-Orders and order lines for two audit windows",
			step: func(t *testing.T) *snapshot.Merged {
				m := compliantStep(t)
				m.Measured = 5 * time.Minute
				withHistogram(m, snapshot.NewOrder, latencies(t, 60_000, fixtureLatencyBase))
				m.Transactions[snapshot.NewOrder].Rollbacks, m.Transactions[snapshot.NewOrder].Commits = 600, 59_400
				m.Audit.OrderLineCounts = [snapshot.OrderLineCountsLen]int64{5: 60_000}
				m.Audit.RemoteOrderLines = 6_000
				return m
			},
			unjudged: []string{
				"audit New-Order rollbacks (9.2.2.5.1) not checked (60000 New-Orders, 1584",
				"audit remote order lines (9.2.2.5.3) not checked (600000 order lines, 6336",
			}},
		{name: "a probe without a Delivery", probe: true,
			step: func(t *testing.T) *snapshot.Merged {
				m := thinStep(t)
				withHistogram(m, snapshot.Delivery, snapshot.NewHistogram())
				return m
			},
			unjudged: []string{
				"Delivery p90 not checked (0 Delivery transactions, 1 needed)",
				"mix minimums and audit windows not checked (4850 transactions, 10000 needed)",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultCriteria()
			c.UnmeasuredBoundsSkipped = tc.probe
			v, err := Judge(tc.step(t), c)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Compliant {
				t.Fatalf("non-compliant: %q", v.Reasons)
			}
			if len(v.Unjudged) != len(tc.unjudged) {
				t.Fatalf("unjudged %q, want %d lines containing %q", v.Unjudged, len(tc.unjudged), tc.unjudged)
			}
			for i, want := range tc.unjudged {
				if !strings.Contains(v.Unjudged[i], want) {
					t.Errorf("unjudged line %d = %q, want it to contain %q", i, v.Unjudged[i], want)
				}
			}
			if v.SpecCompliant != (len(tc.unjudged) == 0) {
				t.Errorf("spec-compliant %v with %d unjudged lines", v.SpecCompliant, len(v.Unjudged))
			}
			for _, ch := range v.Checks {
				if ch.Status == Skipped && !strings.Contains(ch.Detail, "needed)") {
					t.Errorf("skipped check %q does not say what judging it needs", ch.Detail)
				}
			}
			if added := AddCheck(v, Check{Name: "replication lag", Status: Pass}); !slices.Equal(added.Unjudged, v.Unjudged) {
				t.Errorf("AddCheck changed the unjudged lines %q to %q", v.Unjudged, added.Unjudged)
			}
		})
	}
}

// TestMixWithinSamplingIsUnjudged: a share below its minimum within the deck's sampling is
// skipped, and its line says so.
func TestMixWithinSamplingIsUnjudged(t *testing.T) {
	m := &snapshot.Merged{Pods: 1, Terminals: 40}
	sum := snapshot.Summary{TotalCompleted: 10_000, MixPercent: map[snapshot.Transaction]float64{
		snapshot.Payment: 42.9, snapshot.OrderStatus: 4.1, snapshot.Delivery: 4.1, snapshot.StockLevel: 4.1}}
	lines := unjudgedLines(mixChecks(m, sum, DefaultMinAuditTransactions))
	want := []string{"mix Payment not judged (42.90% < 43%, within the deck's sampling over 10000 transactions)"}
	if !slices.Equal(lines, want) {
		t.Errorf("unjudged %q, want %q", lines, want)
	}
}
