package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryPolicy bounds the retries of one logical transaction after serialization failures or
// deadlocks (Clause 7 item 11 of the research notes: retries stay inside the transaction and are
// counted, not reported as extra transactions).
type RetryPolicy struct {
	MaxAttempts int           // attempts including the first, >= 1
	BaseBackoff time.Duration // ceiling of the first backoff; doubles per retry
	MaxBackoff  time.Duration // ceiling of any backoff
}

// DefaultRetryPolicy retries up to 9 times. Backoffs are short: the conflicting transaction has
// usually committed by the time the failure reaches the client, and every wait counts towards
// the response time.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 10, BaseBackoff: time.Millisecond, MaxBackoff: 100 * time.Millisecond}

// Validate names the first field out of range.
func (p RetryPolicy) Validate() error {
	switch {
	case p.MaxAttempts < 1:
		return fmt.Errorf("retry policy: MaxAttempts %d must be >= 1", p.MaxAttempts)
	case p.BaseBackoff < 0:
		return fmt.Errorf("retry policy: BaseBackoff %v must be >= 0", p.BaseBackoff)
	case p.MaxBackoff < p.BaseBackoff:
		return fmt.Errorf("retry policy: MaxBackoff %v must be >= BaseBackoff %v", p.MaxBackoff, p.BaseBackoff)
	}
	return nil
}

// BackoffCeiling is the longest wait before retry number retry (1-based): BaseBackoff·2^(retry−1),
// capped at MaxBackoff. The wait itself is drawn uniformly below it ("full jitter"), which keeps
// transactions that collided once from colliding again in lockstep.
func (p RetryPolicy) BackoffCeiling(retry int) time.Duration {
	if retry < 1 || p.BaseBackoff <= 0 {
		return 0
	}
	ceiling := p.BaseBackoff
	for i := 1; i < retry && ceiling < p.MaxBackoff; i++ {
		ceiling *= 2
	}
	return min(ceiling, p.MaxBackoff)
}

// RetriesExhaustedError is returned when every attempt failed with a retryable error.
type RetriesExhaustedError struct {
	Attempts int
	Last     error
}

func (e *RetriesExhaustedError) Error() string {
	return fmt.Sprintf("gave up after %d attempts: %v", e.Attempts, e.Last)
}

func (e *RetriesExhaustedError) Unwrap() error { return e.Last }

// Do runs attempt until it succeeds, fails with an error retryable rejects, the attempts are
// spent, or ctx ends. It returns the number of retries made (attempts − 1).
func (p RetryPolicy) Do(ctx context.Context, retryable func(error) bool, attempt func(context.Context) error) (retries int, err error) {
	for n := 1; ; n++ {
		err = attempt(ctx)
		if err == nil || !retryable(err) {
			return n - 1, err
		}
		if n >= p.MaxAttempts {
			return n - 1, &RetriesExhaustedError{Attempts: n, Last: err}
		}
		if ceiling := p.BackoffCeiling(n); ceiling > 0 {
			timer := time.NewTimer(rand.N(ceiling) + 1)
			select {
			case <-ctx.Done():
				timer.Stop()
				return n - 1, errors.Join(ctx.Err(), err)
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			return n - 1, errors.Join(ctx.Err(), err)
		}
	}
}

// CommitUnknownError marks a transaction whose connection broke, or whose context ended, while
// its COMMIT was in flight: it may or may not have committed. It is never retried.
type CommitUnknownError struct{ Err error }

func (e *CommitUnknownError) Error() string { return "outcome of COMMIT unknown: " + e.Err.Error() }
func (e *CommitUnknownError) Unwrap() error { return e.Err }
