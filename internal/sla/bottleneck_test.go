package sla

import (
	"strings"
	"testing"
)

func TestNameBottleneck(t *testing.T) {
	db := func(name string, peak, limit float64) PodCPU {
		return PodCPU{Name: name, PeakCores: peak, Limit: limit}
	}
	pgSessions := func(active, sync, lock, io float64) BottleneckSignals {
		return BottleneckSignals{HasSessions: true, MeanActive: active, MeanSync: sync, MeanLock: lock, MeanIO: io}
	}
	with := func(s BottleneckSignals, f func(*BottleneckSignals)) BottleneckSignals { f(&s); return s }
	for _, tc := range []struct {
		name     string
		in       BottleneckSignals
		resource string
		also     []string
		evidence []string // substrings that must appear in the evidence
	}{
		{"nothing recorded", BottleneckSignals{}, BottleneckNotDetermined, nil,
			[]string{"no recorded signal crossed", "the pods' CPU was not read", "sessions were not sampled"}},
		{"a client pod at its limit", BottleneckSignals{HasResources: true, ClientPods: []PodCPU{db("c-0", 0.098, 0.1)},
			DatabasePods: []PodCPU{db("db-1", 0.3, 2)}}, BottleneckClientCPU, nil,
			[]string{"client pod c-0 peaked at 0.10 of its 0.10-core CPU limit (98 %)", "the clients, not the database, bounded this step"}},
		{"a database pod at its limit", BottleneckSignals{HasResources: true, DatabasePods: []PodCPU{db("db-1", 0.49, 0.5), db("db-2", 0.1, 0.5)},
			ClientPods: []PodCPU{db("c-0", 0.2, 0)}}, BottleneckDatabaseCPU, nil,
			[]string{"database pod db-1 peaked at 0.49 of its 0.50-core CPU limit (98 %)"}},
		{"client and database CPU: the client is named first", BottleneckSignals{HasResources: true,
			ClientPods: []PodCPU{db("c-0", 0.1, 0.1)}, DatabasePods: []PodCPU{db("db-1", 1, 1)}}, BottleneckClientCPU, []string{BottleneckDatabaseCPU},
			[]string{"client pod c-0", "database pod db-1"}},
		{"below the limits: not determined, with the figures", BottleneckSignals{HasResources: true, DatabasePods: []PodCPU{db("db-1", 0.8, 1)},
			ClientPods: []PodCPU{db("c-0", 0.5, 1)}, HasSessions: true, MeanActive: 4, MeanSync: 1}, BottleneckNotDetermined, nil,
			[]string{"database pod db-1 peaked at 80 % of its CPU limit", "client pod c-0 at 50 %", "25 % waiting for the synchronous standbys"}},
		{"database without a CPU limit", BottleneckSignals{HasResources: true, DatabasePods: []PodCPU{db("db-1", 1.9, 0)}}, BottleneckNotDetermined, nil,
			[]string{"db-1 have no CPU limit"}},
		{"synchronous standbys", with(pgSessions(10, 7, 1, 0.5), func(s *BottleneckSignals) {
			s.Standbys = []StandbyLags{{Name: "s1", Write: 0.002, Flush: 0.030, Replay: 0.031}, {Name: "s2", Write: 0.002, Flush: 0.003, Replay: 0.004}}
		}), BottleneckReplication, nil,
			[]string{"70 % waiting for the synchronous standbys", "standby s1: write lag 2.0ms, flush lag 30.0ms", "its disk is the slow part"}},
		{"lock waits", pgSessions(8, 1, 5, 0), BottleneckLockWaits, nil, []string{"62 % on locks"}},
		{"I/O waits", pgSessions(6, 0, 0, 4), BottleneckDiskLatency, nil, []string{"67 % on I/O"}},
		{"waits while nearly idle are not a bottleneck", pgSessions(0.5, 0.5, 0, 0), BottleneckNotDetermined, nil, []string{"0.5 active sessions"}},
		{"retries", BottleneckSignals{Transactions: 1000, Retries: 400}, BottleneckLockWaits, nil,
			[]string{"400 retries inside 1000 transactions (40.0 %)"}},
		{"few retries are context only", BottleneckSignals{Transactions: 1000, Retries: 10}, BottleneckNotDetermined, nil, []string{"10 retries inside 1000"}},
		{"database CPU beats a wait", with(pgSessions(10, 6, 0, 0), func(s *BottleneckSignals) {
			s.HasResources, s.DatabasePods = true, []PodCPU{db("db-1", 2, 2)}
		}), BottleneckDatabaseCPU, []string{BottleneckReplication}, []string{"database pod db-1", "60 % waiting"}},
		{"client-bound signs without CPU data stay evidence", BottleneckSignals{ClientSigns: []string{"client-bound: 50 of 100 transactions started late"}},
			BottleneckNotDetermined, nil, []string{"50 of 100 transactions started late"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NameBottleneck(tc.in)
			if got.Resource != tc.resource {
				t.Fatalf("resource %s, want %s; evidence %q", got.Resource, tc.resource, got.Evidence)
			}
			if strings.Join(got.Also, ",") != strings.Join(tc.also, ",") {
				t.Errorf("also %v, want %v", got.Also, tc.also)
			}
			all := strings.Join(got.Evidence, "\n")
			for _, want := range tc.evidence {
				if !strings.Contains(all, want) {
					t.Errorf("evidence lacks %q:\n%s", want, all)
				}
			}
			if len(got.Evidence) == 0 {
				t.Error("no evidence")
			}
		})
	}
}
