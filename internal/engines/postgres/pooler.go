package postgres

import (
	"fmt"
	"math"
	"strings"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// PoolerGVK is CloudNativePG's Pooler; DeploymentGVK the Deployment it runs PgBouncer in.
var (
	PoolerGVK     = cnpgv1.SchemeGroupVersion.WithKind("Pooler")
	DeploymentGVK = appsv1.SchemeGroupVersion.WithKind("Deployment")
)

// Pool sizes of postgres.pooler.defaultPoolSize's default: PoolPerVCPU server connections per vCPU
// of an instance, divided among the Pooler's instances and at least MinPoolSize;
// PoolWithoutCPU when the instances declare no CPU (PgBouncer's own default).
const (
	PoolPerVCPU    = 4
	MinPoolSize    = 5
	PoolWithoutCPU = 20
	// PoolerPort is the port of the Pooler's Service (CloudNativePG's PgBouncer listens on 5432).
	PoolerPort = 5432
)

// PoolerName names the run's Pooler; CloudNativePG names its Service and Deployment after it.
func PoolerName(run *benchv1.BenchmarkRun) string { return engines.DatabaseName(run) + "-pooler-rw" }

// PoolSize is each PgBouncer's default_pool_size: postgres.pooler.defaultPoolSize, or sized from an
// instance's CPU (its limit, else its request) in transaction mode; 0 without a pooler. In session
// mode every client connection holds a server connection, so the default is sessionPoolSize.
func PoolSize(run *benchv1.BenchmarkRun) int {
	spec := run.Spec.Database.EffectivePostgres()
	if p := spec.Pooler; p != nil && p.DefaultPoolSize == 0 && p.PoolMode == benchv1.PoolModeSession {
		return sessionPoolSize(run)
	}
	return specPoolSize(spec)
}

// specPoolSize is the pool the spec alone decides: its own, or the transaction-mode default.
func specPoolSize(spec benchv1.PostgresSpec) int {
	p := spec.Pooler
	if p == nil {
		return 0
	}
	if p.DefaultPoolSize > 0 {
		return int(p.DefaultPoolSize)
	}
	cpu, ok := spec.Resources.Limits[corev1.ResourceCPU]
	if !ok {
		cpu, ok = spec.Resources.Requests[corev1.ResourceCPU]
	}
	if !ok || cpu.IsZero() {
		return PoolWithoutCPU
	}
	instances := max(int(p.Instances), 1)
	return max(MinPoolSize, int(math.Ceil(PoolPerVCPU*cpu.AsApproximateFloat64()/float64(instances))))
}

// sessionPoolSize is the pool a session-mode PgBouncer needs: its share of a step's client
// connections at all the loaded warehouses.
func sessionPoolSize(run *benchv1.BenchmarkRun) int {
	instances := max(int(run.Spec.Database.EffectivePostgres().Pooler.Instances), 1)
	step := workload.StepConnections(run, run.Spec.Workload.Warehouses)
	return (step + instances - 1) / instances
}

// PoolSizeField is the pool a run sets itself.
const PoolSizeField = "spec.database.postgres.pooler.defaultPoolSize"

// checkSessionPool refuses a session-mode pooler whose pool cannot give every client connection of
// a step its server connection: the clients beyond it would wait until PgBouncer times them out.
func checkSessionPool(run *benchv1.BenchmarkRun) error {
	p := run.Spec.Database.EffectivePostgres().Pooler
	if p == nil || p.PoolMode != benchv1.PoolModeSession || p.DefaultPoolSize == 0 {
		return nil
	}
	if need := sessionPoolSize(run); int(p.DefaultPoolSize) < need {
		return fmt.Errorf("%s is %d, but in Session mode each client connection holds a server connection and a step of %d warehouses opens %d over %d PgBouncer instances: set at least %d, leave it 0 to have it sized, or use poolMode Transaction",
			PoolSizeField, p.DefaultPoolSize, run.Spec.Workload.Warehouses, workload.StepConnections(run, run.Spec.Workload.Warehouses), max(p.Instances, 1), need)
	}
	return nil
}

// PoolerServerConnections is the most connections the Pooler opens to the primary: every
// PgBouncer's pool.
func PoolerServerConnections(run *benchv1.BenchmarkRun) int {
	p := run.Spec.Database.EffectivePostgres().Pooler
	if p == nil {
		return 0
	}
	return max(int(p.Instances), 1) * PoolSize(run)
}

// poolerClientConnections is each PgBouncer's max_client_conn: every client connection of a step
// of all the loaded warehouses could land on one PgBouncer, with the headroom the database keeps.
func poolerClientConnections(run *benchv1.BenchmarkRun) int {
	return workload.StepConnections(run, run.Spec.Workload.Warehouses) + ConnectionHeadroom
}

// DatabaseConnections is the most connections the database's own server holds for the run's Jobs
// at once: with a pooler, its server connections or the load's, whichever is more (the loaders and
// the checks connect directly, the steps' clients through the pooler); without, every Job's.
func DatabaseConnections(run *benchv1.BenchmarkRun) int {
	spec := run.Spec.Database.EffectivePostgres()
	if spec.Pooler == nil {
		return peakConnections(run)
	}
	return max(PoolerServerConnections(run), workload.LoadConnections(run, loadCPU(run)))
}

// Pooler is the run's CloudNativePG Pooler of type rw in front of its Cluster, nil without
// postgres.pooler: PgBouncer in the run's pool mode, default_pool_size (PoolSize),
// max_client_conn for every client connection of a step, the run's resources for the container.
func (b Backend) Pooler(run *benchv1.BenchmarkRun) *cnpgv1.Pooler {
	spec := run.Spec.Database.EffectivePostgres()
	p := spec.Pooler
	if p == nil {
		return nil
	}
	mode := cnpgv1.PgBouncerPoolModeTransaction
	if p.PoolMode == benchv1.PoolModeSession {
		mode = cnpgv1.PgBouncerPoolModeSession
	}
	instances := p.Instances
	pooler := &cnpgv1.Pooler{
		TypeMeta:   metav1.TypeMeta{APIVersion: cnpgv1.SchemeGroupVersion.String(), Kind: "Pooler"},
		ObjectMeta: metav1.ObjectMeta{Name: PoolerName(run), Namespace: run.Namespace, Labels: engines.Labels(run)},
		Spec: cnpgv1.PoolerSpec{
			Cluster:   cnpgv1.LocalObjectReference{Name: engines.DatabaseName(run)},
			Type:      cnpgv1.PoolerTypeRW,
			Instances: &instances,
			PgBouncer: &cnpgv1.PgBouncerSpec{
				PoolMode: mode,
				Parameters: map[string]string{
					"default_pool_size": fmt.Sprint(PoolSize(run)),
					"max_client_conn":   fmt.Sprint(poolerClientConnections(run)),
				},
			},
		},
	}
	if len(p.Resources.Limits) > 0 || len(p.Resources.Requests) > 0 {
		pooler.Spec.Template = &cnpgv1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "pgbouncer", Resources: *p.Resources.DeepCopy()}},
		}}
	}
	return pooler
}

// poolerReadiness judges the Pooler's Deployment: every PgBouncer ready. ok is true without a
// pooler.
func poolerReadiness(run *benchv1.BenchmarkRun, observed map[engines.Ref]*unstructured.Unstructured) engines.Readiness {
	p := run.Spec.Database.EffectivePostgres().Pooler
	if p == nil {
		return engines.Readiness{Ready: true}
	}
	name := PoolerName(run)
	u, ok := observed[engines.Ref{GVK: DeploymentGVK, Name: name}]
	if !ok {
		return engines.Readiness{Reason: "PoolerMissing", Message: fmt.Sprintf("CloudNativePG has not created the Pooler's Deployment %s yet", name)}
	}
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, d); err != nil {
		return engines.Readiness{Reason: "PoolerUnreadable", Message: err.Error()}
	}
	if d.Status.ReadyReplicas < p.Instances || d.Status.UpdatedReplicas < p.Instances {
		return engines.Readiness{Reason: "PoolerNotReady", Message: fmt.Sprintf("Pooler %s: %d/%d PgBouncer instances ready", name, d.Status.ReadyReplicas, p.Instances)}
	}
	return engines.Readiness{Ready: true, Message: fmt.Sprintf("Pooler %s ready with %s", name, plural(p.Instances, "PgBouncer instance", "PgBouncer instances"))}
}

// poolerWords says it for the database's description: "through PgBouncer (CloudNativePG Pooler,
// 1 instance, transaction pooling, 20 server connections each)"; "" without a pooler.
func poolerWords(spec benchv1.PostgresSpec) string {
	p := spec.Pooler
	if p == nil {
		return ""
	}
	pool := fmt.Sprintf("transaction pooling, %d server connections each", specPoolSize(spec))
	if p.PoolMode == benchv1.PoolModeSession {
		pool = "session pooling, a server connection per client connection"
	}
	return fmt.Sprintf("through PgBouncer (CloudNativePG Pooler, %s, %s)", plural(p.Instances, "instance", "instances"), pool)
}

// PoolerIsolationField is where a run would set the server's default level itself.
const PoolerIsolationField = "spec.database.postgres.parameters.default_transaction_isolation"

// poolerIsolation is the server's default_transaction_isolation a transaction-mode pooler needs: the
// run's level as PostgreSQL spells it; ok is false without one (the clients then set it per session).
func poolerIsolation(run *benchv1.BenchmarkRun) (string, bool) {
	p := run.Spec.Database.EffectivePostgres().Pooler
	if p == nil || p.PoolMode == benchv1.PoolModeSession {
		return "", false
	}
	return isolation.Level(Engine{}.Capabilities().Isolation.Effective(run.Spec.Workload)).Reported(), true
}

// checkPoolerIsolation refuses a run whose own default_transaction_isolation differs from the level
// its clients run at through a transaction-mode pooler: its single-statement transactions would run
// at the server's.
func checkPoolerIsolation(run *benchv1.BenchmarkRun) error {
	want, ok := poolerIsolation(run)
	if !ok {
		return nil
	}
	for name, value := range run.Spec.Database.EffectivePostgres().Parameters {
		if strings.EqualFold(name, "default_transaction_isolation") {
			got, err := isolation.Parse(value)
			if err != nil || got.Reported() != want {
				return fmt.Errorf("%s is %q, but through a transaction-mode pooler (postgres.pooler) the server's default is the level of every single-statement transaction, and the run's is %q: remove it (the operator sets it) or set workload.isolation to match",
					PoolerIsolationField, value, want)
			}
		}
	}
	return nil
}
