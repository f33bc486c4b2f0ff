package postgres

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// FaultPod implements engines.FaultTargets: KillPrimary deletes the pod CloudNativePG names in
// status.currentPrimary; KillPod deletes instance ordinal+1 (CloudNativePG names its instances
// <cluster>-1..N, and a re-created instance keeps its name).
func (Backend) FaultPod(run *benchv1.BenchmarkRun, f benchv1.Fault, observed map[engines.Ref]*unstructured.Unstructured) (string, error) {
	name := engines.DatabaseName(run)
	switch f.Action {
	case benchv1.FaultKillPrimary:
		u, ok := observed[engines.Ref{GVK: ClusterGVK, Name: name}]
		if !ok {
			return "", fmt.Errorf("the CloudNativePG Cluster %s does not exist", name)
		}
		primary, _, _ := unstructured.NestedString(u.Object, "status", "currentPrimary")
		if primary == "" {
			return "", errors.New("CloudNativePG reports no current primary (status.currentPrimary is empty)")
		}
		return primary, nil
	case benchv1.FaultKillPod:
		if f.Ordinal == nil {
			return "", errors.New("KillPod needs an ordinal")
		}
		return fmt.Sprintf("%s-%d", name, *f.Ordinal+1), nil
	}
	return "", fmt.Errorf("action %s is not supported on PostgreSQL", f.Action)
}

// OwnerChain implements engines.FaultTargets: CloudNativePG's instance pods are controlled by
// their Cluster.
func (Backend) OwnerChain(run *benchv1.BenchmarkRun) []engines.Ref {
	return []engines.Ref{{GVK: ClusterGVK, Name: engines.DatabaseName(run)}}
}

// Roles implements engines.FaultTargets from the Cluster's status: currentPrimary and
// currentPrimaryTimestamp (RFC 3339 with microseconds), readyInstances and instances.
func (Backend) Roles(run *benchv1.BenchmarkRun, observed map[engines.Ref]*unstructured.Unstructured) engines.Roles {
	u, ok := observed[engines.Ref{GVK: ClusterGVK, Name: engines.DatabaseName(run)}]
	if !ok {
		return engines.Roles{}
	}
	var r engines.Roles
	r.Primary, _, _ = unstructured.NestedString(u.Object, "status", "currentPrimary")
	if ts, _, _ := unstructured.NestedString(u.Object, "status", "currentPrimaryTimestamp"); ts != "" {
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			r.PrimarySince = t
		}
	}
	ready, _, _ := unstructured.NestedInt64(u.Object, "status", "readyInstances")
	instances, _, _ := unstructured.NestedInt64(u.Object, "status", "instances")
	r.Ready, r.Instances = int32(ready), int32(instances)
	return r
}

// Standbys implements engines.Replication: instances − 1 standbys, synchronous when
// synchronousReplicas > 0 (CloudNativePG's synchronous {method: any, number}).
func (Backend) Standbys(run *benchv1.BenchmarkRun) (int, bool) {
	spec := run.Spec.Database.EffectivePostgres()
	return int(spec.Instances) - 1, *spec.SynchronousReplicas > 0
}
