package measure

import (
	"maps"
	"slices"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// IsolationOf is the isolation level the step's pods report they ran at (each read it back from
// the server before its terminals started); "" when no pod reports one (clients that predate it).
// Pods that disagree (they cannot: one flag for all) yield the first, in pod order.
func IsolationOf(snapshots []*snapshot.Snapshot) benchv1.Isolation {
	for _, s := range snapshots {
		if s != nil && s.Identity.Isolation != "" {
			return benchv1.Isolation(s.Identity.Isolation)
		}
	}
	return ""
}

// measuredIntervals are the positions in the series of the intervals inside the step's measured
// interval (from its start time on; all of them when it has none).
func measuredIntervals(st *StepSeries, start *metav1.Time) []int {
	s := &st.Series
	var out []int
	for i, idx := range s.Index {
		if start != nil && !st.Origin.IsZero() && st.LengthSeconds > 0 {
			begins := st.Origin.Add(time.Duration((float64(idx) + 0.5) * st.LengthSeconds * float64(time.Second)))
			if begins.Before(start.Time) {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// bottleneckSignals gathers what the bottleneck rules read from a step's series and record.
func bottleneckSignals(st *StepSeries, record *benchv1.StepResult) sla.BottleneckSignals {
	var sig sla.BottleneckSignals
	if st.ResourceMetrics == ResourceMetricsSource {
		sig.HasResources = true
		names := make([]string, 0, len(st.Resources))
		for name := range st.Resources {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			p := st.Resources[name]
			pod := sla.PodCPU{Name: name, PeakCores: float64(maxOf(p.CPUMillis)) / 1000, Limit: float64(p.CPULimitMillis) / 1000}
			if p.Role == RoleDatabase {
				sig.DatabasePods = append(sig.DatabasePods, pod)
			} else {
				sig.ClientPods = append(sig.ClientPods, pod)
			}
		}
	}
	s := &st.Series
	var sampled int
	var active, lock, io, sync int64
	for _, i := range measuredIntervals(st, record.StartTime) {
		if i >= len(s.ActiveSessions) || s.ActiveSessions[i] < 0 {
			continue
		}
		sampled++
		active += s.ActiveSessions[i]
		lock += max(at(s.LockWaiters, i), 0)
		io += max(at(s.IOWaiters, i), 0)
		sync += max(at(s.SyncRepWaiters, i), 0)
	}
	if sampled > 0 {
		n := float64(sampled)
		sig.HasSessions = true
		sig.MeanActive, sig.MeanLock, sig.MeanIO, sig.MeanSync = float64(active)/n, float64(lock)/n, float64(io)/n, float64(sync)/n
	}
	for _, ts := range record.Transactions {
		sig.Transactions += ts.Count
	}
	sig.Retries = record.Retries
	for _, name := range slices.Sorted(maps.Keys(s.ReplayLagMillis)) {
		sig.Standbys = append(sig.Standbys, sla.StandbyLags{Name: name, Write: float64(maxLag(s.WriteLagMillis[name])) / 1000,
			Flush: float64(maxLag(s.FlushLagMillis[name])) / 1000, Replay: float64(maxLag(s.ReplayLagMillis[name])) / 1000})
	}
	if record.Telemetry != nil {
		sig.ClientSigns = record.Telemetry.ClientBound
	}
	return sig
}

// StepBottleneck names the resource that bounded a recorded step.
func StepBottleneck(st *StepSeries, record *benchv1.StepResult) *benchv1.Bottleneck {
	b := sla.NameBottleneck(bottleneckSignals(st, record))
	out := &benchv1.Bottleneck{Resource: benchv1.BottleneckResource(b.Resource), Step: ptr(record.Index), Evidence: b.Evidence}
	for _, a := range b.Also {
		out.Also = append(out.Also, benchv1.BottleneckResource(a))
	}
	return out
}

func at(v []int64, i int) int64 {
	if i < len(v) {
		return v[i]
	}
	return -1
}

func maxLag(col []int64) int64 {
	worst := int64(0)
	for _, v := range col {
		worst = max(worst, v)
	}
	return worst
}
