package cockroach

import (
	"fmt"

	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// MemorySizing holds CockroachDB's --cache and --max-sql-memory, in bytes.
type MemorySizing struct {
	Cache, MaxSQLMemory int64
}

// SizeMemory gives CockroachDB's cache the share PostgreSQL's shared_buffers gets, and SQL
// memory its default share, both of the pod's memory rather than of the machine's.
func SizeMemory(memory int64) MemorySizing {
	return MemorySizing{
		Cache:        engines.RoundDown(memory*engines.CacheSharePercent/100, engines.MiB),
		MaxSQLMemory: engines.RoundDown(memory*engines.SQLMemorySharePercent/100, engines.MiB),
	}
}

// FlagSize renders bytes as CockroachDB's flags accept them (MiB, GiB).
func FlagSize(bytes int64) string {
	if bytes >= engines.GiB && bytes%engines.GiB == 0 {
		return fmt.Sprintf("%dGiB", bytes/engines.GiB)
	}
	return fmt.Sprintf("%dMiB", bytes/engines.MiB)
}
