package snapshot

import (
	"math/big"
	"strconv"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// NearestRank is the 1-based rank of the p-th percentile (0 < p ≤ 100) of n samples by the
// nearest-rank method: the smallest rank r with r/n ≥ p/100, that is ceil(p/100·n), at least 1
// and at most n; 0 when n ≤ 0. The p90 of 10 samples is the 9th, of 11 the 10th, of 16 the 15th
// (HdrHistogram's own ValueAtPercentile reads rank round(p/100·n): the 14th of 16, a sample with
// only 87.5 % of the samples at or below it).
//
// p is taken as the decimal it is written as (its shortest representation), so that 90 % of
// 10 samples is exactly rank 9 and no rounding error in p/100·n moves the rank up by one.
func NearestRank(p float64, n int64) int64 {
	if n <= 0 {
		return 0
	}
	q, ok := new(big.Rat).SetString(strconv.FormatFloat(p, 'g', -1, 64))
	if !ok || q.Sign() <= 0 {
		return 1
	}
	// ceil(a/b) = (a + b − 1) / b for a ≥ 0, b > 0.
	a := new(big.Int).Mul(q.Num(), big.NewInt(n))
	b := new(big.Int).Mul(q.Denom(), big.NewInt(100))
	a.Add(a, b).Sub(a, big.NewInt(1)).Quo(a, b)
	if !a.IsInt64() || a.Int64() >= n {
		return n
	}
	return max(a.Int64(), 1)
}

// ValueAtRank is the recorded value of h's rank-th smallest sample (1-based, clamped to
// 1..TotalCount), read as the top of the bucket that holds it (the largest value the bucket
// stands for); 0 for an empty histogram.
func ValueAtRank(h *hdr.Histogram, rank int64) int64 {
	n := h.TotalCount()
	if n == 0 {
		return 0
	}
	rank = min(max(rank, 1), n)
	// HdrHistogram reads percentile q at rank int(q/100·n + 0.5); asking for the percentile of
	// rank − 0.25 lands on rank + 0.25 and truncates to rank, far from any rounding boundary.
	return h.ValueAtPercentile(100 * (float64(rank) - 0.25) / float64(n))
}

// ValueAtNearestRank is h's p-th percentile by the nearest-rank method (NearestRank), read as
// the top of its bucket; 0 for an empty histogram.
func ValueAtNearestRank(h *hdr.Histogram, p float64) int64 {
	return ValueAtRank(h, NearestRank(p, h.TotalCount()))
}
