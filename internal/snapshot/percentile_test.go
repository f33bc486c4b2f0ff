package snapshot

import "testing"

// TestNearestRank holds the nearest-rank rule ceil(p/100·n) where it differs from
// HdrHistogram's round(p/100·n) (16 samples: 14.4 is rank 15, not 14) and where a rounding
// error in p/100·n would move an exact rank up by one (90 % of 10, 99.9 % of 1000).
func TestNearestRank(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		n    int64
		want int64
	}{
		{90, 0, 0},
		{90, 1, 1},
		{90, 2, 2},
		{90, 10, 9},
		{90, 11, 10},
		{90, 16, 15},
		{90, 19, 18},
		{90, 100, 90},
		{90, 101, 91},
		{90, 195, 176},
		{50, 1, 1},
		{50, 2, 1},
		{50, 3, 2},
		{99.9, 1000, 999},
		{99.9, 1001, 1000},
		{0.1, 10, 1},
		{100, 7, 7},
		{1e-9, 5, 1},
	} {
		if got := NearestRank(tc.p, tc.n); got != tc.want {
			t.Errorf("NearestRank(%g, %d) = %d, want %d", tc.p, tc.n, got, tc.want)
		}
	}
}

// TestValueAtNearestRank reads percentiles of values 1..n µs (each its own bucket below 256 µs):
// the p-th percentile is the value at rank ceil(p/100·n), where HdrHistogram's ValueAtPercentile
// reads round(p/100·n).
func TestValueAtNearestRank(t *testing.T) {
	for _, tc := range []struct {
		n       int64
		p       float64
		want    int64
		hdrRead int64 // what h.ValueAtPercentile(p) reads: the rank rule this replaces
	}{
		{1, 90, 1, 1},
		{10, 90, 9, 9},
		{11, 90, 10, 10},
		{16, 90, 15, 14},
		{19, 90, 18, 17},
		{200, 99.5, 199, 199},
		{200, 50, 100, 100},
	} {
		h := NewHistogram()
		for v := int64(1); v <= tc.n; v++ {
			_ = h.RecordValue(v)
		}
		if got := ValueAtNearestRank(h, tc.p); got != tc.want {
			t.Errorf("n=%d p%g: %d µs, want %d", tc.n, tc.p, got, tc.want)
		}
		if got := h.ValueAtPercentile(tc.p); got != tc.hdrRead {
			t.Errorf("n=%d p%g: HdrHistogram reads %d µs, this test expects %d", tc.n, tc.p, got, tc.hdrRead)
		}
	}
	if got := ValueAtNearestRank(NewHistogram(), 90); got != 0 {
		t.Errorf("empty histogram: %d, want 0", got)
	}
}

// TestValueAtRankReadsTheBucketTop: a sample is known to its bucket only, and a rank reads the
// top of the bucket holding it. At 5 s a bucket is 32 768 µs wide (1/128 of 4 194 304 µs, its
// octave's start): 5 000 000 µs lies in 4 980 736..5 013 503.
func TestValueAtRankReadsTheBucketTop(t *testing.T) {
	h := NewHistogram()
	_ = h.RecordValues(5_000_000, 3)
	_ = h.RecordValue(10)
	for rank, want := range map[int64]int64{0: 10, 1: 10, 2: 5_013_503, 4: 5_013_503, 9: 5_013_503} {
		if got := ValueAtRank(h, rank); got != want {
			t.Errorf("rank %d: %d µs, want %d", rank, got, want)
		}
	}
}
