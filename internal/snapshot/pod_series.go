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
	// IOIndex are the intervals with disk and network rates (the kubelet's cAdvisor counters),
	// and the columns each interval's largest rate between two readings, per second, two
	// significant digits (absent without the kubelet's metrics; added within version 1).
	IOIndex            []int   `json:"ioIndex,omitempty"`
	DiskReadBytes      []int64 `json:"diskReadBytes,omitempty"`
	DiskWriteBytes     []int64 `json:"diskWriteBytes,omitempty"`
	DiskReads          []int64 `json:"diskReads,omitempty"`
	DiskWrites         []int64 `json:"diskWrites,omitempty"`
	NetReceiveBytes    []int64 `json:"netReceiveBytes,omitempty"`
	NetTransmitBytes   []int64 `json:"netTransmitBytes,omitempty"`
	NetReceivePackets  []int64 `json:"netReceivePackets,omitempty"`
	NetTransmitPackets []int64 `json:"netTransmitPackets,omitempty"`
}

// IORates are a pod's disk and network traffic per second (bytes, operations, packets).
type IORates struct {
	DiskReadBytes, DiskWriteBytes, DiskReads, DiskWrites                     int64
	NetReceiveBytes, NetTransmitBytes, NetReceivePackets, NetTransmitPackets int64
}

func (p *PodSeries) ioColumns() []*[]int64 {
	return []*[]int64{&p.DiskReadBytes, &p.DiskWriteBytes, &p.DiskReads, &p.DiskWrites,
		&p.NetReceiveBytes, &p.NetTransmitBytes, &p.NetReceivePackets, &p.NetTransmitPackets}
}

func (r IORates) values() []int64 {
	return []int64{r.DiskReadBytes, r.DiskWriteBytes, r.DiskReads, r.DiskWrites,
		r.NetReceiveBytes, r.NetTransmitBytes, r.NetReceivePackets, r.NetTransmitPackets}
}

// AddIO records disk and network rates in interval index, keeping each interval's largest.
func (p *PodSeries) AddIO(index int, r IORates) {
	values := r.values()
	for k := range values {
		values[k] = RoundSignificant(max(values[k], 0), 2)
	}
	cols := p.ioColumns()
	i := sort.SearchInts(p.IOIndex, index)
	if i < len(p.IOIndex) && p.IOIndex[i] == index {
		for k, col := range cols {
			(*col)[i] = max((*col)[i], values[k])
		}
		return
	}
	p.IOIndex = append(p.IOIndex[:i], append([]int{index}, p.IOIndex[i:]...)...)
	for k, col := range cols {
		*col = append((*col)[:i], append([]int64{values[k]}, (*col)[i:]...)...)
	}
}

// PeakIO is the largest rate of each column over the pod's intervals; ok false without any.
func (p *PodSeries) PeakIO() (IORates, bool) {
	if len(p.IOIndex) == 0 {
		return IORates{}, false
	}
	var peak [8]int64
	for k, col := range p.ioColumns() {
		for _, v := range *col {
			peak[k] = max(peak[k], v)
		}
	}
	return IORates{peak[0], peak[1], peak[2], peak[3], peak[4], peak[5], peak[6], peak[7]}, true
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
