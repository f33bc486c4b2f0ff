package main

import (
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// TestCheckURLMultiHost: pgx's multi-host URLs, as a failover needs them, pass --url's check.
func TestCheckURLMultiHost(t *testing.T) {
	for _, u := range []string{
		"postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write",
		"postgresql://u:secret@10.0.0.1:5432,10.0.0.2:5432,10.0.0.3:5432/tpcc?sslmode=disable&target_session_attrs=read-write",
		"postgres://u@h1,h2/db?target_session_attrs=primary",
	} {
		if err := checkURL(tpcc.Postgres, u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
		if err := checkURL(tpcc.Cockroach, u); err != nil {
			t.Errorf("cockroach %s: %v", u, err)
		}
	}
	if err := checkURL(tpcc.Postgres, "postgres://u:secret@/db?target_session_attrs=read-write"); err == nil ||
		!strings.Contains(err.Error(), "has no host") || strings.Contains(err.Error(), "secret") {
		t.Errorf("no host: %v", err)
	}
}
