package run

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
)

func getVendor(t *testing.T, gvk schema.GroupVersionKind, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	ct.Eventually(t, 20*time.Second, func() error {
		return k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, u)
	})
	return u
}

func setVendorStatus(t *testing.T, u *unstructured.Unstructured, status map[string]any) {
	t.Helper()
	ct.Eventually(t, 10*time.Second, func() error {
		current := u.DeepCopy()
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(u), current); err != nil {
			return err
		}
		current.Object["status"] = status
		return k8s.Status().Update(context.Background(), current)
	})
}

func waitDatabaseCondition(t *testing.T, run *benchv1.BenchmarkRun, reason string) {
	t.Helper()
	ct.Eventually(t, 20*time.Second, func() error {
		c := meta.FindStatusCondition(ct.GetRun(t, run).Status.Conditions, benchv1.ConditionDatabaseReady)
		if c == nil || c.Reason != reason {
			return fmt.Errorf("DatabaseReady = %+v, want reason %s", c, reason)
		}
		return nil
	})
}

// loaderContainer waits for the run's loader Job and returns its container.
func loaderContainer(t *testing.T, run *benchv1.BenchmarkRun) (corev1.PodSpec, corev1.Container) {
	t.Helper()
	spec := ct.GetJob(t, run.Namespace, run.Name+"-load").Spec.Template.Spec
	return spec, spec.Containers[0]
}

func engineArg(c corev1.Container) string {
	i := slices.Index(c.Args, "--engine")
	if i < 0 {
		return ""
	}
	return c.Args[i+1]
}

// Each engine's run deploys its vendor objects through the controller, waits on the vendor's own
// readiness signals, and hands loader pods the engine's connection.
func TestEachEngineDeploysThroughItsOperator(t *testing.T) {
	ns := ct.NewNamespace(t, "engines")
	startManager(t, ns, testConfig(ct.NewClientPods()))
	ctx := context.Background()
	newEngineRun := func(name string, db benchv1.DatabaseSpec) *benchv1.BenchmarkRun {
		run := ct.NewRun(ns, name, 4, 2)
		run.Spec.Database = db
		if err := k8s.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		return run
	}

	t.Run("PostgreSQL sized and unlogged", func(t *testing.T) {
		run := newEngineRun("pgsized", benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{
			Resources:  corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}},
			Parameters: map[string]string{"shared_buffers": "512MB"},
			Tables:     benchv1.TablesUnlogged,
			Storage:    benchv1.StorageSpec{Size: resource.MustParse("10Gi")},
		}})
		cluster := getVendor(t, schema.GroupVersionKind{Group: "postgresql.cnpg.io", Version: "v1", Kind: "Cluster"}, ns, "pgsized-db")
		parameters, _, _ := unstructured.NestedStringMap(cluster.Object, "spec", "postgresql", "parameters")
		if parameters["shared_buffers"] != "512MB" || parameters["effective_cache_size"] != "3GB" || parameters["max_connections"] != "100" {
			t.Errorf("Cluster parameters %v: want the run's shared_buffers and the sized rest", parameters)
		}
		// The load's 4 pods × (4 threads + 1) outnumber a step's pool of 7 for 4 warehouses + 1.
		var sizing *benchv1.DatabaseSizing
		ct.Eventually(t, 20*time.Second, func() error {
			if db := ct.GetRun(t, run).Status.Database; db == nil || db.Sizing == nil {
				return fmt.Errorf("status.database = %+v, want its sizing", db)
			} else {
				sizing = db.Sizing
			}
			return nil
		})
		if sizing.MemoryFrom != "request" || sizing.Memory.String() != "4Gi" || !slices.Equal(sizing.UserSet, []string{"shared_buffers"}) ||
			sizing.Settings["shared_buffers"] != "512MB" || sizing.Settings["effective_cache_size"] != "3GB" || sizing.Connections != 20 {
			t.Errorf("status.database.sizing = %+v", sizing)
		}
		for name, value := range sizing.Settings {
			if parameters[name] != value {
				t.Errorf("status says %s = %s, the Cluster has %s", name, value, parameters[name])
			}
		}
		ct.SetClusterReady(t, ns, "pgsized-db", 3)
		_, c := loaderContainer(t, run)
		if i := slices.Index(c.Args, "--tables"); i < 0 || c.Args[i+1] != "unlogged" {
			t.Errorf("loader args %v: want --tables unlogged", c.Args)
		}
	})

	t.Run("CockroachDB", func(t *testing.T) {
		run := newEngineRun("crdb", benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB, Cockroach: &benchv1.CockroachSpec{
			Nodes: 3, Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")}},
			Storage: benchv1.StorageSpec{Size: resource.MustParse("10Gi")},
		}})
		cluster := getVendor(t, schema.GroupVersionKind{Group: "crdb.cockroachlabs.com", Version: "v1alpha1", Kind: "CrdbCluster"}, ns, "crdb-db")
		if nodes, _, _ := unstructured.NestedInt64(cluster.Object, "spec", "nodes"); nodes != 3 {
			t.Errorf("nodes = %d", nodes)
		}
		cache, _, _ := unstructured.NestedString(cluster.Object, "spec", "cache")
		sqlMemory, _, _ := unstructured.NestedString(cluster.Object, "spec", "maxSQLMemory")
		if cache != "2GiB" || sqlMemory != "2GiB" {
			t.Errorf("cache %q maxSQLMemory %q, want 2GiB each (a quarter of the 8Gi limit)", cache, sqlMemory)
		}
		ct.Eventually(t, 20*time.Second, func() error {
			db := ct.GetRun(t, run).Status.Database
			if db == nil || db.Sizing == nil || db.Sizing.MemoryFrom != "limit" || db.Sizing.Settings["cache"] != "2GiB" {
				return fmt.Errorf("status.database = %+v, want the sizing from the 8Gi limit", db)
			}
			return nil
		})
		waitDatabaseCondition(t, run, "StatefulSetMissing")
		labels := map[string]string{"app": "crdb"}
		sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "crdb-db"}, Spec: appsv1.StatefulSetSpec{
			Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "cockroach"}}}}}}
		if err := k8s.Create(ctx, sts); err != nil {
			t.Fatal(err)
		}
		sts.Status = appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, CurrentReplicas: 3, UpdatedReplicas: 3}
		if err := k8s.Status().Update(ctx, sts); err != nil {
			t.Fatal(err)
		}
		waitDatabaseCondition(t, run, "NotInitialized")
		setVendorStatus(t, cluster, map[string]any{"clusterStatus": "Finished",
			"conditions": []any{map[string]any{"type": "Initialized", "status": "True", "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}}})
		spec, c := loaderContainer(t, run)
		if engineArg(c) != "cockroach" || !strings.HasPrefix(c.Env[0].Value, "postgres://root@crdb-db-public.engines:26257/") {
			t.Errorf("loader args %v env %+v", c.Args, c.Env)
		}
		// The client certificates, and the control token the loader's progress server requires.
		if len(spec.Volumes) != 2 || spec.Volumes[0].Projected == nil || spec.Volumes[1].Secret == nil || spec.Volumes[1].Secret.SecretName != "crdb-control" {
			t.Errorf("loader pods lack the client certificates or the control token: %+v", spec.Volumes)
		}
	})

	t.Run("YDB", func(t *testing.T) {
		run := newEngineRun("ydb", benchv1.DatabaseSpec{Engine: benchv1.EngineYDB})
		storage := getVendor(t, schema.GroupVersionKind{Group: "ydb.tech", Version: "v1alpha1", Kind: "Storage"}, ns, "ydb-storage")
		database := getVendor(t, schema.GroupVersionKind{Group: "ydb.tech", Version: "v1alpha1", Kind: "Database"}, ns, "ydb-db")
		waitDatabaseCondition(t, run, "StorageNotReady")
		setVendorStatus(t, storage, map[string]any{"state": "Ready"})
		waitDatabaseCondition(t, run, "DatabaseNotReady")
		setVendorStatus(t, database, map[string]any{"state": "Ready"})
		_, c := loaderContainer(t, run)
		if engineArg(c) != "ydb" || c.Env[0].Value != "grpc://ydb-db-grpc.engines:2135/Root/ydb-db" {
			t.Errorf("loader args %v env %+v", c.Args, c.Env)
		}
	})

	t.Run("external", func(t *testing.T) {
		run := newEngineRun("ext", benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB,
			External: &benchv1.ExternalSpec{SecretRef: benchv1.SecretKeyRef{Name: "my-db"}}})
		waitDatabaseCondition(t, run, "SecretMissing")
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "my-db"},
			StringData: map[string]string{"uri": "postgres://bench:s3cret@db.example:26257/tpcc"}}
		if err := k8s.Create(ctx, secret); err != nil {
			t.Fatal(err)
		}
		_, c := loaderContainer(t, run)
		if engineArg(c) != "cockroach" || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.SecretKeyRef.Name != "my-db" {
			t.Errorf("loader args %v env %+v", c.Args, c.Env)
		}
		got := ct.GetRun(t, run)
		if got.Status.Database == nil || strings.Contains(fmt.Sprint(got.Status), "s3cret") {
			t.Errorf("status %+v: the database must be named, the credentials never shown", got.Status.Database)
		}
		// Nothing deployed: no vendor object carries the run's label.
		for _, gvk := range []schema.GroupVersionKind{
			{Group: "postgresql.cnpg.io", Version: "v1", Kind: "ClusterList"},
			{Group: "crdb.cockroachlabs.com", Version: "v1alpha1", Kind: "CrdbClusterList"},
		} {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(gvk)
			if err := k8s.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"bench.oltp.io/run": "ext"}); err != nil {
				t.Fatal(err)
			}
			if len(list.Items) != 0 {
				t.Errorf("external run deployed %s", gvk.Kind)
			}
		}
	})

	// Job pods never show the credentials: the URL comes from the Secret at runtime.
	list := &batchv1.JobList{}
	if err := k8s.List(ctx, list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, j := range list.Items {
		if strings.Contains(fmt.Sprint(j.Spec), "s3cret") {
			t.Errorf("Job %s carries a credential", j.Name)
		}
	}
}
