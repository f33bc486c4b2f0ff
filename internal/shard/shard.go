// Package shard splits warehouses 1..N into contiguous, near-equal ranges, one per pod of an
// Indexed Job. The operator and the tpcc client both use it, so a pod given only its completion
// index and the pod count works on exactly the range the operator accounts for.
package shard

import "fmt"

// Range is warehouses From..To, inclusive.
type Range struct {
	From, To int
}

// Len is the number of warehouses in the range.
func (r Range) Len() int { return r.To - r.From + 1 }

func (r Range) String() string { return fmt.Sprintf("%d-%d", r.From, r.To) }

// Of returns the index-th of count contiguous ranges covering 1..n; the first n%count ranges hold
// one warehouse more than the rest.
func Of(n, index, count int) (Range, error) {
	switch {
	case n < 1:
		return Range{}, fmt.Errorf("shard: warehouses must be at least 1, got %d", n)
	case count < 1 || count > n:
		return Range{}, fmt.Errorf("shard: count must be between 1 and the %d warehouses, got %d", n, count)
	case index < 0 || index >= count:
		return Range{}, fmt.Errorf("shard: index must be between 0 and %d, got %d", count-1, index)
	}
	size, extra := n/count, n%count
	from := index*size + min(index, extra) + 1
	to := from + size - 1
	if index < extra {
		to++
	}
	return Range{From: from, To: to}, nil
}

// Count is how many pods serve n warehouses at perPod warehouses each, between 1 and max(1, limit)
// and never more pods than warehouses.
func Count(n, perPod, limit int) int {
	if n < 1 {
		return 1
	}
	perPod = max(perPod, 1)
	count := (n + perPod - 1) / perPod
	if limit > 0 {
		count = min(count, limit)
	}
	return max(1, min(count, n))
}
