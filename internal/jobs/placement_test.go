package jobs

import (
	"context"
	"encoding/json"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

type podPlacement struct {
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
	Affinity     *corev1.Affinity
	Spread       []corev1.TopologySpreadConstraint
}

func templatePlacement(s corev1.PodSpec) podPlacement {
	return podPlacement{s.NodeSelector, s.Tolerations, s.Affinity, s.TopologySpreadConstraints}
}

func avoidDatabase(selector map[string]string) *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
		Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: selector}, TopologyKey: corev1.LabelHostname}}}}}
}

func spreadStep(job string) []corev1.TopologySpreadConstraint {
	return []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.JobNameLabel: job}}}}
}

// The Jobs' pod templates, as the API server stores them, carry exactly the run's placement for
// their role — loader and check pods placement.loader, client pods placement.clients — or, without
// a block, the defaults: prefer nodes without the run's database pods; client pods spread.
func TestJobPlacementAsStored(t *testing.T) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "placement"}}
	if err := k8s.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	loader := &benchv1.PodPlacement{
		NodeSelector: map[string]string{"pool": "loaders"},
		Tolerations:  []corev1.Toleration{{Key: "batch", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
	}
	clients := &benchv1.PodPlacement{
		NodeSelector: map[string]string{"pool": "clients"},
		Affinity: &corev1.Affinity{
			NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
				Weight: 5, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "big", Operator: corev1.NodeSelectorOpExists}}}}}},
			PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"cnpg.io/cluster": "r-db"}}, TopologyKey: corev1.LabelHostname}}},
		},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"x": "y"}}}},
	}
	run := testRun(40)
	run.Namespace = ns.Name
	database := map[string]string{"cnpg.io/cluster": "r-db"}
	conn := secretConn
	conn.DatabasePods = database // as postgres.Backend's Connection gives it
	cfg := Config{ClientImage: "tpcc:dev"}

	placed := run.DeepCopy()
	placed.Name = "p"
	placed.Spec.Placement = &benchv1.Placement{Loader: loader, Clients: clients}
	loaderWithDefault := podPlacement{loader.NodeSelector, loader.Tolerations, avoidDatabase(database), nil}

	for _, tc := range []struct {
		job  *batchv1.Job
		want podPlacement
	}{
		{LoaderJob(run, conn, 0, cfg), podPlacement{Affinity: avoidDatabase(database)}},
		{CheckJob(run, conn, cfg), podPlacement{Affinity: avoidDatabase(database)}},
		{FaultCheckJob(run, 3, conn, cfg), podPlacement{Affinity: avoidDatabase(database)}},
		{FinalCheckJob(run, conn, cfg), podPlacement{Affinity: avoidDatabase(database)}},
		{StepJob(run, 0, 40, 0, conn, cfg), podPlacement{Affinity: avoidDatabase(database), Spread: spreadStep("r-step-0")}},
		{LoaderJob(placed, conn, 0, cfg), loaderWithDefault},
		{CheckJob(placed, conn, cfg), loaderWithDefault},
		// The clients' own podAntiAffinity and spread replace the defaults.
		{StepJob(placed, 2, 40, 0, conn, cfg), podPlacement{clients.NodeSelector, nil, clients.Affinity, clients.TopologySpreadConstraints}},
		// An external database has no pods to avoid.
		{StepJob(run, 5, 40, 0, secretConn, cfg), podPlacement{Spread: spreadStep("r-step-5")}},
	} {
		t.Run(tc.job.Name, func(t *testing.T) {
			if err := k8s.Create(ctx, tc.job, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
				t.Fatalf("job rejected: %v", err)
			}
			stored := &batchv1.Job{}
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(tc.job), stored); err != nil {
				t.Fatal(err)
			}
			if got := templatePlacement(stored.Spec.Template.Spec); !equality.Semantic.DeepEqual(got, tc.want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(tc.want)
				t.Errorf("stored pod template placement:\n got %s\nwant %s", g, w)
			}
		})
	}
}
