package run

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// A run with postgres.loadResources deploys and loads its database under them; once loaded, the
// Cluster carries the measured resources, and no step starts until every instance runs with them
// and is ready (CloudNativePG's roll, played here); then status.database.resourcesSwitchTime, an
// event, and the steps.
func TestLoadResourcesSwitchBeforeTheSteps(t *testing.T) {
	ctx := context.Background()
	ns := ct.NewNamespace(t, "switch")
	pods := ct.NewClientPods()
	cfg := testConfig(pods)
	cfg.StorageCalibration = 0
	startManager(t, ns, cfg)

	measured := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
	}
	loading := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
	}
	run := ct.NewRun(ns, "sw", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Database.Postgres = &benchv1.PostgresSpec{Instances: 3, Storage: benchv1.StorageSpec{Size: resource.MustParse("2Gi")}, Resources: measured, LoadResources: &loading}
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	clusterResources := func() corev1.ResourceRequirements {
		t.Helper()
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("postgresql.cnpg.io/v1")
		u.SetKind("Cluster")
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sw-db"}, u); err != nil {
			t.Fatal(err)
		}
		c := &cnpgv1.Cluster{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, c); err != nil {
			t.Fatal(err)
		}
		return c.Spec.Resources
	}
	ct.Eventually(t, 20*time.Second, func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sw-db"}, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster"}})
	})
	if got := clusterResources(); !engines.SameResources(got, loading) {
		t.Fatalf("the Cluster before the load has resources %+v, want loadResources %+v", got, loading)
	}

	// CloudNativePG's three instances, as it created them from the Cluster: under loadResources.
	instance := func(i int, res corev1.ResourceRequirements) {
		if err := createInstance(ctx, ns, "sw-db", i, res); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 3; i++ {
		instance(i, loading)
	}
	ct.DeployAndLoad(t, run, nil)

	// Loaded: the Cluster now asks for the measured resources; with the instances still on the
	// load's, no step starts and DatabaseReady says why.
	ct.Eventually(t, 20*time.Second, func() error {
		if got := clusterResources(); !engines.SameResources(got, measured) {
			return fmt.Errorf("the Cluster after the load has resources %+v, want %+v", got, measured)
		}
		c := meta.FindStatusCondition(ct.GetRun(t, run).Status.Conditions, benchv1.ConditionDatabaseReady)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonSwitchingResources || !strings.Contains(c.Message, "0/3 instances switched and ready") {
			return fmt.Errorf("DatabaseReady %+v, want False %s with 0/3", c, benchv1.ReasonSwitchingResources)
		}
		return nil
	})
	stepJob := func() error {
		var list batchv1.JobList
		if err := k8s.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, j := range list.Items {
			if strings.Contains(j.Name, "-step-") {
				return fmt.Errorf("step Job %s exists", j.Name)
			}
		}
		return nil
	}
	// CloudNativePG rolls: two instances replaced, the third not yet.
	replace := func(i int) {
		old := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("sw-db-%d", i)}}
		if err := k8s.Delete(ctx, old, client.GracePeriodSeconds(0)); err != nil {
			t.Fatal(err)
		}
		ct.Eventually(t, 10*time.Second, func() error {
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(old), &corev1.Pod{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("pod %s not gone: %v", old.Name, err)
			}
			return nil
		})
		instance(i, measured)
	}
	replace(2)
	replace(3)
	ct.Eventually(t, 20*time.Second, func() error {
		c := meta.FindStatusCondition(ct.GetRun(t, run).Status.Conditions, benchv1.ConditionDatabaseReady)
		if c == nil || c.Reason != benchv1.ReasonSwitchingResources || !strings.Contains(c.Message, "2/3 instances switched and ready") || !strings.Contains(c.Message, "sw-db-1 (old resources)") {
			return fmt.Errorf("DatabaseReady %+v, want 2/3 switched, sw-db-1 named", c)
		}
		// kubectl get -o wide and kubectl wait read Ready: it says the switch, not "loading".
		if r := meta.FindStatusCondition(ct.GetRun(t, run).Status.Conditions, benchv1.ConditionReady); r == nil || r.Reason != string(benchv1.PhaseLoading) ||
			!strings.HasPrefix(r.Message, "8 warehouses loaded; switching from loadResources") || !strings.Contains(r.Message, "2/3 instances switched") {
			return fmt.Errorf("Ready %+v, want the switch's progress after the load", r)
		}
		return nil
	})
	if err := stepJob(); err != nil {
		t.Fatalf("a step started before every instance switched: %v", err)
	}
	replace(1)

	// After the last step the Cluster asks for loadResources again; the check after the last step
	// waits until CloudNativePG has rolled every instance back onto them (played meanwhile).
	restored := make(chan error, 1)
	go func() { restored <- restoreForTheCheck(ctx, ns, clusterResources, loading) }()
	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	if err := <-restored; err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("phase %s", got.Status.Phase)
	}
	if got.Status.Database == nil || got.Status.Database.ResourcesSwitchTime == nil || got.Status.Load == nil || got.Status.Load.CompletionTime == nil ||
		got.Status.Database.ResourcesSwitchTime.Before(got.Status.Load.CompletionTime) {
		t.Errorf("status.database %+v, load %+v: want resourcesSwitchTime after the load's completion", got.Status.Database, got.Status.Load)
	}
	if len(got.Status.Steps) == 0 || got.Status.Steps[0].StartTime == nil || got.Status.Steps[0].StartTime.Before(got.Status.Database.ResourcesSwitchTime) {
		t.Errorf("step 0 started at %v, before the switch at %v", got.Status.Steps, got.Status.Database.ResourcesSwitchTime)
	}
	db := got.Status.Database
	if db.ResourcesRestoreTime == nil || db.ResourcesRestoredTime == nil || db.ResourcesRestoredTime.Before(db.ResourcesRestoreTime) {
		t.Errorf("status.database %+v: want the load resources restored after the last step", db)
	}
	if c := got.Status.Result.ConsistencyCheck; c == nil || !c.Passed || c.Conditions != 12 {
		t.Errorf("result.consistencyCheck %+v: want the check made under the load resources, passed", c)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionDatabaseReady); c == nil || c.Status != metav1.ConditionTrue || c.Reason != benchv1.ReasonLoadResourcesRestored ||
		!strings.Contains(c.Message, "limits memory=1Gi") {
		t.Errorf("DatabaseReady %+v, want True %s naming the load resources", c, benchv1.ReasonLoadResourcesRestored)
	}
	ct.Eventually(t, 10*time.Second, func() error {
		var events corev1.EventList
		if err := k8s.List(ctx, &events, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == run.Name && e.Reason == benchv1.ReasonResourcesSwitched && strings.Contains(e.Message, "limits cpu=100m memory=1Gi") {
				return nil
			}
		}
		return fmt.Errorf("no ResourcesSwitched event naming the measured resources")
	})
}

// restoreForTheCheck plays CloudNativePG after a run's last step: once the run asks for its load
// resources back (status.database.resourcesRestoreTime, the Cluster carrying them, DatabaseReady
// RestoringLoadResources with none of the three instances on them), it replaces each instance of
// sw-db with one under them. No check Job may exist until the last one is replaced.
func restoreForTheCheck(ctx context.Context, ns string, clusterResources func() corev1.ResourceRequirements, loading corev1.ResourceRequirements) error {
	checkJob := func() bool {
		err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sw-check-final"}, &batchv1.Job{})
		return err == nil
	}
	asked := func() error {
		run := &benchv1.BenchmarkRun{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sw"}, run); err != nil {
			return err
		}
		if run.Status.Database == nil || run.Status.Database.ResourcesRestoreTime == nil {
			return fmt.Errorf("resourcesRestoreTime not set (phase %s, %d steps)", run.Status.Phase, len(run.Status.Steps))
		}
		if len(run.Status.Steps) != 1 || run.Status.Current != nil {
			return fmt.Errorf("the load resources were asked back with %d steps recorded, current %+v: want after the one step", len(run.Status.Steps), run.Status.Current)
		}
		c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionDatabaseReady)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonRestoringLoadResources || !strings.Contains(c.Message, "0/3 instances switched and ready") {
			return fmt.Errorf("DatabaseReady %+v, want False %s with 0/3", c, benchv1.ReasonRestoringLoadResources)
		}
		if ready := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionReady); ready == nil || !strings.Contains(ready.Message, "returning the database to its load resources") {
			return fmt.Errorf("Ready %+v, want the return to the load resources", ready)
		}
		if got := clusterResources(); !engines.SameResources(got, loading) {
			return fmt.Errorf("the Cluster after the last step has resources %+v, want loadResources", got)
		}
		return nil
	}
	var err error
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if err = asked(); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the run did not ask for its load resources back: %w", err)
		}
	}
	for i := 1; i <= 3; i++ {
		if checkJob() {
			return fmt.Errorf("the check Job exists with %d of 3 instances back on the load resources", i-1)
		}
		name := fmt.Sprintf("sw-db-%d", i)
		if err := k8s.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, client.GracePeriodSeconds(0)); err != nil {
			return err
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &corev1.Pod{}); apierrors.IsNotFound(err) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("pod %s not gone", name)
			}
		}
		if err := createInstance(ctx, ns, "sw-db", i, loading); err != nil {
			return err
		}
	}
	return nil
}

// createInstance plays CloudNativePG creating instance i of cluster with its postgres container
// under res, running and ready.
func createInstance(ctx context.Context, ns, cluster string, i int, res corev1.ResourceRequirements) error {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%d", cluster, i), Labels: map[string]string{"cnpg.io/cluster": cluster}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres", Image: "postgres:test", Resources: res}}}}
	if err := k8s.Create(ctx, pod); err != nil {
		return err
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	return k8s.Status().Update(ctx, pod)
}

// A database that does not return to its load resources within the data wait after the last step
// leaves the check after it without a verdict: the run fails ConsistencyCheckFailed, naming the
// instances still on the measured resources, and its result says "No result".
func TestLoadResourcesNotRestoredLeavesTheCheckWithoutAVerdict(t *testing.T) {
	ctx := context.Background()
	ns := ct.NewNamespace(t, "norestore")
	pods := ct.NewClientPods()
	cfg := testConfig(pods)
	cfg.StorageCalibration = 0
	cfg.DatabaseReadyTimeout = 5 * time.Second
	startManager(t, ns, cfg)

	measured := corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("1Gi")}}
	loading := corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}
	run := ct.NewRun(ns, "nr", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Database.Postgres = &benchv1.PostgresSpec{Instances: 3, Storage: benchv1.StorageSpec{Size: resource.MustParse("2Gi")}, Resources: measured, LoadResources: &loading}
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	// The instances run with the measured resources from the start, so the switch before the first
	// step is immediate, and never move back.
	for i := 1; i <= 3; i++ {
		if err := createInstance(ctx, ns, "nr-db", i, measured); err != nil {
			t.Fatal(err)
		}
	}
	ct.Eventually(t, 20*time.Second, func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nr-db"}, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster"}})
	})
	ct.DeployAndLoad(t, run, nil)
	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	if got.Status.Phase != benchv1.PhaseFailed || got.Status.Result == nil || !strings.HasPrefix(got.Status.Result.Message, "No result: the consistency check after the last step gave no verdict") {
		t.Fatalf("phase %s, result %+v: want Failed, no result", got.Status.Phase, got.Status.Result)
	}
	c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
	if c == nil || c.Reason != "ConsistencyCheckFailed" || !strings.Contains(c.Message, "did not run with its load resources (requests none, limits memory=1Gi) again within 6s") ||
		!strings.Contains(c.Message, "0/3 instances switched and ready") {
		t.Errorf("Failed %+v, want ConsistencyCheckFailed naming the load resources and the instances", c)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nr-check-final"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("a check Job ran on the measured resources: %v", err)
	}
}
