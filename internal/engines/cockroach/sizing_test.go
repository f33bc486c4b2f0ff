package cockroach

import (
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

func TestSizeMemory(t *testing.T) {
	cases := []struct {
		memory             int64
		cache, maxSQLMemry string
	}{
		{8 * engines.GiB, "2GiB", "2GiB"},
		{3 * engines.GiB, "768MiB", "768MiB"},
		{10 * engines.GiB, "2560MiB", "2560MiB"},
	}
	for _, tc := range cases {
		s := SizeMemory(tc.memory)
		if got := FlagSize(s.Cache); got != tc.cache {
			t.Errorf("%d: cache %s, want %s", tc.memory, got, tc.cache)
		}
		if got := FlagSize(s.MaxSQLMemory); got != tc.maxSQLMemry {
			t.Errorf("%d: max-sql-memory %s, want %s", tc.memory, got, tc.maxSQLMemry)
		}
	}
}
