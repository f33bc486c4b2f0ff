package sla

import (
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// TestLatencyCheckRankAndBucketEdge: the p90 is the attempt at the nearest rank ceil(0.9·n),
// failed attempts ranked above every response time, and it holds only when the whole bucket
// holding it lies at or below the bound. Fast samples are 10 ms, slow ones 1 s, the bound 100 ms
// unless a case sets another; a 100 ms sample lies in the bucket 99 840–100 351 µs.
func TestLatencyCheckRankAndBucketEdge(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name   string
		fast   int64
		slow   int64
		failed int64
		at     time.Duration // samples recorded there instead of fast and slow ones, when set
		n      int64         // how many at "at"
		bound  time.Duration
		want   Status
		detail string
	}{
		{name: "n=1 fast", fast: 1, want: Pass, detail: "NewOrder p90 10ms ≤ 100ms"},
		{name: "n=1 slow", slow: 1, want: Fail, detail: "NewOrder p90 1s > 100ms"},
		{name: "n=10: rank 9 is the last fast one", fast: 9, slow: 1, want: Pass},
		{name: "n=10: rank 9 is slow", fast: 8, slow: 2, want: Fail},
		{name: "n=11: rank 10 (9.9 rounds up) is fast", fast: 10, slow: 1, want: Pass},
		{name: "n=11: rank 10 is slow", fast: 9, slow: 2, want: Fail},
		// HdrHistogram's round(p·n) read rank 14 of 16 and 17 of 19: the last fast sample.
		{name: "n=16: rank 15 (14.4 rounds up) is slow", fast: 14, slow: 2, want: Fail},
		{name: "n=19: rank 18 (17.1 rounds up) is slow", fast: 17, slow: 2, want: Fail},
		{name: "n=20: rank 18 is fast", fast: 18, slow: 2, want: Pass},
		{name: "bound on the bucket's top", at: 100 * ms, n: 1, bound: 100_351 * time.Microsecond, want: Pass, detail: "NewOrder p90 100ms ≤ 100ms"},
		{name: "bound 1 µs below the bucket's top", at: 100 * ms, n: 1, bound: 100_350 * time.Microsecond, want: Fail,
			detail: "NewOrder p90 100ms > 100ms: its histogram bucket reaches above the bound"},
		{name: "sample exactly at the bound", at: 100 * ms, n: 10, want: Fail, detail: "its histogram bucket reaches above the bound"},
		{name: "sample exactly at a 5 s bound", at: 5 * time.Second, n: 10, bound: 5 * time.Second, want: Fail,
			detail: "NewOrder p90 5.01s > 5s: its histogram bucket reaches above the bound"},
		{name: "sample at the top of the bucket below 5 s", at: 4_980_735 * time.Microsecond, n: 10, bound: 5 * time.Second, want: Pass},
		{name: "1 µs buckets: sample at a 1 µs bound", at: time.Microsecond, n: 10, bound: time.Microsecond, want: Pass},
		{name: "failures below the rank", fast: 150, failed: 10, want: Pass,
			detail: "NewOrder p90 10ms ≤ 100ms (attempt 144 of 160; 10 failed, ranked above it)"},
		{name: "failures at the rank", fast: 150, failed: 45, want: Fail,
			detail: "NewOrder p90 ∞ > 100ms: 45 of 195 NewOrder attempts failed, each an infinite response time: the p90 (attempt 176 of 195) is one of them"},
		{name: "n=10 with one failure: rank 9 of 10 is fast", fast: 9, failed: 1, want: Pass},
		{name: "n=10 with two failures: rank 9 of 10 failed", fast: 8, failed: 2, want: Fail},
		{name: "only failures", failed: 3, want: Fail, detail: "3 of 3 NewOrder attempts failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			samples := map[time.Duration]int64{10 * ms: tc.fast, time.Second: tc.slow}
			if tc.at > 0 {
				samples = map[time.Duration]int64{tc.at: tc.n}
			}
			bound := tc.bound
			if bound == 0 {
				bound = 100 * ms
			}
			mt := &snapshot.MergedTransaction{Histogram: histogramOf(t, samples), Errors: tc.failed}
			got := latencyCheck(mt, LatencyBound{Transaction: snapshot.NewOrder, Percentile: 90, Max: bound})
			if got.Status != tc.want || !strings.Contains(got.Detail, tc.detail) {
				t.Errorf("%s (%s), want %s with %q", got.Status, got.Detail, tc.want, tc.detail)
			}
		})
	}
}
