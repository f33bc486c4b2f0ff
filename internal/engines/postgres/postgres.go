// Package postgres deploys PostgreSQL with synchronous replicas as a CloudNativePG Cluster.
package postgres

import (
	"fmt"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// Database and Owner are the application database and role CloudNativePG creates; its
// `<cluster>-app` Secret holds their URI.
const (
	Database = "tpcc"
	Owner    = "tpcc"
)

// ClusterGVK is CloudNativePG's Cluster.
var ClusterGVK = cnpgv1.SchemeGroupVersion.WithKind("Cluster")

// Backend builds CloudNativePG Clusters.
type Backend struct {
	// DefaultImage is the PostgreSQL operand image when the run gives none; empty leaves
	// CloudNativePG's default.
	DefaultImage string
}

// Sizing implements engines.Backend: with a memory request or limit, shared_buffers,
// effective_cache_size, maintenance_work_mem, work_mem, max_wal_size and max_connections are sized
// from it, the run's warehouses and the connections its Jobs open (Size); each
// parameter the run sets itself keeps the run's value.
func (Backend) Sizing(run *benchv1.BenchmarkRun) *benchv1.DatabaseSizing {
	spec := run.Spec.Database.EffectivePostgres()
	memory, from, ok := engines.MemoryOf(spec.Resources)
	if !ok {
		return nil
	}
	connections := DatabaseConnections(run)
	in := SizingInput{
		Memory: memory, Connections: connections,
		Warehouses: int(run.Spec.Workload.Warehouses), Storage: spec.Storage.Size.Value(),
	}
	if q, set := spec.Resources.Requests[corev1.ResourceMemory]; set {
		in.MemoryRequest = q.Value()
	}
	// work_mem divides what the user's own shared_buffers and max_connections leave.
	if v, ok := spec.Parameters["shared_buffers"]; ok {
		in.SharedBuffers, _ = ParseSize(v, 8<<10)
	}
	// A max_connections that does not parse never gets here: Desired refuses it first.
	in.MaxConnections, _, _ = userMaxConnections(spec)
	sized := Size(in)
	return engines.SizingStatus(memory, from, connections, sized.Parameters(), spec.Parameters)
}

// Cluster is the CloudNativePG Cluster for a run: spec.database.postgres mapped onto instances,
// quorum synchronous replication (method any, number = synchronousReplicas, durability required),
// synchronous_commit, the parameters sized from memory (Sizing; max_connections from the run's
// connections when there is no memory to size from) and the user's, storage,
// resources and preferred anti-affinity.
func (b Backend) Cluster(run *benchv1.BenchmarkRun) *cnpgv1.Cluster {
	spec := run.Spec.Database.EffectivePostgres()
	parameters := map[string]string{}
	if sizing := b.Sizing(run); sizing != nil {
		for k, v := range sizing.Settings {
			parameters[k] = v
		}
	} else {
		// Without memory nothing else is sized, but the connections are known all the same.
		parameters["max_connections"] = fmt.Sprint(MaxConnections(DatabaseConnections(run)))
	}
	// Through a transaction-mode pooler a session's SET does not stay with the client: the level
	// of the single-statement transactions is the server's default.
	if level, ok := poolerIsolation(run); ok {
		parameters["default_transaction_isolation"] = level
	}
	for k, v := range spec.Parameters {
		parameters[k] = v
	}
	parameters["synchronous_commit"] = string(spec.SynchronousCommit)

	var synchronous *cnpgv1.SynchronousReplicaConfiguration
	if n := int(*spec.SynchronousReplicas); n > 0 {
		synchronous = &cnpgv1.SynchronousReplicaConfiguration{
			Method:         cnpgv1.SynchronousReplicaConfigurationMethodAny,
			Number:         n,
			DataDurability: cnpgv1.DataDurabilityLevelRequired,
		}
	}
	image := spec.Image
	if image == "" {
		image = b.DefaultImage
	}
	var storageClass *string
	if spec.Storage.StorageClass != "" {
		storageClass = &spec.Storage.StorageClass
	}
	affinity, spread := placement(run.Spec.Placement.DatabasePlacement())
	// pg_monitor lets the client pod that samples the database read every standby's positions
	// (pg_stat_replication hides them without pg_read_all_stats) and every session's wait event;
	// it grants reading statistics, nothing that writes. pg_checkpoint (PostgreSQL 15 and later)
	// lets the load end with a CHECKPOINT, so a standby restarted after it replays WAL only from
	// there (tpcc.Finish). The DO body is single-quoted: CloudNativePG's initdb rejected a
	// dollar-quoted one. A restored database has both grants in its data already.
	bootstrap := &cnpgv1.BootstrapConfiguration{
		InitDB: &cnpgv1.BootstrapInitDB{Database: Database, Owner: Owner, PostInitSQL: []string{"GRANT pg_monitor TO " + Owner,
			"DO 'BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ''pg_checkpoint'') THEN GRANT pg_checkpoint TO " + Owner + "; END IF; END'"}},
	}
	if r := run.Spec.Database.Restore; r != nil {
		bootstrap = restoreBootstrap(r)
	}

	return &cnpgv1.Cluster{
		TypeMeta: metav1.TypeMeta{APIVersion: cnpgv1.SchemeGroupVersion.String(), Kind: "Cluster"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      engines.DatabaseName(run),
			Namespace: run.Namespace,
			Labels:    engines.Labels(run),
		},
		Spec: cnpgv1.ClusterSpec{
			Instances: int(spec.Instances),
			ImageName: image,
			PostgresConfiguration: cnpgv1.PostgresConfiguration{
				Parameters:  parameters,
				Synchronous: synchronous,
			},
			Bootstrap: bootstrap,
			Backup:    backupSnapshot(run.Spec.Database.Snapshot),
			StorageConfiguration: cnpgv1.StorageConfiguration{
				Size:         spec.Storage.Size.String(),
				StorageClass: storageClass,
			},
			Resources:                 resources(run),
			Affinity:                  affinity,
			TopologySpreadConstraints: spread,
			Probes:                    saturationTolerantProbes(),
		},
	}
}

// placement maps placement.database onto CloudNativePG's fields: by default one instance per node
// (enablePodAntiAffinity with podAntiAffinityType required on kubernetes.io/hostname, CloudNativePG's
// own term over the Cluster's instances); a podAntiAffinity of the run's replaces it
// (additionalPodAntiAffinity, CloudNativePG's own off). nodeSelector, tolerations, nodeAffinity and
// podAffinity (additionalPodAffinity) pass through; topologySpreadConstraints go to the Cluster's.
func placement(p *benchv1.PodPlacement) (cnpgv1.AffinityConfiguration, []corev1.TopologySpreadConstraint) {
	own := engines.OwnsAntiAffinity(p)
	enabled := !own
	a := cnpgv1.AffinityConfiguration{EnablePodAntiAffinity: &enabled, TopologyKey: corev1.LabelHostname}
	if enabled {
		a.PodAntiAffinityType = cnpgv1.PodAntiAffinityTypeRequired
	}
	if p == nil {
		return a, nil
	}
	p = p.DeepCopy()
	a.NodeSelector, a.Tolerations = p.NodeSelector, p.Tolerations
	if p.Affinity != nil {
		a.NodeAffinity, a.AdditionalPodAffinity = p.Affinity.NodeAffinity, p.Affinity.PodAffinity
		if own {
			a.AdditionalPodAntiAffinity = p.Affinity.PodAntiAffinity
		}
	}
	return a, p.TopologySpreadConstraints
}

// Tuning implements engines.Tuner: every parameter of the Cluster, by where it comes from — the
// run's parameters, synchronousCommit, or the sizing (docs/sizing.md).
func (b Backend) Tuning(run *benchv1.BenchmarkRun) []benchv1.EngineSetting {
	spec := run.Spec.Database.EffectivePostgres()
	var out []benchv1.EngineSetting
	for name, value := range b.Cluster(run).Spec.PostgresConfiguration.Parameters {
		source := engines.SourceSizing
		switch _, own := spec.Parameters[name]; {
		case own:
			source = SourceParameters
		case name == "synchronous_commit":
			source = SourceSynchronousCommit
		case name == "default_transaction_isolation" && spec.Pooler != nil:
			source = SourcePooler
		}
		out = append(out, benchv1.EngineSetting{Name: name, Source: source, Requested: value})
	}
	return out
}

// Desired implements engines.Backend.
func (b Backend) Desired(run *benchv1.BenchmarkRun) ([]*unstructured.Unstructured, error) {
	if err := checkLoadResources(run.Spec.Database.EffectivePostgres()); err != nil {
		return nil, err
	}
	if err := checkConnectionBudget(run); err != nil {
		return nil, err
	}
	if err := checkPoolerIsolation(run); err != nil {
		return nil, err
	}
	if err := checkSessionPool(run); err != nil {
		return nil, err
	}
	u, err := toApplyObject(b.Cluster(run))
	if err != nil {
		return nil, err
	}
	// The Cluster comes last: status.database names the last object (the Pooler waits for its
	// Cluster whichever is applied first).
	var out []*unstructured.Unstructured
	if pooler := b.Pooler(run); pooler != nil {
		p, err := toApplyObject(pooler)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return append(out, u), nil
}

// saturationTolerantProbes keep a saturated instance in its Services: a benchmark drives the
// database to saturation on purpose, and under a CPU limit the instance manager's HTTP probes then
// wait behind PostgreSQL's backends for the CFS quota. With CloudNativePG's defaults (a 1 s
// timeout, 3 failures) a primary at its limit was marked not ready within 30 s, dropped from the
// -rw Service and every client connection refused (measured on the local cluster: 150m per
// instance, 12 warehouses with keying and think times) — the step then measures the
// probe, not the database. Here readiness and liveness allow 10 s per probe and a minute of
// failures; an instance that stops answering for longer is still restarted or failed over.
func saturationTolerantProbes() *cnpgv1.ProbesConfiguration {
	probe := cnpgv1.Probe{TimeoutSeconds: 10, PeriodSeconds: 10, FailureThreshold: 6}
	return &cnpgv1.ProbesConfiguration{
		Readiness: &cnpgv1.ProbeWithStrategy{Probe: probe},
		Liveness:  &cnpgv1.LivenessProbe{Probe: probe},
	}
}

// resources are the instances' compute resources now: loadResources until the run's data is
// loaded, resources while the steps measure, loadResources again for the check after the last
// step (CloudNativePG rolls the instances onto each).
func resources(run *benchv1.BenchmarkRun) corev1.ResourceRequirements {
	spec := run.Spec.Database.EffectivePostgres()
	if spec.LoadResources != nil && engines.UnderLoadResources(run) {
		return *spec.LoadResources
	}
	return spec.Resources
}

// checkLoadResources: loadResources may differ from resources in cpu only — memory sizes the
// PostgreSQL settings (Sizing), which stay the same from the load to the steps.
func checkLoadResources(spec benchv1.PostgresSpec) error {
	if spec.LoadResources == nil {
		return nil
	}
	for _, side := range []struct {
		name      string
		load, run corev1.ResourceList
	}{{"request", spec.LoadResources.Requests, spec.Resources.Requests}, {"limit", spec.LoadResources.Limits, spec.Resources.Limits}} {
		load, loadSet := side.load[corev1.ResourceMemory]
		want, wantSet := side.run[corev1.ResourceMemory]
		if loadSet != wantSet || (loadSet && load.Cmp(want) != 0) {
			return fmt.Errorf("spec.database.postgres.loadResources: memory %s %s differs from spec.database.postgres.resources' %s: only cpu may differ (memory sizes the PostgreSQL settings, which stay the same from the load to the steps)",
				side.name, quantityOrNone(load, loadSet), quantityOrNone(want, wantSet))
		}
	}
	return nil
}

func quantityOrNone(q resource.Quantity, set bool) string {
	if !set {
		return "(none)"
	}
	return q.String()
}

// ResourceSwitch implements engines.ResourceSwitcher: a run with loadResources that loads its own
// data switches CloudNativePG's `postgres` container of every instance to resources.
func (Backend) ResourceSwitch(run *benchv1.BenchmarkRun) (engines.ResourceSwitch, bool) {
	spec := run.Spec.Database.EffectivePostgres()
	if spec.LoadResources == nil || run.Spec.Database.Reuse != nil {
		return engines.ResourceSwitch{}, false
	}
	return engines.ResourceSwitch{Container: "postgres", Want: spec.Resources, From: *spec.LoadResources, Pods: int(spec.Instances)}, true
}

// toApplyObject converts a typed object for server-side apply: zero-valued status and creation
// timestamp would otherwise be sent, and claimed, as if we owned them.
func toApplyObject(obj runtime.Object) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: content}
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

// Observed implements engines.Backend: the Cluster, and with a pooler the Pooler and the
// Deployment CloudNativePG runs PgBouncer in.
func (Backend) Observed(run *benchv1.BenchmarkRun) []engines.Ref {
	refs := []engines.Ref{{GVK: ClusterGVK, Name: engines.DatabaseName(run)}}
	if run.Spec.Database.EffectivePostgres().Pooler != nil {
		refs = append(refs, engines.Ref{GVK: PoolerGVK, Name: PoolerName(run)}, engines.Ref{GVK: DeploymentGVK, Name: PoolerName(run)})
	}
	return refs
}

// Readiness implements engines.Backend: the Cluster's Ready condition, and every instance ready.
func (Backend) Readiness(run *benchv1.BenchmarkRun, observed map[engines.Ref]*unstructured.Unstructured) engines.Readiness {
	u, ok := observed[engines.Ref{GVK: ClusterGVK, Name: engines.DatabaseName(run)}]
	if !ok {
		return engines.Readiness{Reason: "ClusterMissing", Message: "the CloudNativePG Cluster does not exist yet"}
	}
	cluster := &cnpgv1.Cluster{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, cluster); err != nil {
		return engines.Readiness{Reason: "ClusterUnreadable", Message: err.Error()}
	}
	want := run.Spec.Database.EffectivePostgres().Instances
	if !meta.IsStatusConditionTrue(cluster.Status.Conditions, string(cnpgv1.ConditionClusterReady)) {
		phase := cluster.Status.Phase
		if phase == "" {
			phase = "no phase reported yet"
		}
		return engines.Readiness{Reason: "ClusterNotReady", Message: fmt.Sprintf("CloudNativePG Cluster %s: %s (%d/%d instances ready)", cluster.Name, phase, cluster.Status.ReadyInstances, want)}
	}
	if int32(cluster.Status.ReadyInstances) < want {
		return engines.Readiness{Reason: "InstancesNotReady", Message: fmt.Sprintf("%d/%d instances ready", cluster.Status.ReadyInstances, want)}
	}
	message := fmt.Sprintf("CloudNativePG Cluster %s is ready with %d instances", cluster.Name, want)
	if pooler := poolerReadiness(run, observed); !pooler.Ready {
		pooler.Message = message + "; " + pooler.Message
		return pooler
	} else if pooler.Message != "" {
		message += "; " + pooler.Message
	}
	return engines.Readiness{Ready: true, Reason: "ClusterReady", Message: message}
}

// DatabasePods implements engines.Backend: CloudNativePG labels its instances with their Cluster;
// with a pooler, whose PgBouncer pods carry that label too, the instances' pod role as well.
func (Backend) DatabasePods(run *benchv1.BenchmarkRun) map[string]string {
	labels := map[string]string{"cnpg.io/cluster": engines.DatabaseName(run)}
	if run.Spec.Database.EffectivePostgres().Pooler != nil {
		labels["cnpg.io/podRole"] = "instance"
	}
	return labels
}

// Connection implements engines.Backend: the `uri` of CloudNativePG's application Secret, which
// points at the read-write Service; with a pooler the steps' clients connect to the Pooler's
// Service instead, with the same credentials.
func (b Backend) Connection(run *benchv1.BenchmarkRun) engines.Connection {
	name := engines.DatabaseName(run)
	conn := engines.Connection{
		Engine:       Engine{}.Dialect(),
		ReadSettings: engines.SettingNames(b.Tuning(run)),
		URLFrom: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: name + "-app"},
			Key:                  "uri",
		},
		Endpoint:     fmt.Sprintf("%s-rw.%s:5432/%s", name, run.Namespace, Database),
		DatabasePods: Backend{}.DatabasePods(run),
	}
	if p := run.Spec.Database.EffectivePostgres().Pooler; p != nil {
		mode := "transaction"
		if p.PoolMode == benchv1.PoolModeSession {
			mode = "session"
		}
		conn.Pooler = &engines.PoolerEndpoint{Endpoint: fmt.Sprintf("%s.%s:%d", PoolerName(run), run.Namespace, PoolerPort), Mode: mode}
	}
	return conn
}
