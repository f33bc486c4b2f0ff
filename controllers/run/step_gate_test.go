package run

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
)

// setClusterDegraded plays CloudNativePG reporting a Cluster whose primary is restarting: not
// Ready, readyInstances of instances.
func setClusterDegraded(t *testing.T, namespace, name string, ready, instances int64) {
	t.Helper()
	ct.SetClusterStatus(t, namespace, name, "Waiting for the instances to become active", "False", ready, instances)
}

// A database that falters after a step (the CI's demo: a primary that restarted after an
// overloaded step) holds the next step back instead of failing its clients at connect and burning
// every retry within seconds: DatabaseReady and Ready say the step waits and why, no step Job
// exists meanwhile, and once the Cluster is ready again the step runs (attempt 1: nothing was
// retried) and DatabaseReady says how long the wait took.
func TestNextStepWaitsForTheDatabase(t *testing.T) {
	ns := ct.NewNamespace(t, "dbwait")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 12, 6)
	run.Spec.Search.Strategy = benchv1.SearchLineSearch
	ct.CreateLoaded(t, run)
	waited := make(chan error, 1)
	uids := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	got := ct.DriveSteps(t, run, pods, ct.Boundary(1000), uids, func(step int, _ []*corev1.Pod) {
		if step != 0 {
			return
		}
		setClusterDegraded(t, ns, "pg-db", 2, 3)
		go func() {
			waited <- func() error {
				deadline := time.Now().Add(30 * time.Second)
				for {
					cur := &benchv1.BenchmarkRun{}
					if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(run), cur); err != nil {
						return err
					}
					c := meta.FindStatusCondition(cur.Status.Conditions, benchv1.ConditionDatabaseReady)
					if c != nil && c.Status == metav1.ConditionFalse && c.Reason == benchv1.ReasonDatabaseUnavailable {
						ready := meta.FindStatusCondition(cur.Status.Conditions, benchv1.ConditionReady)
						for _, s := range []string{c.Message, ready.Message} {
							if err := ct.ContainsAll(s, "step 1 waits for the database after step 0 (Full, 6 active warehouses, Compliant)",
								"Waiting for the instances to become active (2/3 instances ready)"); err != nil {
								return fmt.Errorf("while waiting: %w", err)
							}
						}
						break
					}
					if time.Now().After(deadline) {
						return fmt.Errorf("DatabaseReady never said the step waits: %+v", c)
					}
					time.Sleep(50 * time.Millisecond)
				}
				// Ten polls later the step has still not started.
				time.Sleep(10 * testConfig(pods).PollInterval)
				if err := stepJobAbsent(run, 1); err != nil {
					return err
				}
				ct.SetClusterReady(t, ns, "pg-db", 3)
				return nil
			}()
		}()
	})
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) < 2 {
		t.Fatalf("phase %s, steps %v, conditions %+v", got.Status.Phase, ct.StepSummary(got), got.Status.Conditions)
	}
	if s := got.Status.Steps[1]; s.Attempt != 1 || s.Verdict != benchv1.VerdictCompliant {
		t.Errorf("step 1 = %+v, want attempt 1, compliant: the wait retried nothing", s)
	}
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionDatabaseReady)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != benchv1.ReasonDatabaseReadyAgain ||
		!strings.Contains(c.Message, "ready again after") || !strings.Contains(c.Message, "before step 1") {
		t.Errorf("DatabaseReady = %+v", c)
	}
	ct.AssertEvents(t, ns, "pg", benchv1.ReasonDatabaseUnavailable, benchv1.ReasonDatabaseReadyAgain)
}

// A database not ready again within its wait fails the run as the database's failure
// (DatabaseNotReady, not InfrastructureFailed), naming the step that never started; no capacity is
// published. The wait grows with the loaded data (plan.DataWait): 12 warehouses' 960 MiB at
// 100 MiB/s are 10 s, longer than the 2 s database-ready timeout, and the message says so.
func TestDatabaseNotReadyAgainFailsTheRun(t *testing.T) {
	ns := ct.NewNamespace(t, "dbgone")
	pods := ct.NewClientPods()
	cfg := testConfig(pods)
	cfg.DatabaseReadyTimeout = 2 * time.Second
	startManager(t, ns, cfg)
	run := ct.NewRun(ns, "pg", 12, 6)
	run.Spec.Search.Strategy = benchv1.SearchLineSearch
	ct.CreateLoaded(t, run)
	uids := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	got := ct.DriveSteps(t, run, pods, ct.Boundary(1000), uids, func(step int, _ []*corev1.Pod) {
		if step == 0 {
			setClusterDegraded(t, ns, "pg-db", 1, 3)
		}
	})
	failed := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
	if got.Status.Phase != benchv1.PhaseFailed || failed == nil || failed.Reason != "DatabaseNotReady" {
		t.Fatalf("phase %s, Failed %+v", got.Status.Phase, failed)
	}
	if err := ct.ContainsAll(failed.Message, "not ready again within 10s (12 warehouses of about 80 MiB at 100 MiB/s, longer than --database-ready-timeout's 2s) after step 0",
		"step 1 never started", "1/3 instances ready"); err != nil {
		t.Error(err)
	}
	if len(got.Status.Steps) != 1 || got.Status.Result != nil {
		t.Errorf("steps %v, result %+v: want step 0 only and no result", ct.StepSummary(got), got.Status.Result)
	}
	if err := stepJobAbsent(run, 1); err != nil {
		t.Error(err)
	}
}

func stepJobAbsent(run *benchv1.BenchmarkRun, index int32) error {
	name := jobs.StepJobName(run, index)
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("batch/v1")
	list.SetKind("JobList")
	if err := k8s.List(context.Background(), list, client.InNamespace(run.Namespace)); err != nil {
		return err
	}
	for _, j := range list.Items {
		if j.GetName() == name {
			return fmt.Errorf("Job %s exists while the database is not ready", name)
		}
	}
	return nil
}
