// Package stepdetail puts a run's per-pod step detail back: status keeps each measured step's
// summary, and the step's per-pod telemetry and placement live in its step ConfigMap (step.json,
// named by the step's detailIn). The reports, the placement table and the per-resource figures
// read the per-pod lists: readers put them back with Restore before rendering.
package stepdetail

import (
	"encoding/json"
	"fmt"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// RecordOf is the step record a step ConfigMap's step.json holds (its "step").
func RecordOf(stepJSON string) (benchv1.StepResult, error) {
	var data struct {
		Step benchv1.StepResult `json:"step"`
	}
	if err := json.Unmarshal([]byte(stepJSON), &data); err != nil {
		return benchv1.StepResult{}, fmt.Errorf("step.json: %w", err)
	}
	return data.Step, nil
}

// Restore is run with the per-pod telemetry and placement of every step that names its
// detailIn put back from records (the steps' ConfigMap records, by index), detailIn cleared:
// the run as its status read before the lists moved out. A step without a record stays as it
// is. run itself is returned when no step changes, else a copy.
func Restore(run *benchv1.BenchmarkRun, records map[int32]benchv1.StepResult) *benchv1.BenchmarkRun {
	var out *benchv1.BenchmarkRun
	for i, s := range run.Status.Steps {
		rec, ok := records[s.Index]
		if s.DetailIn == "" || !ok {
			continue
		}
		if out == nil {
			out = run.DeepCopy()
		}
		out.Status.Steps[i] = WithPods(out.Status.Steps[i], rec)
	}
	if out == nil {
		return run
	}
	return out
}

// WithPods is s with rec's per-pod telemetry and placement (rec: the step's ConfigMap
// record), detailIn cleared; s's own lists are not changed.
func WithPods(s, rec benchv1.StepResult) benchv1.StepResult {
	if s.Telemetry != nil && rec.Telemetry != nil {
		t := *s.Telemetry
		t.Pods = rec.Telemetry.Pods
		s.Telemetry = &t
	}
	if s.Placement != nil && rec.Placement != nil {
		p := *s.Placement
		p.Pods = rec.Placement.Pods
		s.Placement = &p
	}
	s.DetailIn = ""
	return s
}
