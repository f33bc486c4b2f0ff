package engines

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// NodeFit is whether a database's pods can be placed on the listed nodes before anything is
// deployed: how many nodes it needs, how many can take one of its pods, and why each other node
// cannot.
type NodeFit struct {
	// Need is the number of nodes the database needs: one per pod that the default placement keeps
	// on a node of its own (Engine.SeparateNodes), at least one.
	Need int
	// Found is the number of nodes that can take a database pod.
	Found int
	// Listed is the number of nodes the cluster has.
	Listed int
	// Excluded says, by node name, why the node cannot take a database pod.
	Excluded map[string]string
}

// Satisfiable is whether the nodes that can take a database pod are enough.
func (f NodeFit) Satisfiable() bool { return f.Found >= f.Need }

// Message says for people what the fit found and, when it is not enough, how to fix it.
func (f NodeFit) Message(separate bool) string {
	var b strings.Builder
	if separate {
		fmt.Fprintf(&b, "the database needs %d nodes, one per pod (the default required pod anti-affinity on %s), and found %d of %d that can take its pods",
			f.Need, corev1.LabelHostname, f.Found, f.Listed)
	} else {
		fmt.Fprintf(&b, "the database needs %d node that can take its pods and found %d of %d", f.Need, f.Found, f.Listed)
	}
	if len(f.Excluded) > 0 {
		names := make([]string, 0, len(f.Excluded))
		for n := range f.Excluded {
			names = append(names, n)
		}
		sort.Strings(names)
		const shown = 5
		parts := make([]string, 0, shown+1)
		for i, n := range names {
			if i == shown {
				parts = append(parts, fmt.Sprintf("and %d more", len(names)-shown))
				break
			}
			parts = append(parts, n+": "+f.Excluded[n])
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, "; "))
	}
	b.WriteString(". Fix: add schedulable nodes, or make placement.database's nodeSelector, required nodeAffinity and tolerations match the nodes you have")
	if separate {
		b.WriteString(", or set fewer instances, or let instances share nodes with placement.database.affinity.podAntiAffinity: {} (the report then says the database does not survive the loss of a machine)")
	}
	return b.String()
}

// FitNodes judges nodes against the database's placement (nil: none): a node can take a database
// pod when it is schedulable (not cordoned, its Ready condition not False or Unknown), carries the
// placement's nodeSelector labels, matches its required node affinity, and has no NoSchedule or
// NoExecute taint the placement does not tolerate. separate is the number of pods that must each
// have a node of their own. Preferred terms and topology spread constraints are not judged. It is
// pure.
func FitNodes(nodes []corev1.Node, p *benchv1.PodPlacement, separate int) NodeFit {
	fit := NodeFit{Need: max(1, separate), Listed: len(nodes), Excluded: map[string]string{}}
	for i := range nodes {
		if why := unfit(&nodes[i], p); why != "" {
			fit.Excluded[nodes[i].Name] = why
			continue
		}
		fit.Found++
	}
	return fit
}

// unfit says why a node cannot take a pod of the placement; "" when it can.
func unfit(node *corev1.Node, p *benchv1.PodPlacement) string {
	if node.Spec.Unschedulable {
		return "cordoned (unschedulable)"
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
			return "not Ready"
		}
	}
	var tolerations []corev1.Toleration
	if p != nil {
		for k, v := range p.NodeSelector {
			if got, ok := node.Labels[k]; !ok || got != v {
				return fmt.Sprintf("no label %s=%s (placement.database.nodeSelector)", k, v)
			}
		}
		if p.Affinity != nil && p.Affinity.NodeAffinity != nil && p.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			if !matchesAnyTerm(node, p.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) {
				return "does not match placement.database.affinity.nodeAffinity's required terms"
			}
		}
		tolerations = p.Tolerations
	}
	for i := range node.Spec.Taints {
		taint := &node.Spec.Taints[i]
		if taint.Effect != corev1.TaintEffectNoSchedule && taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !tolerated(taint, tolerations) {
			return fmt.Sprintf("taint %s not tolerated (placement.database.tolerations)", taintString(taint))
		}
	}
	return ""
}

func tolerated(taint *corev1.Taint, tolerations []corev1.Toleration) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(logr.Discard(), taint, true) {
			return true
		}
	}
	return false
}

func taintString(t *corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

// matchesAnyTerm is the scheduler's rule for required node affinity: the terms are ORed, each
// term's expressions and fields ANDed; a term with neither matches nothing.
func matchesAnyTerm(node *corev1.Node, terms []corev1.NodeSelectorTerm) bool {
	for _, term := range terms {
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			continue
		}
		if matches(term.MatchExpressions, labels.Set(node.Labels)) &&
			matches(term.MatchFields, labels.Set{"metadata.name": node.Name}) {
			return true
		}
	}
	return false
}

func matches(reqs []corev1.NodeSelectorRequirement, set labels.Set) bool {
	for _, r := range reqs {
		op, ok := map[corev1.NodeSelectorOperator]selection.Operator{
			corev1.NodeSelectorOpIn: selection.In, corev1.NodeSelectorOpNotIn: selection.NotIn,
			corev1.NodeSelectorOpExists: selection.Exists, corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
			corev1.NodeSelectorOpGt: selection.GreaterThan, corev1.NodeSelectorOpLt: selection.LessThan,
		}[r.Operator]
		if !ok {
			return false
		}
		req, err := labels.NewRequirement(r.Key, op, r.Values)
		if err != nil || !req.Matches(set) {
			return false
		}
	}
	return true
}
