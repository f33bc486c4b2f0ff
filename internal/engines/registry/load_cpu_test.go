package registry

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// Each engine says which pods its load writes through: PostgreSQL's primary, every CockroachDB
// node; an external database or one without CPU declares none (the loaders then keep the
// warehouses' default).
func TestLoadCPUOfTheEngines(t *testing.T) {
	cores := func(n string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(n)}}
	}
	three := int32(3)
	for _, c := range []struct {
		name string
		db   benchv1.DatabaseSpec
		want int64
	}{
		{"PostgreSQL, 3 instances of 128 cores: the primary's", benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL,
			Postgres: &benchv1.PostgresSpec{Instances: 3, Resources: cores("128")}}, 128000},
		{"PostgreSQL without CPU", benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Instances: 3}}, 0},
		{"CockroachDB, 3 nodes of 128 cores: all of them", benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB,
			Cockroach: &benchv1.CockroachSpec{Nodes: three, Resources: cores("128")}}, 384000},
		{"external", benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Instances: 3, Resources: cores("128")},
			External: &benchv1.ExternalSpec{SecretRef: benchv1.SecretKeyRef{Name: "db"}}}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := engines.LoadCPU(Default().Engine(c.db), c.db); got != c.want {
				t.Errorf("LoadCPU = %dm, want %dm", got, c.want)
			}
		})
	}
}
