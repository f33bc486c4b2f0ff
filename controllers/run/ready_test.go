package run

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Ready and Ended follow the phase: False with the phase as reason while under way; both True with
// Succeeded; on failure Ready False and Ended True, both with the failure's reason and message.
func TestReadyAndEndedFollowThePhase(t *testing.T) {
	failed := []metav1.Condition{{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "LoadFailed", Message: "Job x-load failed"}}
	tests := []struct {
		name                string
		status              benchv1.BenchmarkRunStatus
		ready, ended        metav1.ConditionStatus
		reason, wantMessage string
	}{
		{"new", benchv1.BenchmarkRunStatus{}, "False", "False", "Pending", "not started"},
		{"deploying", benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseDeploying, Conditions: []metav1.Condition{
			{Type: benchv1.ConditionDatabaseReady, Status: "False", Reason: "ClusterNotReady", Message: "2/3 instances ready"}}},
			"False", "False", "Deploying", "waiting for the database: 2/3 instances ready"},
		{"loading", benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseLoading, Load: &benchv1.LoadStatus{Warehouses: 8}}, "False", "False", "Loading", "loading 8 warehouses"},
		{"switching after the load", benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseLoading,
			Load: &benchv1.LoadStatus{Warehouses: 8, WarehousesLoaded: 8, CompletionTime: &metav1.Time{}},
			Conditions: []metav1.Condition{{Type: benchv1.ConditionDatabaseReady, Status: "False", Reason: benchv1.ReasonSwitchingResources,
				Message: "switching from loadResources to the measured resources (cpu 150m): 1/3 pods restarted"}}},
			"False", "False", "Loading", "8 warehouses loaded; switching from loadResources to the measured resources (cpu 150m): 1/3 pods restarted"},
		{"loaded, switch done", benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseLoading,
			Load:       &benchv1.LoadStatus{Warehouses: 8, WarehousesLoaded: 8, CompletionTime: &metav1.Time{}},
			Conditions: []metav1.Condition{{Type: benchv1.ConditionDatabaseReady, Status: "True", Reason: benchv1.ReasonResourcesSwitched, Message: "every instance"}}},
			"False", "False", "Loading", "loading 8 warehouses"},
		{"running", benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseRunning, Steps: []benchv1.StepResult{{}},
			Current: &benchv1.StepProgress{Index: 1, ActiveWarehouses: 6}}, "False", "False", "Running", "step 1 at 6 active warehouses; 1 step(s) recorded"},
		{"succeeded", benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseSucceeded, Result: &benchv1.Result{Message: "6 active warehouses compliant"}},
			"True", "True", "Succeeded", "6 active warehouses compliant"},
		{"failed", benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseFailed, Conditions: failed}, "False", "True", "LoadFailed", "Job x-load failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.status.DeepCopy()
			runReadyConditions(s, 3)
			for ct, want := range map[string]metav1.ConditionStatus{benchv1.ConditionReady: tt.ready, benchv1.ConditionEnded: tt.ended} {
				c := meta.FindStatusCondition(s.Conditions, ct)
				if c == nil || c.Status != want || c.Reason != tt.reason || c.Message != tt.wantMessage || c.ObservedGeneration != 3 {
					t.Errorf("%s = %+v, want %s, %s, %q", ct, c, want, tt.reason, tt.wantMessage)
				}
			}
		})
	}
}
