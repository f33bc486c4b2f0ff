package main

import (
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
)

// freshDatabase creates an empty database on the server of base and drops it after the test.
func freshDatabase(t *testing.T, base string) string { return pgtest.Database(t, base, "tpcc_cli") }
