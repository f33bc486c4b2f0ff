package run

import (
	"encoding/json"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// StepDetailBudget bounds the bytes of status.steps (JSON) while per-pod lists remain in it: a
// step of 256 client pods carries about 94 KB of per-pod telemetry and placement, and etcd refuses
// objects over 1.5 MiB.
const StepDetailBudget = 512 << 10

// boundStepDetail sheds the per-pod telemetry and placement of the oldest measured steps, which
// their ConfigMaps keep (DetailIn names it), until status.steps fits budget or only the latest step
// keeps its lists. Below the budget nothing changes. A step that ended before it measured has no
// ConfigMap (and no telemetry) and keeps its placement.
func boundStepDetail(run *benchv1.BenchmarkRun, steps []benchv1.StepResult, budget int) {
	size := stepsSize(steps)
	for i := 0; i < len(steps)-1 && size > budget; i++ {
		if steps[i].Telemetry == nil || !hasPodLists(steps[i]) {
			continue
		}
		before := stepsSize(steps[i : i+1])
		steps[i] = withoutPods(steps[i])
		steps[i].DetailIn = StepConfigMapName(run, steps[i].Index)
		size -= before - stepsSize(steps[i:i+1])
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
