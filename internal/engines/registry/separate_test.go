package registry

import (
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Each engine says how many of its pods the default placement keeps each on a node of its own:
// the nodes the placement check requires before anything is deployed.
func TestSeparateNodes(t *testing.T) {
	two := int32(2)
	for _, tc := range []struct {
		name string
		db   benchv1.DatabaseSpec
		want int
	}{
		{"PostgreSQL, defaults", benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}, 3},
		{"PostgreSQL, 5 instances", benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Instances: 5, SynchronousReplicas: &two}}, 5},
		{"CockroachDB, 4 nodes", benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB, Cockroach: &benchv1.CockroachSpec{Nodes: 4}}, 4},
		{"YDB, 8 storage and 3 database nodes", benchv1.DatabaseSpec{Engine: benchv1.EngineYDB, YDB: &benchv1.YDBSpec{Erasure: benchv1.ErasureBlock42, StorageNodes: 8, DatabaseNodes: 3}}, 8},
		{"YDB, 3 storage and 5 database nodes", benchv1.DatabaseSpec{Engine: benchv1.EngineYDB, YDB: &benchv1.YDBSpec{Erasure: benchv1.ErasureMirror3DC, StorageNodes: 3, DatabaseNodes: 5}}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Default().Engine(tc.db).SeparateNodes(tc.db); got != tc.want {
				t.Errorf("SeparateNodes = %d, want %d", got, tc.want)
			}
		})
	}
}
