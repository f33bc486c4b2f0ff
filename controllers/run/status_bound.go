package run

import (
	"encoding/json"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// boundStepDetail keeps status.steps to per-step summaries: every measured step's per-pod
// telemetry and placement live in its step ConfigMap, which recordStep writes before the step is
// appended, and the step names it (DetailIn). A step that ended before it measured has no
// ConfigMap (and no telemetry) and keeps its placement. Readers that need the lists put them back
// from the ConfigMaps (stepdetail.Restore).
func boundStepDetail(run *benchv1.BenchmarkRun, steps []benchv1.StepResult) {
	for i := range steps {
		if steps[i].Telemetry == nil || !hasPodLists(steps[i]) {
			continue
		}
		steps[i] = withoutPods(steps[i])
		steps[i].DetailIn = StepConfigMapName(run, steps[i].Index)
	}
}

func hasPodLists(s benchv1.StepResult) bool {
	return (s.Telemetry != nil && len(s.Telemetry.Pods) > 0) || (s.Placement != nil && len(s.Placement.Pods) > 0)
}

func stepsSize(steps []benchv1.StepResult) int {
	b, err := json.Marshal(steps)
	if err != nil {
		return 0
	}
	return len(b)
}
