package snapshot

import (
	"slices"
	"testing"
)

func TestPodSeriesAddKeepsEachIntervalsPeak(t *testing.T) {
	p := &PodSeries{Role: "Database"}
	for _, s := range []struct {
		index     int
		cpuMillis int64
		memory    int64
	}{
		{3, 1234, 300 << 20},
		{0, 80, 100<<20 + 1<<19}, // 100.5 MiB rounds up
		{3, 900, 310 << 20},      // a smaller CPU sample keeps the peak; memory grows
		{1, 1, 1},
		{3, 1260, 1},
	} {
		p.Add(s.index, s.cpuMillis, s.memory)
	}
	if !slices.Equal(p.Index, []int{0, 1, 3}) || !slices.Equal(p.CPUMillis, []int64{80, 1, 1300}) || !slices.Equal(p.MemoryMiB, []int64{101, 0, 310}) {
		t.Errorf("index %v, CPU %v m, memory %v MiB", p.Index, p.CPUMillis, p.MemoryMiB)
	}
}

func TestPodSeriesAddIOKeepsEachIntervalsPeak(t *testing.T) {
	p := &PodSeries{Role: "Database"}
	p.AddIO(4, IORates{DiskWriteBytes: 1_234_567, NetReceiveBytes: 10})
	p.AddIO(2, IORates{DiskWriteBytes: 500, DiskWrites: 7})
	p.AddIO(4, IORates{DiskWriteBytes: 1_000_000, NetReceiveBytes: 99, DiskReads: -3}) // a smaller write keeps the peak
	if !slices.Equal(p.IOIndex, []int{2, 4}) || !slices.Equal(p.DiskWriteBytes, []int64{500, 1_200_000}) ||
		!slices.Equal(p.NetReceiveBytes, []int64{0, 99}) || !slices.Equal(p.DiskWrites, []int64{7, 0}) || !slices.Equal(p.DiskReads, []int64{0, 0}) {
		t.Errorf("%+v", p)
	}
	peak, ok := p.PeakIO()
	if !ok || peak.DiskWriteBytes != 1_200_000 || peak.NetReceiveBytes != 99 || peak.DiskWrites != 7 {
		t.Errorf("peak %+v", peak)
	}
	if _, ok := (&PodSeries{}).PeakIO(); ok {
		t.Error("a pod without rates has a peak")
	}
	if len(p.Index) != 0 {
		t.Error("I/O rates touched the CPU index")
	}
}
