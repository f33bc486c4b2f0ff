package run

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
)

// A sustained phase after the search: a 5-minute step at 70 % of the 8 warehouses found, judged
// minute by minute; a standby whose replay falls behind from minute 3 on (under
// sla.maxReplicationLag 1s) breaks it there, and the run says when, why and what the database
// showed, beside the search's figure.
func TestSustainedPhaseReportsWhenItBroke(t *testing.T) {
	ns := ct.NewNamespace(t, "sustain")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Workload.Interval = &metav1.Duration{Duration: 10 * time.Second}
	run.Spec.SLA.MaxReplicationLag = &metav1.Duration{Duration: time.Second}
	run.Spec.Sustain = &benchv1.SustainSpec{Percent: 70, Duration: metav1.Duration{Duration: 5 * time.Minute}}
	ct.CreateLoaded(t, run)
	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, func(step int, _ []*corev1.Pod) {
		if step == 0 { // the next step's standby s1 falls behind from interval 20 (minute 3:20)
			pods.ReplayLag = func(i int) time.Duration {
				if i >= 20 {
					return 3 * time.Second
				}
				return 5 * time.Millisecond
			}
		}
	})
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) != 2 {
		t.Fatalf("phase %s, steps %v, conditions %+v", got.Status.Phase, ct.StepSummary(got), got.Status.Conditions)
	}
	search, sustain := got.Status.Steps[0], got.Status.Steps[1]
	if !search.Compliant || got.Status.Result.MaxCompliantWarehouses != 8 {
		t.Fatalf("search step %+v, result %+v", search, got.Status.Result)
	}
	if sustain.Kind != benchv1.StepSustain || sustain.ActiveWarehouses != 6 || sustain.Duration.Duration != 5*time.Minute || sustain.Sustain == nil {
		t.Fatalf("sustained step: kind %s at %d warehouses for %v, record %+v", sustain.Kind, sustain.ActiveWarehouses, sustain.Duration, sustain.Sustain)
	}
	rec := sustain.Sustain
	if rec.Held || rec.Windows != 5 || rec.BrokenWindows != 2 || rec.Window.Duration != time.Minute || rec.FirstBreach == nil ||
		rec.FirstBreach.After.Duration != 3*time.Minute || len(rec.FirstBreach.Reasons) != 1 ||
		rec.FirstBreach.Reasons[0] != "replication lag: standby s1 replay lag 3s > 1s" {
		t.Fatalf("sustained record %+v (first breach %+v)", rec, rec.FirstBreach)
	}
	if !strings.Contains(strings.Join(rec.FirstBreach.Signals, "; "), "standby s1 largest replay lag 3s") {
		t.Errorf("signals %q", rec.FirstBreach.Signals)
	}
	s := got.Status.Result.Sustained
	if s == nil || s.Held || s.Step != 1 || s.ActiveWarehouses != 6 || s.BrokeAfter == nil || s.BrokeAfter.Duration != 3*time.Minute || s.TpmC <= 0 {
		t.Fatalf("result's sustained %+v", s)
	}
	// The search's figure stands, with the phase that did not hold beside it in the result's
	// message (the report's first line); SLACompliant agrees: the load was not held.
	sla := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionSLACompliant)
	if *got.Status.Result.Step != 0 || sla == nil || sla.Status != metav1.ConditionFalse || sla.Reason != "NotSustained" ||
		!strings.Contains(got.Status.Result.Message, "8 active warehouses compliant") || !strings.Contains(got.Status.Result.Message, "but not sustained: at 6 active warehouses") {
		t.Errorf("result %+v, SLACompliant %+v", got.Status.Result, sla)
	}
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionSustained)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != "Broke" || !strings.Contains(c.Message, "first broke 3m0s into the 5m0s phase") {
		t.Errorf("Sustained %+v", c)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(run)}, cm); err != nil {
		t.Fatal(err)
	}
	if err := ct.ContainsAll(cm.Data["report.md"], "Sustained: NOT held — at 6 active warehouses (step 1) the SLA first broke 3m0s into the 5m0s phase",
		"2 of 5 windows of 1m0s broke it", "Trend over the phase"); err != nil {
		t.Error(err)
	}
}
