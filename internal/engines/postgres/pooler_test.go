package postgres

import (
	"strings"
	"testing"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

func cpu(limit, request string) corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{Limits: corev1.ResourceList{}, Requests: corev1.ResourceList{}}
	if limit != "" {
		r.Limits[corev1.ResourceCPU] = resource.MustParse(limit)
	}
	if request != "" {
		r.Requests[corev1.ResourceCPU] = resource.MustParse(request)
	}
	return r
}

// The pool is the run's, or 4 server connections per vCPU of an instance (its limit, else its
// request) divided among the PgBouncers, at least 5; 20 without CPU.
func TestPoolSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		resources corev1.ResourceRequirements
		pooler    benchv1.PostgresPooler
		want      int
	}{
		{"the run's", cpu("8", ""), benchv1.PostgresPooler{Instances: 1, DefaultPoolSize: 7}, 7},
		{"8 vCPU limit, one PgBouncer", cpu("8", "2"), benchv1.PostgresPooler{Instances: 1}, 32},
		{"8 vCPU limit, three PgBouncers", cpu("8", ""), benchv1.PostgresPooler{Instances: 3}, 11},
		{"a request only", cpu("", "4"), benchv1.PostgresPooler{Instances: 2}, 8},
		{"a fraction of a vCPU: the floor", cpu("500m", ""), benchv1.PostgresPooler{Instances: 1}, MinPoolSize},
		{"no CPU declared", corev1.ResourceRequirements{}, benchv1.PostgresPooler{Instances: 1}, PoolWithoutCPU},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(&benchv1.PostgresSpec{Resources: c.resources, Pooler: &c.pooler})
			if got := PoolSize(r); got != c.want {
				t.Errorf("PoolSize %d, want %d", got, c.want)
			}
			if got := PoolerServerConnections(r); got != c.want*int(c.pooler.Instances) {
				t.Errorf("server connections %d, want %d", got, c.want*int(c.pooler.Instances))
			}
		})
	}
	if plain := run(&benchv1.PostgresSpec{}); PoolSize(plain) != 0 || PoolerServerConnections(plain) != 0 {
		t.Error("no pooler: want no pool")
	}
	// Session mode: a server connection per client connection of a step of every warehouse, its
	// share on each PgBouncer (2 000 warehouses: 1 145 connections over 2, 573).
	session := pooledRun(benchv1.PostgresPooler{Instances: 2, PoolMode: benchv1.PoolModeSession})
	if got := PoolSize(session); got != 573 {
		t.Errorf("session pool %d, want 573", got)
	}
	session.Spec.Database.Postgres.Pooler.DefaultPoolSize = 100
	if _, err := (Backend{}).Desired(session); err == nil || !strings.Contains(err.Error(), PoolSizeField+" is 100") || !strings.Contains(err.Error(), "set at least 573") {
		t.Errorf("a session pool of 100 for 1 145 connections: %v", err)
	}
}

func pooledRun(p benchv1.PostgresPooler) *benchv1.BenchmarkRun {
	r := run(&benchv1.PostgresSpec{Resources: cpu("2", ""), Pooler: &p})
	r.Spec.Workload = benchv1.WorkloadSpec{Warehouses: 2000, Wait: benchv1.WaitSpec}
	return r
}

// With a pooler the run's objects are the Cluster and a Pooler of type rw in front of it: the
// run's pool mode, default_pool_size, and max_client_conn for every connection of a step of all
// the loaded warehouses; the Cluster's max_connections holds the pooler's server connections or
// the load's, not the clients'; a transaction-mode pooler sets the server's default isolation.
func TestPoolerObjects(t *testing.T) {
	r := pooledRun(benchv1.PostgresPooler{Instances: 2, PoolMode: benchv1.PoolModeTransaction,
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}})
	r.Spec.Workload.Isolation = benchv1.IsolationRepeatableRead
	objs, err := Backend{}.Desired(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || objs[0].GetKind() != "Pooler" || objs[0].GetName() != "pg-db-pooler-rw" || objs[1].GetKind() != "Cluster" {
		t.Fatalf("objects %v, want the Pooler pg-db-pooler-rw and the Cluster, last (status.database names it)", kinds(objs))
	}
	pooler := &cnpgv1.Pooler{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[0].Object, pooler); err != nil {
		t.Fatal(err)
	}
	// 2 vCPU × 4 over 2 PgBouncers: 4, the floor of 5; 2 000 warehouses on 4 pods: 1 145 + 20.
	s := pooler.Spec
	if s.Cluster.Name != "pg-db" || s.Type != cnpgv1.PoolerTypeRW || *s.Instances != 2 || s.PgBouncer.PoolMode != cnpgv1.PgBouncerPoolModeTransaction ||
		s.PgBouncer.Parameters["default_pool_size"] != "5" || s.PgBouncer.Parameters["max_client_conn"] != "1165" {
		t.Errorf("Pooler spec %+v, parameters %v", s, s.PgBouncer.Parameters)
	}
	if c := s.Template.Spec.Containers; len(c) != 1 || c[0].Name != "pgbouncer" || c[0].Resources.Limits.Cpu().String() != "500m" {
		t.Errorf("Pooler template %+v, want the pgbouncer container with the run's resources", s.Template)
	}
	params := Backend{}.Cluster(r).Spec.PostgresConfiguration.Parameters
	// The pooler's 10 server connections and the load's few stay below PostgreSQL's default: 100.
	if params["max_connections"] != "100" || params["default_transaction_isolation"] != "repeatable read" {
		t.Errorf("Cluster max_connections %q, default_transaction_isolation %q; want 100 and repeatable read", params["max_connections"], params["default_transaction_isolation"])
	}
	tuning := Backend{}.Tuning(r)
	for _, s := range tuning {
		if s.Name == "default_transaction_isolation" && s.Source != SourcePooler {
			t.Errorf("default_transaction_isolation's source %q, want %s", s.Source, SourcePooler)
		}
	}

	// Session pooling: each client holds a server connection; the clients set their level.
	session := pooledRun(benchv1.PostgresPooler{Instances: 1, PoolMode: benchv1.PoolModeSession})
	objs, err = Backend{}.Desired(session)
	if err != nil {
		t.Fatal(err)
	}
	if mode, _, _ := unstructured.NestedString(objs[0].Object, "spec", "pgbouncer", "poolMode"); mode != "session" {
		t.Errorf("session pool mode %q", mode)
	}
	sessionParams := Backend{}.Cluster(session).Spec.PostgresConfiguration.Parameters
	if _, set := sessionParams["default_transaction_isolation"]; set {
		t.Error("a session-mode pooler set the server's default isolation")
	}

	// No pooler: the Cluster alone, its max_connections for every client.
	plain := run(&benchv1.PostgresSpec{})
	plain.Spec.Workload = benchv1.WorkloadSpec{Warehouses: 2000, Wait: benchv1.WaitSpec}
	if objs, err := Desired(plain); err != nil || len(objs) != 1 {
		t.Errorf("without a pooler: %v, %v", kinds(objs), err)
	}
	if got := (Backend{}).Cluster(plain).Spec.PostgresConfiguration.Parameters["max_connections"]; got != "1165" {
		t.Errorf("without a pooler max_connections %s, want 1165", got)
	}
}

// Desired is Backend{}.Desired.
func Desired(r *benchv1.BenchmarkRun) ([]*unstructured.Unstructured, error) {
	return Backend{}.Desired(r)
}

func kinds(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

// The steps' clients connect to the Pooler's Service; the database's pods are its instances, not
// the PgBouncers (which carry the Cluster's label too).
func TestPoolerConnection(t *testing.T) {
	conn := Backend{}.Connection(pooledRun(benchv1.PostgresPooler{Instances: 1, PoolMode: benchv1.PoolModeTransaction}))
	if conn.Pooler == nil || conn.Pooler.Endpoint != "pg-db-pooler-rw.bench:5432" || conn.Pooler.Mode != "transaction" {
		t.Errorf("pooler endpoint %+v", conn.Pooler)
	}
	if conn.DatabasePods["cnpg.io/podRole"] != "instance" || conn.DatabasePods["cnpg.io/cluster"] != "pg-db" {
		t.Errorf("database pods %v", conn.DatabasePods)
	}
	plain := Backend{}.Connection(run(&benchv1.PostgresSpec{}))
	if plain.Pooler != nil || len(plain.DatabasePods) != 1 {
		t.Errorf("without a pooler: %+v, %v", plain.Pooler, plain.DatabasePods)
	}
}

// Ready needs every PgBouncer ready as well as the Cluster.
func TestPoolerReadiness(t *testing.T) {
	r := pooledRun(benchv1.PostgresPooler{Instances: 2, PoolMode: benchv1.PoolModeTransaction})
	cluster := &cnpgv1.Cluster{Status: cnpgv1.ClusterStatus{ReadyInstances: 3}}
	cluster.Status.Conditions = append(cluster.Status.Conditions, metaCondition(string(cnpgv1.ConditionClusterReady)))
	observed := map[engines.Ref]*unstructured.Unstructured{{GVK: ClusterGVK, Name: "pg-db"}: toUnstructured(t, cluster)}
	if got := (Backend{}).Readiness(r, observed); got.Ready || got.Reason != "PoolerMissing" {
		t.Errorf("without the Deployment: %+v", got)
	}
	d := &appsv1.Deployment{Status: appsv1.DeploymentStatus{ReadyReplicas: 1, UpdatedReplicas: 2}}
	observed[engines.Ref{GVK: DeploymentGVK, Name: "pg-db-pooler-rw"}] = toUnstructured(t, d)
	if got := (Backend{}).Readiness(r, observed); got.Ready || !strings.Contains(got.Message, "1/2 PgBouncer instances ready") {
		t.Errorf("one of two PgBouncers ready: %+v", got)
	}
	d.Status.ReadyReplicas = 2
	observed[engines.Ref{GVK: DeploymentGVK, Name: "pg-db-pooler-rw"}] = toUnstructured(t, d)
	if got := (Backend{}).Readiness(r, observed); !got.Ready || !strings.Contains(got.Message, "Pooler pg-db-pooler-rw ready with 2 PgBouncer instances") {
		t.Errorf("both ready: %+v", got)
	}
	if refs := (Backend{}).Observed(r); len(refs) != 3 {
		t.Errorf("observed %v, want the Cluster, the Pooler and its Deployment", refs)
	}
}

func toUnstructured(t *testing.T, obj any) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// A run that sets the server's default isolation itself must agree with its clients' level when a
// transaction-mode pooler makes the server's default the level of the single statements.
func TestPoolerIsolationField(t *testing.T) {
	r := pooledRun(benchv1.PostgresPooler{Instances: 1, PoolMode: benchv1.PoolModeTransaction})
	r.Spec.Database.Postgres.Parameters = map[string]string{"default_transaction_isolation": "serializable"}
	_, err := Backend{}.Desired(r)
	if err == nil || !strings.Contains(err.Error(), PoolerIsolationField) || !strings.Contains(err.Error(), `"read committed"`) {
		t.Errorf("error %v, want one naming %s and the run's level", err, PoolerIsolationField)
	}
	r.Spec.Workload.Isolation = benchv1.IsolationSerializable
	if _, err := (Backend{}).Desired(r); err != nil {
		t.Errorf("matching levels refused: %v", err)
	}
}

// The description says the clients went through the pooler, and its PgBouncer pods count among the
// database's pods.
func TestPoolerDescription(t *testing.T) {
	db := benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Pooler: &benchv1.PostgresPooler{DefaultPoolSize: 9}}}
	d := Engine{}.Describe(db)
	want := "through PgBouncer (CloudNativePG Pooler, 1 instance, transaction pooling, 9 server connections each)"
	if d.Pooler != want || !strings.HasSuffix(d.Deployment, ", "+want) || len(d.Pods) != 2 || d.Pods[1].Role != "pgbouncer" || d.Pods[1].Count != 1 {
		t.Errorf("description %+v", d)
	}
}

func metaCondition(t string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionTrue}
}
