package sla

import (
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// A sustained window judges latency over every attempt and errors per type, as Judge does: a
// quarter of a minute's Deliveries failing breaks it although the survivors were fast and the
// errors over all transactions stay near 1 %.
func TestJudgeWindowCountsFailedTransactions(t *testing.T) {
	window := func(deliveries, failed int64) Window {
		w := Window{Seconds: 60, ActiveWarehouses: 10, Histograms: map[snapshot.Transaction]*hdr.Histogram{}, Completed: map[snapshot.Transaction]int64{}, Errors: map[snapshot.Transaction]int64{}}
		for _, tx := range snapshot.Transactions {
			h := snapshot.NewHistogram()
			n := map[snapshot.Transaction]int64{snapshot.NewOrder: 2400, snapshot.Payment: 2300, snapshot.OrderStatus: 110, snapshot.Delivery: deliveries, snapshot.StockLevel: 110}[tx]
			for range n {
				_ = h.RecordValue(20_000) // 20 ms
			}
			w.Histograms[tx], w.Completed[tx] = h, n
		}
		w.Errors[snapshot.Delivery] = failed
		return w
	}
	c := DefaultCriteria()
	if got := JudgeWindow(window(110, 0), c, 0); len(got) != 0 {
		t.Fatalf("a clean window breaks %q", got)
	}
	got := strings.Join(JudgeWindow(window(82, 28), c, 0), "; ")
	if strings.Contains(got, "errors 0.") || strings.HasPrefix(got, "errors ") {
		t.Errorf("the errors over all transactions (28 of about 5000) break the window: %q", got)
	}
	for _, want := range []string{"Delivery p90 ∞ > 5s", "errors Delivery 25.455% (28 of 110 attempts) > 1%"} {
		if !strings.Contains(got, want) {
			t.Errorf("window reasons %q lack %q", got, want)
		}
	}
}
