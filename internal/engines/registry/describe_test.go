package registry

import (
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func i32(v int32) *int32 { return &v }

func pg(instances, sync int32, commit benchv1.SynchronousCommit) benchv1.DatabaseSpec {
	return benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Instances: instances, SynchronousReplicas: i32(sync), SynchronousCommit: commit}}
}

// What a commit waits for, as each engine describes it.
func TestDurability(t *testing.T) {
	cases := []struct {
		db    benchv1.DatabaseSpec
		words string
		level benchv1.DurabilityLevel
	}{
		{benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}, "both synchronous standbys applied it (remote_apply)", benchv1.DurabilityReplicatedDisk},
		{pg(3, 2, "remote_apply"), "both synchronous standbys applied it (remote_apply)", benchv1.DurabilityReplicatedDisk},
		{pg(3, 2, "remote_write"), "both synchronous standbys wrote it to the operating system, not yet to disk (remote_write)", benchv1.DurabilityRemoteMemory},
		{pg(3, 1, "on"), "any 1 of the 2 standbys flushed it to disk (on)", benchv1.DurabilityReplicatedDisk},
		{pg(2, 1, "remote_apply"), "the synchronous standby applied it (remote_apply)", benchv1.DurabilityReplicatedDisk},
		{pg(5, 4, "remote_apply"), "all 4 synchronous standbys applied it (remote_apply)", benchv1.DurabilityReplicatedDisk},
		{pg(3, 0, "remote_apply"), "the primary's own WAL flush only (2 asynchronous standbys, 0 synchronous replicas)", benchv1.DurabilityOneCopy},
		{pg(1, 0, ""), "the primary's own WAL flush (a single instance, no standby)", benchv1.DurabilityOneCopy},
		{benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Tables: benchv1.TablesUnlogged}},
			"nothing: the TPC-C tables are unlogged (no WAL, not replicated, emptied by crash recovery)", benchv1.DurabilityNoCopy},
		{benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB}, "a Raft majority of 3 replicas", benchv1.DurabilityReplicatedDisk},
		{benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB, Cockroach: &benchv1.CockroachSpec{Nodes: 5}}, "a Raft majority of 3 replicas", benchv1.DurabilityReplicatedDisk},
		{benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB, Cockroach: &benchv1.CockroachSpec{Nodes: 1}}, "a single replica (1 node: nothing is replicated)", benchv1.DurabilityOneCopy},
		{benchv1.DatabaseSpec{Engine: benchv1.EngineYDB}, "mirror-3-dc (3 replicas in 3 failure domains)", benchv1.DurabilityReplicatedDisk},
		{benchv1.DatabaseSpec{Engine: benchv1.EngineYDB, YDB: &benchv1.YDBSpec{Erasure: benchv1.ErasureNone}}, "none (erasure none: a single copy)", benchv1.DurabilityOneCopy},
		{benchv1.DatabaseSpec{Engine: benchv1.EngineYDB, External: &benchv1.ExternalSpec{}}, "not known: an external database the operator did not deploy", benchv1.DurabilityUnknown},
	}
	for _, tc := range cases {
		d := Default().Describe(tc.db).Durability
		if d.Words != tc.words || d.Level != tc.level {
			t.Errorf("%s %+v: got %q level %s, want %q level %s", tc.db.Engine, tc.db.Postgres, d.Words, d.Level, tc.words, tc.level)
		}
	}
}
