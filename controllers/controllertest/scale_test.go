package controllertest

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// A Scale fake serves what a real pod of the study's size serves: at 500 warehouses of a
// 10-minute step, five cumulative histograms whose counts are the step's completions, every
// interval with all five types at the interval's counts, and in a fault step the whole ledger,
// ten districts a warehouse, when asked for it.
func TestScaleSnapshotIsARealPodsSize(t *testing.T) {
	token, err := snapshot.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeClient(t, "pod-0", token, 18_000, 18_000, 0, 36, 10*time.Minute, 40*time.Millisecond)
	f.interval, f.scale, f.ledger, f.Speed = 10*time.Second, &Scale{Quantum: 10 * time.Second}, true, 600
	f.started = time.Now().Add(-2 * time.Second) // 20 measured minutes ago: done

	get := func(query string) (*snapshot.Snapshot, int) {
		req, err := http.NewRequest(http.MethodGet, f.server.URL+snapshot.PathSnapshot+"?"+query, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v %s", query, resp.StatusCode, err, body)
		}
		s, err := snapshot.Parse(body)
		if err != nil {
			t.Fatal(err)
		}
		return s, len(body)
	}

	s, size := get(fmt.Sprintf("%s=58", snapshot.QueryIntervalsAfter)) // a poll's incremental read
	if s.Phase != snapshot.PhaseDone || s.Intervals == nil || s.Intervals.Sealed != 60 || len(s.Intervals.Items) != 1 {
		t.Fatalf("phase %s, intervals %+v", s.Phase, s.Intervals)
	}
	wantNewOrders := int64(12.6 * 500 * 10)
	for _, tx := range snapshot.Transactions {
		c := s.Transactions[tx]
		h, err := snapshot.DecodeHistogram(c.Histogram)
		if err != nil {
			t.Fatal(err)
		}
		if h.TotalCount() != c.Commits+c.Rollbacks {
			t.Errorf("%s: histogram holds %d, counts %d", tx, h.TotalCount(), c.Commits+c.Rollbacks)
		}
		if tx == snapshot.NewOrder && c.Commits+c.Rollbacks != wantNewOrders {
			t.Errorf("%d New-Orders, want %d (12.6 a warehouse-minute)", c.Commits+c.Rollbacks, wantNewOrders)
		}
		if iv := s.Intervals.Items[0].Transactions[tx]; iv.Histogram == "" || iv.Commits == 0 {
			t.Errorf("interval 59 has no %s: %+v", tx, iv)
		}
	}
	if len(s.Ledger) != 0 {
		t.Errorf("the ledger served unasked: %d districts", len(s.Ledger))
	}
	withLedger, ledgerSize := get(fmt.Sprintf("%s=58&%s=1", snapshot.QueryIntervalsAfter, snapshot.QueryLedger))
	if len(withLedger.Ledger) != 5000 {
		t.Errorf("ledger of %d districts, want 5000", len(withLedger.Ledger))
	}
	_, whole := get(fmt.Sprintf("%s=-1", snapshot.QueryIntervalsAfter))
	t.Logf("one pod of 500 warehouses: %d bytes a poll (one interval), %d with the ledger, %d with all 60 intervals", size, ledgerSize, whole)
}
