package snapshot

import (
	"context"
	"net/http"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot/fanout"
)

// Poll is how FetchAll reads a step's client pods.
type Poll struct {
	// Client makes the requests (nil: http.DefaultClient).
	Client *http.Client
	// Limit is how many pods are read at once (< 1: fanout.DefaultLimit).
	Limit int
	// Timeout bounds each pod's request, whatever the client's own timeout (0:
	// DefaultRequestTimeout).
	Timeout time.Duration
}

// FetchAll is one poll of a step: the incremental read q (FetchQuery) of every pod of urls, Limit
// at once, each within Timeout. It returns the snapshots and the errors in the order of urls: a
// pod that could not be read has a nil snapshot and its error. A slow or dead pod costs the poll
// its own time, at most Timeout, not the sum of every pod's.
func FetchAll(ctx context.Context, urls []string, q Query, p Poll) ([]*Snapshot, []error) {
	return fetchEach(ctx, urls, p, func(ctx context.Context, url string) (*Snapshot, error) {
		return FetchQuery(ctx, p.Client, url, q)
	})
}

// fetchEach reads every process of urls with fetch, p.Limit at once, each within p.Timeout; the
// replies and the errors in the order of urls.
func fetchEach[T any](ctx context.Context, urls []string, p Poll, fetch func(ctx context.Context, url string) (*T, error)) ([]*T, []error) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	out, errs := make([]*T, len(urls)), make([]error, len(urls))
	fanout.Each(len(urls), p.Limit, func(i int) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		out[i], errs[i] = fetch(ctx, urls[i])
	})
	return out, errs
}
