package engines

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestFitNodes(t *testing.T) {
	node := func(name string, edit ...func(*corev1.Node)) corev1.Node {
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		for _, e := range edit {
			e(&n)
		}
		return n
	}
	cordoned := func(n *corev1.Node) { n.Spec.Unschedulable = true }
	notReady := func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionUnknown }
	noConditions := func(n *corev1.Node) { n.Status.Conditions = nil }
	label := func(k, v string) func(*corev1.Node) { return func(n *corev1.Node) { n.Labels[k] = v } }
	taint := func(k, v string, e corev1.TaintEffect) func(*corev1.Node) {
		return func(n *corev1.Node) { n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: k, Value: v, Effect: e}) }
	}
	dbPool := &benchv1.PodPlacement{NodeSelector: map[string]string{"pool": "db"}}
	tolerateDB := &benchv1.PodPlacement{Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}}}
	affinity := func(terms ...corev1.NodeSelectorTerm) *benchv1.PodPlacement {
		return &benchv1.PodPlacement{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}}
	}
	zoneIn := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}}}
	nameIs := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n3"}}}}

	for _, tc := range []struct {
		name      string
		nodes     []corev1.Node
		placement *benchv1.PodPlacement
		separate  int
		found     int
		ok        bool
		excluded  map[string]string // node: part of the reason
	}{
		{name: "three ready nodes, three instances", nodes: []corev1.Node{node("n1"), node("n2"), node("n3")}, separate: 3, found: 3, ok: true},
		{name: "two nodes, three instances", nodes: []corev1.Node{node("n1"), node("n2")}, separate: 3, found: 2},
		{name: "cordoned and not ready nodes do not count", nodes: []corev1.Node{node("n1"), node("n2", cordoned), node("n3", notReady)}, separate: 3, found: 1,
			excluded: map[string]string{"n2": "cordoned", "n3": "not Ready"}},
		{name: "a node that has not reported a Ready condition counts", nodes: []corev1.Node{node("n1", noConditions)}, separate: 1, found: 1, ok: true},
		{name: "no separate pods need one node", nodes: []corev1.Node{node("n1")}, separate: 0, found: 1, ok: true},
		{name: "no node at all", separate: 0, found: 0},
		{name: "nodeSelector", nodes: []corev1.Node{node("n1", label("pool", "db")), node("n2", label("pool", "db")), node("n3", label("pool", "apps"))},
			placement: dbPool, separate: 3, found: 2, excluded: map[string]string{"n3": "pool=db"}},
		{name: "untolerated NoSchedule taint", nodes: []corev1.Node{node("n1"), node("n2"), node("n3", taint("dedicated", "db", corev1.TaintEffectNoSchedule))},
			separate: 3, found: 2, excluded: map[string]string{"n3": "dedicated=db:NoSchedule"}},
		{name: "tolerated taint", nodes: []corev1.Node{node("n1"), node("n2"), node("n3", taint("dedicated", "db", corev1.TaintEffectNoSchedule))},
			placement: tolerateDB, separate: 3, found: 3, ok: true},
		{name: "NoExecute taint counts, PreferNoSchedule does not",
			nodes:    []corev1.Node{node("n1", taint("gpu", "", corev1.TaintEffectNoExecute)), node("n2", taint("spot", "", corev1.TaintEffectPreferNoSchedule))},
			separate: 2, found: 1, excluded: map[string]string{"n1": "gpu:NoExecute"}},
		{name: "required node affinity, terms ORed", nodes: []corev1.Node{node("n1", label("zone", "a")), node("n2", label("zone", "c")), node("n3")},
			placement: affinity(zoneIn, nameIs), separate: 2, found: 2, ok: true, excluded: map[string]string{"n2": "nodeAffinity"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fit := FitNodes(tc.nodes, tc.placement, tc.separate)
			if fit.Found != tc.found || fit.Satisfiable() != tc.ok || fit.Listed != len(tc.nodes) {
				t.Fatalf("found %d of %d, satisfiable %v; want found %d, satisfiable %v", fit.Found, fit.Listed, fit.Satisfiable(), tc.found, tc.ok)
			}
			for n, part := range tc.excluded {
				if !strings.Contains(fit.Excluded[n], part) {
					t.Errorf("node %s excluded for %q, want it to say %q", n, fit.Excluded[n], part)
				}
			}
			if len(fit.Excluded) != len(tc.nodes)-tc.found {
				t.Errorf("excluded %v, want %d nodes", fit.Excluded, len(tc.nodes)-tc.found)
			}
		})
	}
}

func TestNodeFitMessageNamesTheCountsAndTheFix(t *testing.T) {
	fit := NodeFit{Need: 3, Found: 2, Listed: 3, Excluded: map[string]string{"n3": "cordoned (unschedulable)"}}
	msg := fit.Message(true)
	for _, want := range []string{"needs 3 nodes", "found 2 of 3", "n3: cordoned", "Fix:", "podAntiAffinity: {}", "fewer instances"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
}
