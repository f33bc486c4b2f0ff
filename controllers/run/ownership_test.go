package run

import (
	"context"
	"fmt"
	"strings"
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
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
)

// someonesCluster creates a CloudNativePG Cluster that no run made, as its owner would.
func someonesCluster(t *testing.T, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
		"metadata": map[string]any{"name": name, "namespace": namespace, "labels": map[string]any{"team": "orders"}},
		"spec":     map[string]any{"instances": int64(1), "storage": map[string]any{"size": "1Gi"}},
	}}
	if err := k8s.Create(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

// waitFailed waits for the run to fail and returns its Failed condition.
func waitFailed(t *testing.T, run *benchv1.BenchmarkRun) *metav1.Condition {
	t.Helper()
	var failed *metav1.Condition
	ct.Eventually(t, 30*time.Second, func() error {
		got := ct.GetRun(t, run)
		failed = meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
		if got.Status.Phase != benchv1.PhaseFailed || failed == nil || failed.Status != metav1.ConditionTrue {
			return fmt.Errorf("phase %s, Failed %+v", got.Status.Phase, failed)
		}
		return nil
	})
	return failed
}

// A run named orders would deploy Cluster orders-db. Someone's Cluster of that name is refused:
// the run fails with DatabaseConflict naming it, and the Cluster keeps its spec, labels and owners
// — through the run's failure and teardown, and its deletion.
func TestRunNeverTouchesSomeoneElsesDatabase(t *testing.T) {
	ns := ct.NewNamespace(t, "own-db")
	startManager(t, ns, testConfig(ct.NewClientPods()))
	theirs := someonesCluster(t, ns, "orders-db")
	run := ct.NewRun(ns, "orders", 4, 2)
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	failed := waitFailed(t, run)
	if failed.Reason != benchv1.ReasonDatabaseConflict || !strings.Contains(failed.Message, "Cluster orders-db already exists and is not this run's") ||
		!strings.Contains(failed.Message, "not created by tpcc-operator") {
		t.Errorf("Failed condition %+v", failed)
	}
	assertUntouched := func(when string) {
		t.Helper()
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(theirs.GroupVersionKind())
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(theirs), got); err != nil {
			t.Fatalf("%s: their Cluster: %v", when, err)
		}
		if got.GetResourceVersion() != theirs.GetResourceVersion() || len(got.GetOwnerReferences()) != 0 || got.GetLabels()["bench.oltp.io/run"] != "" {
			t.Errorf("%s: their Cluster was changed: resourceVersion %s→%s, owners %v, labels %v", when,
				theirs.GetResourceVersion(), got.GetResourceVersion(), got.GetOwnerReferences(), got.GetLabels())
		}
	}
	assertUntouched("after the failure")
	// Nothing else was written: no Job, no ConfigMap.
	jobsList := &batchv1.JobList{}
	cms := &corev1.ConfigMapList{}
	if err := k8s.List(context.Background(), jobsList, client.InNamespace(ns)); err != nil || len(jobsList.Items) != 0 {
		t.Errorf("Jobs: %v, %d", err, len(jobsList.Items))
	}
	if err := k8s.List(context.Background(), cms, client.InNamespace(ns), client.MatchingLabels{"bench.oltp.io/run": "orders"}); err != nil || len(cms.Items) != 0 {
		t.Errorf("ConfigMaps: %v, %d", err, len(cms.Items))
	}
	time.Sleep(time.Second) // the failed run's teardown passes
	assertUntouched("after the teardown")
	if err := k8s.Delete(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	assertUntouched("after the run was deleted")
}

// Someone's ConfigMap named like the run's report is refused before anything is deployed.
func TestRunNeverTouchesSomeoneElsesReport(t *testing.T) {
	ns := ct.NewNamespace(t, "own-report")
	startManager(t, ns, testConfig(ct.NewClientPods()))
	theirs := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orders-report", Namespace: ns}, Data: map[string]string{"k": "v"}}
	if err := k8s.Create(context.Background(), theirs); err != nil {
		t.Fatal(err)
	}
	run := ct.NewRun(ns, "orders", 4, 2)
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	failed := waitFailed(t, run)
	if failed.Reason != benchv1.ReasonObjectConflict || !strings.Contains(failed.Message, "ConfigMap orders-report already exists and is not this run's") {
		t.Errorf("Failed condition %+v", failed)
	}
	got := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(theirs), got); err != nil || got.ResourceVersion != theirs.ResourceVersion || got.Data["k"] != "v" {
		t.Errorf("their ConfigMap: %v, %+v", err, got)
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("postgresql.cnpg.io/v1")
	u.SetKind("Cluster")
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "orders-db"}, u); !apierrors.IsNotFound(err) {
		t.Errorf("the database was deployed although the run could not write its report: %v", err)
	}
}

// An object created by another run (its controller another UID) is not the run's either; a step
// Job of the run's name that is someone else's fails the run when the step would create it, and
// is left as it is.
func TestRunRefusesAStepJobItDidNotCreate(t *testing.T) {
	ns := ct.NewNamespace(t, "own-job")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 4, 2)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	// A Job named like step 0's, controlled by another owner (a stand-in object's UID).
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "someone", Namespace: ns}}
	if err := k8s.Create(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	job := jobs.StepJob(run, 0, 4, time.Minute, engines.Connection{Engine: "postgres", URL: "postgres://db/x"}, jobs.Config{ClientImage: "theirs:1"})
	job.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "someone", UID: other.UID, Controller: ptr(true)}}
	if err := k8s.Create(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	ct.DeployAndLoad(t, run, nil)
	failed := waitFailed(t, run)
	if failed.Reason != benchv1.ReasonObjectConflict || !strings.Contains(failed.Message, "Job pg-step-0 already exists and is not this run's (controlled by ConfigMap someone") {
		t.Errorf("Failed condition %+v", failed)
	}
	got := &batchv1.Job{}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(job), got); err != nil || got.UID != job.UID || got.DeletionTimestamp != nil {
		t.Errorf("their Job: %v, uid %s want %s", err, got.UID, job.UID)
	}
}

// deleteOwned deletes only the owner's object, and only that instance (UID precondition).
func TestDeleteOwned(t *testing.T) {
	ns := ct.NewNamespace(t, "own-delete")
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: ns}}
	if err := k8s.Create(context.Background(), owner); err != nil {
		t.Fatal(err)
	}
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: ns,
		Annotations: map[string]string{kube.OwnerUIDAnnotation: string(owner.UID)}}}
	theirs := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: ns}}
	for _, cm := range []*corev1.ConfigMap{mine, theirs} {
		if err := k8s.Create(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
	}
	if deleted, err := kube.DeleteOwned(context.Background(), k8s, owner, theirs); deleted || err != nil {
		t.Errorf("deleted someone else's: %v %v", deleted, err)
	}
	stale := mine.DeepCopy()
	stale.UID = types.UID("00000000-0000-0000-0000-000000000000") // an instance that is gone
	if deleted, err := kube.DeleteOwned(context.Background(), k8s, owner, stale); deleted || err != nil {
		t.Errorf("deleted another instance of the name: %v %v", deleted, err)
	}
	if deleted, err := kube.DeleteOwned(context.Background(), k8s, owner, mine); !deleted || err != nil {
		t.Errorf("did not delete its own: %v %v", deleted, err)
	}
	for name, want := range map[string]bool{"theirs": true, "mine": false} {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &corev1.ConfigMap{})
		if exists := err == nil; exists != want {
			t.Errorf("%s exists %v, want %v (%v)", name, exists, want, err)
		}
	}
}
