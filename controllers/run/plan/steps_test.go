package plan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

const (
	pass         = benchv1.VerdictCompliant
	fail         = benchv1.VerdictNonCompliant
	inconclusive = benchv1.VerdictInconclusive
)

// newRun is a run of a PostgreSQL database loaded with warehouses, with spec.search s and the
// recorded steps (each given its index in status.steps). Everything else has the API's defaults:
// 10m steps after a 2m ramp-up, probes a fifth of that (2m), wait Spec, the TPC-C SLA.
func newRun(warehouses int32, s benchv1.SearchSpec, steps ...benchv1.StepResult) *benchv1.BenchmarkRun {
	for i := range steps {
		steps[i].Index = int32(i)
	}
	return &benchv1.BenchmarkRun{
		Spec: benchv1.BenchmarkRunSpec{
			Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL},
			Workload: benchv1.WorkloadSpec{Warehouses: warehouses},
			Search:   s,
		},
		Status: benchv1.BenchmarkRunStatus{Steps: steps},
	}
}

// sustained gives run a spec.sustain.
func sustained(run *benchv1.BenchmarkRun, percent int32, d time.Duration) *benchv1.BenchmarkRun {
	run.Spec.Sustain = &benchv1.SustainSpec{Percent: percent, Duration: metav1.Duration{Duration: d}}
	return run
}

// withFaults gives run its spec.faults.
func withFaults(run *benchv1.BenchmarkRun, faults ...benchv1.Fault) *benchv1.BenchmarkRun {
	run.Spec.Faults = faults
	return run
}

// withSLA gives run its spec.sla.
func withSLA(run *benchv1.BenchmarkRun, s benchv1.SLASpec) *benchv1.BenchmarkRun {
	run.Spec.SLA = s
	return run
}

// withWorkload gives run its workload.duration and workload.rampUp.
func withWorkload(run *benchv1.BenchmarkRun, duration, rampUp time.Duration) *benchv1.BenchmarkRun {
	run.Spec.Workload.Duration = &metav1.Duration{Duration: duration}
	run.Spec.Workload.RampUp = &metav1.Duration{Duration: rampUp}
	return run
}

// recorded is a step of kind at active warehouses as the reconciler records it with verdict v,
// measured for the defaults' length of its kind and without figures (no transactions).
func recorded(kind benchv1.StepKind, active int32, v benchv1.StepVerdict) benchv1.StepResult {
	d := 10 * time.Minute
	switch kind {
	case benchv1.StepProbe:
		d = 2 * time.Minute
	case benchv1.StepSustain:
		d = time.Hour
	}
	return benchv1.StepResult{ActiveWarehouses: active, Kind: kind, Duration: &metav1.Duration{Duration: d}, Verdict: v,
		Compliant: v == pass, TpmC: 12 * float64(active), Efficiency: 93.31}
}

func probe(active int32, v benchv1.StepVerdict) benchv1.StepResult {
	return recorded(benchv1.StepProbe, active, v)
}

func full(active int32, v benchv1.StepVerdict) benchv1.StepResult {
	return recorded(benchv1.StepFull, active, v)
}

func sustainStep(active int32, v benchv1.StepVerdict) benchv1.StepResult {
	return recorded(benchv1.StepSustain, active, v)
}

func faultStep(active int32, v benchv1.StepVerdict) benchv1.StepResult {
	return recorded(benchv1.StepFault, active, v)
}

// because gives a step the reasons it records.
func because(s benchv1.StepResult, reasons ...string) benchv1.StepResult {
	s.Reasons = reasons
	return s
}

// measuredAt gives a step the figures of a measurement: transactions completed, efficiency,
// the worst latency bound's ratio to its limit.
func measuredAt(s benchv1.StepResult, efficiency, latencyRatio float64) benchv1.StepResult {
	s.Transactions = map[benchv1.Transaction]benchv1.TransactionStats{benchv1.NewOrder: {Count: 1000}}
	s.Efficiency, s.LatencyRatio = efficiency, latencyRatio
	return s
}

// decide is the search's decision over run's evidence, as the reconciler asks for it.
func decide(t *testing.T, run *benchv1.BenchmarkRun) search.Decision {
	t.Helper()
	params, err := SearchParams(run)
	if err != nil {
		t.Fatalf("SearchParams: %v", err)
	}
	d, err := search.Next(params, SearchEvidence(run.Status.Steps).Outcomes)
	if err != nil {
		t.Fatalf("search.Next: %v", err)
	}
	return d
}

func asJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// Fault fixtures, one of each action and scope.
var (
	killPrimary      = benchv1.Fault{Action: benchv1.FaultKillPrimary, At: metav1.Duration{Duration: 2 * time.Minute}}
	killPodEveryStep = benchv1.Fault{Action: benchv1.FaultKillPod, At: metav1.Duration{Duration: time.Minute}, In: benchv1.FaultInEveryStep, Ordinal: ptr(int32(1))}
	markResultStep   = benchv1.Fault{Action: benchv1.FaultMark, At: metav1.Duration{Duration: 3 * time.Minute}, In: benchv1.FaultInResultStep}
	markEveryStep    = benchv1.Fault{Action: benchv1.FaultMark, At: metav1.Duration{Duration: 4 * time.Minute}, In: benchv1.FaultInEveryStep}
)

var (
	fixed    = benchv1.SearchSpec{Mode: benchv1.SearchFixed}
	guided   = benchv1.SearchSpec{Mode: benchv1.SearchMaxCompliant, Strategy: benchv1.SearchGuided}
	lineFrom = func(start int32) benchv1.SearchSpec {
		return benchv1.SearchSpec{Mode: benchv1.SearchMaxCompliant, Strategy: benchv1.SearchLineSearch, StartWarehouses: ptr(start)}
	}
)

func TestNext(t *testing.T) {
	const (
		full10m  = 10 * time.Minute
		probe2m  = 2 * time.Minute
		fullKind = benchv1.StepFull
		probeK   = benchv1.StepProbe
	)
	for _, tc := range []struct {
		name string
		run  *benchv1.BenchmarkRun
		want Step
		done bool
		// reason and message of a run that cannot go on (then want is not compared).
		reason, message string
	}{
		{
			name: "fixed mode: one full step at the loaded warehouses",
			run:  newRun(100, fixed),
			want: Step{Index: 0, Active: 100, Kind: fullKind, Measured: full10m, Attempt: 1},
		},
		{
			name: "fixed mode after its step: done",
			run:  newRun(100, fixed, full(100, pass)),
			want: Step{Index: 1}, done: true,
		},
		{
			name: "guided at its start: a probe at half the loaded warehouses, a fifth of the duration",
			run:  newRun(100, guided),
			want: Step{Index: 0, Active: 50, Kind: probeK, Measured: probe2m, Attempt: 1},
		},
		{
			name: "mode and strategy left empty are the guided search",
			run:  newRun(100, benchv1.SearchSpec{}),
			want: Step{Index: 0, Active: 50, Kind: probeK, Measured: probe2m, Attempt: 1},
		},
		{
			name: "guided at search.startWarehouses, probes of search.probeDuration",
			run:  newRun(100, benchv1.SearchSpec{StartWarehouses: ptr(int32(30)), ProbeDuration: &metav1.Duration{Duration: 3 * time.Minute}}),
			want: Step{Index: 0, Active: 30, Kind: probeK, Measured: 3 * time.Minute, Attempt: 1},
		},
		{
			name: "guided with probes as long as the steps: full-length steps only",
			run:  newRun(100, benchv1.SearchSpec{ProbeDuration: &metav1.Duration{Duration: 10 * time.Minute}}),
			want: Step{Index: 0, Active: 50, Kind: fullKind, Measured: full10m, Attempt: 1},
		},
		{
			name: "line search at its start: a full step",
			run:  newRun(100, benchv1.SearchSpec{Strategy: benchv1.SearchLineSearch}),
			want: Step{Index: 0, Active: 50, Kind: fullKind, Measured: full10m, Attempt: 1},
		},
		{
			// Nothing failed yet and no figures: the estimate doubles the compliant count (100),
			// within half a precision of the top, which must be measured to end there.
			name: "guided after a compliant probe: the loaded warehouses",
			run:  newRun(100, guided, probe(50, pass)),
			want: Step{Index: 1, Active: 100, Kind: probeK, Measured: probe2m, Attempt: 1},
		},
		{
			// Bracket 50..100 without figures: the estimate is its middle, 75, and the probe goes
			// half a precision below it to raise the compliant end: floor(74.5).
			name: "guided between a compliant and a non-compliant probe",
			run:  newRun(100, guided, probe(50, pass), probe(100, fail)),
			want: Step{Index: 2, Active: 74, Kind: probeK, Measured: probe2m, Attempt: 1},
		},
		{
			// 60 % efficiency at 50 warehouses reaches the SLA's 85 % at 50·60/85 = 35.3 (the
			// latency ratio 2 predicts 50·(0.6+0.4/2) = 40, later); the probe goes half a
			// precision below: floor(34.8).
			name: "guided from a measured non-compliant probe: below the extrapolated end",
			run:  newRun(100, guided, measuredAt(probe(50, fail), 60, 2)),
			want: Step{Index: 1, Active: 34, Kind: probeK, Measured: probe2m, Attempt: 1},
		},
		{
			// With sla.minEfficiencyPercent 50 efficiency would end at 60; latency, at 40, ends
			// first: floor(39.5).
			name: "guided estimates with the run's SLA thresholds",
			run:  withSLA(newRun(100, guided, measuredAt(probe(50, fail), 60, 2)), benchv1.SLASpec{MinEfficiencyPercent: ptr(int32(50))}),
			want: Step{Index: 1, Active: 39, Kind: probeK, Measured: probe2m, Attempt: 1},
		},
		{
			name: "line search after a pass: one precision up",
			run:  newRun(100, lineFrom(50), full(50, pass)),
			want: Step{Index: 1, Active: 51, Kind: fullKind, Measured: full10m, Attempt: 1},
		},
		{
			name: "line search after a failure: one precision down",
			run:  newRun(100, lineFrom(50), full(50, fail)),
			want: Step{Index: 1, Active: 49, Kind: fullKind, Measured: full10m, Attempt: 1},
		},
		{
			name: "line search bracketed within precision: done",
			run:  newRun(100, lineFrom(50), full(50, pass), full(51, fail)),
			want: Step{Index: 2}, done: true,
		},
		{
			name: "an inconclusive step is tried again at the same warehouses",
			run:  newRun(100, guided, because(probe(50, inconclusive), "client pod evicted")),
			want: Step{Index: 1, Active: 50, Kind: probeK, Measured: probe2m, Attempt: 2},
		},
		{
			name: "the last try search.retries allows (default 2)",
			run:  newRun(100, guided, probe(50, inconclusive), probe(50, inconclusive)),
			want: Step{Index: 2, Active: 50, Kind: probeK, Measured: probe2m, Attempt: 3},
		},
		{
			name: "retries exhausted: the infrastructure failed",
			run: newRun(100, guided, because(probe(50, inconclusive), "client pod evicted"),
				because(probe(50, inconclusive), "client pod evicted"), because(probe(50, inconclusive), "Job deadline exceeded", "snapshot missing")),
			reason: benchv1.ReasonInfrastructureFailed,
			message: "the infrastructure failed, not the database: the step at 50 active warehouses (Probe) was inconclusive 3 times in a row (search.retries 2), " +
				"so no capacity is published: step 0: client pod evicted | step 1: client pod evicted | step 2: Job deadline exceeded; snapshot missing",
		},
		{
			name:   "search.retries 0: the first inconclusive step fails the run",
			run:    newRun(100, benchv1.SearchSpec{Strategy: benchv1.SearchLineSearch, Retries: ptr(int32(0))}, full(50, pass), because(full(51, inconclusive), "client pod OOM-killed")),
			reason: benchv1.ReasonInfrastructureFailed,
			message: "the infrastructure failed, not the database: the step at 51 active warehouses (Full) was inconclusive 1 times in a row (search.retries 0), " +
				"so no capacity is published: step 1: client pod OOM-killed",
		},
		{
			name: "inconclusive steps before a conclusive one are no more tries",
			run:  newRun(100, guided, probe(50, inconclusive), probe(50, inconclusive), probe(50, pass)),
			want: Step{Index: 3, Active: 100, Kind: probeK, Measured: probe2m, Attempt: 1},
		},
		{
			name: "search.maxSteps reached without a bracket: done",
			run:  newRun(100, benchv1.SearchSpec{Strategy: benchv1.SearchLineSearch, MaxSteps: 2}, full(50, pass), full(51, pass)),
			want: Step{Index: 2}, done: true,
		},
		{
			name: "inconclusive steps do not count toward search.maxSteps",
			run:  newRun(100, benchv1.SearchSpec{Strategy: benchv1.SearchLineSearch, MaxSteps: 2}, full(50, pass), full(51, inconclusive)),
			want: Step{Index: 2, Active: 51, Kind: fullKind, Measured: full10m, Attempt: 2},
		},
		{
			name: "search.maxSteps reached: the sustained step at its share of the best full step",
			run:  sustained(newRun(100, benchv1.SearchSpec{Strategy: benchv1.SearchLineSearch, MaxSteps: 2}, full(50, pass), full(51, pass)), 80, 30*time.Minute),
			want: Step{Index: 2, Active: 41, Kind: benchv1.StepSustain, Measured: 30 * time.Minute, Attempt: 1},
		},
		{
			name: "search steps apply the faults of scope EveryStep",
			run:  withFaults(newRun(100, fixed), killPrimary, killPodEveryStep),
			want: Step{Index: 0, Active: 100, Kind: fullKind, Measured: full10m, Attempt: 1, Faults: []int{1}},
		},
		{
			name: "after the search, the sustained phase at 70 % by default, without faults",
			run:  withFaults(sustained(newRun(100, fixed, full(100, pass)), 0, time.Hour), killPrimary, killPodEveryStep),
			want: Step{Index: 1, Active: 70, Kind: benchv1.StepSustain, Measured: time.Hour, Attempt: 1},
		},
		{
			name: "an inconclusive sustained step is tried again",
			run:  withFaults(sustained(newRun(100, fixed, full(100, pass), sustainStep(70, inconclusive)), 0, time.Hour), killPrimary),
			want: Step{Index: 2, Active: 70, Kind: benchv1.StepSustain, Measured: time.Hour, Attempt: 2},
		},
		{
			name: "after the sustained phase, the fault step at the result's load with the ResultStep faults",
			run:  withFaults(sustained(newRun(100, fixed, full(100, pass), sustainStep(70, pass)), 0, time.Hour), killPrimary, killPodEveryStep),
			want: Step{Index: 2, Active: 100, Kind: benchv1.StepFault, Measured: full10m, Attempt: 1, Faults: []int{0}},
		},
		{
			name: "a sustained phase that broke the SLA is not repeated",
			run:  withFaults(sustained(newRun(100, fixed, full(100, pass), sustainStep(70, fail)), 0, time.Hour), killPrimary),
			want: Step{Index: 2, Active: 100, Kind: benchv1.StepFault, Measured: full10m, Attempt: 1, Faults: []int{0}},
		},
		{
			name: "the fault step is as long as the workload's steps",
			run:  withWorkload(withFaults(newRun(100, lineFrom(50), full(50, pass), full(51, fail)), markResultStep), 7*time.Minute, time.Minute),
			want: Step{Index: 2, Active: 50, Kind: benchv1.StepFault, Measured: 7 * time.Minute, Attempt: 1, Faults: []int{0}},
		},
		{
			name: "an inconclusive fault step is tried again",
			run:  withFaults(newRun(100, fixed, full(100, pass), faultStep(100, inconclusive)), killPrimary),
			want: Step{Index: 2, Active: 100, Kind: benchv1.StepFault, Measured: full10m, Attempt: 2, Faults: []int{0}},
		},
		{
			name: "after the fault step: done",
			run:  withFaults(sustained(newRun(100, fixed, full(100, pass), sustainStep(70, pass), faultStep(100, fail)), 0, time.Hour), killPrimary),
			want: Step{Index: 3}, done: true,
		},
		{
			name: "no compliant load: neither the sustained nor the fault step",
			run:  withFaults(sustained(newRun(100, fixed, full(100, fail)), 0, time.Hour), killPrimary),
			want: Step{Index: 1}, done: true,
		},
		{
			name:    "an SLA that cannot be read",
			run:     withSLA(newRun(100, fixed), benchv1.SLASpec{MaxErrorPercent: "one"}),
			reason:  "InvalidSLA",
			message: `spec.sla.maxErrorPercent "one": strconv.ParseFloat: parsing "one": invalid syntax`,
		},
		{
			name:    "a history the search would not have chosen",
			run:     newRun(100, guided, full(50, pass)),
			reason:  "SearchInconsistent",
			message: "search history: step 1 was a Full step but the search chose a Probe step: the search parameters changed or status is corrupt",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, done, reason, message := Next(tc.run)
			if reason != tc.reason || message != tc.message {
				t.Fatalf("reason %q, message %q\nwant %q, %q", reason, message, tc.reason, tc.message)
			}
			if done != tc.done {
				t.Errorf("done = %v, want %v", done, tc.done)
			}
			if tc.reason == "" && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next = %+v\nwant   %+v", got, tc.want)
			}
		})
	}
}

func TestSearchParams(t *testing.T) {
	for _, tc := range []struct {
		name    string
		run     *benchv1.BenchmarkRun
		want    search.Params
		wantErr string
	}{
		{
			name: "defaults: guided over the loaded warehouses with probes, the SLA's thresholds",
			run:  newRun(100, benchv1.SearchSpec{}),
			want: search.Params{Mode: search.MaxCompliant, Strategy: search.Guided, Warehouses: 100, Probes: true, StepTime: 12 * time.Minute, ProbeTime: 4 * time.Minute, MinEfficiencyPercent: 85, MaxErrorPercent: 1},
		},
		{
			name: "fixed mode",
			run:  newRun(100, fixed),
			want: search.Params{Mode: search.Fixed, Strategy: search.Guided, Warehouses: 100, Probes: true, StepTime: 12 * time.Minute, ProbeTime: 4 * time.Minute, MinEfficiencyPercent: 85, MaxErrorPercent: 1},
		},
		{
			name: "line search from search.startWarehouses",
			run:  newRun(400, lineFrom(120)),
			want: search.Params{Mode: search.MaxCompliant, Strategy: search.LineSearch, Warehouses: 400, Start: 120, Probes: true, StepTime: 12 * time.Minute, ProbeTime: 4 * time.Minute, MinEfficiencyPercent: 85, MaxErrorPercent: 1},
		},
		{
			name: "probes as long as the steps are no probes",
			run:  newRun(100, benchv1.SearchSpec{ProbeDuration: &metav1.Duration{Duration: 15 * time.Minute}}),
			want: search.Params{Mode: search.MaxCompliant, Strategy: search.Guided, Warehouses: 100, StepTime: 12 * time.Minute, ProbeTime: 12 * time.Minute, MinEfficiencyPercent: 85, MaxErrorPercent: 1},
		},
		{
			// With wait Spec a probe lasts at least 30s: a 30s step leaves no room for one.
			name: "30s steps under wait Spec have no probes",
			run:  withWorkload(newRun(100, guided), 30*time.Second, time.Minute),
			want: search.Params{Mode: search.MaxCompliant, Strategy: search.Guided, Warehouses: 100, StepTime: 90 * time.Second, ProbeTime: 90 * time.Second, MinEfficiencyPercent: 85, MaxErrorPercent: 1},
		},
		{
			name: "the SLA's thresholds",
			run:  withSLA(newRun(100, guided), benchv1.SLASpec{MinEfficiencyPercent: ptr(int32(70)), MaxErrorPercent: "0.5"}),
			want: search.Params{Mode: search.MaxCompliant, Strategy: search.Guided, Warehouses: 100, Probes: true, StepTime: 12 * time.Minute, ProbeTime: 4 * time.Minute, MinEfficiencyPercent: 70, MaxErrorPercent: 0.5},
		},
		{
			name: "a latency bound that cannot be read",
			run: withSLA(newRun(100, guided), benchv1.SLASpec{Latency: []benchv1.LatencyBound{
				{Transaction: benchv1.NewOrder, Percentile: "ninety", Max: metav1.Duration{Duration: time.Second}}}}),
			wantErr: `spec.sla.latency[0].percentile "ninety": strconv.ParseFloat: parsing "ninety": invalid syntax`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SearchParams(tc.run)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("SearchParams = %+v\nwant           %+v", got, tc.want)
			}
		})
	}
}

func TestSLACriteria(t *testing.T) {
	bound := func(tx benchv1.Transaction, percentile string, max time.Duration) benchv1.LatencyBound {
		return benchv1.LatencyBound{Transaction: tx, Percentile: percentile, Max: metav1.Duration{Duration: max}}
	}
	overridden := sla.DefaultCriteria()
	overridden.MinEfficiencyPercent, overridden.MaxErrorPercent = 90, 2.5
	overridden.Latency = []sla.LatencyBound{{Transaction: snapshot.NewOrder, Percentile: 99.9, Max: 2 * time.Second},
		{Transaction: snapshot.StockLevel, Percentile: 50, Max: 3 * time.Second}}
	noEfficiency := sla.DefaultCriteria()
	noEfficiency.MinEfficiencyPercent = 0
	for _, tc := range []struct {
		name    string
		sla     benchv1.SLASpec
		want    sla.Criteria
		wantErr string
	}{
		{name: "omitted: the TPC-C limits, 85 % efficiency, 1 % errors", want: sla.DefaultCriteria()},
		{
			name: "every field given: the latency bounds replace the defaults",
			sla: benchv1.SLASpec{MinEfficiencyPercent: ptr(int32(90)), MaxErrorPercent: "2.5",
				Latency: []benchv1.LatencyBound{bound(benchv1.NewOrder, "99.9", 2*time.Second), bound(benchv1.StockLevel, "50", 3*time.Second)}},
			want: overridden,
		},
		{name: "minEfficiencyPercent 0 is kept", sla: benchv1.SLASpec{MinEfficiencyPercent: ptr(int32(0))}, want: noEfficiency},
		{name: "maxErrorPercent not a number", sla: benchv1.SLASpec{MaxErrorPercent: "1%"},
			wantErr: `spec.sla.maxErrorPercent "1%": strconv.ParseFloat: parsing "1%": invalid syntax`},
		{name: "percentile not a number", sla: benchv1.SLASpec{Latency: []benchv1.LatencyBound{bound(benchv1.Payment, "90", time.Second), bound(benchv1.Delivery, "p90", time.Second)}},
			wantErr: `spec.sla.latency[1].percentile "p90": strconv.ParseFloat: parsing "p90": invalid syntax`},
		{name: "percentile outside (0, 100)", sla: benchv1.SLASpec{Latency: []benchv1.LatencyBound{bound(benchv1.Payment, "100", time.Second)}},
			wantErr: "latency[0].percentile: 100 is outside (0, 100)"},
		{name: "max not positive", sla: benchv1.SLASpec{Latency: []benchv1.LatencyBound{bound(benchv1.Payment, "90", 0)}},
			wantErr: "latency[0].max: 0s, must be > 0"},
		{name: "unknown transaction", sla: benchv1.SLASpec{Latency: []benchv1.LatencyBound{bound("Refund", "90", time.Second)}},
			wantErr: `latency[0].transaction: unknown transaction "Refund"`},
		{name: "maxErrorPercent above 100", sla: benchv1.SLASpec{MaxErrorPercent: "101"},
			wantErr: "maxErrorPercent: 101 is outside 0..100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SLACriteria(withSLA(newRun(10, fixed), tc.sla))
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SLACriteria = %+v\nwant          %+v", got, tc.want)
			}
		})
	}
}

func TestSearchEvidence(t *testing.T) {
	measured := measuredAt(probe(50, pass), 97.5, 0.4)
	measured.Transactions = map[benchv1.Transaction]benchv1.TransactionStats{benchv1.NewOrder: {Count: 450}, benchv1.Payment: {Count: 540}}
	measured.Errors = 10 // 10 of 1000 attempted
	legacyPass := full(74, "")
	legacyPass.Compliant = true
	legacyFail := full(75, "")
	unnamedKind := full(60, pass)
	unnamedKind.Kind = ""
	steps := []benchv1.StepResult{
		measured,                         // 0
		probe(100, inconclusive),         // 1: no evidence
		probe(100, fail),                 // 2: no transactions, so no figures
		legacyPass,                       // 3: no verdict, Compliant
		legacyFail,                       // 4: no verdict, not Compliant
		sustainStep(52, pass),            // 5: after the search
		faultStep(74, fail),              // 6: after the search
		unnamedKind,                      // 7: no kind reads as Full
		measuredAt(full(61, fail), 0, 0), // 8: measured, nothing efficient
	}
	for i := range steps {
		steps[i].Index = int32(i)
	}
	got := SearchEvidence(steps)
	want := Evidence{
		Outcomes: []search.StepOutcome{
			{ActiveWarehouses: 50, Compliant: true, Kind: search.Probe, Measured: true, EfficiencyPercent: 97.5, LatencyRatio: 0.4, ErrorPercent: 1},
			{ActiveWarehouses: 100, Kind: search.Probe},
			{ActiveWarehouses: 74, Compliant: true, Kind: search.Full},
			{ActiveWarehouses: 75, Kind: search.Full},
			{ActiveWarehouses: 60, Compliant: true, Kind: search.Full},
			{ActiveWarehouses: 61, Kind: search.Full, Measured: true},
		},
		At: []int{0, 2, 3, 4, 7, 8},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SearchEvidence =\n%+v\nwant\n%+v", got, want)
	}
	if e := SearchEvidence(nil); e.Outcomes != nil || e.At != nil {
		t.Errorf("SearchEvidence(nil) = %+v, want none", e)
	}
}

func TestEvidenceStep(t *testing.T) {
	e := Evidence{At: []int{0, 2, 5}}
	for _, tc := range []struct{ i, want int }{
		{-1, -1}, {0, 0}, {1, 2}, {2, 5}, {3, -1}, {100, -1},
	} {
		if got := e.Step(tc.i); got != tc.want {
			t.Errorf("Step(%d) = %d, want %d", tc.i, got, tc.want)
		}
	}
	if got := (Evidence{}).Step(0); got != -1 {
		t.Errorf("Step(0) of no evidence = %d, want -1", got)
	}
}

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name    string
		retries *int32
		want    int32
	}{
		{"omitted: 2", nil, 2},
		{"0", ptr(int32(0)), 0},
		{"5", ptr(int32(5)), 5},
	} {
		if got := Retries(newRun(10, benchv1.SearchSpec{Retries: tc.retries})); got != tc.want {
			t.Errorf("%s: Retries = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestAttemptOf(t *testing.T) {
	legacyFail := full(50, "")
	for _, tc := range []struct {
		name  string
		steps []benchv1.StepResult
		want  int32
	}{
		{"no steps", nil, 1},
		{"after a conclusive step", []benchv1.StepResult{full(50, pass)}, 1},
		{"after a non-compliant step without a verdict", []benchv1.StepResult{legacyFail}, 1},
		{"after one inconclusive step", []benchv1.StepResult{full(50, inconclusive)}, 2},
		{"after two in a row", []benchv1.StepResult{full(50, pass), full(51, inconclusive), full(51, inconclusive)}, 3},
		{"only the last ones in a row count", []benchv1.StepResult{full(50, inconclusive), full(50, fail), full(49, inconclusive)}, 2},
	} {
		if got := attemptOf(tc.steps); got != tc.want {
			t.Errorf("%s: attemptOf = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestSustainStepPlan(t *testing.T) {
	for _, tc := range []struct {
		name   string
		run    *benchv1.BenchmarkRun
		want   int32
		wantOK bool
	}{
		{name: "no spec.sustain", run: newRun(10, fixed, full(10, pass))},
		{name: "percent omitted: 70 % of the result", run: sustained(newRun(10, fixed, full(10, pass)), 0, time.Hour), want: 7, wantOK: true},
		{name: "rounded to the nearest: 33 % of 10 is 3", run: sustained(newRun(10, fixed, full(10, pass)), 33, time.Hour), want: 3, wantOK: true},
		{name: "rounded half up: 45 % of 10 is 5", run: sustained(newRun(10, fixed, full(10, pass)), 45, time.Hour), want: 5, wantOK: true},
		{name: "at least 1: 1 % of 10", run: sustained(newRun(10, fixed, full(10, pass)), 1, time.Hour), want: 1, wantOK: true},
		{name: "100 %", run: sustained(newRun(10, fixed, full(10, pass)), 100, time.Hour), want: 10, wantOK: true},
		{name: "no compliant step", run: sustained(newRun(10, fixed, full(10, fail)), 50, time.Hour)},
		{name: "a compliant sustained step ran", run: sustained(newRun(10, fixed, full(10, pass), sustainStep(7, pass)), 0, time.Hour)},
		{name: "a non-compliant sustained step ran", run: sustained(newRun(10, fixed, full(10, pass), sustainStep(7, fail)), 0, time.Hour)},
		{name: "only an inconclusive sustained step ran", run: sustained(newRun(10, fixed, full(10, pass), sustainStep(7, inconclusive)), 0, time.Hour), want: 7, wantOK: true},
		{
			name: "at a share of the line search's answer",
			run:  sustained(newRun(100, lineFrom(50), full(50, pass), full(51, fail)), 50, time.Hour),
			want: 25, wantOK: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := SustainStepPlan(tc.run, decide(t, tc.run))
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("SustainStepPlan = %d, %v; want %d, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
