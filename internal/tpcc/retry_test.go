package tpcc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRetryPolicyValidate(t *testing.T) {
	tests := []struct {
		name    string
		p       RetryPolicy
		wantErr string
	}{
		{"default", DefaultRetryPolicy, ""},
		{"single attempt, no backoff", RetryPolicy{MaxAttempts: 1}, ""},
		{"zero attempts", RetryPolicy{MaxAttempts: 0}, "MaxAttempts 0"},
		{"negative base", RetryPolicy{MaxAttempts: 2, BaseBackoff: -1}, "BaseBackoff"},
		{"max below base", RetryPolicy{MaxAttempts: 2, BaseBackoff: time.Second, MaxBackoff: time.Millisecond}, "MaxBackoff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate()
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Validate() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestBackoffCeiling(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 10, BaseBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond}
	tests := []struct {
		retry int
		want  time.Duration
	}{
		{0, 0},
		{1, time.Millisecond},
		{2, 2 * time.Millisecond},
		{3, 4 * time.Millisecond},
		{4, 8 * time.Millisecond},
		{5, 10 * time.Millisecond},
		{60, 10 * time.Millisecond}, // no overflow however long the streak
	}
	for _, tt := range tests {
		if got := p.BackoffCeiling(tt.retry); got != tt.want {
			t.Errorf("BackoffCeiling(%d) = %v, want %v", tt.retry, got, tt.want)
		}
	}
	if got := (RetryPolicy{MaxAttempts: 3}).BackoffCeiling(2); got != 0 {
		t.Errorf("zero BaseBackoff: ceiling %v, want 0", got)
	}
}

var errRetryable = errors.New("retryable")

func TestRetryPolicyDo(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 4, BaseBackoff: time.Microsecond, MaxBackoff: time.Microsecond}
	isRetryable := func(err error) bool { return errors.Is(err, errRetryable) }
	fatal := errors.New("fatal")
	tests := []struct {
		name        string
		failures    []error // returned by the attempts in order; then success
		wantRetries int
		wantErr     error
		exhausted   bool
	}{
		{"first attempt succeeds", nil, 0, nil, false},
		{"two retryable failures", []error{errRetryable, errRetryable}, 2, nil, false},
		{"fatal error is not retried", []error{fatal}, 0, fatal, false},
		{"retryable then fatal", []error{errRetryable, fatal}, 1, fatal, false},
		{"attempts spent", []error{errRetryable, errRetryable, errRetryable, errRetryable, errRetryable}, 3, errRetryable, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			retries, err := p.Do(context.Background(), isRetryable, func(context.Context) error {
				calls++
				if calls <= len(tt.failures) {
					return tt.failures[calls-1]
				}
				return nil
			})
			if retries != tt.wantRetries || calls != retries+1 {
				t.Errorf("retries = %d after %d calls, want %d retries", retries, calls, tt.wantRetries)
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			var ex *RetriesExhaustedError
			if errors.As(err, &ex) != tt.exhausted {
				t.Errorf("err = %v: exhausted = %v, want %v", err, !tt.exhausted, tt.exhausted)
			}
		})
	}
}

func TestRetryPolicyDoStopsWhenContextEnds(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 1000, BaseBackoff: time.Hour, MaxBackoff: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	retries, err := p.Do(ctx, func(error) bool { return true }, func(context.Context) error { return errRetryable })
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errRetryable) {
		t.Fatalf("err = %v, want the deadline and the last failure", err)
	}
	if retries != 0 || time.Since(start) > 5*time.Second {
		t.Fatalf("retries = %d after %v, want 0 and a prompt return", retries, time.Since(start))
	}
}
