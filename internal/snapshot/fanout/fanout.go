// Package fanout runs one call per item with a bounded number at once: the operator's requests to
// a step's client pods (snapshots, start, stop, marks) go out together, so a step of hundreds of
// pods takes about as long as its slowest pod rather than the sum of all, without opening
// hundreds of connections at once; the kubelet scrapes of a poll too. It sits under
// internal/snapshot, the bottom layer, so that the snapshot client can use it.
package fanout

import "sync"

// DefaultLimit is how many calls Each runs at once when the caller names no limit.
const DefaultLimit = 16

// Each calls fn(i) for every i in [0, n), at most limit at once (limit < 1: DefaultLimit), and
// returns when every call has returned. The calls run on their own goroutines in no set order;
// fn writes its result to its own index of a slice the caller made, so no result needs a lock.
func Each(n, limit int, fn func(i int)) {
	if n <= 0 {
		return
	}
	if limit < 1 {
		limit = DefaultLimit
	}
	limit = min(limit, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range limit {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
