// Package ydb deploys YDB as an ydb-operator Storage plus Database. The objects are unstructured:
// the operator's Go API does not build against current controller-runtime.
package ydb

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

var (
	// StorageGVK and DatabaseGVK are ydb-operator's kinds.
	StorageGVK  = schema.GroupVersionKind{Group: "ydb.tech", Version: "v1alpha1", Kind: "Storage"}
	DatabaseGVK = schema.GroupVersionKind{Group: "ydb.tech", Version: "v1alpha1", Kind: "Database"}
)

// GRPCPort is YDB's client port.
const GRPCPort = 2135

// DefaultImage is the YDB image when neither the run nor the manager names one.
const DefaultImage = "cr.yandex/crptqonuodf51kdj7a7d/ydb:24.2.7"

// Backend builds YDB Storage and Database objects.
type Backend struct {
	// DefaultImage overrides the package default when the run gives none.
	DefaultImage string
}

// StorageName is the name of the run's YDB Storage.
func StorageName(run *benchv1.BenchmarkRun) string { return engines.BaseName(run) + "-storage" }

func (b Backend) image(spec benchv1.YDBSpec) string {
	switch {
	case spec.Image != "":
		return spec.Image
	case b.DefaultImage != "":
		return b.DefaultImage
	default:
		return DefaultImage
	}
}

// Desired implements engines.Backend: a Storage with the erasure's static configuration and one
// block volume per drive, and a Database of databaseNodes compute nodes on it.
func (b Backend) Desired(run *benchv1.BenchmarkRun) ([]*unstructured.Unstructured, error) {
	spec := run.Spec.Database.EffectiveYDB()
	var hardLimit int64
	if memory, _, ok := engines.MemoryOf(spec.Resources); ok {
		hardLimit = HardLimit(memory)
	}
	configuration, drives, err := StorageConfiguration(spec.Erasure, int(spec.StorageNodes), hardLimit, spec.Config)
	if err != nil {
		return nil, fmt.Errorf("spec.database.ydb: %w", err)
	}
	var resources map[string]any
	if len(spec.Resources.Limits) > 0 || len(spec.Resources.Requests) > 0 {
		if resources, err = runtime.DefaultUnstructuredConverter.ToUnstructured(&spec.Resources); err != nil {
			return nil, fmt.Errorf("converting ydb.resources: %w", err)
		}
	}
	image := map[string]any{"name": b.image(spec)}

	var dataStore []any
	for range drives {
		pvc := map[string]any{
			"volumeMode":  "Block",
			"accessModes": []any{"ReadWriteOnce"},
			"resources":   map[string]any{"requests": map[string]any{"storage": spec.Storage.Size.String()}},
		}
		if spec.Storage.StorageClass != "" {
			pvc["storageClassName"] = spec.Storage.StorageClass
		}
		dataStore = append(dataStore, pvc)
	}
	storage := engines.NewObject(StorageGVK, StorageName(run), run)
	storageSpec := map[string]any{
		"nodes":         int64(spec.StorageNodes),
		"erasure":       string(spec.Erasure),
		"domain":        Domain,
		"image":         image,
		"configuration": configuration,
		"dataStore":     dataStore,
	}
	if resources != nil {
		storageSpec["resources"] = resources
	}
	// Both objects label their pods with the run's database (additionalLabels, which ydb-operator
	// puts on the pods it creates), so one selector finds the storage and the database nodes.
	storageSpec["additionalLabels"] = map[string]any{engines.DatabaseLabel: engines.DatabaseName(run)}
	// One storage node and one database node per machine unless placement.database says otherwise.
	userPlacement := run.Spec.Placement.DatabasePlacement()
	if err := engines.SetPlacementFields(storageSpec, engines.InstancesOnePerNode(userPlacement, groupSelector(run, StorageComponent)), false); err != nil {
		return nil, err
	}
	storage.Object["spec"] = storageSpec

	database := engines.NewObject(DatabaseGVK, engines.DatabaseName(run), run)
	databaseResources := map[string]any{"storageUnits": []any{map[string]any{"unitKind": "ssd", "count": int64(1)}}}
	if resources != nil {
		databaseResources["containerResources"] = resources
	}
	databaseSpec := map[string]any{
		"nodes":             int64(spec.DatabaseNodes),
		"domain":            Domain,
		"image":             image,
		"storageClusterRef": map[string]any{"name": StorageName(run)},
		"resources":         databaseResources,
		"additionalLabels":  map[string]any{engines.DatabaseLabel: engines.DatabaseName(run)},
	}
	if err := engines.SetPlacementFields(databaseSpec, engines.InstancesOnePerNode(userPlacement, groupSelector(run, DynamicComponent)), false); err != nil {
		return nil, err
	}
	database.Object["spec"] = databaseSpec
	return []*unstructured.Unstructured{storage, database}, nil
}

// Sizing implements engines.Backend: with a memory request or limit, YDB's memory controller
// gets it as its hard limit. Its default is the cgroup memory limit, or the whole node's memory
// without one; YDB divides the limit among its shared cache, MemTables and queries itself.
func (Backend) Sizing(run *benchv1.BenchmarkRun) *benchv1.DatabaseSizing {
	memory, from, ok := engines.MemoryOf(run.Spec.Database.EffectiveYDB().Resources)
	if !ok {
		return nil
	}
	return engines.SizingStatus(memory, from, 0,
		map[string]string{HardLimitSetting: strconv.FormatInt(HardLimit(memory), 10)}, nil)
}

// Tuning implements engines.Tuner: the leaves of ydb.config and the memory hard limit sized from
// the pods' memory, as merged into the Storage's configuration. YDB has no SQL view of its
// configuration, so none is read back.
func (b Backend) Tuning(run *benchv1.BenchmarkRun) []benchv1.EngineSetting {
	const note = "merged into the Storage's spec.configuration; YDB has no SQL view of its configuration to read it back from"
	var out []benchv1.EngineSetting
	leaves, err := ConfigLeaves(run.Spec.Database.EffectiveYDB().Config)
	if err != nil {
		return []benchv1.EngineSetting{{Name: "ydb.config", Source: SourceYDBConfig, Note: err.Error()}}
	}
	for name, value := range leaves {
		out = append(out, benchv1.EngineSetting{Name: name, Source: SourceYDBConfig, Requested: value, Note: note})
	}
	if sizing := b.Sizing(run); sizing != nil {
		for name, value := range sizing.Settings {
			if _, own := leaves[name]; own {
				continue // the run's ydb.config wins over the sizing
			}
			out = append(out, benchv1.EngineSetting{Name: name, Source: engines.SourceSizing, Requested: value, Note: note})
		}
	}
	return out
}

// Observed implements engines.Backend.
func (Backend) Observed(run *benchv1.BenchmarkRun) []engines.Ref {
	return []engines.Ref{{GVK: StorageGVK, Name: StorageName(run)}, {GVK: DatabaseGVK, Name: engines.DatabaseName(run)}}
}

// Readiness implements engines.Backend: both objects report state Ready.
func (b Backend) Readiness(run *benchv1.BenchmarkRun, observed map[engines.Ref]*unstructured.Unstructured) engines.Readiness {
	for _, ref := range b.Observed(run) {
		u, ok := observed[ref]
		if !ok {
			return engines.Readiness{Reason: ref.GVK.Kind + "Missing", Message: fmt.Sprintf("YDB %s %s does not exist yet", ref.GVK.Kind, ref.Name)}
		}
		state, _, _ := unstructured.NestedString(u.Object, "status", "state")
		if state != "Ready" {
			if state == "" {
				state = "no state reported yet"
			}
			return engines.Readiness{Reason: ref.GVK.Kind + "NotReady", Message: fmt.Sprintf("YDB %s %s: %s", ref.GVK.Kind, ref.Name, state)}
		}
	}
	return engines.Readiness{Ready: true, Reason: "DatabaseReady", Message: "YDB Storage and Database are Ready"}
}

// DatabasePods implements engines.Backend: the storage and database nodes carry the label Desired
// gives both objects' additionalLabels, which ydb-operator copies onto their pods (not verified
// against a running operator here).
func (Backend) DatabasePods(run *benchv1.BenchmarkRun) map[string]string {
	return map[string]string{engines.DatabaseLabel: engines.DatabaseName(run)}
}

// ydb-operator's app.kubernetes.io/component values of its storage and database (dynamic) nodes.
const (
	ComponentLabel   = "app.kubernetes.io/component"
	StorageComponent = "storage-node"
	DynamicComponent = "dynamic-node"
	groupStorage     = "storage"
	groupDatabase    = "database"
)

// groupSelector selects one kind of the run's YDB pods.
func groupSelector(run *benchv1.BenchmarkRun, component string) map[string]string {
	return map[string]string{engines.DatabaseLabel: engines.DatabaseName(run), ComponentLabel: component}
}

// PodGroup implements engines.PodGrouper: storage and database nodes are instances of their own
// kind; one of each on a machine is the study's layout.
func (Backend) PodGroup(labels map[string]string) string {
	switch labels[ComponentLabel] {
	case StorageComponent:
		return groupStorage
	case DynamicComponent:
		return groupDatabase
	}
	return ""
}

// Connection implements engines.Backend: the Database's gRPC Service and its path under the domain.
func (Backend) Connection(run *benchv1.BenchmarkRun) engines.Connection {
	name := engines.DatabaseName(run)
	endpoint := fmt.Sprintf("grpc://%s-grpc.%s:%d/%s/%s", name, run.Namespace, GRPCPort, Domain, name)
	return engines.Connection{Engine: Engine{}.Dialect(), URL: endpoint, Endpoint: endpoint, DatabasePods: Backend{}.DatabasePods(run)}
}
