package controllers

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
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// A sustained phase after the search: a 5-minute step at 70 % of the 8 warehouses found, judged
// minute by minute; a standby whose replay falls behind from minute 3 on (under
// sla.maxReplicationLag 1s) breaks it there, and the run says when, why and what the database
// showed, beside the search's figure.
func TestSustainedPhaseReportsWhenItBroke(t *testing.T) {
	ns := newNamespace(t, "sustain")
	pods := newClientPods()
	startManager(t, ns, testConfig(pods))
	run := newRun(ns, "pg", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Workload.Interval = &metav1.Duration{Duration: 10 * time.Second}
	run.Spec.SLA.MaxReplicationLag = &metav1.Duration{Duration: time.Second}
	run.Spec.Sustain = &benchv1.SustainSpec{Percent: 70, Duration: metav1.Duration{Duration: 5 * time.Minute}}
	createLoaded(t, run)
	got := driveSteps(t, run, pods, boundary(100), &jobUIDs{seen: map[string][]types.UID{}}, func(step int, _ []*corev1.Pod) {
		if step == 0 { // the next step's standby s1 falls behind from interval 20 (minute 3:20)
			pods.replayLag = func(i int) time.Duration {
				if i >= 20 {
					return 3 * time.Second
				}
				return 5 * time.Millisecond
			}
		}
	})
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) != 2 {
		t.Fatalf("phase %s, steps %v, conditions %+v", got.Status.Phase, stepSummary(got), got.Status.Conditions)
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
	// The search's figure stands; beside it, the phase that did not hold.
	if *got.Status.Result.Step != 0 || !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.ConditionSLACompliant) {
		t.Errorf("result %+v, conditions %+v", got.Status.Result, got.Status.Conditions)
	}
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionSustained)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != "Broke" || !strings.Contains(c.Message, "first broke 3m0s into the 5m0s phase") {
		t.Errorf("Sustained %+v", c)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(run)}, cm); err != nil {
		t.Fatal(err)
	}
	if err := containsAll(cm.Data["report.md"], "Sustained: NOT held — at 6 active warehouses (step 1) the SLA first broke 3m0s into the 5m0s phase",
		"2 of 5 windows of 1m0s broke it", "Trend over the phase"); err != nil {
		t.Error(err)
	}
}

// The windows cover the measured interval only: not the ramp-up, and not the interval the clients
// seal after its end (a real client does: transactions that complete after the end), which would
// otherwise be judged as a window of its own. A 3-minute phase at 10-s intervals after a 10-s
// ramp-up is intervals 1..18: three windows of a minute, whatever the clients send around them.
func TestSustainWindowsCoverTheMeasuredIntervalOnly(t *testing.T) {
	run := newRun("ns", "pg", 8, 8)
	run.Spec.Workload.Interval = &metav1.Duration{Duration: 10 * time.Second}
	run.Spec.Workload.RampUp = &metav1.Duration{Duration: 10 * time.Second}
	run.Spec.Sustain = &benchv1.SustainSpec{Percent: 70, Duration: metav1.Duration{Duration: 3 * time.Minute},
		Window: &metav1.Duration{Duration: time.Minute}}
	w := newSustainWatch(run, 6, sla.Criteria{MinEfficiencyPercent: 85})
	if w.From != 1 || w.To != 19 || w.Size != 6 {
		t.Fatalf("watch from %d to %d, %d per window; want 1, 19, 6", w.From, w.To, w.Size)
	}
	for i := 0; i <= 19; i++ { // the ramp-up's interval 0 and the one after the end, 19
		if err := w.add(snapshot.MergedInterval{Index: i, Seconds: 10}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if len(w.Windows) != 3 {
		t.Fatalf("%d windows, want 3", len(w.Windows))
	}
	for i, win := range w.Windows {
		if win.From != 1+6*i || win.Seconds != 60 {
			t.Errorf("window %d from interval %d, %gs; want from %d, 60s", i, win.From, win.Seconds, 1+6*i)
		}
	}
	// A watch saved before To existed (0) takes every interval after the ramp-up, as it did.
	old := &sustainWatch{From: 1, Size: 6, LengthSeconds: 10, Active: 6}
	for i := 0; i <= 19; i++ {
		if err := old.add(snapshot.MergedInterval{Index: i, Seconds: 10}); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.close(); err != nil || len(old.Windows) != 4 {
		t.Errorf("a saved watch without To: %d windows (%v), want 4", len(old.Windows), err)
	}
}
