package plan

import (
	"strings"
	"testing"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestDataWait(t *testing.T) {
	for _, c := range []struct {
		warehouses int32
		base       time.Duration
		want       time.Duration
		words      []string
	}{
		// 30 warehouses: 2.3 GiB in 24 s, far below the base.
		{30, 30 * time.Minute, 30 * time.Minute, []string{"30m0s (--database-ready-timeout", "30 warehouses", "move in 24s at 100 MiB/s"}},
		// The base's 30 minutes hold 2 250 warehouses' 176 GiB.
		{2250, 30 * time.Minute, 30 * time.Minute, []string{"30m0s (--database-ready-timeout"}},
		{2400, 30 * time.Minute, 32 * time.Minute, []string{"32m0s (2400 warehouses of about 80 MiB at 100 MiB/s, longer than --database-ready-timeout's 30m0s)"}},
		// The study: 18 000 warehouses, 1.37 TiB, 4 hours.
		{18000, 30 * time.Minute, 4 * time.Hour, []string{"4h0m0s (18000 warehouses"}},
		{100000, 30 * time.Minute, 22*time.Hour + 13*time.Minute + 20*time.Second, nil},
	} {
		run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Workload: benchv1.WorkloadSpec{Warehouses: c.warehouses}}}
		got, words := DataWait(run, c.base)
		if got != c.want {
			t.Errorf("%d warehouses: %s, want %s", c.warehouses, got, c.want)
		}
		for _, w := range c.words {
			if !strings.Contains(words, w) {
				t.Errorf("%d warehouses: %q does not say %q", c.warehouses, words, w)
			}
		}
	}
}
