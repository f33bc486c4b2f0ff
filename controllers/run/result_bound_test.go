package run

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
)

// assertFloor checks a succeeded run whose result is only a floor: status.result.bound, the
// SLACompliant condition's reason and its advice, and the report's "≥ N".
func assertFloor(t *testing.T, got *benchv1.BenchmarkRun, bound benchv1.ResultBound, warehouses int32, reason, advice string) {
	t.Helper()
	if got.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("phase %s; conditions %+v", got.Status.Phase, got.Status.Conditions)
	}
	result := got.Status.Result
	if result == nil || result.Bound != bound || result.MaxCompliantWarehouses != warehouses {
		t.Fatalf("result %+v, want bound %s at %d warehouses; steps %v", result, bound, warehouses, ct.StepSummary(got))
	}
	sla := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionSLACompliant)
	if sla == nil || sla.Status != metav1.ConditionTrue || sla.Reason != reason || !strings.Contains(sla.Message, advice) ||
		!strings.Contains(sla.Message, "a floor, not a capacity") {
		t.Errorf("SLACompliant %+v, want True with reason %s saying %q", sla, reason, advice)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: got.Namespace, Name: got.Status.Report.ConfigMapName}, cm); err != nil {
		t.Fatalf("report: %v", err)
	}
	floor := bound.Warehouses(warehouses) // "≥ N"
	for _, key := range []string{"report.md", "report.html"} {
		if !strings.Contains(cm.Data[key], floor) || !strings.Contains(cm.Data[key], string(bound)) {
			t.Errorf("%s does not say %q (%s)", key, floor, bound)
		}
	}
}

// A database compliant at every loaded warehouse: the run ends with a floor, not a capacity.
func TestAllLoadedCompliantRunIsAFloor(t *testing.T) {
	ns := ct.NewNamespace(t, "floor-loaded")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 8, 4)
	ct.CreateLoaded(t, run)
	got := ct.DriveSteps(t, run, pods, ct.Boundary(1000), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	assertFloor(t, got, benchv1.BoundAllLoadedCompliant, 8, "FloorAllLoadedCompliant", "load more warehouses")
}

// A search search.maxSteps stops before a non-compliant full step brackets its best compliant one
// ends with a floor, and says to raise search.maxSteps.
func TestSearchStoppedByMaxStepsIsAFloor(t *testing.T) {
	ns := ct.NewNamespace(t, "floor-steps")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 40, 20)
	run.Spec.Search.Strategy, run.Spec.Search.MaxSteps = benchv1.SearchLineSearch, 2
	ct.CreateLoaded(t, run)
	got := ct.DriveSteps(t, run, pods, ct.Boundary(27), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	if len(got.Status.Steps) != 2 {
		t.Errorf("%d steps, want search.maxSteps=2: %v", len(got.Status.Steps), ct.StepSummary(got))
	}
	// The line search from 20 with a step of 1 ran 20 and 21, both compliant.
	assertFloor(t, got, benchv1.BoundStepsExhausted, 21, "FloorStepsExhausted", "raise search.maxSteps")
}
