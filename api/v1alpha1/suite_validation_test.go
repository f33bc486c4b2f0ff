package v1alpha1_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

const validSuite = `
apiVersion: bench.oltp.io/v1alpha1
kind: BenchmarkSuite
metadata:
  namespace: default
spec:
  databases:
  - name: pg
    database:
      engine: PostgreSQL
      postgres: {instances: 3, synchronousReplicas: 2}
  - name: crdb
    database:
      engine: CockroachDB
  workload:
    warehouses: 10
    duration: 1m
`

func suiteManifest(t *testing.T, name string, edit func(spec map[string]any)) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(validSuite), &u.Object); err != nil {
		t.Fatal(err)
	}
	u.SetName(name)
	if edit != nil {
		edit(u.Object["spec"].(map[string]any))
	}
	return u
}

// database returns spec.databases[i] of a manifest being edited.
func database(spec map[string]any, i int) map[string]any {
	return spec["databases"].([]any)[i].(map[string]any)
}

func pgDatabase(name string) map[string]any {
	return map[string]any{"name": name, "database": map[string]any{"engine": "PostgreSQL"}}
}

// Every invalid suite is rejected at admission with a message naming the field.
func TestAdmissionRejectsInvalidSuites(t *testing.T) {
	cases := []struct {
		name      string
		suiteName string
		edit      func(spec map[string]any)
		want      []string
	}{
		{"no databases", "", func(s map[string]any) { s["databases"] = []any{} },
			[]string{"spec.databases", "at least 1 items"}},
		{"17 databases", "", func(s map[string]any) {
			var dbs []any
			for i := range 17 {
				dbs = append(dbs, pgDatabase(fmt.Sprintf("db%d", i)))
			}
			s["databases"] = dbs
		}, []string{"spec.databases", "must have at most 16 items"}},
		{"duplicate database names", "", func(s map[string]any) { s["databases"] = []any{pgDatabase("pg"), pgDatabase("pg")} },
			[]string{"spec.databases[1]", "Duplicate value"}},
		{"database name not a DNS label", "", func(s map[string]any) { database(s, 0)["name"] = "PG_1" },
			[]string{"spec.databases[0].name", "should match"}},
		{"database name too long", "", func(s map[string]any) { database(s, 0)["name"] = "a-database-name-of-21c" },
			[]string{"spec.databases[0].name", "may not be more than 20"}},
		{"suite and database names too long for run names", "a-suite-name-of-24-chars", func(s map[string]any) { database(s, 0)["name"] = "a-database-of-20-chr" },
			[]string{"spec.databases[].name", "must fit a BenchmarkRun name"}},
		{"suite name too long", "a-suite-name-of-25-charss", nil,
			[]string{"metadata.name must be a DNS label of at most 24 characters"}},
		{"no repeats", "", func(s map[string]any) { s["repeats"] = int64(0) },
			[]string{"spec.repeats", "greater than or equal to 1"}},
		{"11 repeats", "", func(s map[string]any) { s["repeats"] = int64(11) },
			[]string{"spec.repeats", "less than or equal to 10"}},
		{"unknown engine", "", func(s map[string]any) { database(s, 1)["database"].(map[string]any)["engine"] = "MySQL" },
			[]string{"spec.databases[1].database.engine", `Unsupported value: "MySQL"`}},
		{"postgres block with CockroachDB", "", func(s map[string]any) {
			database(s, 1)["database"].(map[string]any)["postgres"] = map[string]any{}
		}, []string{"spec.databases[1].database.postgres", "postgres is only allowed with engine PostgreSQL"}},
		{"synchronous replicas equal to instances", "", func(s map[string]any) {
			database(s, 0)["database"].(map[string]any)["postgres"] = map[string]any{"instances": int64(2), "synchronousReplicas": int64(2)}
		}, []string{"spec.databases[0].database.postgres.synchronousReplicas", "synchronousReplicas must be less than instances"}},
		{"teardown Retain", "", func(s map[string]any) { database(s, 0)["database"].(map[string]any)["teardown"] = "Retain" },
			[]string{"spec.databases[0].database.teardown", "database.teardown must be Delete in a suite"}},
		{"reuse in a database", "", func(s map[string]any) {
			database(s, 0)["database"].(map[string]any)["reuse"] = map[string]any{"run": "earlier"}
		}, []string{"spec.databases[0].database.reuse", "database.reuse is set by the suite for its repeats"}},
		{"unknown dataReuse", "", func(s map[string]any) { s["dataReuse"] = "Sometimes" },
			[]string{"spec.dataReuse", `Unsupported value: "Sometimes"`}},
		{"dataReuse Snapshot with CockroachDB", "", func(s map[string]any) { s["dataReuse"] = "Snapshot" },
			[]string{"spec.dataReuse", "every database must have engine PostgreSQL"}},
		{"snapshot without dataReuse Snapshot", "", func(s map[string]any) { s["snapshot"] = map[string]any{"volumeSnapshotClassName": "csi"} },
			[]string{"spec.snapshot", "set dataReuse: Snapshot"}},
		{"snapshot in a database", "", func(s map[string]any) {
			database(s, 0)["database"].(map[string]any)["snapshot"] = map[string]any{}
		}, []string{"spec.databases[0].database", "database.snapshot and database.restore are set by the suite"}},
		{"external without secretRef", "", func(s map[string]any) {
			database(s, 1)["database"].(map[string]any)["external"] = map[string]any{}
		}, []string{"spec.databases[1].database.external.secretRef", "Required value"}},
		{"no workload", "", func(s map[string]any) { delete(s, "workload") },
			[]string{"spec.workload", "Required value"}},
		{"no warehouses", "", func(s map[string]any) { s["workload"].(map[string]any)["warehouses"] = int64(0) },
			[]string{"spec.workload.warehouses", "greater than or equal to 1"}},
		{"percentile 100", "", func(s map[string]any) { s["sla"] = map[string]any{"latency": []any{latency("NewOrder", "100", "5s")}} },
			[]string{"spec.sla.latency[0].percentile", "should match"}},
		{"efficiency above 100", "", func(s map[string]any) { s["sla"] = map[string]any{"minEfficiencyPercent": int64(101)} },
			[]string{"spec.sla.minEfficiencyPercent", "less than or equal to 100"}},
		{"replication lag bound with CockroachDB", "", func(s map[string]any) { s["sla"] = map[string]any{"maxReplicationLag": "30s"} },
			[]string{"spec.sla.maxReplicationLag", "sla.maxReplicationLag applies only when every database has engine PostgreSQL"}},
		{"search start above the loaded warehouses", "", func(s map[string]any) { s["search"] = map[string]any{"startWarehouses": int64(11)} },
			[]string{"spec.search.startWarehouses", "search.startWarehouses must not exceed workload.warehouses"}},
		{"unknown search mode", "", func(s map[string]any) { s["search"] = map[string]any{"mode": "Random"} },
			[]string{"spec.search.mode", `Unsupported value: "Random"`}},
		{"unknown field", "", func(s map[string]any) { database(s, 0)["engine"] = "PostgreSQL" },
			[]string{`unknown field "spec.databases[0].engine"`}},
		{"warehouses above 100000", "", func(s map[string]any) { s["workload"].(map[string]any)["warehouses"] = int64(200000) },
			[]string{"spec.workload.warehouses", "less than or equal to 100000"}},
		{"a step longer than a day", "", func(s map[string]any) { s["workload"].(map[string]any)["duration"] = "48h" },
			[]string{"spec.workload.duration", "workload.duration must be at most 24h"}},
		{"257 client pods", "", func(s map[string]any) { s["workload"].(map[string]any)["clients"] = map[string]any{"pods": int64(257)} },
			[]string{"spec.workload.clients.pods", "less than or equal to 256"}},
		{"a probe shorter than a New-Order cycle", "", func(s map[string]any) { s["search"] = map[string]any{"probeDuration": "20s"} },
			[]string{"spec.search.probeDuration", "search.probeDuration must be at least 30s with workload.wait Spec"}},
		{"full_page_writes off in one database", "", func(s map[string]any) {
			database(s, 0)["database"].(map[string]any)["postgres"] = map[string]any{"parameters": map[string]any{"full_page_writes": "off"}}
		}, []string{"spec.databases[0].database.postgres.parameters", "full_page_writes cannot be set in parameters"}},
		{"topology spread for a YDB database", "", func(s map[string]any) {
			database(s, 1)["database"] = map[string]any{"engine": "YDB"}
			database(s, 1)["placement"] = map[string]any{"database": map[string]any{"topologySpreadConstraints": []any{spreadConstraint()}}}
		}, []string{"spec.databases[1].placement.database.topologySpreadConstraints", "is not supported with engine YDB"}},
		{"the suite's topology spread would reach a YDB database", "", func(s map[string]any) {
			database(s, 1)["database"] = map[string]any{"engine": "YDB"}
			s["placement"] = map[string]any{"database": map[string]any{"topologySpreadConstraints": []any{spreadConstraint()}}}
		}, []string{"spec.placement.database.topologySpreadConstraints", "the suite's default would apply to a YDB database"}},
		{"database placement for an external database", "", func(s map[string]any) {
			database(s, 1)["database"] = map[string]any{"engine": "CockroachDB", "external": map[string]any{"secretRef": map[string]any{"name": "db"}}}
			database(s, 1)["placement"] = map[string]any{"database": map[string]any{"nodeSelector": map[string]any{"pool": "db"}}}
		}, []string{"spec.databases[1].placement.database", "placement.database applies only to a database the operator deploys"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := tc.suiteName
			if name == "" {
				name = fmt.Sprintf("invalid-suite-%d", i)
			}
			suite := suiteManifest(t, name, tc.edit)
			err := k8s.Create(context.Background(), suite, client.FieldValidation(metav1.FieldValidationStrict))
			if err == nil {
				t.Fatalf("accepted; want rejection mentioning %q", tc.want)
			}
			if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
				t.Fatalf("want an Invalid error, got %v", err)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not mention %q:\n%v", want, err)
				}
			}
		})
	}
}

// A suite is stored with BenchmarkRun's defaults for the shared parts, and its spec is fixed.
func TestSuiteDefaultsAndUpdates(t *testing.T) {
	ctx := context.Background()
	suite := suiteManifest(t, "suite-updates", nil)
	if err := k8s.Create(ctx, suite, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
		t.Fatal(err)
	}
	stored := &benchv1.BenchmarkSuite{}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(suite), stored); err != nil {
		t.Fatal(err)
	}
	spec := stored.Spec
	if spec.Repeats != 1 || spec.Search.Mode != benchv1.SearchMaxCompliant || spec.Workload.Wait != benchv1.WaitSpec ||
		spec.SLA.MinEfficiencyPercent == nil || *spec.SLA.MinEfficiencyPercent != 85 || len(spec.SLA.Latency) != 5 ||
		spec.Databases[0].Database.Teardown != benchv1.TeardownDelete {
		t.Errorf("defaults not applied: %+v", spec)
	}
	for _, tc := range []struct{ name, patch, want string }{
		{"repeats", `{"spec":{"repeats":3}}`, "spec is immutable once the suite is created"},
		{"workload", `{"spec":{"workload":{"warehouses":20}}}`, "spec is immutable once the suite is created"},
		{"databases", `{"spec":{"databases":[{"name":"pg","database":{"engine":"PostgreSQL"}}]}}`, "spec is immutable once the suite is created"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &benchv1.BenchmarkSuite{}
			obj.Namespace, obj.Name = stored.Namespace, stored.Name
			err := k8s.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(tc.patch)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("update: %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

// The suite samples are accepted as written.
func TestSuiteSamplesAreAccepted(t *testing.T) {
	for _, file := range []string{"suite.yaml", "suite-demo.yaml", "suite-reuse.yaml", "suite-snapshot.yaml", "compare-postgres-cockroach.yaml"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(repo, "config", "samples", file))
			if err != nil {
				t.Fatal(err)
			}
			suite := &benchv1.BenchmarkSuite{}
			if err := yaml.UnmarshalStrict(data, suite); err != nil {
				t.Fatalf("sample does not match the API types: %v", err)
			}
			suite.Namespace = "default"
			if err := k8s.Create(context.Background(), suite, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
				t.Fatalf("sample rejected: %v", err)
			}
		})
	}
}

// isSuiteSample says whether a sample file is a BenchmarkSuite.
func isSuiteSample(t *testing.T, path string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(data, &head); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return head.Kind == "BenchmarkSuite"
}

// compare-postgres-cockroach.yaml compares on equal terms: PostgreSQL with two synchronous
// standbys (remote_apply) and CockroachDB on three nodes, every database pod with the same CPU
// and memory, requests equal to limits, the same storage class and size, an explicit isolation
// level, and repeats enough for confidence intervals; the API server accepts it as written
// (TestSuiteSamplesAreAccepted) and stores those values.
func TestComparePostgresCockroachSampleIsOnEqualTerms(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repo, "config", "samples", "compare-postgres-cockroach.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	suite := &benchv1.BenchmarkSuite{}
	if err := yaml.UnmarshalStrict(data, suite); err != nil {
		t.Fatal(err)
	}
	suite.Namespace, suite.Name = "default", "compare-equal-terms"
	if err := k8s.Create(context.Background(), suite, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
		t.Fatalf("sample rejected: %v", err)
	}
	stored := &benchv1.BenchmarkSuite{}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(suite), stored); err != nil {
		t.Fatal(err)
	}
	spec := stored.Spec
	if len(spec.Databases) != 2 {
		t.Fatalf("%d databases, want PostgreSQL and CockroachDB", len(spec.Databases))
	}
	var pg *benchv1.PostgresSpec
	var crdb *benchv1.CockroachSpec
	for _, d := range spec.Databases {
		switch {
		case d.Database.Postgres != nil:
			pg = d.Database.Postgres
		case d.Database.Cockroach != nil:
			crdb = d.Database.Cockroach
		}
	}
	if pg == nil || crdb == nil {
		t.Fatalf("want one postgres and one cockroach block: %+v", spec.Databases)
	}
	if pg.Instances != 3 || pg.SynchronousReplicas == nil || *pg.SynchronousReplicas != 2 || pg.SynchronousCommit != "remote_apply" {
		t.Errorf("postgres: %d instances, %v synchronous, %q; want 3, 2, remote_apply", pg.Instances, pg.SynchronousReplicas, pg.SynchronousCommit)
	}
	if crdb.Nodes != 3 {
		t.Errorf("cockroach: %d nodes, want 3", crdb.Nodes)
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		values := map[string]resource.Quantity{
			"postgres.resources.requests": pg.Resources.Requests[name], "postgres.resources.limits": pg.Resources.Limits[name],
			"cockroach.resources.requests": crdb.Resources.Requests[name], "cockroach.resources.limits": crdb.Resources.Limits[name],
		}
		want := pg.Resources.Requests[name]
		if want.IsZero() {
			t.Errorf("postgres.resources.requests.%s is not set", name)
		}
		for field, q := range values {
			if q.Cmp(want) != 0 {
				t.Errorf("%s.%s = %s, want %s like every database pod", field, name, q.String(), want.String())
			}
		}
	}
	if pg.Storage.Size.Cmp(crdb.Storage.Size) != 0 || pg.Storage.Size.IsZero() {
		t.Errorf("storage.size: postgres %s, cockroach %s; want equal and set", pg.Storage.Size.String(), crdb.Storage.Size.String())
	}
	if pg.Storage.StorageClass != crdb.Storage.StorageClass {
		t.Errorf("storage.storageClass: postgres %q, cockroach %q; want equal", pg.Storage.StorageClass, crdb.Storage.StorageClass)
	}
	if spec.Workload.Isolation == "" {
		t.Error("workload.isolation is not stated: each engine would run its own default")
	}
	if spec.Repeats < 3 {
		t.Errorf("repeats = %d, want at least 3 for confidence intervals", spec.Repeats)
	}
}
