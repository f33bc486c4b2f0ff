package tpcc

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestLedgerSumsTerminalsPerDistrict(t *testing.T) {
	l := NewLedger(3, 4) // terminals 0-9: warehouse 3, 10-19: warehouse 4
	l.Record(0, 1, NewOrderAcknowledged)
	l.Record(9, 1, NewOrderAcknowledged)
	l.Record(5, 10, NewOrderCommitUnknown)
	l.Record(12, 2, NewOrderAcknowledged)
	l.Record(12, 2, NewOrderNotCommitted)
	// Out of range: ignored, never a panic on the hot path.
	l.Record(20, 1, NewOrderAcknowledged)
	l.Record(-1, 1, NewOrderAcknowledged)
	l.Record(0, 11, NewOrderAcknowledged)
	l.Record(0, 0, NewOrderAcknowledged)
	(*Ledger)(nil).Record(0, 1, NewOrderAcknowledged)

	got := l.Districts()
	if len(got) != 20 {
		t.Fatalf("%d districts, want 20", len(got))
	}
	want := map[[2]int][2]int64{{3, 1}: {2, 0}, {3, 10}: {0, 1}, {4, 2}: {1, 0}}
	for i, d := range got {
		if wantW, wantD := 3+i/10, i%10+1; d.WarehouseID != wantW || d.DistrictID != wantD {
			t.Fatalf("entry %d is %d/%d, want %d/%d", i, d.WarehouseID, d.DistrictID, wantW, wantD)
		}
		w := want[[2]int{d.WarehouseID, d.DistrictID}]
		if d.Acknowledged != w[0] || d.Unknown != w[1] {
			t.Errorf("district %d/%d: acknowledged %d unknown %d, want %d %d", d.WarehouseID, d.DistrictID, d.Acknowledged, d.Unknown, w[0], w[1])
		}
	}
}

func TestLedgerConcurrentTerminals(t *testing.T) {
	l := NewLedger(1, 2)
	var wg sync.WaitGroup
	for term := range 20 {
		wg.Go(func() {
			for i := range 1000 {
				l.Record(term, i%10+1, NewOrderAcknowledged)
			}
		})
	}
	// A reader during the writes sees partial, never torn, sums.
	for range 10 {
		_ = l.Districts()
	}
	wg.Wait()
	for _, d := range l.Districts() {
		if d.Acknowledged != 1000 { // 10 terminals × 100 per district
			t.Errorf("district %d/%d: %d, want 1000", d.WarehouseID, d.DistrictID, d.Acknowledged)
		}
	}
}

func TestCheckLedgerVerdict(t *testing.T) {
	before := []DistrictCounts{{1, 1, 3001, 3000}, {1, 2, 3001, 3000}}
	after := func(next1, orders1 int64) []DistrictCounts {
		return []DistrictCounts{{1, 1, next1, orders1}, {1, 2, 3011, 3010}}
	}
	ledger := func(acked1, unknown1 int64) []snapshot.LedgerDistrict {
		// Unsorted on purpose: the verdict orders districts itself.
		return []snapshot.LedgerDistrict{{WarehouseID: 1, DistrictID: 2, Acknowledged: 10}, {WarehouseID: 1, DistrictID: 1, Acknowledged: acked1, Unknown: unknown1}}
	}
	for _, tc := range []struct {
		name           string
		acked, unknown int64
		next, orders   int64
		before         []DistrictCounts
		pass           bool
		reason         string
	}{
		{name: "exact", acked: 5, next: 3006, orders: 3005, pass: true},
		{name: "no orders at all", acked: 0, next: 3001, orders: 3000, pass: true},
		{name: "unknown ones committed", acked: 5, unknown: 3, next: 3008, orders: 3007, pass: true},
		{name: "unknown ones lost", acked: 5, unknown: 3, next: 3006, orders: 3005, pass: true},
		{name: "one acknowledged order deleted", acked: 5, next: 3006, orders: 3004,
			reason: "district w_id=1 d_id=1 lost acknowledged commits: acknowledged 5, unknown 0, d_next_o_id grew by 5, orders grew by 4"},
		{name: "acknowledged commit rolled back entirely", acked: 5, unknown: 2, next: 3005, orders: 3004,
			reason: "district w_id=1 d_id=1 lost acknowledged commits: acknowledged 5, unknown 2, d_next_o_id grew by 4, orders grew by 4"},
		{name: "more orders than asked for", acked: 5, unknown: 1, next: 3008, orders: 3007,
			reason: "district w_id=1 d_id=1 has more new orders than acknowledged + unknown commits: acknowledged 5, unknown 1, d_next_o_id grew by 7, orders grew by 7"},
		{name: "order deleted, covered by an unknown", acked: 5, unknown: 1, next: 3007, orders: 3005,
			reason: "district w_id=1 d_id=1: d_next_o_id and the orders present grew differently: acknowledged 5, unknown 1, d_next_o_id grew by 6, orders grew by 5"},
		{name: "district missing from the baseline", acked: 5, next: 3006, orders: 3005, before: before[1:],
			reason: "district w_id=1 d_id=1: not in the database reading (before false, after true)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := before
			if tc.before != nil {
				b = tc.before
			}
			v := CheckLedger(ledger(tc.acked, tc.unknown), b, after(tc.next, tc.orders))
			if v.Pass != tc.pass {
				t.Fatalf("pass %t, want %t: %+v", v.Pass, tc.pass, v)
			}
			if len(v.Districts) != 2 || v.Districts[0].DistrictID != 1 {
				t.Fatalf("districts %+v", v.Districts)
			}
			if v.Acknowledged != tc.acked+10 || v.Unknown != tc.unknown {
				t.Errorf("totals %d/%d", v.Acknowledged, v.Unknown)
			}
			if tc.pass {
				if v.Error() != nil || len(v.Failed) != 0 {
					t.Fatalf("error %v, failed %+v", v.Error(), v.Failed)
				}
				return
			}
			if len(v.Failed) != 1 || v.Failed[0].Reason != tc.reason {
				t.Fatalf("failed %+v\nwant reason %q", v.Failed, tc.reason)
			}
			if err := v.Error(); err == nil || !strings.Contains(err.Error(), "1 of 2 districts: "+tc.reason) {
				t.Fatalf("error %v", err)
			}
		})
	}
}

func TestLedgerErrorNamesAtMostThreeDistricts(t *testing.T) {
	var ledger []snapshot.LedgerDistrict
	var before, after []DistrictCounts
	for d := 1; d <= 5; d++ {
		ledger = append(ledger, snapshot.LedgerDistrict{WarehouseID: 1, DistrictID: d, Acknowledged: 1})
		before = append(before, DistrictCounts{1, d, 3001, 3000})
		after = append(after, DistrictCounts{1, d, 3001, 3000})
	}
	v := CheckLedger(ledger, before, after)
	msg := v.Error().Error()
	if !strings.Contains(msg, "5 of 5 districts") || !strings.Contains(msg, "d_id=3 lost") || strings.Contains(msg, "d_id=4 lost") ||
		!strings.Contains(msg, "and 2 more districts") {
		t.Fatal(msg)
	}
}

// ledgerStubExecutor fails every third New-Order with an unknown COMMIT outcome and every
// fifth one before COMMIT, and counts what it answered per district.
type ledgerStubExecutor struct {
	stubExecutor
	mu             sync.Mutex
	acked, unknown map[[2]int]int64
	n              int
}

func (s *ledgerStubExecutor) NewOrder(ctx context.Context, in *NewOrderInput) (NewOrderResult, error) {
	res, err := s.stubExecutor.NewOrder(ctx, in)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	k := [2]int{in.WarehouseID, in.DistrictID}
	switch {
	case err != nil || res.RolledBack:
	case s.n%3 == 0:
		s.unknown[k]++
		return NewOrderResult{CommitUnknown: true}, &CommitUnknownError{Err: io.ErrUnexpectedEOF}
	case s.n%5 == 0:
		return NewOrderResult{}, fmt.Errorf("connection lost before commit: %w", io.ErrUnexpectedEOF)
	default:
		s.acked[k]++
	}
	return res, err
}

func TestTerminalsKeepTheLedger(t *testing.T) {
	ex := &ledgerStubExecutor{stubExecutor: stubExecutor{latency: 100 * time.Microsecond}, acked: map[[2]int]int64{}, unknown: map[[2]int]int64{}}
	ledger := NewLedger(2, 3)
	terms, err := NewTerminals(TerminalsConfig{Executor: ex, Constants: terminalTestConstants, ActiveWarehouses: 4, From: 2, To: 3,
		Wait: snapshot.WaitNone, RampUp: 50 * time.Millisecond, Duration: 300 * time.Millisecond, Seed: 1, Recorder: NewRecorder(), Ledger: ledger})
	if err != nil {
		t.Fatal(err)
	}
	terms.Run(context.Background())
	var acked, unknown int64
	for _, d := range ledger.Districts() {
		k := [2]int{d.WarehouseID, d.DistrictID}
		if d.Acknowledged != ex.acked[k] || d.Unknown != ex.unknown[k] {
			t.Errorf("district %v: ledger %d/%d, executor answered %d/%d", k, d.Acknowledged, d.Unknown, ex.acked[k], ex.unknown[k])
		}
		acked += d.Acknowledged
		unknown += d.Unknown
	}
	if acked == 0 || unknown == 0 {
		t.Fatalf("acknowledged %d, unknown %d: the stub answered too little", acked, unknown)
	}
	if _, err := NewTerminals(TerminalsConfig{Executor: ex, Constants: terminalTestConstants, ActiveWarehouses: 4, From: 2, To: 3,
		Wait: snapshot.WaitNone, Duration: time.Second, Recorder: NewRecorder(), Ledger: NewLedger(1, 3)}); err == nil ||
		!strings.Contains(err.Error(), "ledger covers warehouses 1-3, not 2-3") {
		t.Fatalf("mismatched ledger: %v", err)
	}
}

// BenchmarkLedgerRecord is the ledger's cost on a New-Order's hot path, with every core's
// terminals recording at once (each into its own row).
func BenchmarkLedgerRecord(b *testing.B) {
	l := NewLedger(1, 100)
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		term := int(next.Add(1)-1) % 1000
		d := 1
		for pb.Next() {
			l.Record(term, d, NewOrderAcknowledged)
			d = d%10 + 1
		}
	})
}
