package measure

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// A step's series is bounded (docs/telemetry.md, "Long steps"): past snapshot.MaxSeriesEntries
// entries its oldest intervals are merged into coarser ones down to three quarters of that, so
// the operator's memory, the stored size and the cost of each save stay flat however long the
// step. The last snapshot.FullResolutionTail intervals stay at full resolution, and so do the
// minute before the step's first fault (the baseline sla.MeasureFault averages) and
// faultFullResolution after it (the outage, the recovery window and the errors it counts; the
// faultWindow's minute after is accumulated as the intervals arrive).
const (
	faultFullResolution = 5 * time.Minute
	maxPodSamples       = 1024
)

// bound downsamples st's series and resource samples past their bounds; it is pure.
func (st *StepSeries) bound() {
	var keep []snapshot.IndexRange
	if f := st.AfterFault; f != nil && st.LengthSeconds > 0 {
		length := time.Duration(st.LengthSeconds * float64(time.Second))
		keep = append(keep, snapshot.IndexRange{From: f.From - int(sla.BaselineWindow/length) - 1, To: f.From + int(faultFullResolution/length) + 1})
	}
	st.Series.Downsample(snapshot.MaxSeriesEntries, snapshot.MaxSeriesEntries*3/4, snapshot.FullResolutionTail, keep...)
	for _, p := range st.Resources {
		p.Bound(maxPodSamples)
	}
}

// StepSeries is what the operator keeps of one step's time series.
type StepSeries struct {
	Version int `json:"version"`
	// Origin and LengthSeconds place interval i at [Origin + i·Length, Origin + (i+1)·Length).
	Origin        time.Time `json:"origin,omitzero"`
	LengthSeconds float64   `json:"lengthSeconds,omitempty"`
	// Collected is the number of leading interval indices dealt with: merged into Series, or
	// counted in Missing when no pod delivered them.
	Collected int `json:"collected"`
	// Missing counts intervals below Collected that some pod sealed but did not deliver
	// (dropped past its retention, or the pod went).
	Missing int                    `json:"missing"`
	Series  snapshot.CompactSeries `json:"series"`
	// TelemetrySamples counts the intervals with a database sample that was read (not failed).
	TelemetrySamples int `json:"telemetrySamples"`
	// TelemetryError is the last failed sample's error, if any.
	TelemetryError string `json:"telemetryError,omitempty"`
	// Resources are per-interval peaks of each database and client pod, by pod name.
	Resources map[string]*snapshot.PodSeries `json:"resources,omitempty"`
	// ResourceMetrics says where Resources come from, or why there are none.
	ResourceMetrics string `json:"resourceMetrics,omitempty"`
	// IOMetrics says where the pods' disk and network rates come from, or why there are none;
	// IOCounters are each pod's last counters read (kubelet_io.go).
	IOMetrics  string                `json:"ioMetrics,omitempty"`
	IOCounters map[string]*IOReading `json:"ioCounters,omitempty"`
	// AfterFault accumulates the histograms of the minute after the step's first fault.
	AfterFault *FaultWindow `json:"afterFault,omitempty"`
	// Sustain judges a sustained step window by window (kind Sustain only).
	Sustain *SustainWatch `json:"sustain,omitempty"`
	// Adversity accumulates the adversity step's states, one window each (kind Adversity only).
	Adversity *SustainWatch `json:"adversity,omitempty"`
	// MergeError is why the pods' intervals could not be merged (the step is then inconclusive).
	MergeError string `json:"mergeError,omitempty"`
}

// Collect merges into st the intervals that every pod has sealed beyond st.Collected. pods holds
// what each pod delivered after st.Collected-1 (nil: a pod without a time series). It reports
// whether st changed; it is pure.
func (st *StepSeries) Collect(pods []*snapshot.Intervals) (bool, error) {
	upTo, length := math.MaxInt, 0.0
	for _, s := range pods {
		if s == nil {
			continue
		}
		upTo, length = min(upTo, s.Sealed), s.LengthSeconds
		if !s.Origin.IsZero() && (st.Origin.IsZero() || s.Origin.Before(st.Origin)) {
			st.Origin, st.LengthSeconds = s.Origin, s.LengthSeconds
		}
	}
	if upTo == math.MaxInt || upTo <= st.Collected {
		return false, nil
	}
	window := make([]*snapshot.Intervals, 0, len(pods))
	for _, s := range pods {
		if s == nil {
			continue
		}
		w := *s
		w.Items = nil
		for _, iv := range s.Items {
			if iv.Index >= st.Collected && iv.Index < upTo {
				w.Items = append(w.Items, iv)
			}
		}
		window = append(window, &w)
	}
	merged, err := snapshot.MergeIntervals(window)
	if err != nil {
		return false, err
	}
	for _, m := range merged {
		if err := st.AfterFault.add(m); err != nil {
			return false, err
		}
		if err := st.Sustain.add(m); err != nil {
			return false, err
		}
		if err := st.Adversity.add(m); err != nil {
			return false, err
		}
		if m.Pods < len(window) {
			st.Missing++ // merged from the pods that still had it: counted as incomplete
		}
		if tel := m.Telemetry; tel != nil {
			if tel.Error == "" {
				st.TelemetrySamples++
			} else {
				st.TelemetryError = tel.Error
			}
		}
	}
	st.Missing += upTo - st.Collected - len(merged)
	st.Series.Append(snapshot.Compact(merged, time.Duration(length*float64(time.Second))))
	st.Collected = upTo
	st.bound()
	return true, nil
}

// AddResources records one metrics sample of a pod at time at, in the interval it falls in.
func (st *StepSeries) AddResources(pod, role string, cpuLimitMillis int64, at time.Time, cpuMillis, memoryBytes int64) {
	origin, length := st.Origin, st.LengthSeconds
	if origin.IsZero() || length <= 0 || at.Before(origin) {
		return
	}
	if st.Resources == nil {
		st.Resources = map[string]*snapshot.PodSeries{}
	}
	p := st.Resources[pod]
	if p == nil {
		p = &snapshot.PodSeries{Role: role}
		st.Resources[pod] = p
	}
	p.CPULimitMillis = cpuLimitMillis
	p.Add(int(at.Sub(origin).Seconds()/length), cpuMillis, memoryBytes)
}

// Replication is what a database is configured with of standbys: Known is false when its engine
// does not say.
type Replication struct {
	Known       bool
	Standbys    int
	Synchronous bool
}

// ReplicationChecks are a step's checks of its standbys, from its series: sla.maxReplicationLag
// when the run sets it, and the synchronous standbys whenever the database is configured with
// some. rep is what the deployed database is configured with, as its engine says; an engine that
// says nothing (an external database) has synchronous standbys when the server's
// synchronous_standby_names, as sampled, names some. In a fault step the samples that failed from
// the fault on are the outage, measured as such: only those before it can leave the lag unknown.
func ReplicationChecks(run *benchv1.BenchmarkRun, rep Replication, st *StepSeries) []sla.Check {
	expected, sync := rep.Standbys, rep.Synchronous
	if env := run.Status.Environment; !rep.Known && env != nil && strings.TrimSpace(env.Settings["synchronous_standby_names"]) != "" {
		sync = true
	}
	e := sla.ReplicationEvidenceOfSeries(st.Series, nil, expected, sync, st.TelemetryError)
	if st.AfterFault != nil {
		e.Failed = 0
		for i, idx := range st.Series.Index {
			if idx < st.AfterFault.From {
				e.Failed += int(st.Series.FailedOf(i))
			}
		}
	}
	var out []sla.Check
	if bound := run.Spec.SLA.MaxReplicationLag; bound != nil {
		out = append(out, sla.ReplicationCheck(e, bound.Duration))
	}
	if ch, ok := sla.SyncStandbysCheck(e); ok {
		out = append(out, ch)
	}
	return out
}

// maxReplayLags is each standby's largest replay lag over the series, by name.
func (st *StepSeries) maxReplayLags() []sla.StandbyLag {
	var out []sla.StandbyLag
	for name, col := range st.Series.ReplayLagMillis {
		worst := int64(-1)
		for _, v := range col {
			worst = max(worst, v)
		}
		if worst >= 0 {
			out = append(out, sla.StandbyLag{Standby: name, ReplayLag: time.Duration(worst) * time.Millisecond})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Standby < out[j].Standby })
	return out
}

// Summary boils the series down to the step's status figures; it is pure.
func (st *StepSeries) Summary() *benchv1.StepTelemetry {
	s := &st.Series
	var delivered int64 // intervals in the series (a downsampled entry holds several)
	for i := range s.Index {
		delivered += s.Delivered(i)
	}
	out := &benchv1.StepTelemetry{Intervals: int32(delivered), IntervalsMissing: int32(st.Missing), ResourceMetrics: st.ResourceMetrics,
		IOMetrics: st.IOMetrics}
	for _, l := range st.maxReplayLags() {
		sb := benchv1.StandbyLag{Name: l.Standby, MaxReplayLag: metav1.Duration{Duration: l.ReplayLag}}
		if col, ok := s.WriteLagMillis[l.Standby]; ok {
			sb.MaxWriteLag = &metav1.Duration{Duration: time.Duration(maxLag(col)) * time.Millisecond}
		}
		if col, ok := s.FlushLagMillis[l.Standby]; ok {
			sb.MaxFlushLag = &metav1.Duration{Duration: time.Duration(maxLag(col)) * time.Millisecond}
		}
		out.Standbys = append(out.Standbys, sb)
	}
	out.StandbysHidden = s.HiddenStandbys
	if s.Checkpoints != nil {
		out.Checkpoints = ptr(sum(s.Checkpoints))
	}
	if s.SyncRepWaiters != nil {
		out.MaxSyncRepWaiters = ptr(maxOf(s.SyncRepWaiters))
	}
	if len(s.WALBytesPerSecond) > 0 && delivered > 0 {
		var total, commits int64 // an entry's rate is its intervals' mean: weighted by them
		for i, v := range s.WALBytesPerSecond {
			total += v * s.Delivered(i)
			if i < len(s.CommitsPerSecond) {
				commits += s.CommitsPerSecond[i] * s.Delivered(i)
			}
		}
		out.WALBytesPerSecond = ptr(total / delivered)
		// Both are per-second rates of the same intervals: their sums' ratio is the WAL written
		// per committed transaction over the step.
		if commits > 0 {
			out.WALBytesPerTransaction = ptr(total / commits)
		}
	}
	load := sla.ClientLoad{LateStarts: sum(s.LateStarts), PoolAcquires: sum(s.PoolAcquires), PoolWaits: sum(s.PoolWaits),
		PoolWaitSeconds: float64(sum(s.PoolWaitMillis)) / 1000}
	for _, cols := range s.Types {
		load.Completed += sum(cols.Completed)
	}
	names := make([]string, 0, len(st.Resources))
	for name := range st.Resources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := st.Resources[name]
		peakCPU, peakMem := maxOf(p.CPUMillis), maxOf(p.MemoryMiB)
		u := benchv1.PodUsage{Name: name, Role: p.Role, PeakCPU: *resource.NewMilliQuantity(peakCPU, resource.DecimalSI),
			PeakMemory: *resource.NewQuantity(peakMem<<20, resource.BinarySI)}
		if p.CPULimitMillis > 0 {
			u.CPULimit = resource.NewMilliQuantity(p.CPULimitMillis, resource.DecimalSI)
		}
		u.IO = PodIO(p)
		out.Pods = append(out.Pods, u)
		if p.Role == RoleClient {
			load.Pods = append(load.Pods, sla.PodCPU{Name: name, PeakCores: float64(peakCPU) / 1000, Limit: float64(p.CPULimitMillis) / 1000})
		}
	}
	out.ClientBound = sla.ClientBound(load)
	return out
}

// Pod roles in the series and status.
const (
	RoleDatabase = "Database"
	RoleClient   = "Client"
)

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

func maxOf(v []int64) int64 {
	var m int64
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// ResourceMetricsSource names where step pods' CPU and memory come from when the API answers.
const ResourceMetricsSource = "metrics.k8s.io"

// SeriesVersion is the version of the series documents (series ConfigMap and series.json.gz).
// Version 2 may downsample a long step's older intervals (snapshot.CompactSeries.Spans); a
// version-1 document reads as one interval per entry.
const SeriesVersion = 2

// GzipJSON is v as gzipped JSON: how a step's series is stored.
func GzipJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(v); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// GunzipJSON decodes what GzipJSON encoded into v, reading at most 64 MiB.
func GunzipJSON(data []byte, v any) error {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(zr, 64<<20))
	if err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}

// SeriesReport is a run report's series.json.gz: every recorded step's time series, gzipped JSON
// beside report.json (docs/telemetry.md describes it). The operator writes it from the steps'
// series ConfigMaps; the renderers read it back.
type SeriesReport struct {
	SchemaVersion int             `json:"schemaVersion"`
	Steps         []IndexedSeries `json:"steps"`
}

// IndexedSeries is one step's time series with the step's index: entry i of Series covers
// [Origin + Index[i]·LengthSeconds, Origin + Series.End(i)·LengthSeconds) — one interval, or
// several where a long step was downsampled (series version 2, docs/telemetry.md "Long steps").
type IndexedSeries struct {
	Index int32 `json:"index"`
	StepSeries
}

// DecodeSeriesReport reads series.json.gz (at most 64 MiB unpacked).
func DecodeSeriesReport(gz []byte) (*SeriesReport, error) {
	var s SeriesReport
	if err := GunzipJSON(gz, &s); err != nil {
		return nil, fmt.Errorf("series.json.gz: %w", err)
	}
	return &s, nil
}

// Step is the series of step index, or nil.
func (s *SeriesReport) Step(index int32) *IndexedSeries {
	if s == nil {
		return nil
	}
	for i := range s.Steps {
		if s.Steps[i].Index == index {
			return &s.Steps[i]
		}
	}
	return nil
}

// DecodeStepSeries reads one step's series ConfigMap (<run>-step-N-series, key series.json.gz):
// the same document as a step of series.json.gz, without its index. A run under way, or one whose
// series.json.gz did not fit its report ConfigMap, has its series there.
func DecodeStepSeries(gz []byte, index int32) (*IndexedSeries, error) {
	var s IndexedSeries
	if err := GunzipJSON(gz, &s.StepSeries); err != nil {
		return nil, fmt.Errorf("step %d series: %w", index, err)
	}
	s.Index = index
	return &s, nil
}

// IOMetricsSource names where the pods' disk and network figures come from when kubelets answer.
const IOMetricsSource = "kubelet cAdvisor (nodes/proxy)"
