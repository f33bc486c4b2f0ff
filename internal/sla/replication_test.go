package sla

import (
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestMaxReplayLags(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sample := func(sec int, lags map[string]float64) *snapshot.Telemetry {
		tel := &snapshot.Telemetry{SampledAt: t0.Add(time.Duration(sec) * time.Second)}
		for _, name := range []string{"s1", "s2"} {
			if v, ok := lags[name]; ok {
				tel.Standbys = append(tel.Standbys, snapshot.Standby{Name: name, ReplayLagSeconds: v})
			}
		}
		return tel
	}
	samples := []*snapshot.Telemetry{
		sample(1, map[string]float64{"s1": 0.01, "s2": 0.02}),
		nil,
		{Error: "connection refused", Standbys: []snapshot.Standby{{Name: "s1", ReplayLagSeconds: 99}}},
		sample(2, map[string]float64{"s1": 2.5, "s2": 0.01}),
		sample(3, map[string]float64{"s1": 1.5}),
	}
	got := MaxReplayLags(samples)
	want := []StandbyLag{{Standby: "s1", ReplayLag: 2500 * time.Millisecond, SampledAt: t0.Add(2 * time.Second)},
		{Standby: "s2", ReplayLag: 20 * time.Millisecond, SampledAt: t0.Add(time.Second)}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if n := TelemetrySamples(samples); n != 3 {
		t.Errorf("TelemetrySamples %d, want 3 (nil and failed samples do not count)", n)
	}
}

func TestReplicationCheck(t *testing.T) {
	lags := []StandbyLag{{Standby: "s1", ReplayLag: 2500 * time.Millisecond}, {Standby: "s2", ReplayLag: 20 * time.Millisecond},
		{Standby: "s3", ReplayLag: 3 * time.Hour}}
	for _, tc := range []struct {
		name   string
		e      ReplicationEvidence
		max    time.Duration
		status Status
		detail string
	}{
		{"no samples: missing data is inconclusive", ReplicationEvidence{}, time.Second, Inconclusive, "cannot be judged: no database telemetry sample was read"},
		{"no samples, the error said", ReplicationEvidence{Failed: 3, LastError: "connection refused"}, time.Second, Inconclusive, "(last error: connection refused)"},
		{"some samples failed", ReplicationEvidence{Lags: lags[:1], Samples: 4, Failed: 1, LastError: "timeout"}, time.Hour, Inconclusive,
			"1 of 5 database samples failed, their intervals' lag is unknown (last error: timeout)"},
		{"a failure wins over missing samples", ReplicationEvidence{Lags: lags[:1], Samples: 4, Failed: 1}, time.Second, Fail, "standby s1 replay lag 2.5s > 1s"},
		{"no standby", ReplicationEvidence{Samples: 4}, time.Second, Pass, "no standby"},
		{"within", ReplicationEvidence{Lags: lags[:2], Samples: 4}, 3 * time.Second, Pass, "largest replay lag 2.5s (standby s1) ≤ 3s"},
		{"at the bound", ReplicationEvidence{Lags: lags[:1], Samples: 4}, 2500 * time.Millisecond, Pass, "≤ 2.5s"},
		{"one over", ReplicationEvidence{Lags: lags[:2], Samples: 4}, time.Second, Fail, "replication lag: standby s1 replay lag 2.5s > 1s"},
		{"several over, worst first", ReplicationEvidence{Lags: lags, Samples: 4}, 10 * time.Millisecond, Fail,
			"standby s3 replay lag 3h0m0s, standby s1 replay lag 2.5s, standby s2 replay lag 20ms > 10ms"},
		{"positions hidden: cannot pass", ReplicationEvidence{Lags: lags[:1], Hidden: []string{"s2", "s3"}, Samples: 4}, time.Hour, Fail,
			"cannot be judged: the positions of standby s2, s3 are hidden from the benchmark's role (grant it pg_monitor)"},
		{"a standby that left counts as unbounded, named", ReplicationEvidence{Lags: lags[:2], Samples: 6, Absent: map[string]int{"s2": 2}, MaxStandbys: 2}, time.Hour, Fail,
			"standby s2 left pg_stat_replication in 2 of 6 samples (lag unbounded) > 1h0m0s"},
		{"a configured standby that never reported", ReplicationEvidence{Lags: lags[:1], Samples: 6, MaxStandbys: 1, Expected: 2}, time.Hour, Fail,
			"1 of 2 configured standbys never reported (lag unbounded)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := ReplicationCheck(tc.e, tc.max)
			if ch.Status != tc.status || !strings.Contains(ch.Detail, tc.detail) || ch.Name != CheckNameReplicationLag {
				t.Fatalf("got %s %q, want %s containing %q", ch.Status, ch.Detail, tc.status, tc.detail)
			}
		})
	}
}

func TestSyncStandbysCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		e      ReplicationEvidence
		absent bool
		status Status
		detail string
	}{
		{"asynchronous: no check", ReplicationEvidence{Samples: 5, NoSyncStreaming: 5}, true, "", ""},
		{"nothing sampled: the lag check says so", ReplicationEvidence{SyncConfigured: true}, true, "", ""},
		{"streaming in every sample", ReplicationEvidence{SyncConfigured: true, Samples: 5}, false, Pass, "at least one streaming in each of 5 samples"},
		{"none streaming for a while", ReplicationEvidence{SyncConfigured: true, Samples: 5, NoSyncStreaming: 2}, false, Fail,
			"none streaming in 2 of 5 samples: commits were not synchronously replicated then"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, ok := SyncStandbysCheck(tc.e)
			if ok == tc.absent {
				t.Fatalf("present %v, want %v", ok, !tc.absent)
			}
			if ok && (ch.Status != tc.status || !strings.Contains(ch.Detail, tc.detail)) {
				t.Fatalf("got %s %q, want %s containing %q", ch.Status, ch.Detail, tc.status, tc.detail)
			}
		})
	}
}

// The same standbys seen through one process's samples and through a step's compact series give
// the same evidence.
func TestReplicationEvidence(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := func(name string, lag float64, state, sync string) snapshot.Standby {
		return snapshot.Standby{Name: name, ReplayLagSeconds: lag, State: state, SyncState: sync}
	}
	samples := []*snapshot.Telemetry{
		{Standbys: []snapshot.Standby{st("s1", 0.01, "streaming", "quorum"), st("s2", 0.02, "streaming", "quorum")}},
		nil, // an interval without a sample
		{Error: "connection refused"},
		{Standbys: []snapshot.Standby{st("s1", 2.5, "streaming", "quorum")}},  // s2 left
		{Standbys: []snapshot.Standby{st("s1", 0.3, "catchup", "potential")}}, // s2 still gone, s1 not synchronous
		{Standbys: []snapshot.Standby{st("s1", 0.1, "streaming", "sync"), st("s2", 9, "streaming", "sync")}},
	}
	want := ReplicationEvidence{Samples: 4, Failed: 1, LastError: "connection refused", Absent: map[string]int{"s2": 2},
		MaxStandbys: 2, Expected: 2, NoSyncStreaming: 1, SyncConfigured: true,
		Lags: []StandbyLag{{Standby: "s1", ReplayLag: 2500 * time.Millisecond}, {Standby: "s2", ReplayLag: 9 * time.Second}}}
	check := func(t *testing.T, got ReplicationEvidence) {
		t.Helper()
		for i := range got.Lags {
			got.Lags[i].SampledAt = time.Time{}
		}
		if got.Samples != want.Samples || got.Failed != want.Failed || got.LastError != want.LastError || got.MaxStandbys != want.MaxStandbys ||
			got.NoSyncStreaming != want.NoSyncStreaming || len(got.Absent) != 1 || got.Absent["s2"] != 2 || len(got.Lags) != 2 ||
			got.Lags[0] != want.Lags[0] || got.Lags[1] != want.Lags[1] {
			t.Fatalf("got %+v\nwant %+v", got, want)
		}
	}
	t.Run("samples", func(t *testing.T) { check(t, ReplicationEvidenceOf(samples, 2, true)) })
	t.Run("series", func(t *testing.T) {
		var intervals []snapshot.MergedInterval
		for i, tel := range samples {
			if tel != nil {
				tel.SampledAt = t0.Add(time.Duration(i) * time.Second)
			}
			intervals = append(intervals, snapshot.MergedInterval{Index: i, Start: t0.Add(time.Duration(i) * time.Second), Telemetry: tel})
		}
		// A series collected in two pieces equals one compacted at once.
		series := snapshot.Compact(intervals[:3], time.Second)
		series.Append(snapshot.Compact(intervals[3:], time.Second))
		check(t, ReplicationEvidenceOfSeries(series, nil, 2, true, "connection refused"))
		if e := ReplicationEvidenceOfSeries(series, func(i int) bool { return i < 2 }, 2, true, ""); e.Samples != 1 || len(e.Absent) != 0 && e.Absent["s2"] != 0 {
			t.Fatalf("only the first two intervals: %+v", e)
		}
	})
}

func TestAddCheckInconclusive(t *testing.T) {
	v := Verdict{Compliant: true, SpecCompliant: false, Notes: []string{"short"}, Reasons: []string{}, Checks: []Check{{Name: "a", Status: Pass}}}
	v = AddCheck(v, Check{Name: CheckNameReplicationLag, Status: Inconclusive, Detail: "replication lag: cannot be judged"})
	if v.Compliant || !v.Inconclusive || v.SpecCompliant || len(v.Reasons) != 1 || len(v.Notes) != 1 {
		t.Fatalf("inconclusive check: %+v", v)
	}
	v = AddCheck(v, Check{Name: "ledger", Status: Fail, Detail: "ledger: lost"})
	if v.Compliant || v.Inconclusive || len(v.Reasons) != 1 || v.Reasons[0] != "ledger: lost" {
		t.Fatalf("a failure must win over missing data: %+v", v)
	}
	// SpecCompliant stays false when a passing check is added to a verdict that was not spec-compliant.
	w := AddCheck(Verdict{Compliant: true, SpecCompliant: false}, Check{Name: "x", Status: Pass})
	if !w.Compliant || w.SpecCompliant {
		t.Fatalf("pass turned the verdict spec-compliant: %+v", w)
	}
}

func TestAddCheck(t *testing.T) {
	v := Verdict{Compliant: true, SpecCompliant: true, Reasons: []string{}}
	v = AddCheck(v, Check{Name: "x", Status: Pass, Detail: "fine"})
	if !v.Compliant || len(v.Checks) != 1 || len(v.Reasons) != 0 {
		t.Fatalf("pass changed the verdict: %+v", v)
	}
	v = AddCheck(v, Check{Name: CheckNameReplicationLag, Status: Fail, Detail: "replication lag: standby s1 replay lag 2.5s > 1s"})
	if v.Compliant || v.SpecCompliant || len(v.Reasons) != 1 || !strings.Contains(v.Reasons[0], "s1") {
		t.Fatalf("fail did not make the step non-compliant with its reason: %+v", v)
	}
}
