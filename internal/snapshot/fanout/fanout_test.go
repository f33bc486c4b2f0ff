package fanout

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestEach: every index is called exactly once, never more than the limit at once, and as many
// at once as the limit allows (each call waits until the limit's worth are running, or all are).
func TestEach(t *testing.T) {
	for _, tc := range []struct {
		name         string
		n, limit     int
		wantParallel int
	}{
		{"none", 0, 4, 0},
		{"negative n", -3, 4, 0},
		{"one", 1, 4, 1},
		{"fewer items than the limit", 3, 16, 3},
		{"as many as the limit", 16, 16, 16},
		{"more items than the limit", 100, 16, 16},
		{"limit 1 is sequential", 5, 1, 1},
		{"limit 0 is the default", 40, 0, DefaultLimit},
		{"negative limit is the default", 40, -1, DefaultLimit},
		{"256 pods", 256, 16, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := make([]int32, max(tc.n, 0))
			var running, peak atomic.Int32
			// Each call holds until wantParallel calls run together (or a second passed), so a
			// helper that ran fewer at once than it may would show here as a lower peak.
			var mu sync.Mutex
			arrived := 0
			gate := make(chan struct{})
			Each(tc.n, tc.limit, func(i int) {
				now := running.Add(1)
				for {
					p := peak.Load()
					if now <= p || peak.CompareAndSwap(p, now) {
						break
					}
				}
				mu.Lock()
				arrived++
				if arrived == tc.wantParallel {
					close(gate)
				}
				mu.Unlock()
				select {
				case <-gate:
				case <-time.After(time.Second):
				}
				atomic.AddInt32(&calls[i], 1)
				running.Add(-1)
			})
			for i, c := range calls {
				if c != 1 {
					t.Errorf("index %d called %d times, want 1", i, c)
				}
			}
			if got := int(peak.Load()); got != tc.wantParallel {
				t.Errorf("peak of %d calls at once, want %d", got, tc.wantParallel)
			}
		})
	}
}
