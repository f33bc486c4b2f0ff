package run

import (
	"context"
	"errors"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot/fanout"
)

// Requests to a step's client pods — snapshots, start, marks, release — go out together,
// Config.PodFanOut at once (internal/fanout), each within Config.PodRequestTimeout on top of the
// HTTP client's own timeout: a step of hundreds of pods is read, started, marked and released in
// about the time of its slowest pod, and a pod that hangs costs its own timeout once, not once
// more for every pod after it.

// podTimeout bounds one request to one client pod.
func (r *Reconciler) podTimeout() time.Duration {
	if r.Config.PodRequestTimeout > 0 {
		return r.Config.PodRequestTimeout
	}
	return snapshot.DefaultRequestTimeout
}

// poll is how a step's snapshots are read (snapshot.FetchAll).
func (r *Reconciler) poll() snapshot.Poll {
	return snapshot.Poll{Client: r.Config.HTTPClient, Limit: r.Config.PodFanOut, Timeout: r.podTimeout()}
}

// eachPod runs call for i in [0, n), Config.PodFanOut at once, each under a context of the
// per-pod timeout; the errors by index.
func (r *Reconciler) eachPod(ctx context.Context, n int, call func(ctx context.Context, i int) error) []error {
	errs := make([]error, n)
	fanout.Each(n, r.Config.PodFanOut, func(i int) {
		ctx, cancel := context.WithTimeout(ctx, r.podTimeout())
		defer cancel()
		errs[i] = call(ctx, i)
	})
	return errs
}

// markAll marks a moment in every client pod's clock (POST /v1/mark), all pods together, returning
// the first pod's time; a pod that cannot be marked is named in the error (the others are marked).
func (r *Reconciler) markAll(urls []string) func(ctx context.Context, label string) (time.Time, error) {
	return func(ctx context.Context, label string) (time.Time, error) {
		times := make([]time.Time, len(urls))
		errs := r.eachPod(ctx, len(urls), func(ctx context.Context, i int) (err error) {
			times[i], err = snapshot.SetMark(ctx, r.Config.HTTPClient, urls[i], label)
			return err
		})
		var first time.Time
		if len(urls) > 0 && errs[0] == nil {
			first = times[0]
		}
		return first, errors.Join(errs...)
	}
}
