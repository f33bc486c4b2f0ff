package snapshot_test

import (
	"sync"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot/snapshottest"
)

var (
	hundredPodsOnce sync.Once
	hundredPodsJSON [][]byte
	hundredPodsErr  error
)

// hundredPods is 100 pods' final snapshots as served over HTTP: five
// histograms of 1M response times each per pod, log-normal latencies.
func hundredPods(tb testing.TB) [][]byte {
	hundredPodsOnce.Do(func() {
		snaps, err := snapshottest.Step{
			Pods: 100, WarehousesPerPod: 10, Measured: 10 * time.Minute, Start: time.Unix(1_800_000_000, 0),
			SamplesPerHistogram: 1_000_000, DistinctDraws: 100_000, Seed: 1,
		}.Build()
		if err != nil {
			hundredPodsErr = err
			return
		}
		for _, s := range snaps {
			data, err := snapshot.Marshal(s)
			if err != nil {
				hundredPodsErr = err
				return
			}
			hundredPodsJSON = append(hundredPodsJSON, data)
		}
	})
	if hundredPodsErr != nil {
		tb.Fatal(hundredPodsErr)
	}
	return hundredPodsJSON
}

// BenchmarkParseMergeSummarize100Pods times what the operator does with a
// step's final snapshots: parse 100 JSON documents, merge them exactly and
// derive the figures.
func BenchmarkParseMergeSummarize100Pods(b *testing.B) {
	docs := hundredPods(b)
	var bytes int
	for _, d := range docs {
		bytes += len(d)
	}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	for b.Loop() {
		snaps := make([]*snapshot.Snapshot, len(docs))
		for i, d := range docs {
			s, err := snapshot.Parse(d)
			if err != nil {
				b.Fatal(err)
			}
			snaps[i] = s
		}
		m, err := snapshot.Merge(snaps)
		if err != nil {
			b.Fatal(err)
		}
		if sum := m.Summarize(); sum.Transactions[snapshot.NewOrder].Completed != 100*1_000_000 {
			b.Fatalf("merged %d New-Orders, want 100M", sum.Transactions[snapshot.NewOrder].Completed)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// BenchmarkParse100Pods and BenchmarkMerge100Pods split the figure above.
func BenchmarkParse100Pods(b *testing.B) {
	docs := hundredPods(b)
	for b.Loop() {
		for _, d := range docs {
			if _, err := snapshot.Parse(d); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

func BenchmarkMerge100Pods(b *testing.B) {
	docs := hundredPods(b)
	snaps := make([]*snapshot.Snapshot, len(docs))
	for i, d := range docs {
		s, err := snapshot.Parse(d)
		if err != nil {
			b.Fatal(err)
		}
		snaps[i] = s
	}
	for b.Loop() {
		if _, err := snapshot.Merge(snaps); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}
