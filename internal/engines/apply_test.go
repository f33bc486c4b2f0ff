package engines_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/cockroach"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/external"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/postgres"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/ydb"
	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

var k8s client.Client

func TestMain(m *testing.M) {
	testenv.Main(m, func(_ *testenv.Env, c client.Client) { k8s = c })
}

func int32p(v int32) *int32 { return &v }

// Every backend's objects are accepted by the vendor's real CRD schema through server-side apply,
// with strict field validation: no field the vendor does not know, none of the wrong type.
func TestDesiredObjectsAreAcceptedByVendorCRDs(t *testing.T) {
	big := resource.MustParse("100Gi")
	requests := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")}
	resources := corev1.ResourceRequirements{Requests: requests, Limits: requests}
	requestOnly := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")}}
	cases := []struct {
		name     string
		backend  engines.Backend
		database benchv1.DatabaseSpec
		objects  int
	}{
		{"postgres defaults", postgres.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}, 1},
		{"postgres full", postgres.Backend{DefaultImage: "example/postgresql:15"}, benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL,
			Postgres: &benchv1.PostgresSpec{Instances: 5, SynchronousReplicas: int32p(3), SynchronousCommit: "remote_write",
				Parameters: map[string]string{"max_connections": "500"}, Resources: resources,
				Storage: benchv1.StorageSpec{Size: big, StorageClass: "fast"}}}, 1},
		{"postgres asynchronous", postgres.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL,
			Postgres: &benchv1.PostgresSpec{Instances: 1, SynchronousReplicas: int32p(0)}}, 1},
		{"cockroach defaults", cockroach.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB}, 1},
		{"cockroach full", cockroach.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB,
			Cockroach: &benchv1.CockroachSpec{Nodes: 5, Resources: resources, Image: "cockroachdb/cockroach:v24.3.1",
				Storage: benchv1.StorageSpec{Size: big, StorageClass: "fast"}}}, 1},
		{"ydb mirror-3-dc", ydb.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EngineYDB}, 2},
		{"ydb block-4-2", ydb.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EngineYDB,
			YDB: &benchv1.YDBSpec{Erasure: benchv1.ErasureBlock42, StorageNodes: 8, DatabaseNodes: 4, Resources: resources,
				Storage: benchv1.StorageSpec{Size: big, StorageClass: "fast"}}}, 2},
		{"ydb none", ydb.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EngineYDB,
			YDB: &benchv1.YDBSpec{Erasure: benchv1.ErasureNone, StorageNodes: 1, DatabaseNodes: 1}}, 2},
		{"external", external.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL,
			External: &benchv1.ExternalSpec{SecretRef: benchv1.SecretKeyRef{Name: "db"}, Tables: benchv1.TablesUnlogged}}, 0},
		// Sized from a memory request alone (sizing.go), a user parameter winning.
		{"postgres sized", postgres.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL,
			Postgres: &benchv1.PostgresSpec{Resources: requestOnly, Parameters: map[string]string{"work_mem": "16MB"}, Tables: benchv1.TablesUnlogged}}, 1},
		{"cockroach sized", cockroach.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB,
			Cockroach: &benchv1.CockroachSpec{Resources: requestOnly}}, 1},
		{"ydb sized", ydb.Backend{}, benchv1.DatabaseSpec{Engine: benchv1.EngineYDB,
			YDB: &benchv1.YDBSpec{Resources: requestOnly}}, 2},
	}
	// What the sized objects must carry once stored: kind, path, value.
	sized := map[string][][3]string{
		"postgres sized": {
			{"Cluster", "spec.postgresql.parameters.shared_buffers", "2GB"},
			{"Cluster", "spec.postgresql.parameters.effective_cache_size", "6GB"},
			{"Cluster", "spec.postgresql.parameters.maintenance_work_mem", "512MB"},
			{"Cluster", "spec.postgresql.parameters.work_mem", "16MB"},
			{"Cluster", "spec.postgresql.parameters.max_wal_size", "1GB"},
			{"Cluster", "spec.postgresql.parameters.max_connections", "100"},
		},
		"cockroach full":  {{"CrdbCluster", "spec.cache", "2GiB"}, {"CrdbCluster", "spec.maxSQLMemory", "2GiB"}},
		"cockroach sized": {{"CrdbCluster", "spec.cache", "2GiB"}, {"CrdbCluster", "spec.maxSQLMemory", "2GiB"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := &benchv1.BenchmarkRun{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("run%d", i)},
				Spec:       benchv1.BenchmarkRunSpec{Database: tc.database, Workload: benchv1.WorkloadSpec{Warehouses: 1}},
			}
			objects, err := tc.backend.Desired(run)
			if err != nil {
				t.Fatal(err)
			}
			if len(objects) != tc.objects {
				t.Fatalf("%d objects, want %d", len(objects), tc.objects)
			}
			for _, obj := range objects {
				err := k8s.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(obj.DeepCopy()),
					client.FieldOwner("tpcc-operator"), client.ForceOwnership)
				if err != nil {
					t.Fatalf("%s %s rejected: %v", obj.GetKind(), obj.GetName(), err)
				}
				stored := obj.DeepCopy()
				if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), stored); err != nil {
					t.Fatal(err)
				}
				// Idempotent: applying the same object again changes nothing.
				generation := stored.GetGeneration()
				if err := k8s.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(obj.DeepCopy()),
					client.FieldOwner("tpcc-operator"), client.ForceOwnership); err != nil {
					t.Fatal(err)
				}
				if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), stored); err != nil {
					t.Fatal(err)
				}
				if stored.GetGeneration() != generation {
					t.Errorf("re-applying %s changed its generation %d -> %d", obj.GetName(), generation, stored.GetGeneration())
				}
				for _, want := range sized[tc.name] {
					if want[0] != obj.GetKind() {
						continue
					}
					if got, _, _ := unstructured.NestedString(stored.Object, strings.Split(want[1], ".")...); got != want[2] {
						t.Errorf("stored %s %s = %q, want %q", want[0], want[1], got, want[2])
					}
				}
				if strings.HasPrefix(tc.name, "ydb") && obj.GetKind() == "Storage" {
					config, _, _ := unstructured.NestedString(stored.Object, "spec", "configuration")
					if has := strings.Contains(config, "hard_limit_bytes: 8589934592"); has != (tc.name != "ydb mirror-3-dc" && tc.name != "ydb none") {
						t.Errorf("stored Storage configuration: hard_limit_bytes present %v:\n%s", has, config)
					}
				}
			}
		})
	}
}

// The acceptance above means something only if the API server rejects what the schema lacks.
func TestVendorSchemaRejectsUnknownFields(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "control"},
		Spec: benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB}}}
	objects, err := cockroach.Backend{}.Desired(run)
	if err != nil {
		t.Fatal(err)
	}
	obj := objects[0]
	obj.Object["spec"].(map[string]any)["nodeCount"] = int64(3)
	err = k8s.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("tpcc-operator"))
	if err == nil {
		t.Fatal("a CrdbCluster with an unknown field was accepted")
	}
	if !strings.Contains(err.Error(), "nodeCount") {
		t.Errorf("rejection does not name the field: %v", err)
	}
}
