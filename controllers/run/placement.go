package run

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
)

// Where a run's pods ran. A comparison assumes every database instance has a machine of its own and
// the clients do not take the database's CPU; the defaults (docs/placement.md) ask the scheduler
// for both, and these records say whether it gave them: each step records the node of every
// database and client pod when it is recorded, the load records its loader and check pods.

// stepPlacement reads where the database's pods and the step's client pods are, and the database's
// primary where the engine names one. A read that fails leaves the step without a placement
// record (logged); the step's verdict does not depend on it.
func (r *Reconciler) stepPlacement(ctx context.Context, run *benchv1.BenchmarkRun, index int32) *benchv1.StepPlacement {
	log := ctrl.LoggerFrom(ctx)
	backend := r.backend(run)
	var database []corev1.Pod
	if sel := backend.DatabasePods(run); sel != nil {
		list := &corev1.PodList{}
		if err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), client.MatchingLabels(sel)); err != nil {
			log.Info("placement not recorded: listing the database pods", "step", index, "error", err.Error())
			return nil
		}
		database = list.Items
	}
	clients, err := r.stepPods(ctx, run, index)
	if err != nil {
		log.Info("placement not recorded", "step", index, "error", err.Error())
		return nil
	}
	var primary string
	if targets, ok := backend.(engines.FaultTargets); ok {
		if observed, err := r.observe(ctx, run, backend.Observed(run)); err == nil {
			primary = targets.Roles(run, observed).Primary
		}
	}
	var group func(map[string]string) string
	if g, ok := backend.(engines.PodGrouper); ok {
		group = g.PodGroup
	}
	return placementRecord(database, clients, primary, group)
}

// loadPlacement reads the nodes of the run's loader and check pods, while their Jobs still exist.
func (r *Reconciler) loadPlacement(ctx context.Context, run *benchv1.BenchmarkRun) []benchv1.PodPlacementRecord {
	var out []benchv1.PodPlacementRecord
	for component, role := range map[string]string{jobs.ComponentLoader: benchv1.RoleLoader, jobs.ComponentCheck: benchv1.RoleCheck} {
		list := &corev1.PodList{}
		selector := client.MatchingLabels(engines.Labels(run))
		selector[jobs.ComponentLabel] = component
		if err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), selector); err != nil {
			ctrl.LoggerFrom(ctx).Info("load placement not recorded", "error", err.Error())
			return nil
		}
		for _, p := range list.Items {
			out = append(out, benchv1.PodPlacementRecord{Name: p.Name, Role: role, Node: p.Spec.NodeName})
		}
	}
	sortPlacement(out)
	return out
}

// placementRecord is a step's placement from its pods: every database pod (with its group, where
// the engine has several kinds) and client pod with its node, the primary's node, the nodes where
// a client ran beside a database pod, and those where two instances of one group ran together. It
// is pure.
func placementRecord(database, clients []corev1.Pod, primary string, group func(map[string]string) string) *benchv1.StepPlacement {
	rec := &benchv1.StepPlacement{Primary: primary}
	dbOnNode := map[string][]string{}               // node -> database pods
	groupOnNode := map[string]map[string][]string{} // group -> node -> pods
	for _, p := range database {
		g := ""
		if group != nil {
			g = group(p.Labels)
		}
		rec.Pods = append(rec.Pods, benchv1.PodPlacementRecord{Name: p.Name, Role: benchv1.RoleDatabase, Group: g, Node: p.Spec.NodeName})
		if p.Name == primary {
			rec.PrimaryNode = p.Spec.NodeName
		}
		if p.Spec.NodeName == "" {
			continue
		}
		dbOnNode[p.Spec.NodeName] = append(dbOnNode[p.Spec.NodeName], p.Name)
		if groupOnNode[g] == nil {
			groupOnNode[g] = map[string][]string{}
		}
		groupOnNode[g][p.Spec.NodeName] = append(groupOnNode[g][p.Spec.NodeName], p.Name)
	}
	shared := map[string]bool{}
	for _, p := range clients {
		rec.Pods = append(rec.Pods, benchv1.PodPlacementRecord{Name: p.Name, Role: benchv1.RoleClient, Node: p.Spec.NodeName})
		if beside := dbOnNode[p.Spec.NodeName]; p.Spec.NodeName != "" && len(beside) > 0 {
			sort.Strings(beside)
			shared[p.Spec.NodeName] = true
			rec.Findings = append(rec.Findings, fmt.Sprintf("client pod %s shares node %s with database pod %s: the clients take CPU and memory from the database they measure",
				p.Name, p.Spec.NodeName, strings.Join(beside, ", ")))
		}
	}
	rec.ClientsOnDatabaseNodes = slices.Sorted(maps.Keys(shared))
	together := map[string]bool{}
	for _, g := range slices.Sorted(maps.Keys(groupOnNode)) {
		for _, node := range slices.Sorted(maps.Keys(groupOnNode[g])) {
			pods := groupOnNode[g][node]
			if len(pods) < 2 {
				continue
			}
			sort.Strings(pods)
			together[node] = true
			kind := "database pods"
			if g != "" {
				kind = "database pods (" + g + ")"
			}
			rec.Findings = append(rec.Findings, fmt.Sprintf("%s %s share node %s: the loss of that machine takes them together, so the database does not survive the loss of a machine",
				kind, strings.Join(pods, " and "), node))
		}
	}
	rec.SharedDatabaseNodes = slices.Sorted(maps.Keys(together))
	sortPlacement(rec.Pods)
	return rec
}

// sortPlacement orders records by role (database first) and name.
func sortPlacement(pods []benchv1.PodPlacementRecord) {
	rank := map[string]int{benchv1.RoleDatabase: 0, benchv1.RoleClient: 1, benchv1.RoleLoader: 2, benchv1.RoleCheck: 3}
	sort.SliceStable(pods, func(i, j int) bool {
		if rank[pods[i].Role] != rank[pods[j].Role] {
			return rank[pods[i].Role] < rank[pods[j].Role]
		}
		return pods[i].Name < pods[j].Name
	})
}
