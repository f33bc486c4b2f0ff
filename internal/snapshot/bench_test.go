package snapshot_test

import (
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot/snapshottest"
)

// hundredPods is snapshottest.HundredPods for a benchmark.
func hundredPods(tb testing.TB) [][]byte {
	docs, err := snapshottest.HundredPods()
	if err != nil {
		tb.Fatal(err)
	}
	return docs
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
