package snapshot

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

var stepStart = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// TestMergeEqualsOneHistogramOfAllValues feeds the same values to N pod
// histograms and to one histogram: the merge must be bucket-for-bucket equal
// to the single histogram, and its percentiles within the histogram's precision
// (HistogramMaxRelativeError, 1/128) of the exact percentiles of the raw values.
func TestMergeEqualsOneHistogramOfAllValues(t *testing.T) {
	for _, pods := range []int{1, 2, 7, 40} {
		rng := rand.New(rand.NewPCG(uint64(pods), 42))
		all := NewHistogram()
		var raw []int64
		var snaps []*Snapshot
		for p := range pods {
			h := NewHistogram()
			n := 2000 + rng.IntN(3000)
			for range n {
				v := realisticLatencies[NewOrder].draw(rng)
				_ = h.RecordValue(v)
				_ = all.RecordValue(v)
				raw = append(raw, v)
			}
			snaps = append(snaps, podFixture{
				pod: podName(p), from: p*5 + 1, to: p*5 + 5, active: pods * 5,
				histograms: map[Transaction]*hdr.Histogram{NewOrder: h}, measured: 600, start: stepStart,
			}.snapshot(t))
		}
		m, err := Merge(snaps)
		if err != nil {
			t.Fatal(err)
		}
		merged := m.Transactions[NewOrder].Histogram
		if !merged.Equals(all) {
			t.Fatalf("%d pods: merged histogram differs from one histogram fed every value", pods)
		}
		encoded, err := m.EncodeHistograms()
		if err != nil {
			t.Fatal(err)
		}
		if back, err := DecodeHistogram(encoded[NewOrder]); err != nil || !back.Equals(all) {
			t.Fatalf("%d pods: encoded merge does not decode to the same histogram (error %v)", pods, err)
		}
		slices.Sort(raw)
		for _, p := range []float64{50, 90, 95, 99, 99.9, 100} {
			exact := raw[max(0, int(p/100*float64(len(raw))+0.5)-1)]
			got := merged.ValueAtPercentile(p)
			if rel := float64(got-exact) / float64(exact); rel < -HistogramMaxRelativeError || rel > HistogramMaxRelativeError {
				t.Errorf("%d pods p%g: merged %d µs, exact %d µs (relative error %.5f above the histogram's precision)", pods, p, got, exact, rel)
			}
		}
	}
}

func podName(i int) string { return "pod-" + string(rune('a'+i%26)) + string(rune('0'+i/26)) }

func TestMergeSumsCountersAndTakesTheLongestInterval(t *testing.T) {
	newOrders := NewHistogram()
	_ = newOrders.RecordValues(10_000, 200)
	payments := NewHistogram()
	_ = payments.RecordValues(5_000, 190)
	a := podFixture{pod: "a", from: 1, to: 5, active: 10, measured: 599.5, start: stepStart.Add(time.Second),
		histograms: map[Transaction]*hdr.Histogram{NewOrder: newOrders, Payment: payments},
		rollbacks:  2, errors: map[Transaction]int64{Payment: 3}}.snapshot(t)
	a.Audit = Audit{OrderLineCounts: [OrderLineCountsLen]int64{0, 0, 0, 0, 0, 200}, RemoteOrderLines: 20, RemotePayments: 28,
		PaymentsByLastName: 114, DeliveredDistricts: 100, SkippedDeliveryDistricts: 1}
	b := podFixture{pod: "b", from: 6, to: 10, active: 10, measured: 600, start: stepStart,
		histograms: map[Transaction]*hdr.Histogram{NewOrder: newOrders}, rollbacks: 1}.snapshot(t)
	b.Audit = Audit{OrderLineCounts: [OrderLineCountsLen]int64{200}, RemoteOrderLines: 10}
	b.Phase = PhaseDone

	m, err := Merge([]*Snapshot{b, a})
	if err != nil {
		t.Fatal(err)
	}
	no := m.Transactions[NewOrder]
	if no.Commits != 397 || no.Rollbacks != 3 || no.Histogram.TotalCount() != 400 {
		t.Errorf("NewOrder commits/rollbacks/samples = %d/%d/%d, want 397/3/400", no.Commits, no.Rollbacks, no.Histogram.TotalCount())
	}
	if pay := m.Transactions[Payment]; pay.Commits != 190 || pay.Errors != 3 {
		t.Errorf("Payment commits/errors = %d/%d, want 190/3", pay.Commits, pay.Errors)
	}
	if got := m.Transactions[StockLevel]; got.Histogram.TotalCount() != 0 || got.Completed() != 0 {
		t.Errorf("StockLevel absent from every pod should merge as empty, got %d samples", got.Histogram.TotalCount())
	}
	if m.Measured != 600*time.Second {
		t.Errorf("Measured = %v, want the longest pod interval 10m0s", m.Measured)
	}
	if !m.MeasurementStart.Equal(stepStart) || m.MeasurementStartSkew != time.Second {
		t.Errorf("MeasurementStart, skew = %v, %v; want %v, 1s", m.MeasurementStart, m.MeasurementStartSkew, stepStart)
	}
	if m.Phase != PhaseMeasuring {
		t.Errorf("Phase = %q, want the least advanced %q", m.Phase, PhaseMeasuring)
	}
	if m.Pods != 2 || m.Terminals != 100 || m.DrivenWarehouses != 10 || m.Ranges[0].Pod != "a" {
		t.Errorf("pods %d, terminals %d, driven %d, ranges %v; want 2, 100, 10, sorted by warehouse", m.Pods, m.Terminals, m.DrivenWarehouses, m.Ranges)
	}
	wantAudit := Audit{OrderLineCounts: [OrderLineCountsLen]int64{200, 0, 0, 0, 0, 200}, RemoteOrderLines: 30, RemotePayments: 28,
		PaymentsByLastName: 114, DeliveredDistricts: 100, SkippedDeliveryDistricts: 1}
	if m.Audit != wantAudit {
		t.Errorf("Audit = %+v, want %+v", m.Audit, wantAudit)
	}
	if !slices.Equal(m.ClientVersions, []string{"v0.1.0"}) {
		t.Errorf("ClientVersions = %v, want one distinct version", m.ClientVersions)
	}
}

func TestMergePhase(t *testing.T) {
	for name, tc := range map[string]struct {
		phases       []Phase
		want         Phase
		wantFailures int
	}{
		"all done":          {phases: []Phase{PhaseDone, PhaseDone}, want: PhaseDone},
		"one still paused":  {phases: []Phase{PhaseMeasuring, PhasePaused}, want: PhasePaused},
		"stopping and done": {phases: []Phase{PhaseDone, PhaseStopping}, want: PhaseStopping},
		"a failure wins":    {phases: []Phase{PhaseDone, PhaseFailed, PhaseMeasuring}, want: PhaseFailed, wantFailures: 1},
		"all failed":        {phases: []Phase{PhaseFailed, PhaseFailed}, want: PhaseFailed, wantFailures: 2},
	} {
		t.Run(name, func(t *testing.T) {
			var snaps []*Snapshot
			for i, p := range tc.phases {
				s := podFixture{pod: podName(i), from: i + 1, to: i + 1, active: 3, start: stepStart}.snapshot(t)
				s.Phase = p
				if p == PhaseFailed {
					s.Message = "connection refused"
				}
				snaps = append(snaps, s)
			}
			m, err := Merge(snaps)
			if err != nil {
				t.Fatal(err)
			}
			if m.Phase != tc.want || len(m.Failures) != tc.wantFailures {
				t.Errorf("phase %q with %d failures, want %q with %d", m.Phase, len(m.Failures), tc.want, tc.wantFailures)
			}
		})
	}
}

func TestMergeRejects(t *testing.T) {
	pod := func(name string, from, to int) *Snapshot {
		return podFixture{pod: name, from: from, to: to, active: 20, start: stepStart}.snapshot(t)
	}
	withCountMismatch := pod("b", 11, 20)
	h := NewHistogram()
	_ = h.RecordValues(1000, 10)
	withCountMismatch.Transactions[Payment] = TransactionCounts{Histogram: mustEncode(t, h), Commits: 9}
	badHistogram := pod("b", 11, 20)
	badHistogram.Transactions[Delivery] = TransactionCounts{Histogram: "garbage"}
	otherEngine := pod("b", 11, 20)
	otherEngine.Identity.Engine = "cockroach"
	otherWait := pod("b", 11, 20)
	otherWait.Identity.Wait = WaitNone
	otherActive := pod("b", 11, 20)
	otherActive.Identity.ActiveWarehouses = 30
	otherConstants := pod("b", 11, 20)
	otherConstants.Constants.CLastRun++
	invalid := pod("b", 11, 20)
	invalid.Identity.Terminals = -1
	for name, tc := range map[string]struct {
		snaps []*Snapshot
		want  string
	}{
		"nothing":             {snaps: nil, want: "no snapshots"},
		"overlapping ranges":  {snaps: []*Snapshot{pod("a", 1, 10), pod("b", 10, 20)}, want: `warehouse ranges overlap: pod "a" drives 1..10 and pod "b" drives 10..20`},
		"contained range":     {snaps: []*Snapshot{pod("a", 1, 20), pod("b", 5, 6)}, want: "overlap"},
		"duplicate pod":       {snaps: []*Snapshot{pod("a", 1, 10), pod("a", 11, 20)}, want: `pod "a" appears twice`},
		"more than active":    {snaps: []*Snapshot{pod("a", 1, 15), pod("b", 16, 25)}, want: "pods drive 25 warehouses but identity.activeWarehouses is 20"},
		"count mismatch":      {snaps: []*Snapshot{pod("a", 1, 10), withCountMismatch}, want: "histogram holds 10 samples but commits+rollbacks = 9"},
		"corrupt histogram":   {snaps: []*Snapshot{pod("a", 1, 10), badHistogram}, want: `pod "b" transactions.Delivery.histogram: decode HDR histogram`},
		"different engine":    {snaps: []*Snapshot{pod("a", 1, 10), otherEngine}, want: "identity.engine"},
		"different wait":      {snaps: []*Snapshot{pod("a", 1, 10), otherWait}, want: "identity.wait"},
		"different active":    {snaps: []*Snapshot{pod("a", 1, 10), otherActive}, want: "identity.activeWarehouses"},
		"different constants": {snaps: []*Snapshot{pod("a", 1, 10), otherConstants}, want: "constants"},
		"invalid snapshot":    {snaps: []*Snapshot{pod("a", 1, 10), invalid}, want: "identity.terminals"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Merge(tc.snaps)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestRedactCredentials(t *testing.T) {
	for in, want := range map[string]string{
		`dial postgres://bench:s3cret@10.0.0.5:5432/tpcc: refused`: `dial postgres://***@10.0.0.5:5432/tpcc: refused`,
		`grpc://root:p%20ss@ydb:2136 unreachable`:                  `grpc://***@ydb:2136 unreachable`,
		`connect host=db user=bench password=hunter2 sslmode=off`:  `connect host=db user=bench password=*** sslmode=off`,
		`PASSWORD: 'two words' rejected`:                           `PASSWORD: *** rejected`,
		`token="abc def" expired`:                                  `token=*** expired`,
		`serialization failure (SQLSTATE 40001)`:                   `serialization failure (SQLSTATE 40001)`,
	} {
		if got := RedactCredentials(in); got != want {
			t.Errorf("RedactCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMergeRedactsFailureMessages(t *testing.T) {
	s := podFixture{pod: "a", from: 1, to: 1, active: 1, start: stepStart}.snapshot(t)
	s.Phase, s.Message = PhaseFailed, "connect postgres://bench:s3cret@db/tpcc: timeout"
	m, err := Merge([]*Snapshot{s})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Failures[0].Message; strings.Contains(got, "s3cret") {
		t.Errorf("failure message keeps the password: %q", got)
	}
}

func mustEncode(t testing.TB, h *hdr.Histogram) string {
	t.Helper()
	s, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
