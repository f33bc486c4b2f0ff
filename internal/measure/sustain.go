package measure

import (
	"fmt"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// sustainDefaults are the window and percent when spec.sustain leaves them out.
const (
	DefaultSustainPercent = 70
	DefaultSustainWindow  = time.Minute
)

// SustainWatch judges a sustained step window by window as its intervals are collected; it is
// kept in the step's series (so a restarted operator goes on) and pure.
type SustainWatch struct {
	// From is the first interval of the measured interval (after ramp-up); To the first after
	// it (0: unbounded, as a watch saved before To existed); Size the intervals per window;
	// Length one interval.
	From          int          `json:"from"`
	To            int          `json:"to,omitempty"`
	Size          int          `json:"size"`
	LengthSeconds float64      `json:"lengthSeconds"`
	Active        int          `json:"active"`
	Criteria      sla.Criteria `json:"criteria"`
	// MaxLag is sla.maxReplicationLag (0: none).
	MaxLag  time.Duration   `json:"maxLag"`
	Open    *windowAcc      `json:"open,omitempty"`
	Windows []sustainWindow `json:"windows"`
}

// windowAcc is the window being filled.
type windowAcc struct {
	From       int                             `json:"from"`
	Intervals  int                             `json:"intervals"`
	Seconds    float64                         `json:"seconds"`
	Histograms map[snapshot.Transaction]string `json:"histograms,omitempty"`
	Completed  map[snapshot.Transaction]int64  `json:"completed,omitempty"`
	Errors     map[snapshot.Transaction]int64  `json:"errors,omitempty"`
	MaxLagMs   map[string]int64                `json:"maxLagMs,omitempty"`
	Samples    int                             `json:"samples"`
	Failed     int                             `json:"failed"`
	// Signals for the account of a breach.
	Checkpoints int64   `json:"checkpoints"`
	SyncRep     int64   `json:"syncRep"`
	WALBytes    float64 `json:"walBytes"`
}

// sustainWindow is a judged window: its figures and what it broke.
type sustainWindow struct {
	From      int                            `json:"from"`
	Seconds   float64                        `json:"seconds"`
	TpmC      float64                        `json:"tpmC"`
	P90Micros map[snapshot.Transaction]int64 `json:"p90Micros,omitempty"`
	Errors    map[snapshot.Transaction]int64 `json:"errors,omitempty"`
	Reasons   []string                       `json:"reasons,omitempty"`
	Signals   []string                       `json:"signals,omitempty"`
}

// NewSustainWatch sets up the watch of a run's sustained step at active warehouses.
func NewSustainWatch(run *benchv1.BenchmarkRun, active int32, criteria sla.Criteria) *SustainWatch {
	window := DefaultSustainWindow
	if w := run.Spec.Sustain.Window; w != nil {
		window = w.Duration
	}
	return newWindowWatch(run, active, criteria, workload.Interval(run), window, run.Spec.Sustain.Duration.Duration)
}

// newWindowWatch watches a step measured for measured after the run's ramp-up, in series
// intervals of interval, as consecutive windows of window (each rounded up to whole intervals).
func newWindowWatch(run *benchv1.BenchmarkRun, active int32, criteria sla.Criteria, interval, window, measured time.Duration) *SustainWatch {
	_, rampUp := workload.Durations(run)
	from := int((rampUp + interval - 1) / interval)
	w := &SustainWatch{From: from, To: from + int((measured+interval-1)/interval),
		Size: max(1, int((window+interval-1)/interval)), LengthSeconds: interval.Seconds(), Active: int(active), Criteria: criteria}
	if b := run.Spec.SLA.MaxReplicationLag; b != nil {
		w.MaxLag = b.Duration
	}
	return w
}

// add takes one merged interval of the step; a window full of intervals is judged. Intervals
// outside the measured interval are left out: the ramp-up, and the one the clients seal after its
// end (transactions completing after the end: not measured, and never a window of their own).
func (w *SustainWatch) add(m snapshot.MergedInterval) error {
	if w == nil || m.Index < w.From || (w.To > 0 && m.Index >= w.To) {
		return nil
	}
	if w.Open == nil {
		w.Open = &windowAcc{From: m.Index, Histograms: map[snapshot.Transaction]string{}, Completed: map[snapshot.Transaction]int64{},
			Errors: map[snapshot.Transaction]int64{}, MaxLagMs: map[string]int64{}}
	}
	o := w.Open
	o.Intervals++
	o.Seconds += m.Seconds
	for t, mt := range m.Transactions {
		if mt == nil {
			continue
		}
		o.Completed[t] += mt.Completed()
		o.Errors[t] += mt.Errors
		if mt.Histogram == nil || mt.Histogram.TotalCount() == 0 {
			continue
		}
		h := snapshot.NewHistogram()
		if enc := o.Histograms[t]; enc != "" {
			var err error
			if h, err = snapshot.DecodeHistogram(enc); err != nil {
				return fmt.Errorf("sustained window: %w", err)
			}
		}
		h.Merge(mt.Histogram)
		enc, err := snapshot.EncodeHistogram(h)
		if err != nil {
			return err
		}
		o.Histograms[t] = enc
	}
	if tel := m.Telemetry; tel != nil {
		if tel.Error != "" {
			o.Failed++
		} else {
			o.Samples++
			for _, s := range tel.Standbys {
				if !s.Hidden {
					o.MaxLagMs[s.Name] = max(o.MaxLagMs[s.Name], int64(s.ReplayLagSeconds*1000))
				}
			}
			if tel.Checkpoints != nil {
				o.Checkpoints += tel.Checkpoints.Started
			}
			if tel.Sessions != nil {
				o.SyncRep = max(o.SyncRep, int64(tel.Sessions.SyncRep))
			}
			if tel.WALBytesPerSecond != nil {
				o.WALBytes += *tel.WALBytesPerSecond * m.Seconds
			}
		}
	}
	if o.Intervals >= w.Size {
		return w.Close()
	}
	return nil
}

// Close judges the open window (at the step's end, a shorter last one too).
func (w *SustainWatch) Close() error {
	if w == nil || w.Open == nil {
		return nil
	}
	o := w.Open
	w.Open = nil
	win := sla.Window{Seconds: o.Seconds, ActiveWarehouses: w.Active, Histograms: map[snapshot.Transaction]*hdr.Histogram{},
		Completed: o.Completed, Errors: o.Errors, MaxReplayLag: map[string]time.Duration{}, Samples: o.Samples, FailedSamples: o.Failed}
	judged := sustainWindow{From: o.From, Seconds: o.Seconds, P90Micros: map[snapshot.Transaction]int64{}, Errors: o.Errors}
	for t, enc := range o.Histograms {
		h, err := snapshot.DecodeHistogram(enc)
		if err != nil {
			return fmt.Errorf("sustained window: %w", err)
		}
		win.Histograms[t] = h
		judged.P90Micros[t] = snapshot.ValueAtNearestRank(h, 90)
	}
	for name, ms := range o.MaxLagMs {
		win.MaxReplayLag[name] = time.Duration(ms) * time.Millisecond
	}
	judged.TpmC = round1(snapshot.PerMinute(o.Completed[snapshot.NewOrder], time.Duration(o.Seconds*float64(time.Second))))
	judged.Reasons = sla.JudgeWindow(win, w.Criteria, w.MaxLag)
	if len(judged.Reasons) > 0 {
		judged.Signals = windowSignals(o)
	}
	w.Windows = append(w.Windows, judged)
	return nil
}

// windowSignals are a window's database signals, for the account of a breach.
func windowSignals(o *windowAcc) []string {
	var out []string
	if o.Samples == 0 {
		if o.Failed > 0 {
			return []string{fmt.Sprintf("every database sample failed (%d)", o.Failed)}
		}
		return nil
	}
	out = append(out, fmt.Sprintf("checkpoints started: %d", o.Checkpoints))
	for name, ms := range o.MaxLagMs {
		out = append(out, fmt.Sprintf("standby %s largest replay lag %s", name, time.Duration(ms)*time.Millisecond))
	}
	if o.Seconds > 0 {
		out = append(out, fmt.Sprintf("WAL %.1f MB/s", o.WALBytes/o.Seconds/1e6))
	}
	out = append(out, fmt.Sprintf("at most %d sessions waiting for the synchronous standbys", o.SyncRep))
	if o.Failed > 0 {
		out = append(out, fmt.Sprintf("%d database samples failed", o.Failed))
	}
	return out
}

// Record is the step's account of its windows; it is pure.
func (w *SustainWatch) Record() *benchv1.SustainRecord {
	rec := &benchv1.SustainRecord{Held: true, Windows: int32(len(w.Windows)),
		Window: metav1.Duration{Duration: time.Duration(float64(w.Size) * w.LengthSeconds * float64(time.Second))}}
	var hours, tpmC []float64
	p90 := map[snapshot.Transaction][]float64{}
	p90x := map[snapshot.Transaction][]float64{}
	for _, win := range w.Windows {
		at := time.Duration(float64(win.From-w.From) * w.LengthSeconds * float64(time.Second))
		mid := at.Hours() + win.Seconds/2/3600
		hours, tpmC = append(hours, mid), append(tpmC, win.TpmC)
		for t, v := range win.P90Micros {
			p90[t], p90x[t] = append(p90[t], float64(v)/1000), append(p90x[t], mid)
		}
		if len(win.Reasons) == 0 {
			continue
		}
		rec.BrokenWindows++
		if rec.Held {
			rec.Held = false
			rec.FirstBreach = &benchv1.SustainBreach{After: metav1.Duration{Duration: at}, Reasons: win.Reasons, Signals: win.Signals}
		}
	}
	rec.TpmCSlopePerHour = round1(sla.Slope(hours, tpmC))
	for t, ys := range p90 {
		if rec.P90SlopeMillisPerHour == nil {
			rec.P90SlopeMillisPerHour = map[benchv1.Transaction]float64{}
		}
		rec.P90SlopeMillisPerHour[benchv1.Transaction(t)] = round1(sla.Slope(p90x[t], ys))
	}
	return rec
}

// SustainCheck is the sustained step's judgement over its windows: the step's SLA held in each
// of them, or the step is non-compliant from the first that broke it.
func SustainCheck(rec *benchv1.SustainRecord) sla.Check {
	switch {
	case rec.Windows == 0:
		return sla.Check{Name: "sustained", Status: sla.Inconclusive, Detail: "sustained: no window was judged"}
	case rec.Held:
		return sla.Check{Name: "sustained", Status: sla.Pass, Detail: fmt.Sprintf("sustained: the SLA held in each of %d windows of %s", rec.Windows, rec.Window.Duration)}
	}
	return sla.Check{Name: "sustained", Status: sla.Fail, Detail: fmt.Sprintf("sustained: %d of %d windows of %s broke the SLA, first %s into the phase: %s",
		rec.BrokenWindows, rec.Windows, rec.Window.Duration, rec.FirstBreach.After.Duration, strings.Join(rec.FirstBreach.Reasons, "; "))}
}

// SustainedResult is the result's account of the run's conclusive sustained step, nil without one.
func SustainedResult(run *benchv1.BenchmarkRun) *benchv1.SustainedResult {
	for _, s := range run.Status.Steps {
		if s.Kind != benchv1.StepSustain || s.EffectiveVerdict() == benchv1.VerdictInconclusive || s.Sustain == nil {
			continue
		}
		out := &benchv1.SustainedResult{Step: s.Index, ActiveWarehouses: s.ActiveWarehouses, Held: s.Sustain.Held, TpmC: s.TpmC}
		if s.Duration != nil {
			out.Duration = *s.Duration
		}
		if b := s.Sustain.FirstBreach; b != nil {
			out.BrokeAfter = &b.After
			if len(b.Reasons) > 0 {
				out.Reason = b.Reasons[0]
			}
		}
		return out
	}
	return nil
}

// SustainedCondition is the Sustained condition of a run with spec.sustain.
func SustainedCondition(r *benchv1.SustainedResult) (metav1.ConditionStatus, string, string) {
	switch {
	case r == nil:
		return metav1.ConditionFalse, "NotMeasured", "no sustained phase ran: the search found no compliant load"
	case r.Held:
		return metav1.ConditionTrue, "Held", fmt.Sprintf("the SLA held for %s at %d active warehouses (%.1f tpmC)", r.Duration.Duration, r.ActiveWarehouses, r.TpmC)
	}
	return metav1.ConditionFalse, "Broke", fmt.Sprintf("at %d active warehouses the SLA first broke %s into the %s phase: %s",
		r.ActiveWarehouses, r.BrokeAfter.Duration, r.Duration.Duration, r.Reason)
}
