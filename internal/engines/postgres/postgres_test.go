package postgres

import (
	"slices"
	"testing"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

func run(p *benchv1.PostgresSpec) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "pg"},
		Spec:       benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: p}},
	}
}

func int32p(v int32) *int32 { return &v }

func TestCluster(t *testing.T) {
	cases := []struct {
		name          string
		spec          *benchv1.PostgresSpec
		defaultImage  string
		wantInstances int
		wantSync      int // 0: no synchronous stanza
		wantCommit    string
		wantImage     string
	}{
		{"omitted block: the study's topology", nil, "", 3, 2, "remote_apply", ""},
		{"one synchronous replica of two", &benchv1.PostgresSpec{Instances: 2, SynchronousReplicas: int32p(1), SynchronousCommit: "on"}, "", 2, 1, "on", ""},
		{"asynchronous", &benchv1.PostgresSpec{Instances: 3, SynchronousReplicas: int32p(0)}, "", 3, 0, "remote_apply", ""},
		{"manager default image", nil, "local/postgresql:15", 3, 2, "remote_apply", "local/postgresql:15"},
		{"run image wins", &benchv1.PostgresSpec{Image: "mine:1"}, "local/postgresql:15", 3, 2, "remote_apply", "mine:1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Backend{DefaultImage: tc.defaultImage}.Cluster(run(tc.spec))
			if c.Name != "pg-db" || c.Namespace != "bench" || c.Labels["bench.oltp.io/run"] != "pg" {
				t.Errorf("metadata = %s/%s %v", c.Namespace, c.Name, c.Labels)
			}
			if c.Spec.Instances != tc.wantInstances {
				t.Errorf("instances = %d, want %d", c.Spec.Instances, tc.wantInstances)
			}
			sync := c.Spec.PostgresConfiguration.Synchronous
			switch {
			case tc.wantSync == 0 && sync != nil:
				t.Errorf("synchronous = %+v, want none", sync)
			case tc.wantSync > 0 && (sync == nil || sync.Number != tc.wantSync || sync.Method != cnpgv1.SynchronousReplicaConfigurationMethodAny || sync.DataDurability != cnpgv1.DataDurabilityLevelRequired):
				t.Errorf("synchronous = %+v, want any %d required", sync, tc.wantSync)
			}
			if got := c.Spec.PostgresConfiguration.Parameters["synchronous_commit"]; got != tc.wantCommit {
				t.Errorf("synchronous_commit = %q, want %q", got, tc.wantCommit)
			}
			if c.Spec.ImageName != tc.wantImage {
				t.Errorf("image = %q, want %q", c.Spec.ImageName, tc.wantImage)
			}
			if p := c.Spec.Probes; p == nil || p.Readiness == nil || p.Readiness.TimeoutSeconds != 10 || p.Readiness.FailureThreshold != 6 ||
				p.Liveness == nil || p.Liveness.TimeoutSeconds != 10 || p.Liveness.FailureThreshold != 6 {
				t.Errorf("probes = %+v, want readiness and liveness tolerating a minute of a saturated instance", p)
			}
			if c.Spec.StorageConfiguration.Size != "10Gi" {
				t.Errorf("storage = %q, want default 10Gi", c.Spec.StorageConfiguration.Size)
			}
			if b := c.Spec.Bootstrap; b == nil || b.InitDB == nil || b.InitDB.Database != Database || b.InitDB.Owner != Owner ||
				!slices.Equal(b.InitDB.PostInitSQL, []string{"GRANT pg_monitor TO tpcc",
					"DO 'BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ''pg_checkpoint'') THEN GRANT pg_checkpoint TO tpcc; END IF; END'"}) {
				t.Errorf("bootstrap = %+v, want initdb %s/%s", b, Database, Owner)
			}
		})
	}
}

func TestUserParametersAreKeptAndDoNotLeakBetweenRuns(t *testing.T) {
	spec := &benchv1.PostgresSpec{Parameters: map[string]string{"shared_buffers": "2GB"}}
	c := Backend{}.Cluster(run(spec))
	if c.Spec.PostgresConfiguration.Parameters["shared_buffers"] != "2GB" {
		t.Errorf("parameters = %v", c.Spec.PostgresConfiguration.Parameters)
	}
	if _, leaked := spec.Parameters["synchronous_commit"]; leaked {
		t.Error("building the Cluster wrote into the run's spec")
	}
}

func clusterObject(t *testing.T, status cnpgv1.ClusterStatus) *unstructured.Unstructured {
	t.Helper()
	c := &cnpgv1.Cluster{TypeMeta: metav1.TypeMeta{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster"},
		ObjectMeta: metav1.ObjectMeta{Name: "pg-db", Namespace: "bench"}, Status: status}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: content}
}

func TestReadiness(t *testing.T) {
	ready := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ClusterIsReady"}}
	notReady := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "ClusterIsNotReady"}}
	cases := []struct {
		name       string
		status     *cnpgv1.ClusterStatus
		wantReady  bool
		wantReason string
	}{
		{"missing", nil, false, "ClusterMissing"},
		{"setting up", &cnpgv1.ClusterStatus{Phase: "Setting up primary", Conditions: notReady}, false, "ClusterNotReady"},
		{"no status yet", &cnpgv1.ClusterStatus{}, false, "ClusterNotReady"},
		{"ready condition but a standby missing", &cnpgv1.ClusterStatus{Conditions: ready, ReadyInstances: 2}, false, "InstancesNotReady"},
		{"ready", &cnpgv1.ClusterStatus{Phase: "Cluster in healthy state", Conditions: ready, ReadyInstances: 3}, true, "ClusterReady"},
	}
	b := Backend{}
	r := run(nil)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			observed := map[engines.Ref]*unstructured.Unstructured{}
			if tc.status != nil {
				observed[b.Observed(r)[0]] = clusterObject(t, *tc.status)
			}
			got := b.Readiness(r, observed)
			if got.Ready != tc.wantReady || got.Reason != tc.wantReason {
				t.Errorf("readiness = %+v, want ready=%v reason=%s", got, tc.wantReady, tc.wantReason)
			}
		})
	}
}

func TestConnectionUsesTheApplicationSecret(t *testing.T) {
	c := Backend{}.Connection(run(nil))
	if c.Engine != "postgres" || c.URL != "" || c.URLFrom == nil || c.URLFrom.Name != "pg-db-app" || c.URLFrom.Key != "uri" {
		t.Errorf("connection = %+v", c)
	}
	if c.Endpoint != "pg-db-rw.bench:5432/tpcc" {
		t.Errorf("endpoint = %q", c.Endpoint)
	}
}

// Every parameter of the Cluster is in the tuning record, by source; the sampling pod reads them
// all back.
func TestTuning(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "p"},
		Spec: benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL,
			Postgres: &benchv1.PostgresSpec{Parameters: map[string]string{"work_mem": "64MB"},
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}}}},
			Workload: benchv1.WorkloadSpec{Warehouses: 10}}}
	b := Backend{}
	sources := map[string]string{}
	for _, s := range b.Tuning(run) {
		sources[s.Name] = s.Source
	}
	if sources["work_mem"] != "postgres.parameters" || sources["synchronous_commit"] != "postgres.synchronousCommit" || sources["shared_buffers"] != "sizing" {
		t.Errorf("sources %v", sources)
	}
	if names := b.Connection(run).ReadSettings; len(names) != len(sources) {
		t.Errorf("read back %v, want every parameter %v", names, sources)
	}
}
