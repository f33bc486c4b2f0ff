// Command searchsweep condenses the steps hack/search-sweep.sh recorded (one `tpcc run
// --summary-json` file per step: the final snapshot and the 5 s time series) into the compact sweep
// file the capacity-search replay reads (internal/search/searchsim.Sweep).
//
// For each step it derives, with the operator's own code (snapshot.Merge, sla.Decide, sla.Judge,
// sla.LatencyRatio):
//   - whole: the whole measured interval, judged as `tpcc run` judged it;
//   - full: the step as the operator records a full-length step. The operator polls a running
//     step and ends it once its verdict can no longer change (sla.Decide); here the poll is
//     replayed at every interval boundary of the time series, on the transactions completed up to
//     it, so a step certain to fail ends with the figures it had then;
//   - probe: the first -probe of the measured interval, recorded the same way as a step of that
//     planned length. A probe ramps up like every step and then measures a shorter interval, so
//     the first part of a full step's measured interval is what a probe at that count measures.
//
// Audit ratios cannot be cut into windows (the series has none): windows carry none, which changes
// nothing below 10 000 transactions, where the audit and mix checks are skipped anyway.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/search/searchsim"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func main() {
	raw := flag.String("raw", "", "directory of the recorded steps (hack/search-sweep.sh SWEEP_RAW)")
	rampUp := flag.Duration("ramp-up", time.Minute, "ramp-up of the recorded steps")
	duration := flag.Duration("duration", 5*time.Minute, "measured interval of the recorded steps")
	probe := flag.Duration("probe", 0, "measured interval of a probe (default a fifth of -duration, the operator's default)")
	out := flag.String("out", "", "sweep file to write")
	flag.Parse()
	if *probe == 0 {
		*probe = *duration / 5
	}
	if err := run(*raw, *rampUp, *duration, *probe, *out); err != nil {
		fmt.Fprintln(os.Stderr, "searchsweep:", err)
		os.Exit(1)
	}
}

// stepLine is a line of steps.jsonl.
type stepLine struct {
	File             string  `json:"file"`
	Active           int     `json:"active"`
	Repeat           int     `json:"repeat"`
	Start            string  `json:"start"`
	Load1Before      float64 `json:"load1Before"`
	PrimaryPeriods   int64   `json:"primaryPeriods"`
	PrimaryThrottled int64   `json:"primaryThrottled"`
}

// summaryDoc is the part of `tpcc run --summary-json` read here.
type summaryDoc struct {
	Verdict   sla.Verdict         `json:"verdict"`
	Snapshot  *snapshot.Snapshot  `json:"snapshot"`
	Intervals *snapshot.Intervals `json:"intervals"`
}

func run(raw string, rampUp, duration, probe time.Duration, out string) error {
	switch {
	case raw == "" || out == "":
		return fmt.Errorf("-raw and -out are required")
	case probe <= 0 || probe > duration:
		return fmt.Errorf("-probe %v: want 0 < probe <= duration %v", probe, duration)
	}
	var sweep searchsim.Sweep
	if err := readJSON(filepath.Join(raw, "meta.json"), &sweep.Meta); err != nil {
		return err
	}
	lines, err := readLines(filepath.Join(raw, "steps.jsonl"))
	if err != nil {
		return err
	}
	criteria := sla.DefaultCriteria()
	sweep.RampUpSeconds, sweep.DurationSeconds, sweep.ProbeSeconds = rampUp.Seconds(), duration.Seconds(), probe.Seconds()
	sweep.SLA = searchsim.SweepSLA{MinEfficiencyPercent: criteria.MinEfficiencyPercent, MaxErrorPercent: criteria.MaxErrorPercent,
		Latency: "TPC-C: p90 <= 5s (NewOrder, Payment, OrderStatus, Delivery), <= 20s (StockLevel)"}
	var loads []float64
	for _, l := range lines {
		var doc summaryDoc
		if err := readJSON(filepath.Join(raw, l.File), &doc); err != nil {
			return err
		}
		step, err := condense(doc, l, rampUp, duration, probe, criteria)
		if err != nil {
			return fmt.Errorf("%s: %w", l.File, err)
		}
		sweep.Steps = append(sweep.Steps, step)
		loads = append(loads, l.Load1Before)
	}
	sort.SliceStable(sweep.Steps, func(i, j int) bool {
		a, b := sweep.Steps[i], sweep.Steps[j]
		return a.Active < b.Active || a.Active == b.Active && a.Repeat < b.Repeat
	})
	slices.Sort(loads)
	if len(loads) > 0 {
		sweep.Meta.Load = fmt.Sprintf("1-minute load average of the shared machine at the steps' starts: min %.1f, median %.1f, max %.1f (other agents' builds and tests; the servers' CPU weight keeps their quota available)",
			loads[0], loads[len(loads)/2], loads[len(loads)-1])
	}
	sweep.Meta.Derivation = fmt.Sprintf("hack/searchsweep: whole = the %v measured interval as tpcc run judged it; full = as the operator records a full step, ended at the first interval boundary where sla.Decide is certain of failure; probe = the first %v of the measured interval, recorded the same way; windows carry no audit ratios (skipped below 10000 transactions anyway)", duration, probe)
	if err := sweep.Validate(); err != nil {
		return err
	}
	b, err := json.Marshal(sweep)
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(b, '\n'), 0o644)
}

func condense(doc summaryDoc, l stepLine, rampUp, duration, probe time.Duration, c sla.Criteria) (searchsim.SweepStep, error) {
	step := searchsim.SweepStep{Active: l.Active, Repeat: l.Repeat, Start: l.Start, Load1: l.Load1Before}
	if l.PrimaryPeriods > 0 {
		step.PrimaryThrottledPercent = round(100*float64(l.PrimaryThrottled)/float64(l.PrimaryPeriods), 1)
	}
	final, series := doc.Snapshot, doc.Intervals
	if final == nil || series == nil {
		return step, fmt.Errorf("the summary has no snapshot or no time series")
	}
	if final.Identity.ActiveWarehouses != l.Active {
		return step, fmt.Errorf("the snapshot ran %d active warehouses, steps.jsonl says %d", final.Identity.ActiveWarehouses, l.Active)
	}
	length := series.Length()
	for name, d := range map[string]time.Duration{"ramp-up": rampUp, "duration": duration, "probe": probe} {
		if d%length != 0 {
			return step, fmt.Errorf("the %s %v is not a whole number of the series' %v intervals", name, d, length)
		}
	}
	first := int(rampUp / length)
	if got := final.Times.MeasurementStart.Sub(series.Origin); absDuration(got-rampUp) > length/2 {
		return step, fmt.Errorf("the measured interval starts %v after the series' origin, not the ramp-up %v", got, rampUp)
	}
	whole, err := snapshot.Merge([]*snapshot.Snapshot{final})
	if err != nil {
		return step, err
	}
	v, err := sla.Judge(whole, c)
	if err != nil {
		return step, err
	}
	if v.Compliant != doc.Verdict.Compliant {
		return step, fmt.Errorf("judged compliant=%v here, %v by tpcc run: not the default SLA?", v.Compliant, doc.Verdict.Compliant)
	}
	step.Whole = figures(whole, v, c)

	// The whole measured interval summed from the series must be the final snapshot exactly.
	n := int(math.Round(duration.Seconds() / length.Seconds()))
	all, err := window(final, series, first, first+n+1, duration, true)
	if err != nil {
		return step, err
	}
	for _, t := range snapshot.Transactions {
		if a, b := all.Transactions[t].Completed(), whole.Transactions[t].Completed(); a != b {
			return step, fmt.Errorf("%s: the series sums to %d completed, the snapshot holds %d", t, a, b)
		}
	}
	for i := first; i < first+n; i++ {
		var count int64
		for _, iv := range series.Items {
			if iv.Index == i {
				count = iv.Transactions[snapshot.NewOrder].Commits + iv.Transactions[snapshot.NewOrder].Rollbacks
			}
		}
		step.NewOrders = append(step.NewOrders, count)
	}

	if step.Full, err = recorded(final, series, first, duration, length, c, whole, v); err != nil {
		return step, err
	}
	if step.Probe, err = recorded(final, series, first, probe, length, c, nil, sla.Verdict{}); err != nil {
		return step, err
	}
	return step, nil
}

// recorded is what the operator records for a step of planned measured length planned whose
// measured interval is the series from interval first: it polls at every interval boundary and
// ends the step once sla.Decide is final. At the end of a full step (final non-nil) the verdict is
// the final snapshot's.
func recorded(s *snapshot.Snapshot, series *snapshot.Intervals, first int, planned, length time.Duration, c sla.Criteria, final *snapshot.Merged, finalVerdict sla.Verdict) (searchsim.StepFigures, error) {
	n := int(math.Round(planned.Seconds() / length.Seconds()))
	for k := 1; k <= n; k++ {
		measured := time.Duration(k) * length
		if k == n && final != nil {
			return figures(final, finalVerdict, c), nil
		}
		// The intervals from the start of the measured interval to this poll (the measured
		// interval starts within a few milliseconds of an interval boundary, checked above).
		m, err := window(s, series, first, first+k, measured, k == n)
		if err != nil {
			return searchsim.StepFigures{}, err
		}
		remaining := planned - measured
		if k == n {
			remaining = 0
		}
		h := sla.Headroom{Remaining: remaining, MaxMore: sla.SpecWaitMaxMore(m.Terminals, remaining)}
		early, err := sla.Decide(m, c, h)
		if err != nil {
			return searchsim.StepFigures{}, err
		}
		if early.Final {
			f := figures(m, early.Verdict, c)
			f.MeasuredSeconds = measured.Seconds()
			return f, nil
		}
	}
	return searchsim.StepFigures{}, fmt.Errorf("no verdict at the end of %v", planned)
}

// window is the step as if its measured interval were the series' intervals [from, to): the final
// snapshot's identity and constants, the window's transactions, no audit.
func window(s *snapshot.Snapshot, series *snapshot.Intervals, from, to int, measured time.Duration, done bool) (*snapshot.Merged, error) {
	// Every interval of the window as its own one-item series at index 0: MergeIntervals then sums
	// them, histograms bucket by bucket.
	var parts []*snapshot.Intervals
	for _, iv := range series.Items {
		if iv.Index >= from && iv.Index < to {
			iv.Index = 0
			parts = append(parts, &snapshot.Intervals{LengthSeconds: series.LengthSeconds, Sealed: 1, Items: []snapshot.Interval{iv}})
		}
	}
	c := *s
	c.Transactions = map[snapshot.Transaction]snapshot.TransactionCounts{}
	c.Audit, c.Intervals, c.Ledger, c.LedgerCheck = snapshot.Audit{}, nil, nil, nil
	c.Times.MeasuredSeconds = measured.Seconds()
	c.Phase = snapshot.PhaseMeasuring
	if done {
		c.Phase = snapshot.PhaseDone
	}
	if len(parts) > 0 {
		merged, err := snapshot.MergeIntervals(parts)
		if err != nil {
			return nil, err
		}
		enc, err := merged[0].Encode()
		if err != nil {
			return nil, err
		}
		c.Transactions = enc.Transactions
	}
	return snapshot.Merge([]*snapshot.Snapshot{&c})
}

func figures(m *snapshot.Merged, v sla.Verdict, c sla.Criteria) searchsim.StepFigures {
	sum := m.Summarize()
	f := searchsim.StepFigures{
		MeasuredSeconds: round(m.Measured.Seconds(), 1), TpmC: round(sum.TpmC, 1), EfficiencyPercent: round(sum.EfficiencyPercent, 2),
		LatencyRatio: round(sla.LatencyRatio(m, c), 4), ErrorPercent: round(sum.ErrorPercent, 3),
		P90Millis: map[string]float64{}, Compliant: v.Compliant, Reasons: v.Reasons,
	}
	for _, t := range snapshot.Transactions {
		f.P90Millis[string(t)] = round(float64(sum.Transactions[t].P90Micros)/1000, 1)
	}
	return f
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func readLines(path string) ([]stepLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []stepLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var l stepLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}
