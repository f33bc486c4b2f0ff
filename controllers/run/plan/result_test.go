package plan

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// drive runs the plan as the reconciler does: ask Next, record the step it plans with the verdict
// verdict gives it (and the reasons of a non-compliant or inconclusive one), ask again, until
// Next says done. It returns the steps planned, as "kind active for measured, attempt n, faults f".
func drive(t *testing.T, run *benchv1.BenchmarkRun, verdict func(Step) benchv1.StepVerdict) []string {
	t.Helper()
	var planned []string
	for range 40 {
		next, done, reason, message := Next(run)
		if reason != "" {
			t.Fatalf("after %v: %s: %s", planned, reason, message)
		}
		if done {
			return planned
		}
		if next.Index != int32(len(run.Status.Steps)) {
			t.Fatalf("step %d planned with %d recorded", next.Index, len(run.Status.Steps))
		}
		planned = append(planned, fmt.Sprintf("%s %d for %v, attempt %d, faults %v", next.Kind, next.Active, next.Measured, next.Attempt, next.Faults))
		v := verdict(next)
		s := benchv1.StepResult{Index: next.Index, ActiveWarehouses: next.Active, Kind: next.Kind, Duration: &metav1.Duration{Duration: next.Measured},
			Attempt: next.Attempt, Verdict: v, Compliant: v == pass, TpmC: 12 * float64(next.Active), Efficiency: 93.31}
		if v != pass {
			s.Reasons = []string{fmt.Sprintf("%s at %d", v, next.Active)}
		}
		run.Status.Steps = append(run.Status.Steps, s)
	}
	t.Fatalf("the plan did not end: %v", planned)
	return nil
}

// TestNextDrivesARunToItsResult drives whole runs against a database compliant up to a boundary
// and checks every step planned, the result and the SLACompliant condition.
func TestNextDrivesARunToItsResult(t *testing.T) {
	for _, tc := range []struct {
		name     string
		run      *benchv1.BenchmarkRun
		verdict  func(Step) benchv1.StepVerdict
		want     []string
		result   benchv1.Result
		sla      metav1.ConditionStatus
		slaCause string
	}{
		{
			// Without figures the guided search bisects with probes (the estimate is the
			// bracket's middle; the first failure halves, the first pass doubles), each half a
			// precision below the estimate, then confirms at full length: a pass at 37, a
			// failure one precision above. The probe at 36 is inconclusive once and tried again.
			// Then the sustained phase at 50 % of 37 (18.5, rounded to 19) and the fault step at
			// 37, which breaks the SLA.
			name: "guided with probes, 100 warehouses, compliant up to 37",
			run:  withFaults(sustained(newRun(100, guided), 50, time.Hour), killPrimary, markEveryStep),
			verdict: func(s Step) benchv1.StepVerdict {
				switch {
				case s.Active == 36 && s.Attempt == 1:
					return inconclusive
				case s.Kind == benchv1.StepFault:
					return fail
				case s.Active <= 37:
					return pass
				}
				return fail
			},
			want: []string{
				"Probe 50 for 2m0s, attempt 1, faults [1]",
				"Probe 24 for 2m0s, attempt 1, faults [1]",
				"Probe 36 for 2m0s, attempt 1, faults [1]",
				"Probe 36 for 2m0s, attempt 2, faults [1]",
				"Probe 42 for 2m0s, attempt 1, faults [1]",
				"Probe 38 for 2m0s, attempt 1, faults [1]",
				"Probe 37 for 2m0s, attempt 1, faults [1]",
				"Full 37 for 10m0s, attempt 1, faults [1]",
				"Full 38 for 10m0s, attempt 1, faults [1]",
				"Sustain 19 for 1h0m0s, attempt 1, faults []",
				"Fault 37 for 10m0s, attempt 1, faults [0]",
			},
			result: benchv1.Result{MaxCompliantWarehouses: 37, Bound: benchv1.BoundBracketed, TpmC: 444, Efficiency: 93.31, Step: ptr(int32(7)), Precision: 1, RestsOn: []int32{7, 8},
				// 7 probes (the retry included) of 2m + 2m ramp-up, 2 full steps of 10m + 2m.
				SearchTime: &metav1.Duration{Duration: 52 * time.Minute},
				Bottleneck: &benchv1.Bottleneck{Resource: benchv1.BottleneckNotDetermined, Step: ptr(int32(8)), Evidence: []string{"step 8 recorded no telemetry to read"}},
				Message:    "37 active warehouses compliant: 444.0 tpmC, 93.31% efficiency (compliant at 37, non-compliant at 38: within precision 1)"},
			sla:      metav1.ConditionFalse,
			slaCause: "FaultStepNonCompliant",
		},
		{
			// tpccbench's line search from the middle (200), precision 400/200 = 2: down by
			// doubling steps to 74, then up and halving back to the bracket 122..124
			// (internal/search's "default start and precision").
			name: "line search, 400 warehouses, compliant up to 123",
			run:  newRun(400, benchv1.SearchSpec{Strategy: benchv1.SearchLineSearch}),
			verdict: func(s Step) benchv1.StepVerdict {
				if s.Active <= 123 {
					return pass
				}
				return fail
			},
			want: []string{
				"Full 200 for 10m0s, attempt 1, faults []", "Full 198 for 10m0s, attempt 1, faults []",
				"Full 194 for 10m0s, attempt 1, faults []", "Full 186 for 10m0s, attempt 1, faults []",
				"Full 170 for 10m0s, attempt 1, faults []", "Full 138 for 10m0s, attempt 1, faults []",
				"Full 74 for 10m0s, attempt 1, faults []", "Full 106 for 10m0s, attempt 1, faults []",
				"Full 122 for 10m0s, attempt 1, faults []", "Full 130 for 10m0s, attempt 1, faults []",
				"Full 126 for 10m0s, attempt 1, faults []", "Full 124 for 10m0s, attempt 1, faults []",
			},
			result: benchv1.Result{MaxCompliantWarehouses: 122, Bound: benchv1.BoundBracketed, TpmC: 1464, Efficiency: 93.31, Step: ptr(int32(8)), Precision: 2, RestsOn: []int32{8, 11},
				SearchTime: &metav1.Duration{Duration: 12 * 12 * time.Minute},
				Bottleneck: &benchv1.Bottleneck{Resource: benchv1.BottleneckNotDetermined, Step: ptr(int32(11)), Evidence: []string{"step 11 recorded no telemetry to read"}},
				Message:    "122 active warehouses compliant: 1464.0 tpmC, 93.31% efficiency (compliant at 122, non-compliant at 124: within precision 2)"},
			sla:      metav1.ConditionTrue,
			slaCause: "CompliantStepFound",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := drive(t, tc.run, tc.verdict)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("steps planned:\n%q\nwant\n%q", got, tc.want)
			}
			result := Result(tc.run, decide(t, tc.run), SearchEvidence(tc.run.Status.Steps))
			if !reflect.DeepEqual(result, tc.result) {
				t.Errorf("Result =\n%s\nwant\n%s", asJSON(result), asJSON(tc.result))
			}
			if status, reason, _ := SLACompliance(tc.run, result); status != tc.sla || reason != tc.slaCause {
				t.Errorf("SLACompliance = %s %s, want %s %s", status, reason, tc.sla, tc.slaCause)
			}
		})
	}
}

func TestResult(t *testing.T) {
	// A database at the step's limit: its telemetry names the saturated resource.
	saturated := func(s benchv1.StepResult, r benchv1.BottleneckResource, evidence string) benchv1.StepResult {
		s.Telemetry = &benchv1.StepTelemetry{Bottleneck: &benchv1.Bottleneck{Resource: r, Evidence: []string{evidence}}}
		return s
	}
	noTelemetry := func(step int32) *benchv1.Bottleneck {
		return &benchv1.Bottleneck{Resource: benchv1.BottleneckNotDetermined, Step: ptr(step), Evidence: []string{fmt.Sprintf("step %d recorded no telemetry to read", step)}}
	}
	minutes := func(m int) *metav1.Duration { return &metav1.Duration{Duration: time.Duration(m) * time.Minute} }

	// The search's time counts the inconclusive try (only its ramp-up: it recorded no duration),
	// not the sustained or fault step.
	retried := withWorkload(newRun(100, fixed, full(100, inconclusive), full(100, pass), sustainStep(70, pass), faultStep(100, pass)), 5*time.Minute, time.Minute)
	retried.Status.Steps[0].Duration = nil
	retried.Status.Steps[1].Duration = minutes(5)

	for _, tc := range []struct {
		name string
		run  *benchv1.BenchmarkRun
		want benchv1.Result
	}{
		{
			name: "fixed mode, compliant: precision of 1000 warehouses is 5",
			run:  newRun(1000, fixed, full(1000, pass)),
			want: benchv1.Result{MaxCompliantWarehouses: 1000, Bound: benchv1.BoundAllLoadedCompliant, TpmC: 12000, Efficiency: 93.31, Step: ptr(int32(0)), Precision: 5, RestsOn: []int32{0},
				SearchTime: minutes(12), Bottleneck: noTelemetry(0),
				Message: "1000 active warehouses compliant: 12000.0 tpmC, 93.31% efficiency (fixed mode: compliant at 1000 warehouses); a floor, not a capacity: ≥ 1000 warehouses; load more warehouses and search with mode MaxCompliant to find the limit"},
		},
		{
			name: "fixed mode, non-compliant: bound by its step",
			run:  newRun(1000, fixed, saturated(full(1000, fail), benchv1.BottleneckDiskLatency, "WAL fsync p99 41ms")),
			want: benchv1.Result{Bound: benchv1.BoundNoneCompliant, Precision: 5, RestsOn: []int32{0}, SearchTime: minutes(12),
				Bottleneck: &benchv1.Bottleneck{Resource: benchv1.BottleneckDiskLatency, Step: ptr(int32(0)), Evidence: []string{"WAL fsync p99 41ms"}},
				Message:    "no step was compliant (fixed mode: non-compliant at 1000 warehouses)"},
		},
		{
			name: "bracketed: rests on both full steps, bound by the non-compliant one",
			run: newRun(100, lineFrom(50), saturated(full(50, pass), benchv1.BottleneckLockWaits, "lock waits 3%"),
				saturated(full(51, fail), benchv1.BottleneckDatabaseCPU, "database CPU 98% of its limit")),
			want: benchv1.Result{MaxCompliantWarehouses: 50, Bound: benchv1.BoundBracketed, TpmC: 600, Efficiency: 93.31, Step: ptr(int32(0)), Precision: 1, RestsOn: []int32{0, 1},
				SearchTime: minutes(24),
				Bottleneck: &benchv1.Bottleneck{Resource: benchv1.BottleneckDatabaseCPU, Step: ptr(int32(1)), Evidence: []string{"database CPU 98% of its limit"}},
				Message:    "50 active warehouses compliant: 600.0 tpmC, 93.31% efficiency (compliant at 50, non-compliant at 51: within precision 1)"},
		},
		{
			name: "compliant at every loaded warehouse: rests on that step alone",
			run:  newRun(10, lineFrom(10), full(10, pass)),
			want: benchv1.Result{MaxCompliantWarehouses: 10, Bound: benchv1.BoundAllLoadedCompliant, TpmC: 120, Efficiency: 93.31, Step: ptr(int32(0)), Precision: 1, RestsOn: []int32{0},
				SearchTime: minutes(12), Bottleneck: noTelemetry(0),
				Message: "10 active warehouses compliant: 120.0 tpmC, 93.31% efficiency (compliant at all 10 loaded warehouses: load more warehouses to find the limit); a floor, not a capacity: ≥ 10 warehouses"},
		},
		{
			name: "non-compliant at 1 warehouse",
			run:  newRun(10, lineFrom(1), full(1, fail)),
			want: benchv1.Result{Bound: benchv1.BoundNoneCompliant, Precision: 1, RestsOn: []int32{0}, SearchTime: minutes(12), Bottleneck: noTelemetry(0),
				Message: "no step was compliant (no active warehouse count is compliant: 1 warehouse failed)"},
		},
		{
			// 50 and 51 passed, 53 failed; the search would run 52 next.
			name: "stopped by search.maxSteps: the highest compliant full step, no bound above it",
			run:  newRun(100, benchv1.SearchSpec{Strategy: benchv1.SearchLineSearch, MaxSteps: 3}, full(50, pass), full(51, pass), full(53, fail)),
			want: benchv1.Result{MaxCompliantWarehouses: 51, Bound: benchv1.BoundStepsExhausted, TpmC: 612, Efficiency: 93.31, Step: ptr(int32(1)), Precision: 1, RestsOn: []int32{1},
				SearchTime: minutes(36), Bottleneck: noTelemetry(1),
				Message: "51 active warehouses compliant: 612.0 tpmC, 93.31% efficiency (stopped after search.maxSteps=3 steps, full-length bracket 51..53); a floor, not a capacity: ≥ 51 warehouses, no non-compliant full-length step within precision above; raise search.maxSteps to close the bracket"},
		},
		{
			name: "stopped by search.maxSteps with only a probe compliant: no result",
			run:  newRun(100, benchv1.SearchSpec{MaxSteps: 2}, probe(50, pass), probe(100, fail)),
			want: benchv1.Result{Bound: benchv1.BoundStepsExhausted, Precision: 1, SearchTime: minutes(8),
				Message: "no step was compliant (stopped after search.maxSteps=2 steps, full-length bracket 0..101); raise search.maxSteps to let the search find a compliant full-length step"},
		},
		{
			name: "the result's step is its index in status.steps, after a retry",
			run:  retried,
			want: benchv1.Result{MaxCompliantWarehouses: 100, Bound: benchv1.BoundAllLoadedCompliant, TpmC: 1200, Efficiency: 93.31, Step: ptr(int32(1)), Precision: 1, RestsOn: []int32{1},
				SearchTime: minutes(7), Bottleneck: noTelemetry(1),
				Message: "100 active warehouses compliant: 1200.0 tpmC, 93.31% efficiency (fixed mode: compliant at 100 warehouses); a floor, not a capacity: ≥ 100 warehouses; load more warehouses and search with mode MaxCompliant to find the limit"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Result(tc.run, decide(t, tc.run), SearchEvidence(tc.run.Status.Steps))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Result =\n%s\nwant\n%s", asJSON(got), asJSON(tc.want))
			}
		})
	}
}

// The result's tpmC per resource is read from the result's own step; its bottleneck is a copy of
// the bounding step's, which keeps its own.
func TestResultEqualTerms(t *testing.T) {
	own := full(50, pass)
	own.TpmC = 600
	own.Telemetry = &benchv1.StepTelemetry{Pods: []benchv1.PodUsage{
		{Name: "db-1", Role: "Database", PeakCPU: resource.MustParse("1500m"), PeakMemory: resource.MustParse("3Gi")},
		{Name: "db-2", Role: "Database", PeakCPU: resource.MustParse("500m"), PeakMemory: resource.MustParse("1Gi")},
		{Name: "client-0", Role: "Client", PeakCPU: resource.MustParse("8"), PeakMemory: resource.MustParse("8Gi")},
	}}
	above := full(51, fail)
	above.Telemetry = &benchv1.StepTelemetry{Bottleneck: &benchv1.Bottleneck{Resource: benchv1.BottleneckReplication, Evidence: []string{"standby replay lag 4s"}}}
	run := newRun(100, lineFrom(50), own, above)

	got := Result(run, decide(t, run), SearchEvidence(run.Status.Steps))
	if len(got.PerResource) != 1 {
		t.Fatalf("PerResource = %s, want the database pods' peak alone", asJSON(got.PerResource))
	}
	p := got.PerResource[0]
	if p.Basis != benchv1.BasisPeak || p.CPU == nil || p.CPU.Cmp(resource.MustParse("2")) != 0 || p.Memory == nil || p.Memory.Cmp(resource.MustParse("4Gi")) != 0 {
		t.Errorf("PerResource = %s, want the peak of 2 CPUs and 4Gi", asJSON(p))
	}
	if p.TpmCPerVCPU == nil || *p.TpmCPerVCPU != 300 || p.TpmCPerGiB == nil || *p.TpmCPerGiB != 150 {
		t.Errorf("PerResource = %s, want 300 tpmC per vCPU and 150 per GiB", asJSON(p))
	}
	want := &benchv1.Bottleneck{Resource: benchv1.BottleneckReplication, Step: ptr(int32(1)), Evidence: []string{"standby replay lag 4s"}}
	if !reflect.DeepEqual(got.Bottleneck, want) {
		t.Errorf("Bottleneck = %s, want %s", asJSON(got.Bottleneck), asJSON(want))
	}
	if s := run.Status.Steps[1].Telemetry.Bottleneck.Step; s != nil {
		t.Errorf("the step's own bottleneck was changed: step %d", *s)
	}
}

func TestSLACompliance(t *testing.T) {
	compliant := benchv1.Result{MaxCompliantWarehouses: 100, Step: ptr(int32(0)), Message: "100 active warehouses compliant"}
	none := benchv1.Result{Message: "no step was compliant"}
	floorAt := func(b benchv1.ResultBound) benchv1.Result { r := compliant; r.Bound = b; return r }
	legacyFault := faultStep(100, "")
	legacyFault.Reasons = []string{"errors 3.20% > 1%"}
	for _, tc := range []struct {
		name            string
		run             *benchv1.BenchmarkRun
		result          benchv1.Result
		status          metav1.ConditionStatus
		reason, message string
	}{
		{
			name: "no compliant step", run: newRun(100, fixed, full(100, fail)), result: none,
			status: metav1.ConditionFalse, reason: "NoCompliantStep", message: "no step was compliant",
		},
		{
			name: "no compliant step, whatever the fault step", run: newRun(100, fixed, full(100, fail), faultStep(100, fail)), result: none,
			status: metav1.ConditionFalse, reason: "NoCompliantStep", message: "no step was compliant",
		},
		{
			name: "a compliant step, no fault step", run: newRun(100, fixed, full(100, pass)), result: compliant,
			status: metav1.ConditionTrue, reason: "CompliantStepFound", message: "100 active warehouses compliant",
		},
		{
			name: "non-compliant search steps do not count", run: newRun(100, lineFrom(50), full(50, pass), full(51, fail)), result: compliant,
			status: metav1.ConditionTrue, reason: "CompliantStepFound", message: "100 active warehouses compliant",
		},
		{
			name: "a compliant fault step", run: newRun(100, fixed, full(100, pass), faultStep(100, pass)), result: compliant,
			status: metav1.ConditionTrue, reason: "CompliantStepFound", message: "100 active warehouses compliant",
		},
		{
			name: "an inconclusive fault step says nothing", run: newRun(100, fixed, full(100, pass), faultStep(100, inconclusive)), result: compliant,
			status: metav1.ConditionTrue, reason: "CompliantStepFound", message: "100 active warehouses compliant",
		},
		{
			name: "a non-compliant sustained step is not a fault step", run: newRun(100, fixed, full(100, pass), sustainStep(70, fail)), result: compliant,
			status: metav1.ConditionTrue, reason: "CompliantStepFound", message: "100 active warehouses compliant",
		},
		{
			name: "compliant at every loaded warehouse: a floor", run: newRun(100, lineFrom(100), full(100, pass)),
			result: floorAt(benchv1.BoundAllLoadedCompliant),
			status: metav1.ConditionTrue, reason: "FloorAllLoadedCompliant", message: "100 active warehouses compliant",
		},
		{
			name: "stopped by search.maxSteps: a floor", run: newRun(200, lineFrom(100), full(100, pass)),
			result: floorAt(benchv1.BoundStepsExhausted),
			status: metav1.ConditionTrue, reason: "FloorStepsExhausted", message: "100 active warehouses compliant",
		},
		{
			name:   "a floor whose fault step broke the SLA",
			run:    newRun(100, fixed, full(100, pass), because(faultStep(100, fail), "errors 3.20% > 1%")),
			result: floorAt(benchv1.BoundAllLoadedCompliant), status: metav1.ConditionFalse, reason: "FaultStepNonCompliant",
			message: "100 active warehouses compliant; but fault step 1 at 100 active warehouses is not compliant: errors 3.20% > 1%",
		},
		{
			name:   "a non-compliant fault step",
			run:    newRun(100, fixed, full(100, pass), because(faultStep(100, fail), "unavailability 41s > sla.maxUnavailability 30s", "ledger: 2 commits lost")),
			result: compliant, status: metav1.ConditionFalse, reason: "FaultStepNonCompliant",
			message: "100 active warehouses compliant; but fault step 1 at 100 active warehouses is not compliant: unavailability 41s > sla.maxUnavailability 30s; ledger: 2 commits lost",
		},
		{
			name:   "a fault step without a verdict reads by Compliant",
			run:    newRun(100, fixed, full(100, pass), faultStep(100, inconclusive), legacyFault),
			result: compliant, status: metav1.ConditionFalse, reason: "FaultStepNonCompliant",
			message: "100 active warehouses compliant; but fault step 2 at 100 active warehouses is not compliant: errors 3.20% > 1%",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, reason, message := SLACompliance(tc.run, tc.result)
			if status != tc.status || reason != tc.reason || message != tc.message {
				t.Errorf("SLACompliance = %s, %s, %q\nwant            %s, %s, %q", status, reason, message, tc.status, tc.reason, tc.message)
			}
		})
	}
}
