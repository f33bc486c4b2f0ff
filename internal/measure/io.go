package measure

import (
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/cadvisor"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// IOReading is a pod's counters at the time they were read, kept between polls (and in the
// series ConfigMap, so a restarted manager goes on from them).
type IOReading struct {
	At       time.Time         `json:"at"`
	Counters cadvisor.Counters `json:"counters"`
}

// AddIO records one reading of pods' counters taken at at: the rate since each pod's previous
// reading goes into the interval the reading falls in — by cAdvisor's update times when the scrape
// carries them (a reading not updated since the last is skipped), else by the scrapes'. It is pure.
func (st *StepSeries) AddIO(counters map[string]cadvisor.Counters, roles map[string]string, at time.Time) {
	if st.IOCounters == nil {
		st.IOCounters = map[string]*IOReading{}
	}
	for pod, c := range counters {
		prev := st.IOCounters[pod]
		if prev == nil {
			st.IOCounters[pod] = &IOReading{At: at, Counters: c}
			continue
		}
		// Each reading's time: cAdvisor's own update time when both carry one (a reading it has
		// not updated since the previous tells nothing new and keeps that one as the baseline),
		// else the scrape's.
		since, when := prev.At, at
		if !c.At.IsZero() && !prev.Counters.At.IsZero() {
			if !c.At.After(prev.Counters.At) {
				continue
			}
			since, when = prev.Counters.At, c.At
		}
		st.IOCounters[pod] = &IOReading{At: at, Counters: c}
		if st.LengthSeconds <= 0 || when.Before(st.Origin) {
			continue
		}
		rate, ok := cadvisor.Rate(prev.Counters, c, when.Sub(since))
		if !ok {
			continue
		}
		if st.Resources == nil {
			st.Resources = map[string]*snapshot.PodSeries{}
		}
		p := st.Resources[pod]
		if p == nil {
			p = &snapshot.PodSeries{Role: roles[pod]}
			st.Resources[pod] = p
		}
		p.AddIO(int(when.Sub(st.Origin).Seconds()/st.LengthSeconds), snapshot.IORates{
			DiskReadBytes: rate.DiskReadBytes, DiskWriteBytes: rate.DiskWriteBytes, DiskReads: rate.DiskReads, DiskWrites: rate.DiskWrites,
			NetReceiveBytes: rate.NetReceiveBytes, NetTransmitBytes: rate.NetTransmitBytes,
			NetReceivePackets: rate.NetReceivePackets, NetTransmitPackets: rate.NetTransmitPackets})
	}
}

// PodIO is a pod's peak disk and network rates for status, nil without any.
func PodIO(p *snapshot.PodSeries) *benchv1.PodIO {
	peak, ok := p.PeakIO()
	if !ok {
		return nil
	}
	return &benchv1.PodIO{DiskReadBytesPerSecond: peak.DiskReadBytes, DiskWriteBytesPerSecond: peak.DiskWriteBytes,
		DiskReadsPerSecond: peak.DiskReads, DiskWritesPerSecond: peak.DiskWrites,
		NetworkReceiveBytesPerSecond: peak.NetReceiveBytes, NetworkTransmitBytesPerSecond: peak.NetTransmitBytes,
		NetworkReceivePacketsPerSecond: peak.NetReceivePackets, NetworkTransmitPacketsPerSecond: peak.NetTransmitPackets}
}
