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
		name    string
		lags    []StandbyLag
		hidden  []string
		samples int
		max     time.Duration
		status  Status
		detail  string
	}{
		{"no samples", nil, nil, 0, time.Second, Skipped, "no database telemetry"},
		{"no standby", nil, nil, 4, time.Second, Pass, "no standby"},
		{"within", lags[:2], nil, 4, 3 * time.Second, Pass, "largest replay lag 2.5s (standby s1) ≤ 3s"},
		{"at the bound", lags[:1], nil, 4, 2500 * time.Millisecond, Pass, "≤ 2.5s"},
		{"one over", lags[:2], nil, 4, time.Second, Fail, "replication lag: standby s1 replay lag 2.5s > 1s"},
		{"several over, worst first", lags, nil, 4, 10 * time.Millisecond, Fail,
			"standby s3 replay lag 3h0m0s, standby s1 replay lag 2.5s, standby s2 replay lag 20ms > 10ms"},
		{"positions hidden: cannot pass", lags[:1], []string{"s2", "s3"}, 4, time.Hour, Fail,
			"cannot be judged: the positions of standby s2, s3 are hidden from the benchmark's role (grant it pg_monitor)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := ReplicationCheck(tc.lags, tc.hidden, tc.samples, tc.max)
			if ch.Status != tc.status || !strings.Contains(ch.Detail, tc.detail) || ch.Name != CheckNameReplicationLag {
				t.Fatalf("got %s %q, want %s containing %q", ch.Status, ch.Detail, tc.status, tc.detail)
			}
		})
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
