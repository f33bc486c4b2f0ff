package stepdetail

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestRestore(t *testing.T) {
	pods := func(n int) ([]benchv1.PodUsage, []benchv1.PodPlacementRecord) {
		var u []benchv1.PodUsage
		var p []benchv1.PodPlacementRecord
		for i := range n {
			name := string(rune('a' + i))
			u = append(u, benchv1.PodUsage{Name: name, Role: "Client", PeakCPU: resource.MustParse("1")})
			p = append(p, benchv1.PodPlacementRecord{Name: name, Role: "Client", Node: "n"})
		}
		return u, p
	}
	full := func(index int32, n int) benchv1.StepResult {
		u, p := pods(n)
		return benchv1.StepResult{Index: index, TpmC: 100, Telemetry: &benchv1.StepTelemetry{Intervals: 6, Pods: u},
			Placement: &benchv1.StepPlacement{Primary: "db-1", Pods: p}}
	}
	summary := func(index int32) benchv1.StepResult {
		return benchv1.StepResult{Index: index, TpmC: 100, Telemetry: &benchv1.StepTelemetry{Intervals: 6},
			Placement: &benchv1.StepPlacement{Primary: "db-1", Pods: []benchv1.PodPlacementRecord{}}, DetailIn: "r-step-" + string(rune('0'+index))}
	}
	for _, c := range []struct {
		name     string
		steps    []benchv1.StepResult
		records  map[int32]benchv1.StepResult
		wantPods []int // per step, telemetry pods after
		wantSame bool  // run itself returned
	}{
		{"nothing moved out: the run itself", []benchv1.StepResult{full(0, 2)}, nil, []int{2}, true},
		{"moved out, restored", []benchv1.StepResult{summary(0), summary(1)},
			map[int32]benchv1.StepResult{0: full(0, 3), 1: full(1, 4)}, []int{3, 4}, false},
		{"a record missing: the summary stays", []benchv1.StepResult{summary(0), summary(1)},
			map[int32]benchv1.StepResult{1: full(1, 4)}, []int{0, 4}, false},
		{"an unmeasured step (no telemetry) keeps its own placement", []benchv1.StepResult{{Index: 0, Placement: full(0, 2).Placement}, summary(1)},
			map[int32]benchv1.StepResult{1: full(1, 1)}, []int{-1, 1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Steps: c.steps}}
			before := run.DeepCopy()
			got := Restore(run, c.records)
			if (got == run) != c.wantSame {
				t.Errorf("returned the run itself: %v, want %v", got == run, c.wantSame)
			}
			if !c.wantSame && !equality.Semantic.DeepEqual(run, before) {
				t.Error("Restore changed the run it was given")
			}
			for i, want := range c.wantPods {
				s := got.Status.Steps[i]
				if want < 0 {
					if s.Telemetry != nil || len(s.Placement.Pods) != 2 {
						t.Errorf("step %d: %+v", i, s)
					}
					continue
				}
				if len(s.Telemetry.Pods) != want || len(s.Placement.Pods) != want {
					t.Errorf("step %d: %d telemetry pods, %d placed, want %d", i, len(s.Telemetry.Pods), len(s.Placement.Pods), want)
				}
				if _, ok := c.records[s.Index]; ok && s.DetailIn != "" {
					t.Errorf("step %d restored keeps detailIn %q", i, s.DetailIn)
				}
				if s.TpmC != 100 || s.Placement.Primary != "db-1" {
					t.Errorf("step %d lost its summary: %+v", i, s)
				}
			}
		})
	}
}

func TestRecordOf(t *testing.T) {
	rec, err := RecordOf(`{"step": {"index": 4, "activeWarehouses": 10, "tpmC": 1, "efficiency": 2, "compliant": true,
		"telemetry": {"intervals": 1, "pods": [{"name": "p", "role": "Client", "peakCPU": "1", "peakMemory": "1Mi"}]}}, "summary": {}}`)
	if err != nil || rec.Index != 4 || len(rec.Telemetry.Pods) != 1 {
		t.Fatalf("%+v, %v", rec, err)
	}
	if _, err := RecordOf("{"); err == nil {
		t.Error("a broken step.json read without an error")
	}
}
