package run

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// +kubebuilder:rbac:groups="",resources=nodes,verbs=list

// reconcilePlacementCheck checks, before a run's database is first deployed, that the cluster's
// nodes can hold it (engines.FitNodes): enough schedulable nodes that match placement.database's
// nodeSelector and required node affinity and whose taints it tolerates, one per database pod
// the default required anti-affinity keeps apart (Engine.SeparateNodes; none when the block
// brings a podAntiAffinity of its own). Otherwise the run fails at once with
// PlacementUnsatisfiable instead of DatabaseNotReady after --database-ready-timeout. It checks
// nothing for an external or reused database, a database of no pods, or when no Node is listed
// (the scheduler is then left to decide).
func (r *Reconciler) reconcilePlacementCheck(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	db := run.Spec.Database
	if run.Status.Database != nil || db.External != nil || db.Reuse != nil || r.backend(run).DatabasePods(run) == nil {
		return true, ctrl.Result{}, nil
	}
	nodes := &corev1.NodeList{}
	if err := r.APIReader.List(ctx, nodes); err != nil {
		return false, ctrl.Result{}, fmt.Errorf("listing nodes for the placement check: %w", err)
	}
	if len(nodes.Items) == 0 {
		return true, ctrl.Result{}, nil
	}
	var block *benchv1.PodPlacement
	if run.Spec.Placement != nil {
		block = run.Spec.Placement.Database
	}
	separate := 0
	if !engines.OwnsAntiAffinity(block) {
		separate = r.engine(run).SeparateNodes(db)
	}
	fit := engines.FitNodes(nodes.Items, block, separate)
	if !fit.Satisfiable() {
		return false, ctrl.Result{}, r.fail(ctx, run, "PlacementUnsatisfiable", fit.Message(separate > 1))
	}
	return true, ctrl.Result{}, nil
}
