package run

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// finalCheckRun runs one fixed step at 8 of 8 warehouses through the manager in namespace ns,
// whose check after the last step ends as verdict says (nil: every condition holds and the
// orders match the ledger).
func finalCheckRun(t *testing.T, name string, verdict func(*benchv1.BenchmarkRun) snapshot.CheckSummary) *benchv1.BenchmarkRun {
	t.Helper()
	ns := ct.NewNamespace(t, name)
	if verdict != nil {
		ct.SetFinalCheck(ns, verdict)
	}
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, name, 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	ct.CreateLoaded(t, run)
	return ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
}

// The check after the last step runs before the result is published, over the whole dataset,
// and the New-Orders the steps acknowledged are found in the orders the database gained.
func TestFinalCheckPassesIntoTheResult(t *testing.T) {
	got := finalCheckRun(t, "fcpass", nil)
	if got.Status.Phase != benchv1.PhaseSucceeded || got.Status.Result == nil {
		t.Fatalf("phase %s, conditions %+v", got.Status.Phase, got.Status.Conditions)
	}
	c := got.Status.Result.ConsistencyCheck
	if c == nil || !c.Passed || c.Conditions != 12 || c.ConditionsPassed != 12 || c.FirstFailure != "" || c.Duration == nil || c.Duration.Duration != 1500*time.Millisecond {
		t.Fatalf("result.consistencyCheck %+v", c)
	}
	step := got.Status.Steps[0]
	if step.NewOrders == nil || step.NewOrders.Acknowledged <= 0 || !step.NewOrders.Complete {
		t.Fatalf("step 0 ledger %+v, want every pod's acknowledged New-Orders, complete", step.NewOrders)
	}
	l := c.Ledger
	if l == nil || !l.Checked || !l.Pass || !l.Exact || l.Acknowledged != step.NewOrders.Acknowledged || l.Growth != l.Acknowledged {
		t.Errorf("ledger %+v", l)
	}
	if !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.ConditionSLACompliant) {
		t.Errorf("SLACompliant not true: %+v", got.Status.Conditions)
	}
	// The check's Job is gone once read; the report says what the check found.
	ct.Eventually(t, 10*time.Second, func() error {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: got.Namespace, Name: jobs.FinalCheckJobName(got)}, &batchv1.Job{})
		if err == nil {
			return fmt.Errorf("Job %s still exists", jobs.FinalCheckJobName(got))
		}
		return client.IgnoreNotFound(err)
	})
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: got.Namespace, Name: ReportConfigMapName(got)}, cm); err != nil {
		t.Fatal(err)
	}
	if err := ct.ContainsAll(cm.Data["report.md"], "consistency check after the last step: passed", "12 of 12 conditions"); err != nil {
		t.Error(err)
	}
}

// A condition broken after the measured steps voids the result: the run fails naming it, and
// SLACompliant, the result's message and the report's first lines agree.
func TestFinalCheckFailureVoidsTheResult(t *testing.T) {
	got := finalCheckRun(t, "fcfail", func(run *benchv1.BenchmarkRun) snapshot.CheckSummary {
		s := ct.PassingCheck(run)
		s.Passed = 11
		s.FirstFailure = &snapshot.CheckFailure{ID: "3.3.2.8", Name: "W_YTD = sum(H_AMOUNT)", Detail: "w_id=3 w_ytd=301234.00 sum_h_amount=301000.00"}
		return s
	})
	assertVoided(t, got, "InconsistentAfterRun", "3.3.2.8 W_YTD = sum(H_AMOUNT): first offender w_id=3", "11 of 12 conditions held")
}

// Fewer orders than acknowledged New-Orders is a lost commit, even when every condition holds.
func TestFinalCheckLedgerFindsALostCommit(t *testing.T) {
	got := finalCheckRun(t, "fclost", func(run *benchv1.BenchmarkRun) snapshot.CheckSummary {
		s := ct.PassingCheck(run)
		s.Dataset.Rows["orders"] -= 5
		return s
	})
	assertVoided(t, got, "AcknowledgedCommitLost", "5 acknowledged commits are missing")
}

func assertVoided(t *testing.T, got *benchv1.BenchmarkRun, reason string, parts ...string) {
	t.Helper()
	if got.Status.Phase != benchv1.PhaseFailed {
		t.Fatalf("phase %s, want Failed; conditions %+v", got.Status.Phase, got.Status.Conditions)
	}
	failed := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
	sla := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionSLACompliant)
	if failed == nil || failed.Reason != reason || sla == nil || sla.Status != metav1.ConditionFalse || sla.Reason != reason {
		t.Fatalf("Failed %+v, SLACompliant %+v; want both %s", failed, sla, reason)
	}
	if err := ct.ContainsAll(failed.Message, parts...); err != nil {
		t.Errorf("Failed: %v", err)
	}
	r := got.Status.Result
	if r == nil || r.ConsistencyCheck == nil || r.ConsistencyCheck.Passed || !strings.HasPrefix(r.Message, "No result: ") {
		t.Fatalf("result %+v", r)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: got.Namespace, Name: ReportConfigMapName(got)}, cm); err != nil {
		t.Fatal(err)
	}
	if md := cm.Data["report.md"]; !strings.Contains(md[:min(len(md), 600)], "No result: ") {
		t.Errorf("the report's first lines do not say the result is void:\n%s", md[:min(len(md), 600)])
	}
}
