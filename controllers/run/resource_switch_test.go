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
	instance := func(i int, res corev1.ResourceRequirements) *corev1.Pod {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("sw-db-%d", i), Labels: map[string]string{"cnpg.io/cluster": "sw-db"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres", Image: "postgres:test", Resources: res}}}}
		if err := k8s.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
		if err := k8s.Status().Update(ctx, pod); err != nil {
			t.Fatal(err)
		}
		return pod
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

	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
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
	if c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionDatabaseReady); c == nil || c.Status != metav1.ConditionTrue || c.Reason != benchv1.ReasonResourcesSwitched {
		t.Errorf("DatabaseReady %+v, want True %s", c, benchv1.ReasonResourcesSwitched)
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
