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
