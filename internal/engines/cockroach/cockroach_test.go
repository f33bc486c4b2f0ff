package cockroach

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

func run(c *benchv1.CockroachSpec) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "crdb"},
		Spec:       benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB, Cockroach: c}},
	}
}

func TestDesired(t *testing.T) {
	objects, err := Backend{}.Desired(run(&benchv1.CockroachSpec{Nodes: 5, Storage: benchv1.StorageSpec{StorageClass: "fast"}}))
	if err != nil {
		t.Fatal(err)
	}
	u := objects[0]
	if u.GetName() != "crdb-db" || u.GetKind() != "CrdbCluster" {
		t.Fatalf("object = %s %s", u.GetKind(), u.GetName())
	}
	for path, want := range map[string]any{
		"spec.nodes": int64(5), "spec.tlsEnabled": true, "spec.image.name": DefaultImage,
		"spec.dataStore.pvc.spec.storageClassName":           "fast",
		"spec.dataStore.pvc.spec.resources.requests.storage": "10Gi",
	} {
		got, _, _ := unstructured.NestedFieldNoCopy(u.Object, strings.Split(path, ".")...)
		if got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if _, found, _ := unstructured.NestedMap(u.Object, "spec", "resources"); found {
		t.Error("empty resources were written")
	}
}

func TestReadiness(t *testing.T) {
	cluster := func(status map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": status}}
	}
	initialized := map[string]any{"conditions": []any{map[string]any{"type": "Initialized", "status": "True"}}}
	sts := func(ready int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"readyReplicas": ready}}}
	}
	cases := []struct {
		name       string
		cluster    *unstructured.Unstructured
		sts        *unstructured.Unstructured
		wantReady  bool
		wantReason string
	}{
		{"no cluster", nil, nil, false, "CrdbClusterMissing"},
		{"no statefulset", cluster(map[string]any{}), nil, false, "StatefulSetMissing"},
		{"two of three nodes", cluster(initialized), sts(2), false, "NodesNotReady"},
		{"nodes up, not initialized", cluster(map[string]any{"conditions": []any{map[string]any{"type": "Initialized", "status": "False"}}}), sts(3), false, "NotInitialized"},
		{"failed", cluster(map[string]any{"clusterStatus": "Failed"}), sts(3), false, "CrdbClusterFailed"},
		{"ready", cluster(initialized), sts(3), true, "CrdbClusterReady"},
	}
	b := Backend{}
	r := run(nil)
	refs := b.Observed(r)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			observed := map[engines.Ref]*unstructured.Unstructured{}
			if tc.cluster != nil {
				observed[refs[0]] = tc.cluster
			}
			if tc.sts != nil {
				observed[refs[1]] = tc.sts
			}
			got := b.Readiness(r, observed)
			if got.Ready != tc.wantReady || got.Reason != tc.wantReason {
				t.Errorf("readiness = %+v, want ready=%v reason=%s", got, tc.wantReady, tc.wantReason)
			}
		})
	}
}

func TestConnectionVerifiesTLSWithMountedCertificates(t *testing.T) {
	c := Backend{}.Connection(run(nil))
	if !strings.HasPrefix(c.URL, "postgres://root@crdb-db-public.bench:26257/") || !strings.Contains(c.URL, "sslmode=verify-full") {
		t.Errorf("url = %q", c.URL)
	}
	if strings.Contains(c.URL, "password") {
		t.Error("the URL carries a password")
	}
	if len(c.Volumes) != 1 || len(c.Volumes[0].Projected.Sources) != 2 || c.Volumes[0].Projected.Sources[1].Secret.Name != "crdb-db-root" {
		t.Errorf("volumes = %+v", c.Volumes)
	}
	if len(c.VolumeMounts) != 1 || !c.VolumeMounts[0].ReadOnly || c.VolumeMounts[0].MountPath != CertsDir {
		t.Errorf("mounts = %+v", c.VolumeMounts)
	}
}

// With memory, the CrdbCluster's cache and maxSQLMemory are a quarter of it each, in bytes.
func TestDesiredSizing(t *testing.T) {
	for _, tc := range []struct {
		resources     corev1.ResourceRequirements
		cache, sqlMem string
	}{
		{corev1.ResourceRequirements{}, "", ""},
		{corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}}, "1GiB", "1GiB"},
		{corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")},
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("10Gi")}}, "2560MiB", "2560MiB"},
	} {
		objects, err := Backend{}.Desired(run(&benchv1.CockroachSpec{Nodes: 3, Resources: tc.resources}))
		if err != nil {
			t.Fatal(err)
		}
		cache, _, _ := unstructured.NestedString(objects[0].Object, "spec", "cache")
		sqlMem, _, _ := unstructured.NestedString(objects[0].Object, "spec", "maxSQLMemory")
		if cache != tc.cache || sqlMem != tc.sqlMem {
			t.Errorf("%v: cache %q maxSQLMemory %q, want %q %q", tc.resources, cache, sqlMem, tc.cache, tc.sqlMem)
		}
		sizing := Backend{}.Sizing(run(&benchv1.CockroachSpec{Nodes: 3, Resources: tc.resources}))
		if (sizing == nil) != (tc.cache == "") || (sizing != nil && sizing.Settings["cache"] != tc.cache) {
			t.Errorf("%v: sizing %+v", tc.resources, sizing)
		}
	}
}

// The loader applies the run's cluster settings and, below Serializable, the one that enables the
// level unless the run sets it itself; the step's sampling pod reads all of them back.
func TestClusterSettingsAndTuning(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "c"},
		Spec: benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB,
			Cockroach: &benchv1.CockroachSpec{ClusterSettings: map[string]string{"kv.snapshot_rebalance.max_rate": "64MiB"}}}}}
	if got := ClusterSettings(run); len(got) != 1 || got["kv.snapshot_rebalance.max_rate"] != "64MiB" {
		t.Errorf("Serializable: %v, want the run's own only", got)
	}
	run.Spec.Workload.Isolation = benchv1.IsolationRepeatableRead
	got := ClusterSettings(run)
	if got["sql.txn.repeatable_read_isolation.enabled"] != "true" || len(got) != 2 {
		t.Errorf("RepeatableRead: %v, want the enabling setting added", got)
	}
	conn := Backend{}.Connection(run)
	if len(conn.LoaderSettings) != 2 || len(conn.ReadSettings) != 2 {
		t.Errorf("connection: loader %v, read %v", conn.LoaderSettings, conn.ReadSettings)
	}
	sources := map[string]string{}
	for _, s := range (Backend{}).Tuning(run) {
		sources[s.Name] = s.Source
	}
	if sources["sql.txn.repeatable_read_isolation.enabled"] != "workload.isolation" || sources["kv.snapshot_rebalance.max_rate"] != "cockroach.clusterSettings" {
		t.Errorf("sources %v", sources)
	}
	// The run's own value wins, even false: the client then refuses to run at a level the
	// cluster upgrades, naming the setting.
	run.Spec.Database.Cockroach.ClusterSettings["sql.txn.repeatable_read_isolation.enabled"] = "false"
	if got := ClusterSettings(run)["sql.txn.repeatable_read_isolation.enabled"]; got != "false" {
		t.Errorf("the run's own setting was overridden: %s", got)
	}
}
