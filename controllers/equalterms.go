package controllers

import (
	"fmt"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Issue 22, "equal terms": what a step and a result record beside their tpmC — the isolation the
// clients ran at, the retries inside their transactions, the resource that bounded them, and the
// result divided by the database's resources. Pure functions over what the step recorded.

// isolationOf is the isolation level the step's pods report they ran at (each read it back from
// the server before its terminals started); "" when no pod reports one (clients that predate it).
// Pods that disagree (they cannot: one flag for all) yield the first, in pod order.
func isolationOf(snapshots []*snapshot.Snapshot) benchv1.Isolation {
	for _, s := range snapshots {
		if s != nil && s.Identity.Isolation != "" {
			return benchv1.Isolation(s.Identity.Isolation)
		}
	}
	return ""
}

// measuredIntervals are the positions in the series of the intervals inside the step's measured
// interval (from its start time on; all of them when it has none).
func measuredIntervals(st *stepSeries, start *metav1.Time) []int {
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
func bottleneckSignals(st *stepSeries, record *benchv1.StepResult) sla.BottleneckSignals {
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
			if p.Role == roleDatabase {
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
	for _, name := range sortedKeys(s.ReplayLagMillis) {
		sig.Standbys = append(sig.Standbys, sla.StandbyLags{Name: name, Write: float64(maxLag(s.WriteLagMillis[name])) / 1000,
			Flush: float64(maxLag(s.FlushLagMillis[name])) / 1000, Replay: float64(maxLag(s.ReplayLagMillis[name])) / 1000})
	}
	if record.Telemetry != nil {
		sig.ClientSigns = record.Telemetry.ClientBound
	}
	return sig
}

// stepBottleneck names the resource that bounded a recorded step.
func stepBottleneck(st *stepSeries, record *benchv1.StepResult) *benchv1.Bottleneck {
	b := sla.NameBottleneck(bottleneckSignals(st, record))
	out := &benchv1.Bottleneck{Resource: benchv1.BottleneckResource(b.Resource), Step: ptr(record.Index), Evidence: b.Evidence}
	for _, a := range b.Also {
		out.Also = append(out.Also, benchv1.BottleneckResource(a))
	}
	return out
}

// resultEqualTerms adds to a result its tpmC per database vCPU and GiB (of the pods the run's
// description counts: run is described, registry.Described) and the resource that
// bounded it: the bottleneck of the step that bounds the result — the non-compliant step above
// it when the search found one, else the result's own step (a Fixed run, or a result at the
// loaded warehouses).
func resultEqualTerms(run *benchv1.BenchmarkRun, result *benchv1.Result) {
	steps := run.Status.Steps
	stepAt := func(index int32) *benchv1.StepResult {
		for i := range steps {
			if steps[i].Index == index {
				return &steps[i]
			}
		}
		return nil
	}
	var own *benchv1.StepResult
	if result.Step != nil {
		own = stepAt(*result.Step)
	}
	result.PerResource = report.PerResourceOf(report.DescriptionOf(run), result.TpmC, own)
	bound := own
	for _, i := range result.RestsOn {
		if s := stepAt(i); s != nil && (own == nil || s.Index != own.Index) {
			bound = s
		}
	}
	switch {
	case bound == nil:
		result.Bottleneck = nil
	case bound.Telemetry == nil || bound.Telemetry.Bottleneck == nil:
		result.Bottleneck = &benchv1.Bottleneck{Resource: benchv1.BottleneckNotDetermined, Step: ptr(bound.Index),
			Evidence: []string{fmt.Sprintf("step %d recorded no telemetry to read", bound.Index)}}
	default:
		result.Bottleneck = bound.Telemetry.Bottleneck.DeepCopy()
		result.Bottleneck.Step = ptr(bound.Index)
	}
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

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
