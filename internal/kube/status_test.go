package kube

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestEndConditions(t *testing.T) {
	failed := metav1.Condition{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "DatabaseNotReady", Message: "the database was not ready"}
	cases := []struct {
		name        string
		phase       benchv1.Phase
		before      []metav1.Condition
		message     string
		ready       metav1.ConditionStatus
		ended       metav1.ConditionStatus
		reason      string
		wantMessage string
	}{
		{"new", "", nil, "", metav1.ConditionFalse, metav1.ConditionFalse, "Pending", ""},
		{"under way", benchv1.PhaseRunning, nil, "step 2", metav1.ConditionFalse, metav1.ConditionFalse, "Running", "step 2"},
		{"succeeded", benchv1.PhaseSucceeded, nil, "found 14", metav1.ConditionTrue, metav1.ConditionTrue, benchv1.ReasonSucceeded, "found 14"},
		{"failed, from its condition", benchv1.PhaseFailed, []metav1.Condition{failed}, "ignored", metav1.ConditionFalse, metav1.ConditionTrue, "DatabaseNotReady", "the database was not ready"},
		{"failed without a condition", benchv1.PhaseFailed, nil, "", metav1.ConditionFalse, metav1.ConditionTrue, "Failed", "Failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conditions := append([]metav1.Condition(nil), c.before...)
			EndConditions(&conditions, 4, c.phase, c.message)
			for typ, want := range map[string]metav1.ConditionStatus{benchv1.ConditionReady: c.ready, benchv1.ConditionEnded: c.ended} {
				got := meta.FindStatusCondition(conditions, typ)
				if got == nil || got.Status != want || got.Reason != c.reason || got.ObservedGeneration != 4 {
					t.Fatalf("%s = %+v, want %s with reason %s at generation 4", typ, got, want, c.reason)
				}
				if c.wantMessage != "" && got.Message != c.wantMessage {
					t.Errorf("%s message %q, want %q", typ, got.Message, c.wantMessage)
				}
			}
		})
	}
}

func TestSetConditionKeepsTheTransitionTimeOfAnUnchangedStatus(t *testing.T) {
	var conditions []metav1.Condition
	SetCondition(&conditions, 1, "DataLoaded", metav1.ConditionFalse, "Loading", "1 of 2")
	first := conditions[0].LastTransitionTime
	time.Sleep(1100 * time.Millisecond) // transition times have seconds' precision
	SetCondition(&conditions, 2, "DataLoaded", metav1.ConditionFalse, "Loading", "2 of 2")
	if c := conditions[0]; !c.LastTransitionTime.Equal(&first) || c.Message != "2 of 2" || c.ObservedGeneration != 2 {
		t.Errorf("same status: %+v, want the first transition time %s and the new message", c, first)
	}
	SetCondition(&conditions, 2, "DataLoaded", metav1.ConditionTrue, "Loaded", "")
	if c := conditions[0]; c.LastTransitionTime.Equal(&first) || len(conditions) != 1 {
		t.Errorf("changed status kept its transition time: %+v", conditions)
	}
}

func TestJobCondition(t *testing.T) {
	job := &batchv1.Job{Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobSuspended, Status: corev1.ConditionFalse},
		{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded"},
	}}}
	if c := JobCondition(job, batchv1.JobFailed); c == nil || c.Reason != "BackoffLimitExceeded" {
		t.Errorf("Failed: %+v", c)
	}
	if c := JobCondition(job, batchv1.JobSuspended); c != nil {
		t.Errorf("a false condition is returned: %+v", c)
	}
	if c := JobCondition(job, batchv1.JobComplete); c != nil {
		t.Errorf("an absent condition is returned: %+v", c)
	}
}

func TestMergeRequeue(t *testing.T) {
	cases := []struct {
		name   string
		result ctrl.Result
		wait   time.Duration
		want   ctrl.Result
	}{
		{"no wait", ctrl.Result{RequeueAfter: time.Minute}, 0, ctrl.Result{RequeueAfter: time.Minute}},
		{"sooner wait", ctrl.Result{RequeueAfter: time.Minute}, time.Second, ctrl.Result{RequeueAfter: time.Second}},
		{"later wait", ctrl.Result{RequeueAfter: time.Second}, time.Minute, ctrl.Result{RequeueAfter: time.Second}},
		{"no requeue yet", ctrl.Result{}, 30 * time.Second, ctrl.Result{RequeueAfter: 30 * time.Second}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := MergeRequeue(c.result, c.wait); got != c.want {
				t.Errorf("MergeRequeue(%+v, %s) = %+v, want %+v", c.result, c.wait, got, c.want)
			}
		})
	}
}

func TestOwnedByAndWhose(t *testing.T) {
	owner := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "pg", UID: "uid-pg"}}
	controlled := &corev1.ConfigMap{}
	yes := true
	controlled.OwnerReferences = []metav1.OwnerReference{{Kind: "BenchmarkRun", Name: "pg", UID: "uid-pg", Controller: &yes}}
	annotated := &corev1.ConfigMap{}
	annotated.Annotations = map[string]string{OwnerUIDAnnotation: "uid-pg"}
	other := &corev1.ConfigMap{}
	other.Annotations = map[string]string{OwnerUIDAnnotation: "uid-other"}
	foreign := &corev1.ConfigMap{}
	cases := []struct {
		name  string
		obj   *corev1.ConfigMap
		owned bool
		whose string
	}{
		{"controlled", controlled, true, "controlled by BenchmarkRun pg, uid uid-pg"},
		{"annotated", annotated, true, "written for another run or suite, uid uid-pg"},
		{"another run's", other, false, "written for another run or suite, uid uid-other"},
		{"someone else's", foreign, false, "not created by tpcc-operator for it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := OwnedBy(c.obj, owner); got != c.owned {
				t.Errorf("OwnedBy = %t, want %t", got, c.owned)
			}
			if got := Whose(c.obj); got != c.whose {
				t.Errorf("Whose = %q, want %q", got, c.whose)
			}
		})
	}
}
