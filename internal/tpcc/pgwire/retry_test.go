package pgwire

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestIsRetryablePgWire(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "40001"}, true},
		{&pgconn.PgError{Code: "40P01"}, true},
		{fmt.Errorf("payment: %w", &pgconn.PgError{Code: "40001"}), true},
		{&pgconn.PgError{Code: "40003"}, false}, // CockroachDB: statement completion unknown
		{&pgconn.PgError{Code: "23505"}, false}, // unique violation
		{errors.New("connection reset"), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := IsRetryablePgWire(tt.err); got != tt.want {
			t.Errorf("IsRetryablePgWire(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
