package run

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
)

// databasePods plays CloudNativePG's instances: pods <cluster>-1..n controlled by the Cluster,
// with its label. It returns their UIDs by name.
func databasePods(t *testing.T, namespace, cluster string, n int) map[string]types.UID {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("postgresql.cnpg.io/v1")
	u.SetKind("Cluster")
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: cluster}, u); err != nil {
		t.Fatal(err)
	}
	uids := map[string]types.UID{}
	for i := 1; i <= n; i++ {
		uids[fmt.Sprintf("%s-%d", cluster, i)] = createInstancePod(t, u, i)
	}
	return uids
}

func createInstancePod(t *testing.T, cluster *unstructured.Unstructured, i int) types.UID {
	t.Helper()
	yes := true
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: cluster.GetNamespace(), Name: fmt.Sprintf("%s-%d", cluster.GetName(), i),
			Labels: map[string]string{"cnpg.io/cluster": cluster.GetName()},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster", Name: cluster.GetName(),
				UID: cluster.GetUID(), Controller: &yes}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres", Image: "postgres:test"}}},
	}
	if err := k8s.Create(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	if err := k8s.Status().Update(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	return pod.UID
}

// setClusterRoles writes what CloudNativePG reports of its instances: the primary, since when,
// and how many are ready.
func setClusterRoles(t *testing.T, namespace, name, primary string, since time.Time, ready int64) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("postgresql.cnpg.io/v1")
	u.SetKind("Cluster")
	ct.Eventually(t, 20*time.Second, func() error {
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, u); err != nil {
			return err
		}
		status, _, _ := unstructured.NestedMap(u.Object, "status")
		status["currentPrimary"] = primary
		status["currentPrimaryTimestamp"] = since.UTC().Format(metav1.RFC3339Micro)
		status["readyInstances"] = ready
		u.Object["status"] = status
		return k8s.Status().Update(context.Background(), u)
	})
}

// completeJobWhenCreated plays the Job controller for one Job in the background: when it appears,
// it completes.
func completeJobWhenCreated(t *testing.T, namespace, name string) *atomic.Bool {
	done := &atomic.Bool{}
	go func() {
		deadline := time.Now().Add(3 * time.Minute)
		for time.Now().Before(deadline) {
			job := &batchv1.Job{}
			if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, job); err == nil {
				now := metav1.Now()
				job.Status.StartTime, job.Status.CompletionTime, job.Status.Succeeded = &now, &now, 1
				job.Status.Conditions = []batchv1.JobCondition{
					{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now},
					{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now},
				}
				if err := k8s.Status().Update(context.Background(), job); err == nil {
					done.Store(true)
					return
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return done
}

// The result step with KillPrimary: after the search, one more step at the result's load in
// which the primary's pod is deleted 5 s into the measured interval — exactly once, although the
// manager restarts right after the deletion. The clients' scripted per-second series (7 s
// without a commit) gives the unavailability, which sla.maxUnavailability 5s rejects; the
// failover CloudNativePG reports, the ledger and the consistency check are recorded.
func TestFaultKillPrimaryOnceAcrossRestart(t *testing.T) {
	ns := ct.NewNamespace(t, "faults")
	pods := ct.NewClientPods()
	pods.Commits = func(i int) int64 {
		if i >= 6 && i <= 12 {
			return 0 // the outage: 7 s after the fault's second
		}
		return 10
	}
	cfg := testConfig(pods)
	mgr := startManager(t, ns, cfg)
	run := ct.NewRun(ns, "pgf", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Workload.Duration = &metav1.Duration{Duration: 30 * time.Second} // the fault step runs in real time
	run.Spec.Faults = []benchv1.Fault{{Action: benchv1.FaultKillPrimary, At: metav1.Duration{Duration: 5 * time.Second}}}
	run.Spec.SLA.MaxUnavailability = &metav1.Duration{Duration: 5 * time.Second}
	ct.CreateLoaded(t, run)
	instances := databasePods(t, ns, "pgf-db", 3)
	promoted := time.Now()
	setClusterRoles(t, ns, "pgf-db", "pgf-db-1", promoted.Add(-time.Hour), 3)
	checked := completeJobWhenCreated(t, ns, jobs.FaultCheckJobName(run, 1))

	var recreated types.UID
	uids := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), uids, func(step int, _ []*corev1.Pod) {
		if step != 1 {
			return
		}
		// The fault: the primary's pod goes, at the planned moment.
		ct.Eventually(t, 30*time.Second, func() error {
			err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pgf-db-1"}, &corev1.Pod{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("pgf-db-1 still there (%v)", err)
		})
		// CloudNativePG promotes instance 2 and re-creates instance 1 as a standby; the manager
		// restarts meanwhile.
		mgr.Stop()
		promoted = time.Now()
		setClusterRoles(t, ns, "pgf-db", "pgf-db-2", promoted, 2)
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("postgresql.cnpg.io/v1")
		u.SetKind("Cluster")
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pgf-db"}, u); err != nil {
			t.Fatal(err)
		}
		recreated = createInstancePod(t, u, 1)
		mgr = startManager(t, ns, cfg)
		time.Sleep(time.Second)
		setClusterRoles(t, ns, "pgf-db", "pgf-db-2", promoted, 3)
	})
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) != 2 {
		t.Fatalf("phase %s, steps %v, conditions %+v", got.Status.Phase, ct.StepSummary(got), got.Status.Conditions)
	}
	if !checked.Load() {
		t.Error("the consistency check Job after the fault step was never created")
	}
	// SLACompliant covers every SLA the run declares: the fault step broke sla.maxUnavailability.
	if c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionSLACompliant); c == nil || c.Status != metav1.ConditionFalse ||
		c.Reason != "FaultStepNonCompliant" || !strings.Contains(c.Message, "fault step 1 at 8 active warehouses is not compliant: unavailability: 7.05s") {
		t.Errorf("SLACompliant %+v", c)
	}
	search, step := got.Status.Steps[0], got.Status.Steps[1]
	if search.Fault != nil || search.Kind == benchv1.StepFault {
		t.Errorf("the search's step applied faults: %+v", search.Fault)
	}
	if step.Kind != benchv1.StepFault || step.ActiveWarehouses != 8 || got.Status.Result == nil || *got.Status.Result.Step != 0 {
		t.Errorf("fault step kind %s at %d warehouses, result %+v: want the result step's load, the result resting on the search", step.Kind, step.ActiveWarehouses, got.Status.Result)
	}
	f := step.Fault
	if f == nil || len(f.Injections) != 1 {
		t.Fatalf("fault record %+v", f)
	}
	inj := f.Injections[0]
	if inj.State != benchv1.FaultInjected || inj.Pod != "pgf-db-1" || inj.PodUID != string(instances["pgf-db-1"]) || inj.PrimaryBefore != "pgf-db-1" {
		t.Errorf("injection %+v", inj)
	}
	// On time: the reconciler requeues for the planned moment (a loaded machine may add a little).
	late := inj.Time.Sub(inj.PlannedTime.Time)
	if late < 0 || late > 2*time.Second {
		t.Errorf("deleted %s after the planned moment, want within a second or two", late)
	}
	if inj.PrimaryAfter != "pgf-db-2" || inj.PromotedTime == nil || inj.PromotedTime.Sub(promoted).Abs() > time.Millisecond || inj.ReadyTime == nil {
		t.Errorf("failover: primary after %q at %v (promoted %v), ready %v", inj.PrimaryAfter, inj.PromotedTime, promoted, inj.ReadyTime)
	}
	// Exactly once: the re-created instance was not deleted by the restarted manager.
	pod := &corev1.Pod{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pgf-db-1"}, pod); err != nil || pod.UID != recreated {
		t.Errorf("re-created pgf-db-1: %v, UID %s want %s", err, pod.UID, recreated)
	}
	// At most one event says a pod was deleted (the manager stopped right after the deletion may
	// not have sent it; a repeated deletion that found the pod gone sends none).
	if n := eventCount(t, ns, "pgf", "FaultInjected"); n > 1 {
		t.Errorf("%d FaultInjected events, want at most 1", n)
	}

	m := f.Measurement
	if m == nil {
		t.Fatal("no measurement")
	}
	// From the last commit before the outage (second 5, 0.975 s in) to the first after it
	// (second 13, 0.025 s in), measured from the commits in the clients' clock, not in whole
	// seconds of the series.
	if m.Unavailability.Duration != 7050*time.Millisecond || m.UnavailabilityMethod != "commits" || m.BaselineNewOrdersPerSecond != 10 ||
		m.UnavailableFrom == nil || m.UnavailableTo == nil || m.UnavailableTo.Sub(m.UnavailableFrom.Time) != 7050*time.Millisecond {
		t.Errorf("unavailability %s (%s, %v..%v), baseline %.2f/s: want 7.05s from commits and 10/s", m.Unavailability.Duration,
			m.UnavailabilityMethod, m.UnavailableFrom, m.UnavailableTo, m.BaselineNewOrdersPerSecond)
	}
	if inj.ClientTime == nil || inj.ClientTime.Sub(inj.Time.Time).Abs() > time.Second {
		t.Errorf("the fault's moment in the clients' clock: %v (operator %v)", inj.ClientTime, inj.Time)
	}
	// Back at 10/s from second 13: 13 s after the step's start less the fault's 5 s and lateness,
	// from the fault's moment in the clients' clock (marked right before the deletion).
	late = inj.ClientTime.Sub(inj.PlannedTime.Time)
	if want := 8*time.Second - late; m.Recovery == nil || (m.Recovery.Duration-want).Abs() > 10*time.Millisecond {
		t.Errorf("recovery %v, want %s", m.Recovery, want)
	}
	// The minute after the fault: from the second it fell in to 29, 10 New-Orders each but the
	// 7 empty seconds 6..12 (180 when it fell in second 5, 170 in second 6).
	want := int64(180)
	if late >= time.Second {
		want = 170
	}
	if no := m.LatencyAfter[benchv1.NewOrder]; no.Count != want || no.P90.Duration <= 0 {
		t.Errorf("New-Order latency after the fault %+v, want %d samples", no, want)
	}
	if m.CommitsUnknown != 2 {
		t.Errorf("commits unknown %d, want 2", m.CommitsUnknown)
	}
	if l := f.Ledger; l == nil || !l.Pass || l.Districts != 80 || l.Unknown != 2 {
		t.Errorf("ledger %+v", l)
	}
	if f.Consistency != "passed" {
		t.Errorf("consistency %q", f.Consistency)
	}
	if step.Compliant || step.Verdict != benchv1.VerdictNonCompliant || !slices.Contains(step.Reasons, "unavailability: 7.05s without a commit after the fault > sla.maxUnavailability 5s") {
		t.Errorf("compliant %v, reasons %q: want the unavailability named", step.Compliant, step.Reasons)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(run)}, cm); err != nil {
		t.Fatal(err)
	}
	if err := ct.ContainsAll(cm.Data["report.md"], "## Faults in step 1 (Fault, 8 active warehouses)", "KillPrimary: Injected pod pgf-db-1",
		"pgf-db-2 promoted", "unavailability (longest stretch without a commit): 7.05s, from the last commit acknowledged before it to the first after it", "ledger check over 80 districts: passed",
		"consistency conditions after the step: passed"); err != nil {
		t.Error(err)
	}
}

// A ledger that lost an acknowledged commit fails the run, naming the district and the counts,
// after the report is written.
func TestFaultFailureFailsTheRun(t *testing.T) {
	run := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Steps: []benchv1.StepResult{
		{Index: 0},
		{Index: 1, Kind: benchv1.StepFault, Fault: &benchv1.FaultRecord{
			Ledger: &benchv1.LedgerCheck{Pass: false, Failures: []string{"district 1/3: 40 acknowledged, 0 unknown, d_next_o_id grew by 39"}}}},
	}}}
	reason, msg := faultFailure(run)
	if reason != "AcknowledgedCommitLost" || !strings.Contains(msg, "district 1/3: 40 acknowledged") {
		t.Errorf("reason %q, message %q", reason, msg)
	}
	run.Status.Steps[1].Fault = &benchv1.FaultRecord{Ledger: &benchv1.LedgerCheck{Pass: true}, Consistency: "failed: Job x: BackoffLimitExceeded"}
	if reason, _ := faultFailure(run); reason != "InconsistentAfterFault" {
		t.Errorf("reason %q", reason)
	}
	run.Status.Steps[1].Fault.Consistency = "passed"
	if reason, _ := faultFailure(run); reason != "" {
		t.Errorf("reason %q for a passing step", reason)
	}
}

func eventCount(t *testing.T, namespace, run, reason string) int {
	t.Helper()
	time.Sleep(time.Second) // events are sent asynchronously
	list := &corev1.EventList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(namespace)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range list.Items {
		if e.InvolvedObject.Name == run && e.Reason == reason {
			c := max(1, int(e.Count))
			if e.Series != nil {
				c = max(c, int(e.Series.Count))
			}
			n += c
		}
	}
	return n
}
