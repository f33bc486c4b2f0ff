package engines

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// DatabaseLabel marks the pods of a run's database where the engine's operator takes extra pod
// labels from its object (ydb-operator's additionalLabels): its value is DatabaseName(run).
const DatabaseLabel = "bench.oltp.io/database"

// AvoidWeight is the weight of the preferred anti-affinity that keeps loader and client pods off
// the database's nodes: the largest, so only a node with no room left beats it.
const AvoidWeight = 100

// PodGrouper is implemented by backends whose database runs pods of several kinds (YDB: storage
// and database nodes). Two instances of one group on one node are lost together with that node;
// pods of different groups may share a node, as in the study's three servers.
type PodGrouper interface {
	// PodGroup names the group of a database pod from its labels; "" when it is none of them.
	PodGroup(labels map[string]string) string
}

// InstancesOnePerNode is the default database placement: the given placement (nil: none) with,
// unless it has a podAntiAffinity of its own, a required pod anti-affinity on the node's hostname
// among the pods matching selector — no two of them on one node. It is pure.
func InstancesOnePerNode(p *benchv1.PodPlacement, selector map[string]string) benchv1.PodPlacement {
	var out benchv1.PodPlacement
	if p != nil {
		out = *p.DeepCopy()
	}
	if out.Affinity == nil {
		out.Affinity = &corev1.Affinity{}
	}
	if out.Affinity.PodAntiAffinity == nil {
		out.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: copyLabels(selector)},
				TopologyKey:   corev1.LabelHostname,
			}},
		}
	}
	return out
}

// OwnsAntiAffinity reports whether a role's block brings a podAntiAffinity of its own, which
// replaces the role's default.
func OwnsAntiAffinity(p *benchv1.PodPlacement) bool {
	return p != nil && p.Affinity != nil && p.Affinity.PodAntiAffinity != nil
}

// AvoidPods is the default anti-affinity of loader and client pods: prefer nodes running none of
// the pods matching selector (the run's database). Nil without a selector.
func AvoidPods(selector map[string]string) *corev1.PodAntiAffinity {
	if len(selector) == 0 {
		return nil
	}
	return &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: AvoidWeight,
			PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: copyLabels(selector)},
				TopologyKey:   corev1.LabelHostname,
			},
		}},
	}
}

// SetPlacementFields writes a placement into an unstructured object's spec under the Kubernetes
// field names (nodeSelector, tolerations, affinity, and topologySpreadConstraints when withSpread),
// for operators whose objects take them as a pod spec does (CrdbCluster, YDB Storage and Database).
// Absent fields are left out.
func SetPlacementFields(spec map[string]any, p benchv1.PodPlacement, withSpread bool) error {
	set := func(name string, v any, empty bool) error {
		if empty {
			return nil
		}
		out, err := toUnstructuredValue(v)
		if err != nil {
			return fmt.Errorf("converting placement %s: %w", name, err)
		}
		spec[name] = out
		return nil
	}
	if err := set("nodeSelector", p.NodeSelector, len(p.NodeSelector) == 0); err != nil {
		return err
	}
	if err := set("tolerations", p.Tolerations, len(p.Tolerations) == 0); err != nil {
		return err
	}
	if err := set("affinity", p.Affinity, p.Affinity == nil); err != nil {
		return err
	}
	if withSpread {
		return set("topologySpreadConstraints", p.TopologySpreadConstraints, len(p.TopologySpreadConstraints) == 0)
	}
	if len(p.TopologySpreadConstraints) > 0 {
		return fmt.Errorf("placement.database.topologySpreadConstraints: the engine's operator takes none")
	}
	return nil
}

// toUnstructuredValue converts a typed value into plain maps, slices and scalars through its JSON
// form (runtime.DefaultUnstructuredConverter wants a struct at the top).
func toUnstructuredValue(v any) (any, error) {
	wrapper := struct {
		V any `json:"v"`
	}{v}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&wrapper)
	if err != nil {
		return nil, err
	}
	return m["v"], nil
}

func copyLabels(in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}
