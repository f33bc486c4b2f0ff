package pgwire

import (
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
)

// pgtestURL returns the URL of the local sync cluster (hack/pg-sync.sh url) from TPCC_PG_URL.
func pgtestURL(t testing.TB) string { return pgtest.URL(t) }

// pgtestDatabase creates an empty database for this test on the TPCC_PG_URL server and drops it
// when the test ends; it returns the new database's URL.
func pgtestDatabase(t testing.TB) string { return pgtest.Database(t, pgtest.URL(t), "tpcc_t") }
