package sla

import (
	"strings"
	"testing"
)

func TestClientBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   ClientLoad
		want []string // substrings, one per reason, in order
	}{
		{"kept up", ClientLoad{Completed: 100000, LateStarts: 50, PoolAcquires: 100000, PoolWaits: 100, PoolWaitSeconds: 0.5,
			Pods: []PodCPU{{Name: "c-0", PeakCores: 0.5, Limit: 2}}}, nil},
		{"nothing measured", ClientLoad{}, nil},
		{"late starts", ClientLoad{Completed: 10000, LateStarts: 101}, []string{"101 of 10000 transactions (1.0%) started more than 100ms behind"}},
		{"exactly one percent late is not", ClientLoad{Completed: 10000, LateStarts: 100}, nil},
		{"pool waits", ClientLoad{PoolAcquires: 1000, PoolWaits: 200, PoolWaitSeconds: 2}, []string{"200 of 1000 connection acquisitions (20.0%) waited for a pooled connection, 10.0ms on average"}},
		{"many short pool waits are not", ClientLoad{PoolAcquires: 1000, PoolWaits: 200, PoolWaitSeconds: 0.2}, nil},
		{"CPU at the limit", ClientLoad{Pods: []PodCPU{{Name: "c-0", PeakCores: 0.95, Limit: 1}, {Name: "c-1", PeakCores: 3, Limit: 0}}},
			[]string{"client pod c-0 peaked at 0.95 of its 1.00 CPU limit"}},
		{"all three", ClientLoad{Completed: 100, LateStarts: 50, PoolAcquires: 100, PoolWaits: 50, PoolWaitSeconds: 5, Pods: []PodCPU{{Name: "c-0", PeakCores: 1, Limit: 1}}},
			[]string{"50 of 100 transactions", "50 of 100 connection acquisitions", "client pod c-0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ClientBound(tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %d reasons %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) || !strings.HasPrefix(got[i], "client-bound: ") {
					t.Errorf("reason %d %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}
