package engines_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/cockroach"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/postgres"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/ydb"
)

// userPlacement is a placement.database block using every field.
func userPlacement(withSpread bool) *benchv1.PodPlacement {
	p := &benchv1.PodPlacement{
		NodeSelector: map[string]string{"pool": "databases"},
		Tolerations:  []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}},
		Affinity: &corev1.Affinity{
			NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b", "c"}}}}}}},
			PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: 10, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}}, TopologyKey: corev1.LabelTopologyZone}}}},
		},
	}
	if withSpread {
		p.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"x": "y"}}}}
	}
	return p
}

func ownAntiAffinity() *corev1.PodAntiAffinity {
	return &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
		Weight: 50, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}, TopologyKey: corev1.LabelHostname}}}}
}

func onePerNode(selector map[string]string) *corev1.PodAntiAffinity {
	return &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: selector}, TopologyKey: corev1.LabelHostname}}}
}

// storedPlacement is what the API server stored of an object's placement fields, read back into
// the Kubernetes types (an absent field stays nil).
type storedPlacement struct {
	NodeSelector              map[string]string                 `json:"nodeSelector,omitempty"`
	Tolerations               []corev1.Toleration               `json:"tolerations,omitempty"`
	Affinity                  *corev1.Affinity                  `json:"affinity,omitempty"`
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	// CloudNativePG's spec.affinity.
	EnablePodAntiAffinity     *bool                   `json:"enablePodAntiAffinity,omitempty"`
	PodAntiAffinityType       string                  `json:"podAntiAffinityType,omitempty"`
	TopologyKey               string                  `json:"topologyKey,omitempty"`
	NodeAffinity              *corev1.NodeAffinity    `json:"nodeAffinity,omitempty"`
	AdditionalPodAffinity     *corev1.PodAffinity     `json:"additionalPodAffinity,omitempty"`
	AdditionalPodAntiAffinity *corev1.PodAntiAffinity `json:"additionalPodAntiAffinity,omitempty"`
}

func decode(t *testing.T, v any) storedPlacement {
	t.Helper()
	var out storedPlacement
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// applyAndRead applies the backend's objects to the real CRDs (strict: a field the vendor's schema
// lacks is rejected) and returns them as stored, by kind.
func applyAndRead(t *testing.T, backend engines.Backend, run *benchv1.BenchmarkRun) map[string]*unstructured.Unstructured {
	t.Helper()
	objects, err := backend.Desired(run)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*unstructured.Unstructured{}
	for _, obj := range objects {
		if err := k8s.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(obj.DeepCopy()),
			client.FieldOwner("tpcc-operator"), client.ForceOwnership); err != nil {
			t.Fatalf("%s %s rejected: %v", obj.GetKind(), obj.GetName(), err)
		}
		stored := obj.DeepCopy()
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(obj), stored); err != nil {
			t.Fatal(err)
		}
		out[obj.GetKind()] = stored
	}
	return out
}

func placementRun(name string, database benchv1.DatabaseSpec, p *benchv1.PodPlacement) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: benchv1.BenchmarkRunSpec{Database: database, Workload: benchv1.WorkloadSpec{Warehouses: 1}}}
	if p != nil {
		run.Spec.Placement = &benchv1.Placement{Database: p}
	}
	return run
}

func expectEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !equality.Semantic.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// CloudNativePG: placement.database lands in spec.affinity (nodeSelector, tolerations,
// nodeAffinity, additionalPodAffinity) and spec.topologySpreadConstraints; the default is
// CloudNativePG's own required anti-affinity on kubernetes.io/hostname; a podAntiAffinity of the
// run's replaces it.
func TestPostgresPlacementFields(t *testing.T) {
	db := benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}
	yes, no := true, false
	for _, tc := range []struct {
		name      string
		placement *benchv1.PodPlacement
		want      storedPlacement
		spread    []corev1.TopologySpreadConstraint
	}{
		{"default", nil, storedPlacement{EnablePodAntiAffinity: &yes, PodAntiAffinityType: "required", TopologyKey: corev1.LabelHostname}, nil},
		{"every field", userPlacement(true), storedPlacement{EnablePodAntiAffinity: &yes, PodAntiAffinityType: "required", TopologyKey: corev1.LabelHostname,
			NodeSelector: userPlacement(true).NodeSelector, Tolerations: userPlacement(true).Tolerations,
			NodeAffinity: userPlacement(true).Affinity.NodeAffinity, AdditionalPodAffinity: userPlacement(true).Affinity.PodAffinity},
			userPlacement(true).TopologySpreadConstraints},
		{"own anti-affinity", &benchv1.PodPlacement{Affinity: &corev1.Affinity{PodAntiAffinity: ownAntiAffinity()}},
			storedPlacement{EnablePodAntiAffinity: &no, TopologyKey: corev1.LabelHostname, AdditionalPodAntiAffinity: ownAntiAffinity()}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := placementRun("pgplace-"+map[string]string{"default": "d", "every field": "e", "own anti-affinity": "o"}[tc.name], db, tc.placement)
			stored := applyAndRead(t, postgres.Backend{}, run)["Cluster"]
			affinity, _, _ := unstructured.NestedMap(stored.Object, "spec", "affinity")
			expectEqual(t, "Cluster spec.affinity", decode(t, affinity), tc.want)
			spread, _, _ := unstructured.NestedSlice(stored.Object, "spec", "topologySpreadConstraints")
			expectEqual(t, "Cluster spec.topologySpreadConstraints", decode(t, map[string]any{"topologySpreadConstraints": spread}).TopologySpreadConstraints, tc.spread)
		})
	}
}

// CockroachDB: the CrdbCluster's nodeSelector, tolerations, affinity and topologySpreadConstraints
// are the block's, its affinity with a required anti-affinity on kubernetes.io/hostname over the
// cluster's pods unless the block brings its own.
func TestCockroachPlacementFields(t *testing.T) {
	db := benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB}
	selector := map[string]string{"app.kubernetes.io/instance": "crplace-e-db"}
	withDefault := userPlacement(true)
	withDefault.Affinity.PodAntiAffinity = onePerNode(selector)
	own := userPlacement(true)
	own.Affinity.PodAntiAffinity = ownAntiAffinity()
	for _, tc := range []struct {
		name, run string
		placement *benchv1.PodPlacement
		want      storedPlacement
	}{
		{"default", "crplace-d", nil, storedPlacement{Affinity: &corev1.Affinity{PodAntiAffinity: onePerNode(map[string]string{"app.kubernetes.io/instance": "crplace-d-db"})}}},
		{"every field", "crplace-e", userPlacement(true), storedPlacement{NodeSelector: withDefault.NodeSelector, Tolerations: withDefault.Tolerations,
			Affinity: withDefault.Affinity, TopologySpreadConstraints: withDefault.TopologySpreadConstraints}},
		{"own anti-affinity", "crplace-o", own, storedPlacement{NodeSelector: own.NodeSelector, Tolerations: own.Tolerations,
			Affinity: own.Affinity, TopologySpreadConstraints: own.TopologySpreadConstraints}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := applyAndRead(t, cockroach.Backend{}, placementRun(tc.run, db, tc.placement))["CrdbCluster"]
			spec, _, _ := unstructured.NestedMap(stored.Object, "spec")
			expectEqual(t, "CrdbCluster placement", decode(t, spec), tc.want)
		})
	}
}

// YDB: the Storage and the Database take the block's nodeSelector, tolerations and affinity, each
// with one pod of its kind per node by default; both label their pods with the run's database.
func TestYDBPlacementFields(t *testing.T) {
	db := benchv1.DatabaseSpec{Engine: benchv1.EngineYDB}
	for _, tc := range []struct {
		name, run string
		placement *benchv1.PodPlacement
	}{{"default", "ydbplace-d", nil}, {"every field", "ydbplace-e", userPlacement(false)}} {
		t.Run(tc.name, func(t *testing.T) {
			stored := applyAndRead(t, ydb.Backend{}, placementRun(tc.run, db, tc.placement))
			for kind, component := range map[string]string{"Storage": ydb.StorageComponent, "Database": ydb.DynamicComponent} {
				want := engines.InstancesOnePerNode(tc.placement, map[string]string{engines.DatabaseLabel: tc.run + "-db", ydb.ComponentLabel: component})
				spec, _, _ := unstructured.NestedMap(stored[kind].Object, "spec")
				expectEqual(t, kind+" placement", decode(t, spec), storedPlacement{NodeSelector: want.NodeSelector, Tolerations: want.Tolerations, Affinity: want.Affinity})
				labels, _, _ := unstructured.NestedStringMap(spec, "additionalLabels")
				expectEqual(t, kind+" additionalLabels", labels, ydb.Backend{}.DatabasePods(placementRun(tc.run, db, nil)))
			}
		})
	}
	// The API rejects topologySpreadConstraints for YDB (api/v1alpha1); the builder refuses them too.
	if _, err := (ydb.Backend{}).Desired(placementRun("ydbplace-s", db, userPlacement(true))); err == nil {
		t.Error("YDB objects were built with topologySpreadConstraints, which ydb-operator does not take")
	} else {
		t.Logf("refused: %v", err)
	}
}

// The stored comparison above would pass on a field the schema silently dropped; strict field
// validation proves it does not: a misspelt placement field is rejected by name.
func TestPlacementFieldsAreInTheVendorSchemas(t *testing.T) {
	for i, backend := range []engines.Backend{cockroach.Backend{}, ydb.Backend{}} {
		engine := []benchv1.Engine{benchv1.EngineCockroachDB, benchv1.EngineYDB}[i]
		objects, err := backend.Desired(placementRun(fmt.Sprintf("strict%d", i), benchv1.DatabaseSpec{Engine: engine}, nil))
		if err != nil {
			t.Fatal(err)
		}
		obj := objects[0]
		obj.Object["spec"].(map[string]any)["affinity"].(map[string]any)["podAntiAfinity"] = map[string]any{}
		err = k8s.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("tpcc-operator"))
		if err == nil {
			t.Errorf("%s: a misspelt affinity field was accepted", obj.GetKind())
		}
	}
}
