package v1alpha1_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

var (
	k8s  client.Client
	repo string
)

func TestMain(m *testing.M) {
	testenv.Main(m, func(env *testenv.Env, c client.Client) { k8s, repo = c, env.RepoRoot })
}

const validRun = `
apiVersion: bench.oltp.io/v1alpha1
kind: BenchmarkRun
metadata:
  namespace: default
spec:
  database:
    engine: PostgreSQL
    postgres:
      instances: 3
      synchronousReplicas: 2
  workload:
    warehouses: 10
    duration: 1m
`

// mutation edits the valid run; a nil value deletes the field.
type mutation struct {
	path  string
	value any
}

func set(path string, value any) mutation { return mutation{path, value} }
func del(path string) mutation            { return mutation{path, nil} }

func manifest(t *testing.T, name string, mutations ...mutation) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(validRun), &u.Object); err != nil {
		t.Fatal(err)
	}
	if name != "" {
		u.SetName(name)
	}
	for _, m := range mutations {
		fields := strings.Split(m.path, ".")
		var err error
		if m.value == nil {
			unstructured.RemoveNestedField(u.Object, fields...)
		} else {
			err = unstructured.SetNestedField(u.Object, m.value, fields...)
		}
		if err != nil {
			t.Fatalf("mutation %s: %v", m.path, err)
		}
	}
	return u
}

func latency(transaction, percentile, max string) map[string]any {
	return map[string]any{"transaction": transaction, "percentile": percentile, "max": max}
}

// Every invalid manifest is rejected at admission with a message naming the field and the rule.
func TestAdmissionRejectsInvalidRuns(t *testing.T) {
	cases := []struct {
		name      string
		mutations []mutation
		want      []string // all must appear in the error
	}{
		{"unknown engine", []mutation{set("spec.database.engine", "MySQL")},
			[]string{"spec.database.engine", `Unsupported value: "MySQL"`}},
		{"missing engine", []mutation{del("spec.database.engine")},
			[]string{"spec.database.engine", "Required value"}},
		{"postgres block with CockroachDB", []mutation{set("spec.database.engine", "CockroachDB")},
			[]string{"spec.database.postgres", "postgres is only allowed with engine PostgreSQL"}},
		{"cockroach block with PostgreSQL", []mutation{set("spec.database.cockroach", map[string]any{"nodes": int64(3)})},
			[]string{"spec.database.cockroach", "cockroach is only allowed with engine CockroachDB"}},
		{"ydb block with PostgreSQL", []mutation{set("spec.database.ydb", map[string]any{})},
			[]string{"spec.database.ydb", "ydb is only allowed with engine YDB"}},
		{"synchronous replicas equal to instances", []mutation{set("spec.database.postgres.instances", int64(2))},
			[]string{"spec.database.postgres.synchronousReplicas", "synchronousReplicas must be less than instances"}},
		{"no instances", []mutation{set("spec.database.postgres.instances", int64(0))},
			[]string{"spec.database.postgres.instances", "greater than or equal to 1"}},
		{"negative synchronous replicas", []mutation{set("spec.database.postgres.synchronousReplicas", int64(-1))},
			[]string{"spec.database.postgres.synchronousReplicas", "greater than or equal to 0"}},
		{"synchronous commit off", []mutation{set("spec.database.postgres.synchronousCommit", "off")},
			[]string{"spec.database.postgres.synchronousCommit", `Unsupported value: "off"`}},
		{"synchronous_standby_names in parameters", []mutation{set("spec.database.postgres.parameters", map[string]any{"synchronous_standby_names": "*"})},
			[]string{"spec.database.postgres.parameters", "synchronous_standby_names is derived from postgres.synchronousReplicas"}},
		{"synchronous_commit in parameters", []mutation{set("spec.database.postgres.parameters", map[string]any{"synchronous_commit": "on"})},
			[]string{"spec.database.postgres.parameters", "set synchronous_commit with postgres.synchronousCommit"}},
		{"zero storage size", []mutation{set("spec.database.postgres.storage", map[string]any{"size": "0"})},
			[]string{"spec.database.postgres.storage.size", "storage.size must be positive"}},
		{"cockroach without nodes", []mutation{del("spec.database.postgres"), set("spec.database.engine", "CockroachDB"), set("spec.database.cockroach", map[string]any{"nodes": int64(0)})},
			[]string{"spec.database.cockroach.nodes", "greater than or equal to 1"}},
		{"block-4-2 with 3 storage nodes", []mutation{del("spec.database.postgres"), set("spec.database.engine", "YDB"), set("spec.database.ydb", map[string]any{"erasure": "block-4-2", "storageNodes": int64(3)})},
			[]string{"spec.database.ydb.storageNodes", "erasure block-4-2 needs at least 8 storageNodes"}},
		{"mirror-3-dc with 2 storage nodes", []mutation{del("spec.database.postgres"), set("spec.database.engine", "YDB"), set("spec.database.ydb", map[string]any{"storageNodes": int64(2)})},
			[]string{"spec.database.ydb.storageNodes", "erasure mirror-3-dc needs at least 3 storageNodes"}},
		{"unknown erasure", []mutation{del("spec.database.postgres"), set("spec.database.engine", "YDB"), set("spec.database.ydb", map[string]any{"erasure": "mirror-2"})},
			[]string{"spec.database.ydb.erasure", `Unsupported value: "mirror-2"`}},
		{"external without secretRef", []mutation{del("spec.database.postgres"), set("spec.database.external", map[string]any{})},
			[]string{"spec.database.external.secretRef", "Required value"}},
		{"external with an empty secret name", []mutation{del("spec.database.postgres"), set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": ""}})},
			[]string{"spec.database.external.secretRef.name", "at least 1 chars long"}},
		{"external combined with postgres", []mutation{set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}})},
			[]string{"spec.database.external", "external deploys nothing and cannot be combined with postgres, cockroach or ydb"}},
		{"unknown table persistence", []mutation{set("spec.database.postgres.tables", "NoWAL")},
			[]string{"spec.database.postgres.tables", `Unsupported value: "NoWAL"`}},
		{"unlogged tables in an external CockroachDB", []mutation{del("spec.database.postgres"), set("spec.database.engine", "CockroachDB"),
			set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}, "tables": "Unlogged"})},
			[]string{"spec.database.external.tables", "external.tables applies only to engine PostgreSQL"}},
		{"table persistence of an external YDB", []mutation{del("spec.database.postgres"), set("spec.database.engine", "YDB"),
			set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}, "tables": "Logged"})},
			[]string{"spec.database.external.tables", "external.tables applies only to engine PostgreSQL"}},
		{"unknown teardown", []mutation{set("spec.database.teardown", "Keep")},
			[]string{"spec.database.teardown", `Unsupported value: "Keep"`}},
		{"sustain shorter than a minute", []mutation{set("spec.sustain", map[string]any{"duration": "30s"})},
			[]string{"spec.sustain.duration", "sustain.duration must be between 1m and 24h"}},
		{"sustain longer than a day", []mutation{set("spec.sustain", map[string]any{"duration": "25h"})},
			[]string{"spec.sustain.duration", "sustain.duration must be between 1m and 24h"}},
		{"sustain without duration", []mutation{set("spec.sustain", map[string]any{"percent": int64(70)})},
			[]string{"spec.sustain.duration", "Required value"}},
		{"sustain window longer than the phase", []mutation{set("spec.sustain", map[string]any{"duration": "10m", "window": "20m"})},
			[]string{"spec.sustain.window", "sustain.window must not exceed sustain.duration"}},
		{"sustain window under 10s", []mutation{set("spec.sustain", map[string]any{"duration": "10m", "window": "5s"})},
			[]string{"spec.sustain.window", "sustain.window must be at least 10s"}},
		{"sustain at 0 percent", []mutation{set("spec.sustain", map[string]any{"duration": "10m", "percent": int64(0)})},
			[]string{"spec.sustain.percent", "greater than or equal to 1"}},
		{"sustain above 100 percent", []mutation{set("spec.sustain", map[string]any{"duration": "10m", "percent": int64(120)})},
			[]string{"spec.sustain.percent", "less than or equal to 100"}},
		{"zero warehouses", []mutation{set("spec.workload.warehouses", int64(0))},
			[]string{"spec.workload.warehouses", "greater than or equal to 1"}},
		{"negative warehouses", []mutation{set("spec.workload.warehouses", int64(-5))},
			[]string{"spec.workload.warehouses", "greater than or equal to 1"}},
		{"missing warehouses", []mutation{del("spec.workload.warehouses")},
			[]string{"spec.workload.warehouses", "Required value"}},
		{"zero duration", []mutation{set("spec.workload.duration", "0s")},
			[]string{"spec.workload.duration", "duration must be positive"}},
		{"negative duration", []mutation{set("spec.workload.duration", "-5m")},
			[]string{"spec.workload.duration", "should match"}},
		{"duration without unit", []mutation{set("spec.workload.duration", "600")},
			[]string{"spec.workload.duration", "should match"}},
		{"malformed ramp-up", []mutation{set("spec.workload.rampUp", "two minutes")},
			[]string{"spec.workload.rampUp", "should match"}},
		{"unknown wait", []mutation{set("spec.workload.wait", "Sometimes")},
			[]string{"spec.workload.wait", `Unsupported value: "Sometimes"`}},
		{"negative client pods", []mutation{set("spec.workload.clients", map[string]any{"pods": int64(-1)})},
			[]string{"spec.workload.clients.pods", "greater than or equal to 0"}},
		{"percentile 0", []mutation{set("spec.sla.latency", []any{latency("NewOrder", "0", "5s")})},
			[]string{"spec.sla.latency[0].percentile", "percentile must be strictly between 0 and 100"}},
		{"percentile 100", []mutation{set("spec.sla.latency", []any{latency("NewOrder", "100", "5s")})},
			[]string{"spec.sla.latency[0].percentile", "should match"}},
		{"percentile not a number", []mutation{set("spec.sla.latency", []any{latency("NewOrder", "p90", "5s")})},
			[]string{"spec.sla.latency[0].percentile", "should match"}},
		{"zero latency bound", []mutation{set("spec.sla.latency", []any{latency("Payment", "90", "0s")})},
			[]string{"spec.sla.latency[0].max", "max must be positive"}},
		{"unknown transaction", []mutation{set("spec.sla.latency", []any{latency("Refund", "90", "5s")})},
			[]string{"spec.sla.latency[0].transaction", `Unsupported value: "Refund"`}},
		{"duplicate latency bound", []mutation{set("spec.sla.latency", []any{latency("NewOrder", "90", "5s"), latency("NewOrder", "90", "2s")})},
			[]string{"spec.sla.latency[1]", "Duplicate value"}},
		{"efficiency above 100", []mutation{set("spec.sla.minEfficiencyPercent", int64(101))},
			[]string{"spec.sla.minEfficiencyPercent", "less than or equal to 100"}},
		{"negative efficiency", []mutation{set("spec.sla.minEfficiencyPercent", int64(-1))},
			[]string{"spec.sla.minEfficiencyPercent", "greater than or equal to 0"}},
		{"error percent above 100", []mutation{set("spec.sla.maxErrorPercent", "150")},
			[]string{"spec.sla.maxErrorPercent", "maxErrorPercent must be between 0 and 100"}},
		{"unknown search mode", []mutation{set("spec.search.mode", "Random")},
			[]string{"spec.search.mode", `Unsupported value: "Random"`}},
		{"search start above the loaded warehouses", []mutation{set("spec.search.startWarehouses", int64(11))},
			[]string{"spec.search.startWarehouses", "search.startWarehouses must not exceed workload.warehouses"}},
		{"unknown search strategy", []mutation{set("spec.search.strategy", "Bisection")},
			[]string{"spec.search.strategy", `Unsupported value: "Bisection"`}},
		{"zero replication lag bound", []mutation{set("spec.sla.maxReplicationLag", "0s")},
			[]string{"spec.sla.maxReplicationLag", "maxReplicationLag must be positive"}},
		{"replication lag bound without unit", []mutation{set("spec.sla.maxReplicationLag", "30")},
			[]string{"spec.sla.maxReplicationLag", "should match"}},
		{"replication lag bound on CockroachDB", []mutation{del("spec.database.postgres"), set("spec.database.engine", "CockroachDB"),
			set("spec.database.cockroach", map[string]any{"nodes": int64(3)}), set("spec.sla.maxReplicationLag", "30s")},
			[]string{"spec.sla.maxReplicationLag", "sla.maxReplicationLag applies only to engine PostgreSQL"}},
		{"interval under a second", []mutation{set("spec.workload.interval", "500ms")},
			[]string{"spec.workload.interval", "interval must be between 1s and 1h"}},
		{"interval over an hour", []mutation{set("spec.workload.interval", "2h")},
			[]string{"spec.workload.interval", "interval must be between 1s and 1h"}},
		{"probe duration longer than the step", []mutation{set("spec.workload.duration", "5m"), set("spec.search.probeDuration", "6m")},
			[]string{"spec.search.probeDuration", "search.probeDuration must not exceed workload.duration"}},
		{"probe duration under a second", []mutation{set("spec.search.probeDuration", "500ms")},
			[]string{"spec.search.probeDuration", "probeDuration must be at least 1s"}},
		{"probe duration without unit", []mutation{set("spec.search.probeDuration", "60")},
			[]string{"spec.search.probeDuration", "should match"}},
		{"probe duration with the line search", []mutation{set("spec.search.strategy", "LineSearch"), set("spec.search.probeDuration", "1m")},
			[]string{"spec.search.probeDuration", "search.probeDuration applies only to mode MaxCompliant with strategy Guided"}},
		{"probe duration in fixed mode", []mutation{set("spec.search.mode", "Fixed"), set("spec.search.probeDuration", "1m")},
			[]string{"spec.search.probeDuration", "search.probeDuration applies only to mode MaxCompliant with strategy Guided"}},
		{"name too long for derived Service names", []mutation{set("metadata.name", "a-benchmark-run-name-that-is-far-too-long-for-services")},
			[]string{"metadata.name must be a DNS label of at most 40 characters"}},
		{"name starting with a digit", []mutation{set("metadata.name", "1run")},
			[]string{"metadata.name must be a DNS label"}},
		{"fault with an unknown action", []mutation{set("spec.faults", faults(map[string]any{"action": "KillNode", "at": "10s"}))},
			[]string{"spec.faults[0].action", `Unsupported value: "KillNode"`}},
		{"network fault without a target", []mutation{set("spec.faults", faults(map[string]any{"action": "Partition", "at": "10s", "duration": "5s"}))},
			[]string{"spec.faults[0].target", "target is required with actions NetworkDelay and Partition"}},
		{"network fault without a duration", []mutation{set("spec.faults", faults(map[string]any{"action": "Partition", "at": "10s", "target": "Primary"}))},
			[]string{"spec.faults[0].duration", "duration is required with actions NetworkDelay and Partition"}},
		{"delay without a delay", []mutation{set("spec.faults", faults(map[string]any{"action": "NetworkDelay", "at": "10s", "duration": "5s", "target": "Standbys"}))},
			[]string{"spec.faults[0].delay", "delay is required with action NetworkDelay"}},
		{"delay over 10s", []mutation{set("spec.faults", faults(map[string]any{"action": "NetworkDelay", "at": "10s", "duration": "5s", "target": "Standbys", "delay": "11s"}))},
			[]string{"spec.faults[0].delay", "delay must be between 1ms and 10s"}},
		{"jitter over the delay", []mutation{set("spec.faults", faults(map[string]any{"action": "NetworkDelay", "at": "10s", "duration": "5s", "target": "Standbys", "delay": "20ms", "jitter": "30ms"}))},
			[]string{"spec.faults[0].jitter", "jitter must not exceed delay"}},
		{"delay on a partition", []mutation{set("spec.faults", faults(map[string]any{"action": "Partition", "at": "10s", "duration": "5s", "target": "Primary", "delay": "20ms"}))},
			[]string{"spec.faults[0].delay", "delay and jitter apply only to action NetworkDelay"}},
		{"clients on a delay", []mutation{set("spec.faults", faults(map[string]any{"action": "NetworkDelay", "at": "10s", "duration": "5s", "target": "Primary", "delay": "20ms", "clients": "Cut"}))},
			[]string{"spec.faults[0].clients", "clients applies only to action Partition"}},
		{"target on a pod kill", []mutation{set("spec.faults", faults(map[string]any{"action": "KillPrimary", "at": "10s", "target": "Primary"}))},
			[]string{"spec.faults[0].target", "target applies only to actions NetworkDelay and Partition"}},
		{"target Pod without an ordinal", []mutation{set("spec.faults", faults(map[string]any{"action": "Partition", "at": "10s", "duration": "5s", "target": "Pod"}))},
			[]string{"spec.faults[0].ordinal", "ordinal is required with target Pod"}},
		{"network fault healing after the measured interval", []mutation{set("spec.faults", faults(map[string]any{"action": "Partition", "at": "40s", "duration": "20s", "target": "Standbys"}))},
			[]string{"spec.faults", "a network fault must heal inside the measured interval"}},
		{"network fault shorter than a second", []mutation{set("spec.faults", faults(map[string]any{"action": "Partition", "at": "10s", "duration": "500ms", "target": "Standbys"}))},
			[]string{"spec.faults[0].duration", "duration must be at least 1s"}},
		{"target Standbys on CockroachDB", []mutation{del("spec.database.postgres"), set("spec.database.engine", "CockroachDB"),
			set("spec.database.cockroach", map[string]any{"nodes": int64(3)}), set("spec.faults", faults(map[string]any{"action": "Partition", "at": "10s", "duration": "5s", "target": "Standbys"}))},
			[]string{"spec.faults", "targets Primary and Standbys apply only to engine PostgreSQL"}},
		{"adversity on an external database", []mutation{del("spec.database.postgres"), set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}}),
			set("spec.adversity", map[string]any{})},
			[]string{"spec.adversity", "adversity applies only to a database the operator deploys"}},
		{"adversity above the loaded warehouses", []mutation{set("spec.adversity", map[string]any{"warehouses": int64(1000)})},
			[]string{"spec.adversity.warehouses", "adversity.warehouses must not exceed workload.warehouses"}},
		{"adversity repeating a state", []mutation{set("spec.adversity", map[string]any{"states": []any{"Baseline", "Partition", "Partition"}})},
			[]string{"spec.adversity.states", "adversity.states must not repeat a state"}},
		{"adversity with an unknown state", []mutation{set("spec.adversity", map[string]any{"states": []any{"ZoneLost"}})},
			[]string{"spec.adversity.states[0]", `Unsupported value: "ZoneLost"`}},
		{"adversity held too briefly", []mutation{set("spec.adversity", map[string]any{"hold": "5s"})},
			[]string{"spec.adversity.hold", "adversity.hold must be between 20s and 1h"}},
		{"adversity with a delay over 10s", []mutation{set("spec.adversity", map[string]any{"delay": "11s"})},
			[]string{"spec.adversity.delay", "adversity.delay must be between 1ms and 10s"}},
		{"fault at the end of the measured interval", []mutation{set("spec.faults", faults(map[string]any{"action": "KillPrimary", "at": "1m"}))},
			[]string{"spec.faults", "faults: at must be inside the measured interval"}},
		{"fault at a negative offset", []mutation{set("spec.faults", faults(map[string]any{"action": "KillPrimary", "at": "-5s"}))},
			[]string{"spec.faults[0].at"}},
		{"fault in an unknown scope", []mutation{set("spec.faults", faults(map[string]any{"action": "KillPrimary", "at": "10s", "in": "FirstStep"}))},
			[]string{"spec.faults[0].in", `Unsupported value: "FirstStep"`}},
		{"KillPrimary on an external database", []mutation{del("spec.database.postgres"), set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}}),
			set("spec.faults", faults(map[string]any{"action": "KillPrimary", "at": "10s"}))},
			[]string{"spec.faults", "faults: only action Mark applies to an external database"}},
		{"reuse of an external database", []mutation{del("spec.database.postgres"), set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}}),
			set("spec.database.reuse", map[string]any{"run": "earlier"})},
			[]string{"spec.database.reuse", "reuse applies to a database an earlier run deployed and kept"}},
		{"loadResources with reuse", []mutation{set("spec.database.reuse", map[string]any{"run": "earlier"}),
			set("spec.database.postgres.loadResources", map[string]any{"requests": map[string]any{"cpu": "1"}})},
			[]string{"spec.database.postgres.loadResources", "with reuse the kept database is not loaded again"}},
		{"pooler with reuse", []mutation{set("spec.database.reuse", map[string]any{"run": "earlier"}),
			set("spec.database.postgres.pooler", map[string]any{"instances": int64(1)})},
			[]string{"spec.database.postgres.pooler", "with reuse the kept database is taken over as it was deployed"}},
		{"pooler without instances", []mutation{set("spec.database.postgres.pooler", map[string]any{"instances": int64(0)})},
			[]string{"spec.database.postgres.pooler.instances", "greater than or equal to 1"}},
		{"pooler of 17 instances", []mutation{set("spec.database.postgres.pooler", map[string]any{"instances": int64(17)})},
			[]string{"spec.database.postgres.pooler.instances", "less than or equal to 16"}},
		{"pooler in statement mode", []mutation{set("spec.database.postgres.pooler", map[string]any{"poolMode": "Statement"})},
			[]string{"spec.database.postgres.pooler.poolMode", `Unsupported value: "Statement"`}},
		{"pooler with a negative pool", []mutation{set("spec.database.postgres.pooler", map[string]any{"defaultPoolSize": int64(-1)})},
			[]string{"spec.database.postgres.pooler.defaultPoolSize", "greater than or equal to 0"}},
		{"reuse without a run", []mutation{set("spec.database.reuse", map[string]any{})},
			[]string{"spec.database.reuse.run", "Required value"}},
		{"reuse of a run name that is no DNS label", []mutation{set("spec.database.reuse", map[string]any{"run": "Earlier_1"})},
			[]string{"spec.database.reuse.run"}},
		{"snapshot with CockroachDB", []mutation{del("spec.database.postgres"), set("spec.database.engine", "CockroachDB"),
			set("spec.database.cockroach", map[string]any{"nodes": int64(3)}), set("spec.database.snapshot", map[string]any{})},
			[]string{"spec.database.snapshot", "snapshot is supported with engine PostgreSQL only"}},
		{"restore with YDB", []mutation{del("spec.database.postgres"), set("spec.database.engine", "YDB"),
			set("spec.database.restore", map[string]any{"run": "earlier"})},
			[]string{"spec.database.restore", "restore is supported with engine PostgreSQL only"}},
		{"snapshot of an external database", []mutation{del("spec.database.postgres"), set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}}),
			set("spec.database.snapshot", map[string]any{})},
			[]string{"spec.database.external", "snapshot and restore apply to a database the operator deploys"}},
		{"restore with reuse", []mutation{set("spec.database.reuse", map[string]any{"run": "earlier"}), set("spec.database.restore", map[string]any{"run": "earlier"})},
			[]string{"spec.database.reuse", "reuse takes over a kept database as it is"}},
		{"snapshot with restore", []mutation{set("spec.database.snapshot", map[string]any{}), set("spec.database.restore", map[string]any{"run": "earlier"})},
			[]string{"spec.database.snapshot", "a run with restore loads nothing"}},
		{"loadResources with restore", []mutation{set("spec.database.restore", map[string]any{"run": "earlier"}),
			set("spec.database.postgres.loadResources", map[string]any{"requests": map[string]any{"cpu": "1"}})},
			[]string{"spec.database.postgres.loadResources", "with restore nothing is loaded"}},
		{"restore without a run", []mutation{set("spec.database.restore", map[string]any{})},
			[]string{"spec.database.restore.run", "Required value"}},
		{"restore of a run name that is no DNS label", []mutation{set("spec.database.restore", map[string]any{"run": "Earlier_1"})},
			[]string{"spec.database.restore.run"}},
		{"Mark with an ordinal", []mutation{set("spec.faults", faults(map[string]any{"action": "Mark", "at": "10s", "ordinal": int64(0)}))},
			[]string{"spec.faults[0].ordinal", "ordinal applies only to action KillPod"}},
		{"retries out of range", []mutation{set("spec.search.retries", int64(11))},
			[]string{"spec.search.retries", "should be less than or equal to 10"}},
		{"negative retries", []mutation{set("spec.search.retries", int64(-1))},
			[]string{"spec.search.retries", "should be greater than or equal to 0"}},
		{"KillPrimary on CockroachDB", []mutation{del("spec.database.postgres"), set("spec.database.engine", "CockroachDB"),
			set("spec.database.cockroach", map[string]any{"nodes": int64(3)}), set("spec.faults", faults(map[string]any{"action": "KillPrimary", "at": "10s"}))},
			[]string{"spec.faults", "action KillPrimary applies only to engine PostgreSQL"}},
		{"KillPod without an ordinal", []mutation{set("spec.faults", faults(map[string]any{"action": "KillPod", "at": "10s"}))},
			[]string{"spec.faults[0].ordinal", "ordinal is required with action KillPod"}},
		{"KillPrimary with an ordinal", []mutation{set("spec.faults", faults(map[string]any{"action": "KillPrimary", "at": "10s", "ordinal": int64(1)}))},
			[]string{"spec.faults[0].ordinal", "ordinal applies only to action KillPod"}},
		{"KillPod ordinal beyond the instances", []mutation{set("spec.faults", faults(map[string]any{"action": "KillPod", "at": "10s", "ordinal": int64(3)}))},
			[]string{"spec.faults", "ordinal must be below database.postgres.instances"}},
		{"KillPod ordinal beyond the CockroachDB nodes", []mutation{del("spec.database.postgres"), set("spec.database.engine", "CockroachDB"),
			set("spec.database.cockroach", map[string]any{"nodes": int64(3)}), set("spec.faults", faults(map[string]any{"action": "KillPod", "at": "10s", "ordinal": int64(5)}))},
			[]string{"spec.faults", "ordinal must be below database.cockroach.nodes"}},
		{"KillPod ordinal beyond the YDB storage nodes", []mutation{del("spec.database.postgres"), set("spec.database.engine", "YDB"),
			set("spec.database.ydb", map[string]any{"erasure": "mirror-3-dc", "storageNodes": int64(3)}), set("spec.faults", faults(map[string]any{"action": "KillPod", "at": "10s", "ordinal": int64(3)}))},
			[]string{"spec.faults", "ordinal must be below database.ydb.storageNodes"}},
		{"negative KillPod ordinal", []mutation{set("spec.faults", faults(map[string]any{"action": "KillPod", "at": "10s", "ordinal": int64(-1)}))},
			[]string{"spec.faults[0].ordinal", "should be greater than or equal to 0"}},
		{"more than eight faults", []mutation{set("spec.faults", nineFaults())},
			[]string{"spec.faults", "must have at most 8 items"}},
		{"unavailability bound without faults", []mutation{set("spec.sla.maxUnavailability", "30s")},
			[]string{"spec.sla.maxUnavailability", "sla.maxUnavailability needs faults"}},
		{"zero unavailability bound", []mutation{set("spec.faults", faults(map[string]any{"action": "KillPrimary", "at": "10s"})), set("spec.sla.maxUnavailability", "0s")},
			[]string{"spec.sla.maxUnavailability", "maxUnavailability must be positive"}},
		{"unknown field", []mutation{set("spec.workload.terminals", int64(5))},
			[]string{`unknown field "spec.workload.terminals"`}},
		// Upper bounds: what no real benchmark asks for, each refused naming the field and the limit.
		{"warehouses above 100000", []mutation{set("spec.workload.warehouses", int64(100001))},
			[]string{"spec.workload.warehouses", "less than or equal to 100000"}},
		{"a step longer than a day", []mutation{set("spec.workload.duration", "24h1s")},
			[]string{"spec.workload.duration", "workload.duration must be at most 24h"}},
		{"a ramp-up longer than two hours", []mutation{set("spec.workload.rampUp", "2h1m")},
			[]string{"spec.workload.rampUp", "workload.rampUp must be at most 2h"}},
		{"257 client pods", []mutation{set("spec.workload.clients", map[string]any{"pods": int64(257)})},
			[]string{"spec.workload.clients.pods", "less than or equal to 256"}},
		{"1000 loader pods", []mutation{set("spec.workload.loader", map[string]any{"pods": int64(1000)})},
			[]string{"spec.workload.loader.pods", "less than or equal to 256"}},
		{"a probe shorter than a New-Order cycle", []mutation{set("spec.search.probeDuration", "29s")},
			[]string{"spec.search.probeDuration", "search.probeDuration must be at least 30s with workload.wait Spec"}},
		{"a probe shorter than a New-Order cycle, wait Spec spelled out", []mutation{set("spec.workload.wait", "Spec"), set("spec.search.probeDuration", "10s")},
			[]string{"spec.search.probeDuration", "one New-Order cycle (18s keying + 12s mean think time) must fit in a probe"}},
		// Parameters that would make a commit's acknowledgement lie about durability.
		{"full_page_writes off", []mutation{set("spec.database.postgres.parameters", map[string]any{"full_page_writes": "off"})},
			[]string{"spec.database.postgres.parameters", "full_page_writes cannot be set in parameters"}},
		{"FULL_PAGE_WRITES in capitals", []mutation{set("spec.database.postgres.parameters", map[string]any{"FULL_PAGE_WRITES": "on"})},
			[]string{"spec.database.postgres.parameters", "full_page_writes cannot be set in parameters"}},
		{"data_sync_retry on", []mutation{set("spec.database.postgres.parameters", map[string]any{"data_sync_retry": "on"})},
			[]string{"spec.database.postgres.parameters", "data_sync_retry cannot be set in parameters"}},
		{"synchronous_commit spelled in mixed case", []mutation{set("spec.database.postgres.parameters", map[string]any{"Synchronous_Commit": "off"})},
			[]string{"spec.database.postgres.parameters", "set synchronous_commit with postgres.synchronousCommit"}},
		{"synchronous_standby_names in capitals", []mutation{set("spec.database.postgres.parameters", map[string]any{"SYNCHRONOUS_STANDBY_NAMES": ""})},
			[]string{"spec.database.postgres.parameters", "synchronous_standby_names is derived from postgres.synchronousReplicas"}},
		{"topology spread for YDB's database", []mutation{del("spec.database.postgres"), set("spec.database.engine", "YDB"),
			set("spec.placement", map[string]any{"database": map[string]any{"topologySpreadConstraints": []any{spreadConstraint()}}})},
			[]string{"spec.placement.database.topologySpreadConstraints", "is not supported with engine YDB"}},
		{"database placement for an external database", []mutation{del("spec.database.postgres"), set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}}),
			set("spec.placement", map[string]any{"database": map[string]any{"nodeSelector": map[string]any{"pool": "db"}}})},
			[]string{"spec.placement.database", "placement.database applies only to a database the operator deploys"}},
		{"unknown placement role", []mutation{set("spec.placement", map[string]any{"operator": map[string]any{}})},
			[]string{`unknown field "spec.placement.operator"`}},
		{"unknown placement field", []mutation{set("spec.placement", map[string]any{"clients": map[string]any{"nodeName": "node-1"}})},
			[]string{`unknown field "spec.placement.clients.nodeName"`}},
		{"malformed toleration", []mutation{set("spec.placement", map[string]any{"loader": map[string]any{"tolerations": []any{map[string]any{"key": "x", "tolerationSeconds": "soon"}}}})},
			[]string{"spec.placement.loader.tolerations[0].tolerationSeconds"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mutations := append([]mutation{set("metadata.name", fmt.Sprintf("invalid-%d", i))}, tc.mutations...)
			run := manifest(t, "", mutations...)
			err := k8s.Create(context.Background(), run, client.FieldValidation(metav1.FieldValidationStrict))
			if err == nil {
				t.Fatalf("accepted; want rejection mentioning %q", tc.want)
			}
			if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
				t.Fatalf("want an Invalid error, got %v", err)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not mention %q:\n%v", want, err)
				}
			}
		})
	}
}

// Each bound admits its limit, and fsync (named in the durability notes instead) is accepted.
func TestBoundsAdmitTheirLimits(t *testing.T) {
	cases := []struct {
		name      string
		mutations []mutation
	}{
		{"100000 warehouses", []mutation{set("spec.workload.warehouses", int64(100000))}},
		{"a 24h sustained phase judged in 24h", []mutation{set("spec.sustain", map[string]any{"duration": "24h", "window": "24h", "percent": int64(100)})}},
		{"a 1m sustained phase judged per 10s", []mutation{set("spec.sustain", map[string]any{"duration": "1m", "window": "10s", "percent": int64(1)})}},
		{"a day-long step and a two-hour ramp-up", []mutation{set("spec.workload.duration", "24h"), set("spec.workload.rampUp", "2h")}},
		{"256 client and loader pods", []mutation{set("spec.workload.clients", map[string]any{"pods": int64(256)}), set("spec.workload.loader", map[string]any{"pods": int64(256)})}},
		{"a probe of one New-Order cycle", []mutation{set("spec.search.probeDuration", "30s")}},
		{"an adversity phase with every state at its bounds", []mutation{set("spec.adversity", map[string]any{"percent": int64(100), "hold": "20s", "recovery": "1h",
			"delay": "10s", "clients": "Cut", "states": []any{"Baseline", "StandbyLost", "NetworkDelay", "Partition", "PrimaryLost", "NodeLost"}})}},
		{"a 10s delay with its jitter, healing just inside the interval", []mutation{set("spec.faults", faults(
			map[string]any{"action": "NetworkDelay", "at": "10s", "duration": "49s", "target": "Standbys", "delay": "10s", "jitter": "10s"},
			map[string]any{"action": "Partition", "at": "10s", "duration": "1s", "target": "Pod", "ordinal": int64(1), "clients": "Cut"}))}},
		{"a short probe without waits", []mutation{set("spec.workload.wait", "None"), set("spec.search.probeDuration", "5s")}},
		{"fsync off and a sync method", []mutation{set("spec.database.postgres.parameters", map[string]any{"fsync": "off", "wal_sync_method": "fdatasync", "commit_delay": "100"})}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := manifest(t, fmt.Sprintf("bounds-%d", i), tc.mutations...)
			if err := k8s.Create(context.Background(), run, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
				t.Fatalf("rejected: %v", err)
			}
		})
	}
}

// Each sample is accepted as written, and the stored object carries the documented defaults.
func TestSamplesAreAcceptedWithDefaults(t *testing.T) {
	defaultLatency := []benchv1.LatencyBound{
		{Transaction: benchv1.NewOrder, Percentile: "90", Max: metav1.Duration{Duration: 5 * time.Second}},
		{Transaction: benchv1.Payment, Percentile: "90", Max: metav1.Duration{Duration: 5 * time.Second}},
		{Transaction: benchv1.OrderStatus, Percentile: "90", Max: metav1.Duration{Duration: 5 * time.Second}},
		{Transaction: benchv1.Delivery, Percentile: "90", Max: metav1.Duration{Duration: 5 * time.Second}},
		{Transaction: benchv1.StockLevel, Percentile: "90", Max: metav1.Duration{Duration: 20 * time.Second}},
	}
	samples, err := filepath.Glob(filepath.Join(repo, "config", "samples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[benchv1.Engine]bool{}
	external := false
	for _, path := range samples {
		if filepath.Base(path) == "kustomization.yaml" || isSuiteSample(t, path) {
			continue // BenchmarkSuites: suite_validation_test.go
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			run := &benchv1.BenchmarkRun{}
			if err := yaml.UnmarshalStrict(data, run); err != nil {
				t.Fatalf("sample does not match the API types: %v", err)
			}
			run.Namespace = "default"
			run.Name = "sample-" + run.Name
			if err := k8s.Create(context.Background(), run, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
				t.Fatalf("sample rejected: %v", err)
			}
			stored := &benchv1.BenchmarkRun{}
			if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(run), stored); err != nil {
				t.Fatal(err)
			}
			seen[stored.Spec.Database.Engine] = true
			external = external || stored.Spec.Database.External != nil
			spec := stored.Spec
			// Each default applies where the sample leaves the field out.
			omits := func(field string) bool { return !strings.Contains(string(data), field+":") }
			if omits("teardown") && spec.Database.Teardown != benchv1.TeardownDelete {
				t.Errorf("teardown = %q, want default Delete", spec.Database.Teardown)
			}
			if omits("wait") && spec.Workload.Wait != benchv1.WaitSpec {
				t.Errorf("wait = %q, want default Spec", spec.Workload.Wait)
			}
			if omits("minEfficiencyPercent") && (spec.SLA.MinEfficiencyPercent == nil || *spec.SLA.MinEfficiencyPercent != 85) {
				t.Errorf("minEfficiencyPercent = %v, want 85", spec.SLA.MinEfficiencyPercent)
			}
			if omits("maxErrorPercent") && spec.SLA.MaxErrorPercent != "1" {
				t.Errorf("maxErrorPercent = %q, want default 1", spec.SLA.MaxErrorPercent)
			}
			if omits("latency") && !equality.Semantic.DeepEqual(spec.SLA.Latency, defaultLatency) {
				t.Errorf("latency = %+v, want the five TPC-C p90 limits", spec.SLA.Latency)
			}
			if omits("maxSteps") && spec.Search.MaxSteps != 20 {
				t.Errorf("search.maxSteps = %d, want default 20", spec.Search.MaxSteps)
			}
			if omits("rampUp") && (spec.Workload.RampUp == nil || spec.Workload.RampUp.Duration != 2*time.Minute) {
				t.Errorf("rampUp = %v, want default 2m", spec.Workload.RampUp)
			}
			if ext := spec.Database.External; ext != nil && omits("key") && ext.SecretRef.Key != "uri" {
				t.Errorf("external.secretRef.key = %q, want default uri", ext.SecretRef.Key)
			}
		})
	}
	for _, engine := range []benchv1.Engine{benchv1.EnginePostgreSQL, benchv1.EngineCockroachDB, benchv1.EngineYDB} {
		if !seen[engine] {
			t.Errorf("no sample for engine %s", engine)
		}
	}
	if !external {
		t.Error("no sample for an external database")
	}
}

// An engine block given as {} is stored with the same defaults the backends apply to an omitted block.
func TestEmptyEngineBlocksMatchEffectiveDefaults(t *testing.T) {
	cases := []struct {
		engine string
		block  string
		check  func(t *testing.T, stored *benchv1.BenchmarkRun)
	}{
		{"PostgreSQL", "postgres", func(t *testing.T, stored *benchv1.BenchmarkRun) {
			omitted := benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}
			if got, want := *stored.Spec.Database.Postgres, omitted.EffectivePostgres(); !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("stored postgres {} = %+v, EffectivePostgres of an omitted block = %+v", got, want)
			}
		}},
		{"CockroachDB", "cockroach", func(t *testing.T, stored *benchv1.BenchmarkRun) {
			omitted := benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB}
			if got, want := *stored.Spec.Database.Cockroach, omitted.EffectiveCockroach(); !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("stored cockroach {} = %+v, EffectiveCockroach of an omitted block = %+v", got, want)
			}
		}},
		{"YDB", "ydb", func(t *testing.T, stored *benchv1.BenchmarkRun) {
			omitted := benchv1.DatabaseSpec{Engine: benchv1.EngineYDB}
			if got, want := *stored.Spec.Database.YDB, omitted.EffectiveYDB(); !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("stored ydb {} = %+v, EffectiveYDB of an omitted block = %+v", got, want)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.engine, func(t *testing.T) {
			run := manifest(t, "empty-"+tc.block, del("spec.database.postgres"),
				set("spec.database.engine", tc.engine), set("spec.database."+tc.block, map[string]any{}))
			if err := k8s.Create(context.Background(), run); err != nil {
				t.Fatal(err)
			}
			stored := &benchv1.BenchmarkRun{}
			if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(run), stored); err != nil {
				t.Fatal(err)
			}
			tc.check(t, stored)
		})
	}
}

// Unlogged tables are accepted for a deployed and an external PostgreSQL; tables defaults to Logged
// in a postgres block, and DatabaseSpec.Tables says what the loader is asked for.
func TestTablesAccepted(t *testing.T) {
	cases := []struct {
		name      string
		mutations []mutation
		stored    func(*benchv1.BenchmarkRun) benchv1.TablePersistence
		want      benchv1.TablePersistence
	}{
		{"postgres default", nil,
			func(r *benchv1.BenchmarkRun) benchv1.TablePersistence { return r.Spec.Database.Postgres.Tables }, benchv1.TablesLogged},
		{"postgres unlogged", []mutation{set("spec.database.postgres.tables", "Unlogged")},
			func(r *benchv1.BenchmarkRun) benchv1.TablePersistence { return r.Spec.Database.Postgres.Tables }, benchv1.TablesUnlogged},
		{"external postgres unlogged", []mutation{del("spec.database.postgres"),
			set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}, "tables": "Unlogged"})},
			func(r *benchv1.BenchmarkRun) benchv1.TablePersistence { return r.Spec.Database.External.Tables }, benchv1.TablesUnlogged},
		{"external postgres omitted", []mutation{del("spec.database.postgres"),
			set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}})},
			func(r *benchv1.BenchmarkRun) benchv1.TablePersistence { return r.Spec.Database.Tables() }, benchv1.TablesLogged},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := manifest(t, fmt.Sprintf("tables-%d", i), tc.mutations...)
			if err := k8s.Create(context.Background(), run, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
				t.Fatalf("rejected: %v", err)
			}
			stored := &benchv1.BenchmarkRun{}
			if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(run), stored); err != nil {
				t.Fatal(err)
			}
			if got := tc.stored(stored); got != tc.want {
				t.Errorf("stored tables = %q, want %q", got, tc.want)
			}
			if got := stored.Spec.Database.Tables(); got != tc.want {
				t.Errorf("Tables() = %q, want %q", got, tc.want)
			}
		})
	}
}

// Mark disrupts nothing, so it is the one fault an external database takes; search.retries
// defaults to 2.
func TestMarkAndRetriesAccepted(t *testing.T) {
	for i, m := range [][]mutation{
		{set("spec.faults", faults(map[string]any{"action": "Mark", "at": "10s"}))},
		{del("spec.database.postgres"), set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}}),
			set("spec.faults", faults(map[string]any{"action": "Mark", "at": "10s"}))},
	} {
		run := manifest(t, fmt.Sprintf("mark-%d", i), m...)
		if err := k8s.Create(context.Background(), run, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
			t.Fatalf("case %d rejected: %v", i, err)
		}
		stored := &benchv1.BenchmarkRun{}
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(run), stored); err != nil {
			t.Fatal(err)
		}
		if r := stored.Spec.Search.Retries; r == nil || *r != 2 {
			t.Errorf("case %d: search.retries %v, want the default 2", i, r)
		}
	}
}

// The measured steps are only comparable under one specification: updates are rejected, except
// for the teardown policy.
func TestUpdates(t *testing.T) {
	ctx := context.Background()
	run := manifest(t, "updates")
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: run.GetNamespace(), Name: run.GetName()}
	patch := func(jsonPatch string) error {
		obj := &benchv1.BenchmarkRun{}
		obj.Namespace, obj.Name = key.Namespace, key.Name
		return k8s.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(jsonPatch)))
	}
	rejected := []struct {
		name, patch string
		want        []string
	}{
		{"engine", `{"spec":{"database":{"engine":"CockroachDB","postgres":null,"cockroach":{}}}}`,
			[]string{"spec.database.engine", "engine is immutable"}},
		{"postgres block", `{"spec":{"database":{"postgres":{"instances":5}}}}`,
			[]string{"spec.database.postgres", "postgres is immutable once the run is created"}},
		{"switch to external", `{"spec":{"database":{"postgres":null,"external":{"secretRef":{"name":"db"}}}}}`,
			[]string{"spec.database", "cannot be added or removed after creation"}},
		{"warehouses", `{"spec":{"workload":{"warehouses":20}}}`,
			[]string{"spec.workload", "workload is immutable once the run is created"}},
		{"sla", `{"spec":{"sla":{"minEfficiencyPercent":50}}}`,
			[]string{"spec.sla", "sla is immutable once the run is created"}},
		{"search", `{"spec":{"search":{"mode":"Fixed"}}}`,
			[]string{"spec.search", "search is immutable once the run is created"}},
	}
	for _, tc := range rejected {
		t.Run(tc.name, func(t *testing.T) {
			err := patch(tc.patch)
			if err == nil {
				t.Fatal("update accepted")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not mention %q:\n%v", want, err)
				}
			}
		})
	}
	t.Run("teardown may change", func(t *testing.T) {
		if err := patch(`{"spec":{"database":{"teardown":"Retain"}}}`); err != nil {
			t.Fatalf("teardown update rejected: %v", err)
		}
	})
	t.Run("placement cannot be added", func(t *testing.T) {
		err := patch(`{"spec":{"placement":{"clients":{"nodeSelector":{"pool":"clients"}}}}}`)
		if err == nil || !strings.Contains(err.Error(), "placement cannot be added or removed after creation") {
			t.Fatalf("adding a placement: %v", err)
		}
	})
	placed := manifest(t, "updates-placed", set("spec.placement", map[string]any{"clients": map[string]any{"nodeSelector": map[string]any{"pool": "clients"}}}))
	if err := k8s.Create(ctx, placed); err != nil {
		t.Fatal(err)
	}
	t.Run("placement is immutable", func(t *testing.T) {
		obj := &benchv1.BenchmarkRun{}
		obj.Namespace, obj.Name = placed.GetNamespace(), placed.GetName()
		err := k8s.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"placement":{"clients":{"nodeSelector":{"pool":"other"}}}}}`)))
		if err == nil || !strings.Contains(err.Error(), "placement is immutable once the run is created") {
			t.Fatalf("changing the placement: %v", err)
		}
		err = k8s.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"placement":null}}`)))
		if err == nil || !strings.Contains(err.Error(), "placement cannot be added or removed after creation") {
			t.Fatalf("removing the placement: %v", err)
		}
	})
	t.Run("teardown may change again", func(t *testing.T) {
		if err := patch(`{"spec":{"database":{"teardown":"Retain"}}}`); err != nil {
			t.Fatalf("teardown update rejected: %v", err)
		}
	})
}

// faults is a spec.faults value for a mutation.
func faults(f ...map[string]any) []any {
	out := make([]any, len(f))
	for i := range f {
		out[i] = f[i]
	}
	return out
}

func nineFaults() []any {
	out := make([]any, 9)
	for i := range out {
		out[i] = map[string]any{"action": "KillPrimary", "at": fmt.Sprintf("%ds", i+1)}
	}
	return out
}

func spreadConstraint() map[string]any {
	return map[string]any{"maxSkew": int64(1), "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule"}
}

// A placement with every field for every role is accepted for each engine that takes them, and
// stored as written.
func TestPlacementAccepted(t *testing.T) {
	every := map[string]any{
		"nodeSelector": map[string]any{"pool": "db"},
		"tolerations":  []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"}},
		"affinity": map[string]any{
			"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": []any{
				map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"a"}}}}}}},
			"podAntiAffinity": map[string]any{},
		},
		"topologySpreadConstraints": []any{spreadConstraint()},
	}
	noSpread := map[string]any{"nodeSelector": every["nodeSelector"], "tolerations": every["tolerations"], "affinity": every["affinity"]}
	for i, tc := range []struct {
		name      string
		mutations []mutation
	}{
		{"PostgreSQL", []mutation{set("spec.placement", map[string]any{"database": every, "loader": every, "clients": every})}},
		{"CockroachDB", []mutation{del("spec.database.postgres"), set("spec.database.engine", "CockroachDB"),
			set("spec.placement", map[string]any{"database": every, "loader": every, "clients": every})}},
		{"YDB", []mutation{del("spec.database.postgres"), set("spec.database.engine", "YDB"),
			set("spec.placement", map[string]any{"database": noSpread, "loader": every, "clients": every})}},
		{"external", []mutation{del("spec.database.postgres"), set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}}),
			set("spec.placement", map[string]any{"loader": every, "clients": every})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := manifest(t, fmt.Sprintf("placed-%d", i), tc.mutations...)
			if err := k8s.Create(context.Background(), run, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
				t.Fatalf("rejected: %v", err)
			}
			stored := &benchv1.BenchmarkRun{}
			if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(run), stored); err != nil {
				t.Fatal(err)
			}
			// podAntiAffinity: {} survives (it removes the default anti-affinity).
			c := stored.Spec.Placement.Clients
			if c == nil || c.Affinity == nil || c.Affinity.PodAntiAffinity == nil || len(c.TopologySpreadConstraints) != 1 || c.NodeSelector["pool"] != "db" {
				t.Errorf("stored clients placement %+v", c)
			}
		})
	}
}
