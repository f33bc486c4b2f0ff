package run

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// The study's shape at its worst: 256 client pods a step. status.steps stays within the budget
// at 100 steps, the latest step keeps its lists, the shed ones name their ConfigMap, and a short
// run is left as it is.
func TestBoundStepDetail(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "big"}}
	for _, c := range []struct {
		name             string
		steps, pods      int
		inconclusiveAt   int // a step that ended before it measured (no telemetry), -1 for none
		wantWithinBudget bool
	}{
		{"a short run keeps everything", 6, 4, -1, true},
		{"256 pods × 100 steps", 100, 256, -1, true},
		{"an unmeasured step keeps its placement", 30, 256, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var steps []benchv1.StepResult
			for i := range c.steps {
				s := reportOf(1, c.pods, 0).Steps[0].Step
				s.Index = int32(i)
				if i == c.inconclusiveAt {
					s.Telemetry = nil
				}
				steps = append(steps, s)
				boundStepDetail(run, steps, StepDetailBudget) // as recordStep does, one step at a time
			}
			size := stepsSize(steps)
			if c.wantWithinBudget && size > StepDetailBudget {
				t.Errorf("status.steps is %d bytes, over %d", size, StepDetailBudget)
			}
			last := steps[len(steps)-1]
			if len(last.Telemetry.Pods) != c.pods || len(last.Placement.Pods) != c.pods || last.DetailIn != "" {
				t.Errorf("the latest step lost its detail: %d pods, detailIn %q", len(last.Telemetry.Pods), last.DetailIn)
			}
			shed := 0
			for i, s := range steps {
				if s.DetailIn == "" {
					continue
				}
				shed++
				if s.DetailIn != fmt.Sprintf("big-step-%d", i) || len(s.Telemetry.Pods) != 0 || len(s.Placement.Pods) != 0 || s.TpmC != 200000 {
					t.Errorf("step %d shed to %q keeps %d pods, tpmC %v", i, s.DetailIn, len(s.Telemetry.Pods), s.TpmC)
				}
			}
			if c.pods > 4 && shed == 0 {
				t.Errorf("nothing shed at %d pods × %d steps", c.pods, c.steps)
			}
			if c.pods <= 4 && shed != 0 {
				t.Errorf("%d steps shed in a run far below the budget", shed)
			}
			if c.inconclusiveAt >= 0 {
				if s := steps[c.inconclusiveAt]; s.DetailIn != "" || len(s.Placement.Pods) != c.pods {
					t.Errorf("the unmeasured step %d was shed (detailIn %q): it has no ConfigMap", c.inconclusiveAt, s.DetailIn)
				}
			}
			t.Logf("%d steps × %d pods: status.steps %d bytes, %d steps shed", c.steps, c.pods, size, shed)
		})
	}
}
