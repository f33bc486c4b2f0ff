package snapshot

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestFetchAll: every pod's snapshot or error lands at its own index; a pod that answers after
// the per-pod timeout is an error of its own, and the poll takes about that timeout, not the sum
// of every pod's time.
func TestFetchAll(t *testing.T) {
	run := ledgerRun(t)
	handler := NewHandler(run.control())
	release := make(chan struct{})
	var urls []string
	for i := range 40 {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch i {
			case 7: // hung
				select {
				case <-release:
				case <-r.Context().Done():
				}
			case 13: // slower than the others, within the timeout
				time.Sleep(100 * time.Millisecond)
			case 21:
				http.Error(w, `{"error": "busy"}`, http.StatusInternalServerError)
				return
			default:
				time.Sleep(20 * time.Millisecond)
			}
			handler.ServeHTTP(w, r)
		}))
		urls = append(urls, srv.URL)
		t.Cleanup(srv.Close)
	}
	t.Cleanup(func() { close(release) })
	start := time.Now()
	snapshots, errs := FetchAll(context.Background(), urls, Query{IntervalsAfter: -1, Ledger: true}, Poll{Limit: 16, Timeout: 500 * time.Millisecond})
	took := time.Since(start)
	for i := range urls {
		switch i {
		case 7:
			if errs[i] == nil || !strings.Contains(errs[i].Error(), "deadline exceeded") || snapshots[i] != nil {
				t.Errorf("hung pod: snapshot %v, error %v; want the timeout", snapshots[i] != nil, errs[i])
			}
		case 21:
			if errs[i] == nil || !strings.Contains(errs[i].Error(), "busy") {
				t.Errorf("failing pod: error %v", errs[i])
			}
		default:
			if errs[i] != nil || snapshots[i] == nil || len(snapshots[i].Ledger) != 3 {
				t.Errorf("pod %d: error %v", i, errs[i])
			}
		}
	}
	// Sequentially: 38 × 20 ms + 100 ms + 500 ms ≈ 1.4 s. With 16 at once: the hung pod's 500 ms
	// beside the others.
	if took > 1100*time.Millisecond {
		t.Errorf("the poll took %s: the pods were not read together", took)
	}
	if took < 500*time.Millisecond {
		t.Errorf("the poll took %s: it did not wait for the hung pod's timeout", took)
	}
}
