package ydb

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// statefulSetGVK is the StatefulSet ydb-operator creates under the Storage's name.
var statefulSetGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}

// FaultPod implements engines.FaultTargets: KillPod deletes storage pod <storage>-<ordinal>. YDB
// has no single primary (admission rejects KillPrimary).
func (Backend) FaultPod(run *benchv1.BenchmarkRun, f benchv1.Fault, _ map[engines.Ref]*unstructured.Unstructured) (string, error) {
	if f.Action != benchv1.FaultKillPod || f.Ordinal == nil {
		return "", fmt.Errorf("action %s is not supported on YDB: use KillPod with an ordinal", f.Action)
	}
	return fmt.Sprintf("%s-%d", StorageName(run), *f.Ordinal), nil
}

// OwnerChain implements engines.FaultTargets: storage pods belong to the StatefulSet the Storage
// controls.
func (Backend) OwnerChain(run *benchv1.BenchmarkRun) []engines.Ref {
	return []engines.Ref{{GVK: statefulSetGVK, Name: StorageName(run)}, {GVK: StorageGVK, Name: StorageName(run)}}
}

// Roles implements engines.FaultTargets from the storage StatefulSet: ready and desired pods.
func (Backend) Roles(run *benchv1.BenchmarkRun, observed map[engines.Ref]*unstructured.Unstructured) engines.Roles {
	sts := observed[engines.Ref{GVK: statefulSetGVK, Name: StorageName(run)}]
	if sts == nil {
		return engines.Roles{}
	}
	ready, _, _ := unstructured.NestedInt64(sts.Object, "status", "readyReplicas")
	desired, _, _ := unstructured.NestedInt64(sts.Object, "spec", "replicas")
	return engines.Roles{Ready: int32(ready), Instances: int32(desired)}
}
