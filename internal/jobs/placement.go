package jobs

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// place sets a Job pod's scheduling fields from the run's placement for the pod's role (loader and
// check pods: placement.loader; client pods: placement.clients), with the defaults that keep the
// measurement honest: prefer nodes without a database pod of the run (databasePods selects them;
// nil for an external database), and client pods of one step spread across nodes. A role's own
// podAntiAffinity or topologySpreadConstraints replace the default ones. It is pure.
func place(spec *corev1.PodSpec, run *benchv1.BenchmarkRun, jobName, component string, databasePods map[string]string) {
	var p *benchv1.PodPlacement
	if component == ComponentClient {
		p = run.Spec.Placement.ClientsPlacement()
	} else {
		p = run.Spec.Placement.LoaderPlacement()
	}
	var own benchv1.PodPlacement
	if p != nil {
		own = *p.DeepCopy()
	}
	spec.NodeSelector, spec.Tolerations, spec.Affinity = own.NodeSelector, own.Tolerations, own.Affinity
	if !engines.OwnsAntiAffinity(p) {
		if avoid := engines.AvoidPods(databasePods); avoid != nil {
			if spec.Affinity == nil {
				spec.Affinity = &corev1.Affinity{}
			}
			spec.Affinity.PodAntiAffinity = avoid
		}
	}
	spec.TopologySpreadConstraints = own.TopologySpreadConstraints
	if component == ComponentClient && len(own.TopologySpreadConstraints) == 0 {
		// The step's own client pods (the Job controller labels them with their Job's name): one
		// more on a node than on another only when the others have no room (ScheduleAnyway: the
		// spread never leaves a pod unscheduled).
		selector := map[string]string{batchv1.JobNameLabel: jobName}
		spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew:           1,
			TopologyKey:       corev1.LabelHostname,
			WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: selector},
		}}
	}
}
