package measure

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// podSeries is one pod's delivered intervals: indices, each with n New-Orders at 10 ms.
func podSeries(t testing.TB, sealed int, indices ...int) *snapshot.Intervals {
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &snapshot.Intervals{Origin: origin, LengthSeconds: 10, Sealed: sealed}
	for _, i := range indices {
		h := snapshot.NewHistogram()
		snapshot.RecordLatency(h, 10*time.Millisecond)
		encoded, err := snapshot.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		s.Items = append(s.Items, snapshot.Interval{Index: i, Start: origin.Add(time.Duration(i) * 10 * time.Second), Seconds: 10,
			Transactions: map[snapshot.Transaction]snapshot.TransactionCounts{snapshot.NewOrder: {Histogram: encoded, Commits: 1}}})
	}
	return s
}

func TestSeriesCollect(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		collected                 int
		pods                      []*snapshot.Intervals
		changed                   bool
		wantCollected, wantMissed int
		wantIndex                 []int
		wantNewOrders             []int64
	}{
		{"nothing sealed", 0, []*snapshot.Intervals{podSeries(t, 0), podSeries(t, 0)}, false, 0, 0, nil, nil},
		{"no series at all", 0, []*snapshot.Intervals{nil, nil}, false, 0, 0, nil, nil},
		{"both pods sealed two", 0, []*snapshot.Intervals{podSeries(t, 2, 0, 1), podSeries(t, 2, 0, 1)}, true, 2, 0, []int{0, 1}, []int64{2, 2}},
		{"waits for the slower pod", 0, []*snapshot.Intervals{podSeries(t, 3, 0, 1, 2), podSeries(t, 1, 0)}, true, 1, 0, []int{0}, []int64{2}},
		{"already collected items are skipped", 1, []*snapshot.Intervals{podSeries(t, 3, 0, 1, 2), podSeries(t, 3, 1, 2)}, true, 3, 0, []int{1, 2}, []int64{2, 2}},
		{"an interval one pod dropped is incomplete", 0, []*snapshot.Intervals{podSeries(t, 2, 1), podSeries(t, 2, 0, 1)}, true, 2, 1, []int{0, 1}, []int64{1, 2}},
		{"an interval no pod delivered is missing", 0, []*snapshot.Intervals{podSeries(t, 3, 0, 2), podSeries(t, 3, 0, 2)}, true, 3, 1, []int{0, 2}, []int64{2, 2}},
		{"nothing new", 2, []*snapshot.Intervals{podSeries(t, 2), podSeries(t, 2)}, false, 2, 0, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &StepSeries{Collected: tc.collected}
			changed, err := st.Collect(tc.pods)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tc.changed || st.Collected != tc.wantCollected || st.Missing != tc.wantMissed {
				t.Fatalf("changed %v, collected %d, missing %d; want %v, %d, %d", changed, st.Collected, st.Missing, tc.changed, tc.wantCollected, tc.wantMissed)
			}
			if len(tc.wantIndex) == 0 {
				if len(st.Series.Index) != 0 {
					t.Fatalf("series %v, want none", st.Series.Index)
				}
				return
			}
			if !slices.Equal(st.Series.Index, tc.wantIndex) || !slices.Equal(st.Series.Types[snapshot.NewOrder].Completed, tc.wantNewOrders) {
				t.Errorf("index %v, New-Orders %v; want %v, %v", st.Series.Index, st.Series.Types[snapshot.NewOrder].Completed, tc.wantIndex, tc.wantNewOrders)
			}
		})
	}
}

func TestSeriesResourcesAndSummary(t *testing.T) {
	st := &StepSeries{}
	if _, err := st.Collect([]*snapshot.Intervals{podSeries(t, 2, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	at := st.Origin
	st.AddResources("db-1", RoleDatabase, 0, at.Add(-time.Second), 9000, 1) // before the origin: ignored
	st.AddResources("db-1", RoleDatabase, 0, at.Add(12*time.Second), 1500, 2<<30)
	st.AddResources("db-1", RoleDatabase, 0, at.Add(3*time.Second), 500, 1<<30)
	st.AddResources("db-1", RoleDatabase, 0, at.Add(15*time.Second), 1200, 3<<30) // same interval: the larger values stay
	st.AddResources("client-0", RoleClient, 1000, at.Add(5*time.Second), 950, 100<<20)
	db := st.Resources["db-1"]
	if !slices.Equal(db.Index, []int{0, 1}) || !slices.Equal(db.CPUMillis, []int64{500, 1500}) || !slices.Equal(db.MemoryMiB, []int64{1020, 3070}) {
		t.Fatalf("db-1 %+v", db)
	}
	sum := st.Summary()
	if len(sum.Pods) != 2 || sum.Pods[1].Name != "db-1" || sum.Pods[1].PeakCPU.MilliValue() != 1500 || sum.Pods[1].PeakMemory.Value() != 3070<<20 {
		t.Errorf("pods %+v", sum.Pods)
	}
	if len(sum.ClientBound) != 1 || !strings.Contains(sum.ClientBound[0], "client pod client-0 peaked at 0.95 of its 1.00 CPU limit") {
		t.Errorf("client-bound %q", sum.ClientBound)
	}
	if sum.Standbys != nil || sum.Checkpoints != nil || sum.WALBytesPerSecond != nil {
		t.Errorf("database figures without telemetry: %+v", sum)
	}
}
