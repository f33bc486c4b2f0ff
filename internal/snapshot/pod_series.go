package snapshot

import "sort"

// PodSeries is one pod's resource use by interval (the largest sample in each), as the operator
// keeps it in a step's series and writes it into series.json.gz, and as the reports read it.
type PodSeries struct {
	Role           string  `json:"role"`
	CPULimitMillis int64   `json:"cpuLimitMillis,omitempty"`
	Index          []int   `json:"index"`
	CPUMillis      []int64 `json:"cpuMillis"`
	MemoryMiB      []int64 `json:"memoryMiB"`
}

// Add records a sample in interval index, keeping each interval's largest values.
// CPU keeps two significant digits and memory three (in MiB): finer figures are sampling noise of
// the metrics pipeline, and they would not compress (BenchmarkReportSeriesSize).
func (p *PodSeries) Add(index int, cpuMillis, memoryBytes int64) {
	memoryMiB := RoundSignificant((memoryBytes+1<<19)>>20, 3)
	cpuMillis = RoundSignificant(cpuMillis, 2)
	i := sort.SearchInts(p.Index, index)
	if i < len(p.Index) && p.Index[i] == index {
		p.CPUMillis[i], p.MemoryMiB[i] = max(p.CPUMillis[i], cpuMillis), max(p.MemoryMiB[i], memoryMiB)
		return
	}
	p.Index = append(p.Index[:i], append([]int{index}, p.Index[i:]...)...)
	p.CPUMillis = append(p.CPUMillis[:i], append([]int64{cpuMillis}, p.CPUMillis[i:]...)...)
	p.MemoryMiB = append(p.MemoryMiB[:i], append([]int64{memoryMiB}, p.MemoryMiB[i:]...)...)
}

// Bound keeps p within limit samples: past it, the older half of the samples is merged in pairs
// (each keeping the earlier index and the larger values), so an entry is then the peak from its
// index to the next one's. Peaks stay exact; where a peak happened gets coarser with age.
func (p *PodSeries) Bound(limit int) {
	for limit > 1 && len(p.Index) > limit {
		half := len(p.Index) / 2
		w := 0
		for i := 0; i < len(p.Index); w++ {
			p.Index[w], p.CPUMillis[w], p.MemoryMiB[w] = p.Index[i], p.CPUMillis[i], p.MemoryMiB[i]
			if i < half && i+1 < len(p.Index) {
				p.CPUMillis[w], p.MemoryMiB[w] = max(p.CPUMillis[i], p.CPUMillis[i+1]), max(p.MemoryMiB[i], p.MemoryMiB[i+1])
				i += 2
				continue
			}
			i++
		}
		p.Index, p.CPUMillis, p.MemoryMiB = p.Index[:w], p.CPUMillis[:w], p.MemoryMiB[:w]
	}
}
