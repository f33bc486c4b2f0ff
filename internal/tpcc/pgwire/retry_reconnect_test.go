package pgwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

func TestPgwireErrorClassification(t *testing.T) {
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	serialization := &pgconn.PgError{Code: "40001"}
	adminShutdown := &pgconn.PgError{Code: "57P01"}
	uniqueViolation := &pgconn.PgError{Code: "23505"}
	for _, tc := range []struct {
		name      string
		err       error
		retryable bool
		unknown   bool
	}{
		{"serialization before commit", classifyBeforeCommit(ctx, serialization), true, false},
		{"network before commit", classifyBeforeCommit(ctx, io.ErrUnexpectedEOF), true, false},
		{"admin shutdown before commit", classifyBeforeCommit(ctx, adminShutdown), true, false},
		{"cancelled before commit", classifyBeforeCommit(cancelled, io.ErrUnexpectedEOF), false, false},
		{"constraint before commit", classifyBeforeCommit(ctx, uniqueViolation), false, false},
		{"network during commit", classifyCommit(io.ErrUnexpectedEOF), false, true},
		{"admin shutdown during commit", classifyCommit(adminShutdown), false, true},
		{"cockroach 40003 during commit", classifyCommit(&pgconn.PgError{Code: "40003"}), false, true},
		{"context during commit", classifyCommit(context.Canceled), false, true},
		{"serialization at commit", classifyCommit(serialization), true, false},
		{"constraint at commit", classifyCommit(uniqueViolation), false, false},
		{"unknown, joined with a rollback error", errors.Join(classifyCommit(io.EOF), fmt.Errorf("rollback: %w", io.EOF)), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isRetryableOrReconnect(tc.err); got != tc.retryable {
				t.Errorf("retryable %t, want %t (%v)", got, tc.retryable, tc.err)
			}
			var unknown *tpcc.CommitUnknownError
			if got := errors.As(tc.err, &unknown); got != tc.unknown {
				t.Errorf("unknown %t, want %t (%v)", got, tc.unknown, tc.err)
			}
		})
	}
}
