package measure

import (
	"fmt"
	"math"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/workload"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func LiveProgress(index, active, pods int32, m *snapshot.Merged, sum snapshot.Summary) *benchv1.StepProgress {
	p := &benchv1.StepProgress{Index: index, ActiveWarehouses: active, Pods: pods, TpmC: round1(sum.TpmC)}
	if !m.MeasurementStart.IsZero() {
		p.StartTime = &metav1.Time{Time: m.MeasurementStart}
		p.Elapsed = &metav1.Duration{Duration: m.Measured.Round(time.Second)}
		p.P90 = map[benchv1.Transaction]metav1.Duration{}
		for t, ts := range sum.Transactions {
			if ts.Completed > 0 {
				p.P90[benchv1.Transaction(t)] = metav1.Duration{Duration: snapshot.Micros(ts.P90Micros)}
			}
		}
	}
	return p
}

func StepRecord(index, active, pods int32, m *snapshot.Merged, sum snapshot.Summary, v sla.Verdict) *benchv1.StepResult {
	record := &benchv1.StepResult{
		Index: index, ActiveWarehouses: active, Pods: pods,
		TpmC: round1(sum.TpmC), Efficiency: round2(sum.EfficiencyPercent),
		Compliant: v.Compliant, Verdict: VerdictOf(v), Reasons: v.Reasons, Unjudged: v.Unjudged,
		Transactions: map[benchv1.Transaction]benchv1.TransactionStats{},
		Mix:          map[benchv1.Transaction]float64{},
		Errors:       sum.TotalErrors,
	}
	if !m.MeasurementStart.IsZero() {
		record.StartTime = &metav1.Time{Time: m.MeasurementStart}
		record.EndTime = &metav1.Time{Time: m.MeasurementStart.Add(m.Measured)}
	}
	for t, ts := range sum.Transactions {
		record.Transactions[benchv1.Transaction(t)] = benchv1.TransactionStats{
			Count:   ts.Completed,
			P50:     metav1.Duration{Duration: snapshot.Micros(ts.P50Micros)},
			P90:     metav1.Duration{Duration: snapshot.Micros(ts.P90Micros)},
			P95:     metav1.Duration{Duration: snapshot.Micros(ts.P95Micros)},
			P99:     metav1.Duration{Duration: snapshot.Micros(ts.P99Micros)},
			Max:     metav1.Duration{Duration: snapshot.Micros(ts.MaxMicros)},
			Retries: ts.Retries,
		}
		record.Retries += ts.Retries
	}
	for t, share := range sum.MixPercent {
		record.Mix[benchv1.Transaction(t)] = round2(share)
	}
	return record
}

// InconclusiveStep is a step whose infrastructure failed before it measured anything usable:
// not evidence, with its cause.
func InconclusiveStep(index, active, pods int32, started metav1.Time, cause string) *benchv1.StepResult {
	now := metav1.Now()
	return &benchv1.StepResult{Index: index, ActiveWarehouses: active, Pods: pods, StartTime: &started, EndTime: &now,
		Compliant: false, Verdict: benchv1.VerdictInconclusive, Reasons: []string{cause}}
}

// SeriesCheck judges whether the step's time series is whole: an interval some pod sealed but
// did not hand over (dropped past its retention while the operator was away, or its pod went)
// leaves the per-interval criteria (replication, faults) and the report's charts unjudged there.
func SeriesCheck(st *StepSeries) sla.Check {
	if st.Missing > 0 {
		return sla.Check{Name: "time series", Status: sla.Inconclusive,
			Detail: fmt.Sprintf("time series: %d of %d intervals were not collected from every pod", st.Missing, st.Collected)}
	}
	return sla.Check{Name: "time series", Status: sla.Pass, Detail: fmt.Sprintf("time series: %d intervals collected from every pod", st.Collected)}
}

// CutShort says which pod, if any, ended its measured interval short of the planned one by more
// than one series interval: stopped from outside or ended early, its figures cover another
// interval than the step's, whatever they show. (The operator stops pods only after it recorded
// a step, and a step the SLA ends early is recorded while its pods still measure.) A fault step's
// pods measure at one-second intervals.
func CutShort(pods []corev1.Pod, snapshots []*snapshot.Snapshot, planned, interval time.Duration, faultStep bool) string {
	if faultStep {
		interval = workload.FaultInterval
	}
	for i, s := range snapshots {
		measured := time.Duration(s.Times.MeasuredSeconds * float64(time.Second))
		if s.Phase == snapshot.PhaseDone && measured < planned-interval {
			return fmt.Sprintf("client pod %s measured %s of the planned %s: it was stopped from outside or ended early", pods[i].Name, measured.Round(time.Millisecond), planned)
		}
	}
	return ""
}

// AllEnded reports whether every snapshot is final (done or failed).
func AllEnded(snapshots []*snapshot.Snapshot) bool {
	for _, s := range snapshots {
		if s.Phase != snapshot.PhaseDone && s.Phase != snapshot.PhaseFailed {
			return false
		}
	}
	return true
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// Round3 rounds to three decimals.
func Round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// VerdictOf is the step verdict of an SLA verdict.
func VerdictOf(v sla.Verdict) benchv1.StepVerdict {
	switch {
	case v.Compliant:
		return benchv1.VerdictCompliant
	case v.Inconclusive:
		return benchv1.VerdictInconclusive
	}
	return benchv1.VerdictNonCompliant
}

func ptr[T any](v T) *T { return &v }

// MeasuredMinutes is a step's measured interval in minutes: its planned duration, unless its
// start and end (whole seconds in the status) say it measured more than 2 s less or more, as a
// step stopped early does.
func MeasuredMinutes(s benchv1.StepResult) float64 {
	planned := 0.0
	if s.Duration != nil {
		planned = s.Duration.Minutes()
	}
	if s.StartTime != nil && s.EndTime != nil && s.EndTime.After(s.StartTime.Time) {
		if measured := s.EndTime.Sub(s.StartTime.Time).Minutes(); planned == 0 || math.Abs(measured-planned)*60 > 2 {
			return measured
		}
	}
	return planned
}

// NewOrdersCounted is the New-Orders a step counted: its tpmC over its measured minutes.
func NewOrdersCounted(s benchv1.StepResult) float64 { return s.TpmC * MeasuredMinutes(s) }
