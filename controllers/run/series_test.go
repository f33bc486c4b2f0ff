package run

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// BenchmarkReportSeriesSize prints what the report's series.json.gz weighs for 20 steps of two
// hours at 10 s intervals (720 intervals each) with PostgreSQL telemetry and three database and two
// client pods' resources: it must leave room in a ConfigMap's 1 MiB beside report.json.
func BenchmarkReportSeriesSize(b *testing.B) {
	const steps, intervals = 20, 720
	rng := rand.New(rand.NewPCG(3, 4))
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var rep measure.SeriesReport
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
		st := measure.StepSeries{Version: measure.SeriesVersion, Origin: origin, LengthSeconds: 10, Collected: intervals}
		st.Series.Append(snapshot.Compact(merged, 10*time.Second))
		for _, pod := range []string{"pg-db-1", "pg-db-2", "pg-db-3", "pg-step-0-0", "pg-step-0-1"} {
			for i := range intervals {
				st.AddResources(pod, measure.RoleDatabase, 0, origin.Add(time.Duration(i)*10*time.Second+time.Second), 1000+rng.Int64N(900), 2<<30+rng.Int64N(1<<28))
			}
		}
		rep.Steps = append(rep.Steps, measure.IndexedSeries{Index: int32(step), StepSeries: st})
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
		body, err := measure.GzipJSON(rep)
		if err != nil {
			b.Fatal(err)
		}
		size = len(body)
	}
	total := size + len(reportJSON)
	b.ReportMetric(float64(total)/(1<<20), "MiB")
	b.Logf("%d steps x %d intervals: series.json.gz %d B + report.json %d B = %.2f MiB of the ConfigMap's 1 MiB", steps, intervals, size, len(reportJSON), float64(total)/(1<<20))
}
