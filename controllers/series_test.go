package controllers

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// podSeries is one pod's delivered intervals: indices, each with n New-Orders at 10 ms.
func podSeries(t testing.TB, sealed int, indices ...int) *snapshot.Intervals {
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &snapshot.Intervals{Origin: origin, LengthSeconds: 10, Sealed: sealed}
	for _, i := range indices {
		h := snapshot.NewHistogram()
		snapshot.RecordLatency(h, 10*time.Millisecond)
		encoded, err := snapshot.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		s.Items = append(s.Items, snapshot.Interval{Index: i, Start: origin.Add(time.Duration(i) * 10 * time.Second), Seconds: 10,
			Transactions: map[snapshot.Transaction]snapshot.TransactionCounts{snapshot.NewOrder: {Histogram: encoded, Commits: 1}}})
	}
	return s
}

func TestSeriesCollect(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		collected                 int
		pods                      []*snapshot.Intervals
		changed                   bool
		wantCollected, wantMissed int
		wantIndex                 []int
		wantNewOrders             []int64
	}{
		{"nothing sealed", 0, []*snapshot.Intervals{podSeries(t, 0), podSeries(t, 0)}, false, 0, 0, nil, nil},
		{"no series at all", 0, []*snapshot.Intervals{nil, nil}, false, 0, 0, nil, nil},
		{"both pods sealed two", 0, []*snapshot.Intervals{podSeries(t, 2, 0, 1), podSeries(t, 2, 0, 1)}, true, 2, 0, []int{0, 1}, []int64{2, 2}},
		{"waits for the slower pod", 0, []*snapshot.Intervals{podSeries(t, 3, 0, 1, 2), podSeries(t, 1, 0)}, true, 1, 0, []int{0}, []int64{2}},
		{"already collected items are skipped", 1, []*snapshot.Intervals{podSeries(t, 3, 0, 1, 2), podSeries(t, 3, 1, 2)}, true, 3, 0, []int{1, 2}, []int64{2, 2}},
		{"an interval one pod dropped is incomplete", 0, []*snapshot.Intervals{podSeries(t, 2, 1), podSeries(t, 2, 0, 1)}, true, 2, 1, []int{0, 1}, []int64{1, 2}},
		{"an interval no pod delivered is missing", 0, []*snapshot.Intervals{podSeries(t, 3, 0, 2), podSeries(t, 3, 0, 2)}, true, 3, 1, []int{0, 2}, []int64{2, 2}},
		{"nothing new", 2, []*snapshot.Intervals{podSeries(t, 2), podSeries(t, 2)}, false, 2, 0, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &stepSeries{Collected: tc.collected}
			changed, err := st.collect(tc.pods)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tc.changed || st.Collected != tc.wantCollected || st.Missing != tc.wantMissed {
				t.Fatalf("changed %v, collected %d, missing %d; want %v, %d, %d", changed, st.Collected, st.Missing, tc.changed, tc.wantCollected, tc.wantMissed)
			}
			if len(tc.wantIndex) == 0 {
				if len(st.Series.Index) != 0 {
					t.Fatalf("series %v, want none", st.Series.Index)
				}
				return
			}
			if !slices.Equal(st.Series.Index, tc.wantIndex) || !slices.Equal(st.Series.Types[snapshot.NewOrder].Completed, tc.wantNewOrders) {
				t.Errorf("index %v, New-Orders %v; want %v, %v", st.Series.Index, st.Series.Types[snapshot.NewOrder].Completed, tc.wantIndex, tc.wantNewOrders)
			}
		})
	}
}

func TestSeriesResourcesAndSummary(t *testing.T) {
	st := &stepSeries{}
	if _, err := st.collect([]*snapshot.Intervals{podSeries(t, 2, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	at := st.Origin
	st.addResources("db-1", roleDatabase, 0, at.Add(-time.Second), 9000, 1) // before the origin: ignored
	st.addResources("db-1", roleDatabase, 0, at.Add(12*time.Second), 1500, 2<<30)
	st.addResources("db-1", roleDatabase, 0, at.Add(3*time.Second), 500, 1<<30)
	st.addResources("db-1", roleDatabase, 0, at.Add(15*time.Second), 1200, 3<<30) // same interval: the larger values stay
	st.addResources("client-0", roleClient, 1000, at.Add(5*time.Second), 950, 100<<20)
	db := st.Resources["db-1"]
	if !slices.Equal(db.Index, []int{0, 1}) || !slices.Equal(db.CPUMillis, []int64{500, 1500}) || !slices.Equal(db.MemoryMiB, []int64{1020, 3070}) {
		t.Fatalf("db-1 %+v", db)
	}
	sum := st.summary()
	if len(sum.Pods) != 2 || sum.Pods[1].Name != "db-1" || sum.Pods[1].PeakCPU.MilliValue() != 1500 || sum.Pods[1].PeakMemory.Value() != 3070<<20 {
		t.Errorf("pods %+v", sum.Pods)
	}
	if len(sum.ClientBound) != 1 || !strings.Contains(sum.ClientBound[0], "client pod client-0 peaked at 0.95 of its 1.00 CPU limit") {
		t.Errorf("client-bound %q", sum.ClientBound)
	}
	if sum.Standbys != nil || sum.Checkpoints != nil || sum.WALBytesPerSecond != nil {
		t.Errorf("database figures without telemetry: %+v", sum)
	}
}

func TestPodMetricsSample(t *testing.T) {
	obj := map[string]any{"timestamp": "2026-11-23T10:00:05Z", "window": "10s", "containers": []any{
		map[string]any{"name": "postgres", "usage": map[string]any{"cpu": "1250m", "memory": "512Mi"}},
		map[string]any{"name": "bootstrap", "usage": map[string]any{"cpu": "250000n", "memory": "1Mi"}},
	}}
	at, cpu, memory, err := podMetricsSample(obj)
	if err != nil || !at.Equal(time.Date(2026, 11, 23, 10, 0, 5, 0, time.UTC)) || cpu != 1251 || memory != 513<<20 {
		t.Fatalf("at %v cpu %d memory %d err %v", at, cpu, memory, err)
	}
	if _, _, _, err := podMetricsSample(map[string]any{"timestamp": "soon"}); err == nil {
		t.Fatal("a sample without a valid timestamp was accepted")
	}
}

// BenchmarkReportSeriesSize prints what the report's series.json.gz weighs for 20 steps of two
// hours at 10 s intervals (720 intervals each) with PostgreSQL telemetry and three database and two
// client pods' resources: it must leave room in a ConfigMap's 1 MiB beside report.json.
func BenchmarkReportSeriesSize(b *testing.B) {
	const steps, intervals = 20, 720
	rng := rand.New(rand.NewPCG(3, 4))
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var rep seriesReport
	var data []stepData
	for step := range steps {
		var merged []snapshot.MergedInterval
		series := &snapshot.Intervals{Origin: origin, LengthSeconds: 10, Sealed: intervals}
		for i := range intervals {
			wave := 1 + 0.8*math.Sin(float64(i)/30)
			iv := snapshot.Interval{Index: i, Start: origin.Add(time.Duration(i) * 10 * time.Second), Seconds: 10,
				Transactions: map[snapshot.Transaction]snapshot.TransactionCounts{}, Client: &snapshot.ClientSignals{PoolAcquires: 2000}}
			for _, tx := range snapshot.Transactions {
				h := snapshot.NewHistogram()
				for range 200 {
					snapshot.RecordLatency(h, time.Duration(float64(20*time.Millisecond)*wave*math.Exp(0.5*rng.NormFloat64())))
				}
				encoded, _ := snapshot.EncodeHistogram(h)
				iv.Transactions[tx] = snapshot.TransactionCounts{Histogram: encoded, Commits: 200}
			}
			wal, commits := 8e6*wave, 400*wave
			iv.Telemetry = &snapshot.Telemetry{Engine: "postgres", WALBytesPerSecond: &wal, CommitsPerSecond: &commits,
				Standbys:    []snapshot.Standby{{Name: "s1", ReplayLagSeconds: 0.002 * wave}, {Name: "s2", ReplayLagSeconds: 0.003 * wave}},
				Checkpoints: &snapshot.Checkpoints{}, Sessions: &snapshot.Sessions{SyncRep: int(10 * wave)}}
			series.Items = append(series.Items, iv)
		}
		merged, err := snapshot.MergeIntervals([]*snapshot.Intervals{series})
		if err != nil {
			b.Fatal(err)
		}
		st := stepSeries{Version: seriesVersion, Origin: origin, LengthSeconds: 10, Collected: intervals}
		st.Series.Append(snapshot.Compact(merged, 10*time.Second))
		for _, pod := range []string{"pg-db-1", "pg-db-2", "pg-db-3", "pg-step-0-0", "pg-step-0-1"} {
			for i := range intervals {
				st.addResources(pod, roleDatabase, 0, origin.Add(time.Duration(i)*10*time.Second+time.Second), 1000+rng.Int64N(900), 2<<30+rng.Int64N(1<<28))
			}
		}
		rep.Steps = append(rep.Steps, stepSeriesOf{Index: int32(step), stepSeries: st})
		// The step's whole-step histograms, as report.json keeps them.
		sd := stepData{Histograms: map[snapshot.Transaction]string{}}
		for _, tx := range snapshot.Transactions {
			h := snapshot.NewHistogram()
			for _, m := range merged {
				h.Merge(m.Transactions[tx].Histogram)
			}
			encoded, err := snapshot.EncodeHistogram(h)
			if err != nil {
				b.Fatal(err)
			}
			sd.Histograms[tx] = encoded
		}
		data = append(data, sd)
	}
	reportJSON, err := json.MarshalIndent(reportDoc{SchemaVersion: reportVersion, Steps: data}, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	var size int
	for b.Loop() {
		body, err := gzipJSON(rep)
		if err != nil {
			b.Fatal(err)
		}
		size = len(body)
	}
	total := size + len(reportJSON)
	b.ReportMetric(float64(total)/(1<<20), "MiB")
	b.Logf("%d steps x %d intervals: series.json.gz %d B + report.json %d B = %.2f MiB of the ConfigMap's 1 MiB", steps, intervals, size, len(reportJSON), float64(total)/(1<<20))
}
