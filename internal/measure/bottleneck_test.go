package measure

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

var stepOrigin = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// startAfter is a measured interval's start d after stepOrigin.
func startAfter(d time.Duration) *metav1.Time { return &metav1.Time{Time: stepOrigin.Add(d)} }

// cpu is a pod's resource series: its role, CPU limit and per-interval CPU, in millicores.
func cpu(role string, limit int64, millis ...int64) *snapshot.PodSeries {
	p := &snapshot.PodSeries{Role: role, CPULimitMillis: limit}
	for i, m := range millis {
		p.Index, p.CPUMillis, p.MemoryMiB = append(p.Index, i), append(p.CPUMillis, m), append(p.MemoryMiB, 100)
	}
	return p
}

func TestIsolationOf(t *testing.T) {
	pod := func(isolation string) *snapshot.Snapshot {
		return &snapshot.Snapshot{Identity: snapshot.Identity{Isolation: isolation}}
	}
	for _, tc := range []struct {
		name      string
		snapshots []*snapshot.Snapshot
		want      benchv1.Isolation
	}{
		{"no pods", nil, ""},
		{"no pod reports one", []*snapshot.Snapshot{nil, pod("")}, ""},
		{"the first that reports one", []*snapshot.Snapshot{nil, pod(""), pod("Serializable"), pod("ReadCommitted")}, benchv1.IsolationSerializable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsolationOf(tc.snapshots); got != tc.want {
				t.Errorf("isolation %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMeasuredIntervals(t *testing.T) {
	// Entries for intervals 3..6 of 10 s: their middles are 35, 45, 55 and 65 s after the origin.
	series := func(origin time.Time, length float64) *StepSeries {
		return &StepSeries{Origin: origin, LengthSeconds: length, Series: snapshot.CompactSeries{Index: []int{3, 4, 5, 6}}}
	}
	for _, tc := range []struct {
		name  string
		st    *StepSeries
		start *metav1.Time
		want  []int
	}{
		{"no start time: all", series(stepOrigin, 10), nil, []int{0, 1, 2, 3}},
		{"from the start on", series(stepOrigin, 10), startAfter(50 * time.Second), []int{2, 3}},
		{"an interval half inside counts", series(stepOrigin, 10), startAfter(45 * time.Second), []int{1, 2, 3}},
		{"a start after the series", series(stepOrigin, 10), startAfter(time.Hour), nil},
		{"no origin: all", series(time.Time{}, 10), startAfter(50 * time.Second), []int{0, 1, 2, 3}},
		{"no interval length: all", series(stepOrigin, 0), startAfter(50 * time.Second), []int{0, 1, 2, 3}},
		{"an empty series", &StepSeries{Origin: stepOrigin, LengthSeconds: 10}, startAfter(time.Second), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := measuredIntervals(tc.st, tc.start); !slices.Equal(got, tc.want) {
				t.Errorf("positions %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBottleneckSignals(t *testing.T) {
	resources := map[string]*snapshot.PodSeries{
		"db-1":     cpu(RoleDatabase, 2000, 1000, 1900),
		"db-0":     cpu(RoleDatabase, 0, 300),
		"client-0": cpu(RoleClient, 1000, 400, 500),
	}
	// Four 10-s entries; the measured interval starts at 10 s, so the first is ramp-up.
	sessions := &StepSeries{Origin: stepOrigin, LengthSeconds: 10, Series: snapshot.CompactSeries{Index: []int{0, 1, 2, 3},
		ActiveSessions: []int64{40, 4, -1, 6}, // the third was not sampled
		LockWaiters:    []int64{40, 2, 9, -1}, // -1 counts as none
		IOWaiters:      []int64{40, 1, 9, 2},
		SyncRepWaiters: []int64{40, 1}}} // shorter: none after it
	standbys := &StepSeries{Series: snapshot.CompactSeries{
		ReplayLagMillis: map[string][]int64{"sb-b": {5, 20}, "sb-a": {-1, 300}},
		WriteLagMillis:  map[string][]int64{"sb-a": {100, 50}},
		FlushLagMillis:  map[string][]int64{"sb-a": {200}},
	}}
	for _, tc := range []struct {
		name   string
		st     *StepSeries
		record *benchv1.StepResult
		want   sla.BottleneckSignals
	}{
		{"nothing recorded", &StepSeries{}, &benchv1.StepResult{}, sla.BottleneckSignals{}},
		{"pods from the metrics API", &StepSeries{Resources: resources, ResourceMetrics: ResourceMetricsSource}, &benchv1.StepResult{},
			sla.BottleneckSignals{HasResources: true,
				DatabasePods: []sla.PodCPU{{Name: "db-0", PeakCores: 0.3}, {Name: "db-1", PeakCores: 1.9, Limit: 2}},
				ClientPods:   []sla.PodCPU{{Name: "client-0", PeakCores: 0.5, Limit: 1}}}},
		{"pods without the metrics API", &StepSeries{Resources: resources, ResourceMetrics: "metrics.k8s.io: not served"}, &benchv1.StepResult{},
			sla.BottleneckSignals{}},
		{"sessions over the measured intervals", sessions, &benchv1.StepResult{StartTime: startAfter(10 * time.Second)},
			sla.BottleneckSignals{HasSessions: true, MeanActive: 5, MeanLock: 1, MeanIO: 1.5, MeanSync: 0.5}},
		{"sessions without a start time", sessions, &benchv1.StepResult{},
			sla.BottleneckSignals{HasSessions: true, MeanActive: 50.0 / 3, MeanLock: 42.0 / 3, MeanIO: 43.0 / 3, MeanSync: 41.0 / 3}},
		{"sessions never sampled", &StepSeries{Series: snapshot.CompactSeries{Index: []int{0, 1}, ActiveSessions: []int64{-1, -1}, LockWaiters: []int64{3, 3}}},
			&benchv1.StepResult{}, sla.BottleneckSignals{}},
		{"standbys' largest lags", standbys, &benchv1.StepResult{},
			sla.BottleneckSignals{Standbys: []sla.StandbyLags{{Name: "sb-a", Write: 0.1, Flush: 0.2, Replay: 0.3}, {Name: "sb-b", Replay: 0.02}}}},
		{"transactions, retries and client signs", &StepSeries{}, &benchv1.StepResult{Retries: 7,
			Transactions: map[benchv1.Transaction]benchv1.TransactionStats{benchv1.NewOrder: {Count: 450}, benchv1.Payment: {Count: 430}},
			Telemetry:    &benchv1.StepTelemetry{ClientBound: []string{"120 late starts"}}},
			sla.BottleneckSignals{Transactions: 880, Retries: 7, ClientSigns: []string{"120 late starts"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := bottleneckSignals(tc.st, tc.record); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("signals\n got  %+v\n want %+v", got, tc.want)
			}
		})
	}
}

func TestStepBottleneck(t *testing.T) {
	metrics := func(pods map[string]*snapshot.PodSeries) *StepSeries {
		return &StepSeries{Resources: pods, ResourceMetrics: ResourceMetricsSource}
	}
	waits := func(active, lock, sync []int64) *StepSeries {
		return &StepSeries{Series: snapshot.CompactSeries{Index: []int{0, 1}, ActiveSessions: active, LockWaiters: lock, SyncRepWaiters: sync,
			ReplayLagMillis: map[string][]int64{"sb-0": {5, 10}}, WriteLagMillis: map[string][]int64{"sb-0": {2, 4}},
			FlushLagMillis: map[string][]int64{"sb-0": {50, 100}}}}
	}
	for _, tc := range []struct {
		name     string
		st       *StepSeries
		record   *benchv1.StepResult
		resource benchv1.BottleneckResource
		also     []benchv1.BottleneckResource
		evidence []string // in this order, each the start of a line of the evidence
	}{
		{"nothing recorded", &StepSeries{}, &benchv1.StepResult{Index: 4}, benchv1.BottleneckNotDetermined, nil,
			[]string{"no recorded signal crossed its threshold", "the pods' CPU was not read (no metrics.k8s.io)",
				"the database's sessions were not sampled by wait event"}},
		{"database CPU at its limit", metrics(map[string]*snapshot.PodSeries{"db-0": cpu(RoleDatabase, 2000, 800, 1900), "client-0": cpu(RoleClient, 1000, 400)}),
			&benchv1.StepResult{Index: 4}, benchv1.BottleneckDatabaseCPU, nil,
			[]string{"database pod db-0 peaked at 1.90 of its 2.00-core CPU limit (95 %)"}},
		{"database CPU below its limit", metrics(map[string]*snapshot.PodSeries{"db-0": cpu(RoleDatabase, 2000, 1000)}),
			&benchv1.StepResult{Index: 4}, benchv1.BottleneckNotDetermined, nil,
			[]string{"no recorded signal crossed its threshold", "database pod db-0 peaked at 50 % of its CPU limit"}},
		{"clients first", metrics(map[string]*snapshot.PodSeries{"db-0": cpu(RoleDatabase, 2000, 1900), "client-0": cpu(RoleClient, 1000, 950)}),
			&benchv1.StepResult{Index: 4, Telemetry: &benchv1.StepTelemetry{ClientBound: []string{"120 late starts"}}},
			benchv1.BottleneckClientCPU, []benchv1.BottleneckResource{benchv1.BottleneckDatabaseCPU},
			[]string{"client pod client-0 peaked at 0.95 of its 1.00-core CPU limit", "database pod db-0 peaked at 1.90",
				"the clients, not the database, bounded this step", "120 late starts"}},
		{"lock waits", waits([]int64{4, 4}, []int64{3, 3}, nil), &benchv1.StepResult{Index: 4}, benchv1.BottleneckLockWaits, nil,
			[]string{"on average 4.0 active sessions: 0 % waiting for the synchronous standbys, 75 % on locks, 0 % on I/O"}},
		{"synchronous standbys", waits([]int64{4, 4}, []int64{0, 0}, []int64{3, 3}), &benchv1.StepResult{Index: 4}, benchv1.BottleneckReplication, nil,
			[]string{"on average 4.0 active sessions: 75 % waiting for the synchronous standbys",
				"standby sb-0: write lag 4.0ms, flush lag 100.0ms, replay lag 10.0ms: its disk is the slow part"}},
		{"retries", &StepSeries{}, &benchv1.StepResult{Index: 4, Retries: 100,
			Transactions: map[benchv1.Transaction]benchv1.TransactionStats{benchv1.NewOrder: {Count: 900}, benchv1.Payment: {Count: 100}}},
			benchv1.BottleneckLockWaits, nil, []string{"100 retries inside 1000 transactions (10.0 %)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := StepBottleneck(tc.st, tc.record)
			if b.Resource != tc.resource || !slices.Equal(b.Also, tc.also) {
				t.Errorf("resource %s, also %v; want %s, %v (evidence %q)", b.Resource, b.Also, tc.resource, tc.also, b.Evidence)
			}
			if b.Step == nil || *b.Step != tc.record.Index {
				t.Errorf("step %v, want %d", b.Step, tc.record.Index)
			}
			if len(b.Evidence) == 0 {
				t.Fatal("no evidence")
			}
			rest := b.Evidence
			for _, want := range tc.evidence {
				i := slices.IndexFunc(rest, func(line string) bool { return strings.HasPrefix(line, want) })
				if i < 0 {
					t.Errorf("evidence %q: no line %q (in this order)", b.Evidence, want)
					break
				}
				rest = rest[i+1:]
			}
		})
	}
}
