package tpcc

import (
	"sync"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestRecorderCountsOnlyTheMeasuredInterval(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := newRecorder(3)
	at := func(s, e int) Outcome {
		return Outcome{Type: txPayment, Start: t0.Add(time.Duration(s) * time.Second), End: t0.Add(time.Duration(e) * time.Second)}
	}
	before := at(1, 2)
	if r.Record(0, &before) {
		t.Fatal("recorded before the interval opened")
	}
	r.BeginMeasurement(t0.Add(10 * time.Second))
	for _, tc := range []struct {
		name string
		o    Outcome
		want bool
	}{
		{"started during ramp-up", at(9, 11), false},
		{"inside", at(11, 12), true},
		{"at the opening instant", at(10, 10), true},
		{"finishes after the close", at(19, 21), false},
		{"at the closing instant", at(19, 20), true},
	} {
		o := tc.o
		if tc.name == "finishes after the close" {
			r.EndMeasurement(t0.Add(20 * time.Second))
		}
		if got := r.Record(1, &o); got != tc.want {
			t.Errorf("%s: recorded %v, want %v", tc.name, got, tc.want)
		}
	}
	m := r.Collect(t0.Add(time.Hour))
	if got := m.Counts[txPayment].Commits; got != 3 {
		t.Errorf("commits %d, want 3", got)
	}
	if got := m.MeasuredDuration(); got != 10*time.Second {
		t.Errorf("measured %v, want 10s (closed interval ignores now)", got)
	}
}

func TestRecorderResetAtBeginDropsRampUp(t *testing.T) {
	t0 := time.Now()
	r := newRecorder(2)
	r.BeginMeasurement(t0)
	o := Outcome{Type: txNewOrder, Start: t0, End: t0.Add(time.Millisecond), Lines: 7}
	r.Record(0, &o)
	r.BeginMeasurement(t0.Add(time.Second))
	m := r.Collect(t0.Add(2 * time.Second))
	if m.Completed(snapshot.NewOrder) != 0 || m.Audit.OrderLineCounts[2] != 0 {
		t.Fatalf("counters survived BeginMeasurement: %+v %+v", m.Counts[txNewOrder], m.Audit)
	}
	if m.MeasuredDuration() != time.Second {
		t.Fatalf("open interval measured %v, want 1s up to now", m.MeasuredDuration())
	}
}

func TestRecorderAuditAndHistogramsAgreeWithCounters(t *testing.T) {
	t0 := time.Now()
	r := newRecorder(4)
	r.BeginMeasurement(t0)
	outcomes := []Outcome{
		{Type: txNewOrder, Lines: 5, RemoteLines: 1},
		{Type: txNewOrder, Lines: 15, RolledBack: true, Retries: 2},
		{Type: txNewOrder, Failed: true, Retries: 9},
		{Type: txPayment, RemotePayment: true, ByLastName: true},
		{Type: txPayment},
		{Type: txOrderStatus, ByLastName: true},
		{Type: txDelivery, Delivered: 9, Skipped: 1},
		{Type: txStockLevel},
	}
	for i := range outcomes {
		o := outcomes[i]
		o.Start, o.End = t0.Add(time.Millisecond), t0.Add(time.Duration(i+2)*time.Millisecond)
		r.Record(i, &o)
	}
	m := r.Collect(t0.Add(time.Second))
	want := snapshot.Audit{RemoteOrderLines: 1, RemotePayments: 1, PaymentsByLastName: 1, OrderStatusByLastName: 1,
		DeliveredDistricts: 9, SkippedDeliveryDistricts: 1}
	want.OrderLineCounts[0], want.OrderLineCounts[10] = 1, 1
	if m.Audit != want {
		t.Errorf("audit %+v, want %+v", m.Audit, want)
	}
	no := m.Counts[txNewOrder]
	if no.Commits != 1 || no.Rollbacks != 1 || no.Errors != 1 || no.Retries != 11 {
		t.Errorf("new-order counts %+v, want 1 commit, 1 rollback, 1 error, 11 retries", no)
	}
	txs, err := m.Transactions()
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range txs {
		h, err := snapshot.DecodeHistogram(c.Histogram)
		if err != nil {
			t.Fatal(err)
		}
		if h.TotalCount() != c.Commits+c.Rollbacks {
			t.Errorf("%s: histogram holds %d samples, counters say %d", name, h.TotalCount(), c.Commits+c.Rollbacks)
		}
	}
}

func TestRecorderConcurrentRecordAndCollect(t *testing.T) {
	t0 := time.Now()
	r := NewRecorder()
	r.BeginMeasurement(t0)
	const writers, each = 8, 5000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				o := Outcome{Type: txType(i % int(txTypes)), Start: t0, End: t0.Add(time.Duration(i) * time.Microsecond), Lines: 10}
				r.Record(w*each+i, &o)
			}
		})
	}
	stop := make(chan struct{})
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for {
			select {
			case <-stop:
				return
			default:
			}
			m := r.Collect(time.Now())
			for tt := range txTypes {
				c := m.Counts[tt]
				if m.Histograms[tt].TotalCount() != c.Commits+c.Rollbacks {
					t.Errorf("torn snapshot: %s histogram %d vs counters %d", tt.Transaction(), m.Histograms[tt].TotalCount(), c.Commits)
					return
				}
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-collected
	var total int64
	m := r.Collect(time.Now())
	for tt := range txTypes {
		total += m.Counts[tt].Commits
	}
	if total != writers*each {
		t.Fatalf("recorded %d, want %d", total, writers*each)
	}
}
