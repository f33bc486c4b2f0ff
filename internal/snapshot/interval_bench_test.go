package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// stepSeries builds the merged interval series of one step: intervals of 10 s, the five types at
// the TPC-C mix of `warehouses` at 12.5 tpmC each, latencies log-normal around medians that rise
// and fall like the checkpoint waves of the study.
func stepSeries(b testing.TB, intervals, warehouses int) []MergedInterval {
	rng := rand.New(rand.NewPCG(1, 2))
	newOrders := int(float64(warehouses) * 12.5 / 6) // per 10 s
	perInterval := map[Transaction]int{NewOrder: newOrders, Payment: newOrders * 43 / 45, OrderStatus: newOrders * 4 / 45,
		Delivery: newOrders * 4 / 45, StockLevel: newOrders * 4 / 45}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	series := &Intervals{LengthSeconds: 10}
	for i := range intervals {
		wave := 1 + 0.8*math.Sin(float64(i)/30)
		hists := map[Transaction]*hdr.Histogram{}
		for _, tx := range Transactions {
			h := NewHistogram()
			m := realisticLatencies[tx]
			m.median = time.Duration(float64(m.median) * wave)
			for range perInterval[tx] {
				_ = h.RecordValue(m.draw(rng))
			}
			hists[tx] = h
		}
		iv := intervalOf(b, i, t0.Add(time.Duration(i)*10*time.Second), hists)
		wal, commits := 8e6*wave, 400*wave
		iv.Telemetry = &Telemetry{Engine: "postgres", WALBytesPerSecond: &wal, CommitsPerSecond: &commits,
			Standbys:    []Standby{{Name: "s1", ReplayLagSeconds: 0.002 * wave}, {Name: "s2", ReplayLagSeconds: 0.003 * wave}},
			Checkpoints: &Checkpoints{}, Sessions: &Sessions{SyncRep: int(10 * wave)}}
		series.Items = append(series.Items, iv)
	}
	merged, err := MergeIntervals([]*Intervals{series})
	if err != nil {
		b.Fatal(err)
	}
	return merged
}

func gzipped(b testing.TB, data []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := w.Write(data); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Len()
}

// BenchmarkIntervalSeriesSize measures what a report pays for one 2-hour step's series at 10 s
// intervals (720 intervals × 5 types, one merged pod), full-resolution and compact, as JSON and
// gzipped, and what 20 such steps cost against the 1 MiB of a ConfigMap:
//
//	go test ./internal/snapshot/ -run XXX -bench IntervalSeriesSize -benchtime 1x
func BenchmarkIntervalSeriesSize(b *testing.B) {
	for _, tc := range []struct {
		name       string
		warehouses int
	}{{"1000W", 1000}, {"18000W", 18000}} {
		b.Run(tc.name, func(b *testing.B) {
			merged := stepSeries(b, 720, tc.warehouses)
			var full []Interval
			for i := range merged {
				iv, err := merged[i].Encode()
				if err != nil {
					b.Fatal(err)
				}
				full = append(full, iv)
			}
			fullJSON, _ := json.Marshal(full)
			var compactJSON []byte
			b.ResetTimer()
			for range b.N {
				compactJSON, _ = json.Marshal(Compact(merged, 10*time.Second))
			}
			b.StopTimer()
			fullGz, compactGz := gzipped(b, fullJSON), gzipped(b, compactJSON)
			b.ReportMetric(float64(len(fullJSON)), "full-B/step")
			b.ReportMetric(float64(fullGz), "full-gzip-B/step")
			b.ReportMetric(float64(len(compactJSON)), "compact-B/step")
			b.ReportMetric(float64(compactGz), "compact-gzip-B/step")
			b.Logf("%s, 720 intervals x 5 types: full %d B (gzip %d B), compact %d B (gzip %d B); 20 steps: full gzip %.2f MiB, compact %.2f MiB, compact gzip %.2f MiB",
				tc.name, len(fullJSON), fullGz, len(compactJSON), compactGz,
				20*float64(fullGz)/(1<<20), 20*float64(len(compactJSON))/(1<<20), 20*float64(compactGz)/(1<<20))
		})
	}
}
