package cockroach

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// FaultPod implements engines.FaultTargets: KillPod deletes node pod <cluster>-<ordinal> of the
// StatefulSet cockroach-operator creates. CockroachDB has no single primary (admission rejects
// KillPrimary).
func (Backend) FaultPod(run *benchv1.BenchmarkRun, f benchv1.Fault, _ map[engines.Ref]*unstructured.Unstructured) (string, error) {
	if f.Action != benchv1.FaultKillPod || f.Ordinal == nil {
		return "", fmt.Errorf("action %s is not supported on CockroachDB: use KillPod with an ordinal", f.Action)
	}
	if *f.Ordinal < 0 {
		return "", errors.New("negative ordinal")
	}
	return fmt.Sprintf("%s-%d", engines.DatabaseName(run), *f.Ordinal), nil
}

// OwnerChain implements engines.FaultTargets: node pods belong to the StatefulSet, which the
// CrdbCluster controls.
func (Backend) OwnerChain(run *benchv1.BenchmarkRun) []engines.Ref {
	name := engines.DatabaseName(run)
	return []engines.Ref{{GVK: StatefulSetGVK, Name: name}, {GVK: CrdbClusterGVK, Name: name}}
}

// Roles implements engines.FaultTargets from the StatefulSet: ready and desired node pods.
func (Backend) Roles(run *benchv1.BenchmarkRun, observed map[engines.Ref]*unstructured.Unstructured) engines.Roles {
	return statefulSetRoles(observed[engines.Ref{GVK: StatefulSetGVK, Name: engines.DatabaseName(run)}])
}

func statefulSetRoles(sts *unstructured.Unstructured) engines.Roles {
	if sts == nil {
		return engines.Roles{}
	}
	ready, _, _ := unstructured.NestedInt64(sts.Object, "status", "readyReplicas")
	desired, _, _ := unstructured.NestedInt64(sts.Object, "spec", "replicas")
	return engines.Roles{Ready: int32(ready), Instances: int32(desired)}
}
