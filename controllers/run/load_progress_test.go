package run

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestSumLoadProgress(t *testing.T) {
	const perW = 499_011
	for _, tc := range []struct {
		name                 string
		warehouses, pods     int32
		completed            []int
		running              map[int]snapshot.LoadProgress
		wantLoaded           int32
		wantRows, wantExpect int64
	}{
		{name: "nothing yet", warehouses: 100, pods: 4, wantExpect: 100_000 + 100*perW},
		{name: "running pods only: their warehouses and rows before any finished", warehouses: 100, pods: 4,
			running:    map[int]snapshot.LoadProgress{0: {WarehousesDone: 3, Rows: 2_000_000}, 2: {WarehousesDone: 1, Rows: 600_000}},
			wantLoaded: 4, wantRows: 2_600_000, wantExpect: 100_000 + 100*perW},
		{name: "finished pods at the expected rows, running ones as they report", warehouses: 100, pods: 4, completed: []int{1, 3},
			running:    map[int]snapshot.LoadProgress{0: {WarehousesDone: 10, Rows: 5_000_000}},
			wantLoaded: 60, wantRows: 50*perW + 5_000_000, wantExpect: 100_000 + 100*perW},
		{name: "a completed index still answering counts once", warehouses: 100, pods: 4, completed: []int{0},
			running:    map[int]snapshot.LoadProgress{0: {WarehousesDone: 25, Rows: 13_000_000}},
			wantLoaded: 25, wantRows: 25 * perW, wantExpect: 100_000 + 100*perW},
		{name: "a retried pod's warehouses found loaded count at the expected rows", warehouses: 100, pods: 4,
			running:    map[int]snapshot.LoadProgress{1: {WarehousesDone: 12, WarehousesSkipped: 10, Rows: 900_000}},
			wantLoaded: 12, wantRows: 10*perW + 900_000, wantExpect: 100_000 + 100*perW},
		{name: "a pod reporting beyond its range is held to it", warehouses: 10, pods: 2,
			running:    map[int]snapshot.LoadProgress{0: {WarehousesDone: 99, Rows: 1}},
			wantLoaded: 5, wantRows: 1, wantExpect: 100_000 + 10*perW},
		{name: "an index the Job does not have is ignored", warehouses: 10, pods: 2,
			running:    map[int]snapshot.LoadProgress{7: {WarehousesDone: 3, Rows: 100}},
			wantExpect: 100_000 + 10*perW},
		{name: "all loaded: every expected row", warehouses: 10, pods: 2, completed: []int{0, 1},
			wantLoaded: 10, wantRows: 100_000 + 10*perW, wantExpect: 100_000 + 10*perW},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sumLoadProgress(tc.warehouses, tc.pods, tc.completed, tc.running)
			if err != nil {
				t.Fatal(err)
			}
			want := loadFigures{warehousesLoaded: tc.wantLoaded, rowsLoaded: tc.wantRows, rowsExpected: tc.wantExpect}
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
	if _, err := sumLoadProgress(10, 2, []int{5}, nil); err == nil {
		t.Error("a completed index beyond the Job's: no error")
	}
}

func TestLoadFiguresAtLeast(t *testing.T) {
	f := loadFigures{warehousesLoaded: 5, rowsLoaded: 1000, rowsExpected: 5000}
	if got := f.atLeast(&benchv1.LoadStatus{WarehousesLoaded: 7, RowsLoaded: 900}); got.warehousesLoaded != 7 || got.rowsLoaded != 1000 {
		t.Errorf("a pass missing a pod took the figures back: %+v", got)
	}
	if got := f.atLeast(&benchv1.LoadStatus{RowsLoaded: 9999}); got.rowsLoaded != 5000 {
		t.Errorf("rows beyond the expected: %+v", got)
	}
	if got := f.atLeast(nil); got != f {
		t.Errorf("no status: %+v", got)
	}
}

func TestLoadMessages(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{loadMessage(loadFigures{warehousesLoaded: 1234, rowsLoaded: 1_234_000_000, rowsExpected: 8_982_298_000}, 18000, 36),
			"1234/18000 warehouses loaded (13.7 %, 1.2 G of 9.0 G rows) by 36 pods"},
		{loadMessage(loadFigures{rowsExpected: 0}, 0, 1), "0/0 warehouses loaded (0.0 %, 0 of 0 rows) by 1 pods"},
		{loadMessage(loadFigures{warehousesLoaded: 1, rowsLoaded: 12_345, rowsExpected: 599_011}, 1, 1),
			"1/1 warehouses loaded (2.1 %, 12.3 k of 599.0 k rows) by 1 pods"},
		{finishMessage(100, nil), "100/100 warehouses loaded; finishing the load (keys, indexes, statistics)"},
		{finishMessage(100, &benchv1.LoadFinishStatus{Done: 12, Total: 40, Running: []string{"CREATE INDEX a", "ANALYZE stock"}}),
			"100/100 warehouses loaded; finishing the load: 12/40 statements done, running CREATE INDEX a; ANALYZE stock"},
		{finishMessage(100, &benchv1.LoadFinishStatus{Done: 40, Total: 40}),
			"100/100 warehouses loaded; the load's finish ran its 40 statements; checking consistency (TPC-C 3.3.2.1-12)"},
		{formatCount(999), "999"},
		{formatCount(2_500_000), "2.5 M"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %q\nwant %q", tc.got, tc.want)
		}
	}
}

func TestFinishStatus(t *testing.T) {
	if finishStatus(nil) != nil {
		t.Error("no finish progress: want none")
	}
	long := "CREATE INDEX IF NOT EXISTS order_line_stock_idx ON order_line\n    (ol_supply_w_id, ol_i_id, ol_w_id, ol_d_id, ol_o_id)"
	running := []string{long}
	for range 9 {
		running = append(running, "ANALYZE t")
	}
	got := finishStatus(&snapshot.FinishProgress{Done: 3, Total: 30, Running: running})
	if got.Done != 3 || got.Total != 30 || len(got.Running) != 9 || got.Running[8] != "… 2 more" {
		t.Fatalf("got %+v", got)
	}
	if r := got.Running[0]; len(r) != 82 || r[:40] != "CREATE INDEX IF NOT EXISTS order_line_st" {
		t.Errorf("a long statement: %q (%d bytes), want one line cut to 80 characters", r, len(r))
	}
}

func TestProgressDue(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		s    *benchv1.LoadStatus
		want bool
	}{
		{nil, true},
		{&benchv1.LoadStatus{}, true},
		{&benchv1.LoadStatus{ProgressTime: &metav1.Time{Time: now.Add(-time.Second)}}, false},
		{&benchv1.LoadStatus{ProgressTime: &metav1.Time{Time: now.Add(-5 * time.Second)}}, true},
	} {
		if got := progressDue(tc.s, now, 5*time.Second); got != tc.want {
			t.Errorf("progressDue(%+v) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
