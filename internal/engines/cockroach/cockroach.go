// Package cockroach deploys CockroachDB as a cockroach-operator CrdbCluster (v1alpha1), with TLS.
// The object is unstructured: the operator's Go API does not build against current
// controller-runtime.
package cockroach

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/crdb/levels"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

var (
	// CrdbClusterGVK is cockroach-operator's cluster kind.
	CrdbClusterGVK = schema.GroupVersionKind{Group: "crdb.cockroachlabs.com", Version: "v1alpha1", Kind: "CrdbCluster"}
	// StatefulSetGVK is the StatefulSet the operator creates under the cluster's name.
	StatefulSetGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}
)

// DefaultImage is the CockroachDB image when neither the run nor the manager names one.
const DefaultImage = "cockroachdb/cockroach:v25.4.2"

// CertsDir is where client pods find the CA and the root client certificate.
const CertsDir = "/cockroach/certs"

// Backend builds CrdbClusters.
type Backend struct {
	// DefaultImage overrides the package default when the run gives none.
	DefaultImage string
}

// Desired implements engines.Backend.
func (b Backend) Desired(run *benchv1.BenchmarkRun) ([]*unstructured.Unstructured, error) {
	spec := run.Spec.Database.EffectiveCockroach()
	image := spec.Image
	if image == "" {
		image = b.DefaultImage
	}
	if image == "" {
		image = DefaultImage
	}
	pvcSpec := map[string]any{
		"accessModes": []any{"ReadWriteOnce"},
		"volumeMode":  "Filesystem",
		"resources":   map[string]any{"requests": map[string]any{"storage": spec.Storage.Size.String()}},
	}
	if spec.Storage.StorageClass != "" {
		pvcSpec["storageClassName"] = spec.Storage.StorageClass
	}
	u := engines.NewObject(CrdbClusterGVK, engines.DatabaseName(run), run)
	u.Object["spec"] = map[string]any{
		"nodes":      int64(spec.Nodes),
		"tlsEnabled": true,
		"image":      map[string]any{"name": image},
		"dataStore":  map[string]any{"pvc": map[string]any{"spec": pvcSpec}},
	}
	if len(spec.Resources.Limits) > 0 || len(spec.Resources.Requests) > 0 {
		resources, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&spec.Resources)
		if err != nil {
			return nil, fmt.Errorf("converting cockroach.resources: %w", err)
		}
		u.Object["spec"].(map[string]any)["resources"] = resources
	}
	if sizing := b.Sizing(run); sizing != nil {
		for name, value := range sizing.Settings {
			u.Object["spec"].(map[string]any)[name] = value
		}
	}
	// One node per machine unless placement.database says otherwise: the same required
	// anti-affinity on kubernetes.io/hostname as CloudNativePG's, over the CrdbCluster's pods.
	placement := engines.InstancesOnePerNode(run.Spec.Placement.DatabasePlacement(), b.DatabasePods(run))
	if err := engines.SetPlacementFields(u.Object["spec"].(map[string]any), placement, true); err != nil {
		return nil, err
	}
	return []*unstructured.Unstructured{u}, nil
}

// Sizing implements engines.Backend: with a memory request or limit, CrdbCluster spec.cache
// (--cache) and spec.maxSQLMemory (--max-sql-memory) get their shares of it in bytes. The
// operator's default "25%" is a share of what CockroachDB reads as the machine's memory: the
// cgroup limit when there is one, else the whole node's.
func (Backend) Sizing(run *benchv1.BenchmarkRun) *benchv1.DatabaseSizing {
	memory, from, ok := engines.MemoryOf(run.Spec.Database.EffectiveCockroach().Resources)
	if !ok {
		return nil
	}
	sized := SizeMemory(memory)
	return engines.SizingStatus(memory, from, 0, map[string]string{
		"cache":        FlagSize(sized.Cache),
		"maxSQLMemory": FlagSize(sized.MaxSQLMemory),
	}, nil)
}

// ClusterSettings are the cluster settings the loader applies before it loads: the run's
// cockroach.clusterSettings and, for a workload.isolation below Serializable, the setting that
// enables it (CockroachDB otherwise runs such a transaction as SERIALIZABLE) unless the run sets
// it itself.
func ClusterSettings(run *benchv1.BenchmarkRun) map[string]string {
	out := map[string]string{}
	for k, v := range run.Spec.Database.EffectiveCockroach().ClusterSettings {
		out[k] = v
	}
	level := isolation.Level(Engine{}.Capabilities().Isolation.Effective(run.Spec.Workload))
	if s := levels.EnablingSetting(level); s != "" {
		if _, own := out[s]; !own {
			out[s] = "true"
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Tuning implements engines.Tuner: the cluster settings (read back with SHOW CLUSTER SETTING)
// and the cache and SQL memory sized from the pods' memory (start flags: not readable through SQL).
func (b Backend) Tuning(run *benchv1.BenchmarkRun) []benchv1.EngineSetting {
	own := run.Spec.Database.EffectiveCockroach().ClusterSettings
	var out []benchv1.EngineSetting
	for name, value := range ClusterSettings(run) {
		source := SourceClusterSettings
		if _, given := own[name]; !given {
			source = engines.SourceIsolation
		}
		out = append(out, benchv1.EngineSetting{Name: name, Source: source, Requested: value})
	}
	if sizing := b.Sizing(run); sizing != nil {
		for name, value := range sizing.Settings {
			out = append(out, benchv1.EngineSetting{Name: name, Source: engines.SourceSizing, Requested: value,
				Note: "CrdbCluster spec." + name + " (a cockroach start flag): not readable through SQL"})
		}
	}
	return out
}

// Observed implements engines.Backend: the cluster, and its StatefulSet (cockroach-operator's own
// tests define readiness by it).
func (Backend) Observed(run *benchv1.BenchmarkRun) []engines.Ref {
	name := engines.DatabaseName(run)
	return []engines.Ref{{GVK: CrdbClusterGVK, Name: name}, {GVK: StatefulSetGVK, Name: name}}
}

// Readiness implements engines.Backend: every node's pod ready, and the cluster initialized.
func (Backend) Readiness(run *benchv1.BenchmarkRun, observed map[engines.Ref]*unstructured.Unstructured) engines.Readiness {
	name := engines.DatabaseName(run)
	cluster, ok := observed[engines.Ref{GVK: CrdbClusterGVK, Name: name}]
	if !ok {
		return engines.Readiness{Reason: "CrdbClusterMissing", Message: "the CrdbCluster does not exist yet"}
	}
	if status, _, _ := unstructured.NestedString(cluster.Object, "status", "clusterStatus"); status == "Failed" {
		return engines.Readiness{Reason: "CrdbClusterFailed", Message: "cockroach-operator reports clusterStatus Failed"}
	}
	want := run.Spec.Database.EffectiveCockroach().Nodes
	sts, ok := observed[engines.Ref{GVK: StatefulSetGVK, Name: name}]
	if !ok {
		return engines.Readiness{Reason: "StatefulSetMissing", Message: fmt.Sprintf("StatefulSet %s does not exist yet", name)}
	}
	ready, _, _ := unstructured.NestedInt64(sts.Object, "status", "readyReplicas")
	if ready < int64(want) {
		return engines.Readiness{Reason: "NodesNotReady", Message: fmt.Sprintf("%d/%d CockroachDB nodes ready", ready, want)}
	}
	if !initialized(cluster) {
		return engines.Readiness{Reason: "NotInitialized", Message: "all nodes are up; waiting for the cluster to be initialized"}
	}
	return engines.Readiness{Ready: true, Reason: "CrdbClusterReady", Message: fmt.Sprintf("CockroachDB %s is initialized with %d ready nodes", name, want)}
}

// initialized reads cockroach-operator's own condition list (not metav1.Condition).
func initialized(cluster *unstructured.Unstructured) bool {
	conditions, _, _ := unstructured.NestedSlice(cluster.Object, "status", "conditions")
	for _, c := range conditions {
		condition, _ := c.(map[string]any)
		if condition["type"] == "Initialized" && condition["status"] == "True" {
			return true
		}
	}
	return false
}

// DatabasePods implements engines.Backend: cockroach-operator's StatefulSet pods carry the
// CrdbCluster's name as app.kubernetes.io/instance (not verified against a running operator here).
func (Backend) DatabasePods(run *benchv1.BenchmarkRun) map[string]string {
	return map[string]string{"app.kubernetes.io/instance": engines.DatabaseName(run)}
}

// Connection implements engines.Backend: the public Service with verify-full TLS, the CA from the
// node Secret and the root client certificate, mounted read-only from Secrets.
func (b Backend) Connection(run *benchv1.BenchmarkRun) engines.Connection {
	name := engines.DatabaseName(run)
	host := fmt.Sprintf("%s-public.%s", name, run.Namespace)
	readOnly := int32(0o440)
	return engines.Connection{
		Engine:         Engine{}.Dialect(),
		LoaderSettings: ClusterSettings(run),
		ReadSettings:   engines.SettingNames(b.Tuning(run)),
		URL: fmt.Sprintf("postgres://root@%s:26257/defaultdb?sslmode=verify-full&sslrootcert=%s/ca.crt&sslcert=%s/client.root.crt&sslkey=%s/client.root.key",
			host, CertsDir, CertsDir, CertsDir),
		Endpoint:     host + ":26257",
		DatabasePods: Backend{}.DatabasePods(run),
		Volumes: []corev1.Volume{{
			Name: "cockroach-certs",
			VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				DefaultMode: &readOnly,
				Sources: []corev1.VolumeProjection{
					{Secret: &corev1.SecretProjection{
						LocalObjectReference: corev1.LocalObjectReference{Name: name + "-node"},
						Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
					}},
					{Secret: &corev1.SecretProjection{
						LocalObjectReference: corev1.LocalObjectReference{Name: name + "-root"},
						Items: []corev1.KeyToPath{
							{Key: "tls.crt", Path: "client.root.crt"},
							{Key: "tls.key", Path: "client.root.key"},
						},
					}},
				},
			}},
		}},
		VolumeMounts: []corev1.VolumeMount{{Name: "cockroach-certs", MountPath: CertsDir, ReadOnly: true}},
	}
}
