package sla_test

import (
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/sla"
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

// BenchmarkDecodeMergeVerdict100Pods times the operator's work at the end of
// a step: parse 100 snapshot documents (one after the other), merge them
// exactly and judge the merge.
func BenchmarkDecodeMergeVerdict100Pods(b *testing.B) {
	docs := hundredPods(b)
	var size int
	for _, d := range docs {
		size += len(d)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	cpuBefore := processCPU(b)
	for b.Loop() {
		snaps := make([]*snapshot.Snapshot, len(docs))
		for i, d := range docs {
			s, err := snapshot.Parse(d)
			if err != nil {
				b.Fatal(err)
			}
			snaps[i] = s
		}
		judge(b, snaps)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	b.ReportMetric(float64((processCPU(b)-cpuBefore).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// processCPU is the user+system CPU time of the process: on a shared machine
// it shows the work done, where wall time also shows the neighbours' load.
func processCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkDecodeMergeVerdict100PodsConcurrentParse parses the documents
// concurrently, as an operator that fetches its pods concurrently does.
func BenchmarkDecodeMergeVerdict100PodsConcurrentParse(b *testing.B) {
	docs := hundredPods(b)
	b.ReportAllocs()
	cpuBefore := processCPU(b)
	for b.Loop() {
		snaps := make([]*snapshot.Snapshot, len(docs))
		errs := make([]error, len(docs))
		var wg sync.WaitGroup
		for i, d := range docs {
			wg.Go(func() { snaps[i], errs[i] = snapshot.Parse(d) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		judge(b, snaps)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	b.ReportMetric(float64((processCPU(b)-cpuBefore).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func judge(b *testing.B, snaps []*snapshot.Snapshot) {
	m, err := snapshot.Merge(snaps)
	if err != nil {
		b.Fatal(err)
	}
	v, err := sla.Judge(m, sla.DefaultCriteria())
	if err != nil {
		b.Fatal(err)
	}
	// The synthetic mix is 20 % of each type: the verdict must say so.
	if v.Compliant {
		b.Fatalf("synthetic step with a 20 %% Payment share judged compliant: %+v", v)
	}
}
