package postgres

import (
	"strings"
	"testing"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

func res(cpuLimit, memLimit string) corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
		Limits: corev1.ResourceList{}}
	if cpuLimit != "" {
		r.Limits[corev1.ResourceCPU] = resource.MustParse(cpuLimit)
	}
	if memLimit != "" {
		r.Limits[corev1.ResourceMemory] = resource.MustParse(memLimit)
	}
	return r
}

// The Cluster carries loadResources until the run's data is loaded, resources while the steps run
// and loadResources again once the run asks for them back for the check after its last step; a
// reused database is never switched; memory may not differ.
func TestLoadResources(t *testing.T) {
	measured, loading := res("100m", "1Gi"), res("", "1Gi")
	loaded := &benchv1.LoadStatus{CompletionTime: &metav1.Time{}}
	cases := []struct {
		name     string
		load     *corev1.ResourceRequirements
		status   *benchv1.LoadStatus
		restore  bool
		reuse    bool
		want     corev1.ResourceRequirements
		switches bool
		err      string
	}{
		{"no loadResources", nil, nil, false, false, measured, false, ""},
		{"deploying", &loading, nil, false, false, loading, true, ""},
		{"loading", &loading, &benchv1.LoadStatus{StartTime: &metav1.Time{}}, false, false, loading, true, ""},
		{"loaded", &loading, loaded, false, false, measured, true, ""},
		{"after the last step, for the check", &loading, loaded, true, false, loading, true, ""},
		{"reused: never switched", &loading, nil, false, true, measured, false, ""},
		{"another memory limit", &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")},
			Requests: measured.Requests}, nil, false, false, measured, true, "spec.database.postgres.loadResources: memory limit 2Gi differs from spec.database.postgres.resources' 1Gi: only cpu may differ"},
		{"no memory request", &corev1.ResourceRequirements{Limits: loading.Limits}, nil, false, false, measured, true, "memory request (none) differs from spec.database.postgres.resources' 256Mi"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(&benchv1.PostgresSpec{Instances: 3, Resources: measured, LoadResources: c.load})
			r.Status.Load = c.status
			if c.restore {
				r.Status.Database = &benchv1.DatabaseStatus{ResourcesRestoreTime: &metav1.Time{}}
			}
			if c.reuse {
				r.Spec.Database.Reuse = &benchv1.ReuseSpec{Run: "earlier"}
			}
			objs, err := Backend{}.Desired(r)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cluster := &cnpgv1.Cluster{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[0].Object, cluster); err != nil {
				t.Fatal(err)
			}
			if !engines.SameResources(cluster.Spec.Resources, c.want) {
				t.Errorf("Cluster resources %+v, want %+v", cluster.Spec.Resources, c.want)
			}
			sw, ok := Backend{}.ResourceSwitch(r)
			if ok != c.switches || (ok && (sw.Container != "postgres" || sw.Pods != 3 || !engines.SameResources(sw.Want, measured) ||
				!engines.SameResources(sw.From, loading) || !engines.SameResources(sw.Back().Want, loading) || !engines.SameResources(sw.Back().From, measured))) {
				t.Errorf("ResourceSwitch %+v, %v; want switches %v to the measured resources", sw, ok, c.switches)
			}
		})
	}
}
