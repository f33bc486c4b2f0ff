package jobs

import (
	"slices"
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
)

// Every step tells its clients the run's isolation level (the engine's default when omitted, as the
// registry's engines give it) and
// which settings to read back; the loader applies the connection's cluster settings in name order.
func TestIsolationAndSettingsArgs(t *testing.T) {
	for _, c := range []struct {
		engine benchv1.Engine
		level  benchv1.Isolation
		want   string
	}{
		{benchv1.EnginePostgreSQL, "", "read-committed"},
		{benchv1.EnginePostgreSQL, benchv1.IsolationSerializable, "serializable"},
		{benchv1.EngineCockroachDB, "", "serializable"},
		{benchv1.EngineCockroachDB, benchv1.IsolationRepeatableRead, "repeatable-read"},
		{benchv1.EngineYDB, "", "serializable"},
	} {
		run := testRun(10)
		run.Spec.Database.Engine, run.Spec.Workload.Isolation = c.engine, c.level
		conn := secretConn
		conn.Isolation = registry.Default().Engine(run.Spec.Database).Capabilities().Isolation.Effective(run.Spec.Workload)
		args := StepJob(run, 0, 10, 0, conn, Config{ClientImage: "tpcc:dev"}).Spec.Template.Spec.Containers[0].Args
		if got := arg(t, args, "--isolation"); got != c.want {
			t.Errorf("%s %q: --isolation %s, want %s", c.engine, c.level, got, c.want)
		}
	}
	conn := secretConn
	conn.ReadSettings = []string{"kv.rangefeed.enabled", "sql.txn.read_committed_isolation.enabled"}
	conn.LoaderSettings = map[string]string{"sql.txn.read_committed_isolation.enabled": "true", "kv.rangefeed.enabled": "false"}
	args := StepJob(testRun(10), 0, 10, 0, conn, Config{}).Spec.Template.Spec.Containers[0].Args
	if i := slices.Index(args, "--show-setting"); i < 0 || args[i+1] != "kv.rangefeed.enabled" || args[i+3] != "sql.txn.read_committed_isolation.enabled" {
		t.Errorf("step args %v, want both --show-setting", args)
	}
	load := LoaderJob(testRun(10), conn, 0, Config{}).Spec.Template.Spec.Containers[0].Args
	i := slices.Index(load, "--cluster-setting")
	if i < 0 || load[i+1] != "kv.rangefeed.enabled=false" || load[i+2] != "--cluster-setting" || load[i+3] != "sql.txn.read_committed_isolation.enabled=true" {
		t.Errorf("loader args %v, want the cluster settings in name order", load)
	}
	if plain := LoaderJob(testRun(10), engines.Connection{Engine: "postgres"}, 0, Config{}).Spec.Template.Spec.Containers[0].Args; slices.Contains(plain, "--cluster-setting") {
		t.Errorf("a loader without settings got %v", plain)
	}
}
