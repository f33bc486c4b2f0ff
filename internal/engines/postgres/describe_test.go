package postgres

import (
	"strings"
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func i32(v int32) *int32 { return &v }

func pg(instances, sync int32, commit benchv1.SynchronousCommit) benchv1.DatabaseSpec {
	return benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Instances: instances, SynchronousReplicas: i32(sync), SynchronousCommit: commit}}
}

// With fsync off no instance flushes a commit, whatever synchronous_commit waits for: the durability
// is the lowest level, and neither it nor the deployment names a synchronous_commit level. fsync's
// name and value are read as PostgreSQL reads them.
func TestDurabilityWithFsyncOff(t *testing.T) {
	const noFlush = "no disk flush: fsync is off, so no instance writes a commit to disk before acknowledging it"
	withParameters := func(db benchv1.DatabaseSpec, parameters map[string]string) benchv1.DatabaseSpec {
		db.Postgres.Parameters = parameters
		return db
	}
	cases := []struct {
		name       string
		db         benchv1.DatabaseSpec
		words      string
		level      benchv1.DurabilityLevel
		deployment string
	}{
		{"remote_apply, fsync off", withParameters(pg(3, 2, "remote_apply"), map[string]string{"fsync": "off"}), noFlush, benchv1.DurabilityNoCopy, "PostgreSQL, 3 instances, 2 synchronous, fsync off"},
		{"on, FSYNC=false", withParameters(pg(3, 2, "on"), map[string]string{"FSYNC": "false"}), noFlush, benchv1.DurabilityNoCopy, "PostgreSQL, 3 instances, 2 synchronous, fsync off"},
		{"remote_write, fsync 0", withParameters(pg(3, 1, "remote_write"), map[string]string{"fsync": "0"}), noFlush, benchv1.DurabilityNoCopy, "PostgreSQL, 3 instances, 1 synchronous, fsync off"},
		{"asynchronous, Fsync 'OF'", withParameters(pg(3, 0, "remote_apply"), map[string]string{"Fsync": " OF "}), noFlush, benchv1.DurabilityNoCopy, "PostgreSQL, 3 instances, asynchronous, fsync off"},
		{"single instance, fsync n", withParameters(pg(1, 0, ""), map[string]string{"fsync": "n"}), noFlush, benchv1.DurabilityNoCopy, "PostgreSQL, 1 instance, asynchronous, fsync off"},
		{"fsync on", withParameters(pg(3, 2, "remote_apply"), map[string]string{"fsync": "on"}), "both synchronous standbys applied it (remote_apply)", benchv1.DurabilityReplicatedDisk, "PostgreSQL, 3 instances, 2 synchronous (remote_apply)"},
		{"fsync true", withParameters(pg(3, 2, "remote_apply"), map[string]string{"fsync": "TRUE"}), "both synchronous standbys applied it (remote_apply)", benchv1.DurabilityReplicatedDisk, "PostgreSQL, 3 instances, 2 synchronous (remote_apply)"},
		{"fsync 'o' is ambiguous, not off", withParameters(pg(3, 2, "remote_apply"), map[string]string{"fsync": "o"}), "both synchronous standbys applied it (remote_apply)", benchv1.DurabilityReplicatedDisk, "PostgreSQL, 3 instances, 2 synchronous (remote_apply)"},
		{"a parameter named like fsync", withParameters(pg(3, 2, "remote_apply"), map[string]string{"fsync_writethrough": "off", "wal_sync_method": "fdatasync", "commit_delay": "100"}),
			"both synchronous standbys applied it (remote_apply)", benchv1.DurabilityReplicatedDisk, "PostgreSQL, 3 instances, 2 synchronous (remote_apply)"},
		{"unlogged tables and fsync off", withParameters(benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Tables: benchv1.TablesUnlogged}}, map[string]string{"fsync": "off"}),
			"nothing: the TPC-C tables are unlogged (no WAL, not replicated, emptied by crash recovery)", benchv1.DurabilityNoCopy, "PostgreSQL, 3 instances, 2 synchronous, fsync off"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			desc := Engine{}.Describe(tc.db)
			d := desc.Durability
			if d.Words != tc.words || d.Level != tc.level {
				t.Errorf("got %q level %s, want %q level %s", d.Words, d.Level, tc.words, tc.level)
			}
			if desc.Deployment != tc.deployment {
				t.Errorf("deployment %q, want %q", desc.Deployment, tc.deployment)
			}
			if FsyncOff(tc.db.Postgres.Parameters) && (strings.Contains(d.Words+desc.Deployment, "remote_") || d.Loses == "") {
				t.Errorf("fsync off: words %q, deployment %q, loses %q: no synchronous_commit level, and say what is lost", d.Words, desc.Deployment, d.Loses)
			}
		})
	}
}
