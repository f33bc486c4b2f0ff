package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
)

func cockroachRun(extra ...mutation) []mutation {
	return append([]mutation{del("spec.database.postgres"), set("spec.database.engine", "CockroachDB"),
		set("spec.database.cockroach", map[string]any{"nodes": int64(3)})}, extra...)
}

func ydbRun(extra ...mutation) []mutation {
	return append([]mutation{del("spec.database.postgres"), set("spec.database.engine", "YDB"),
		set("spec.database.ydb", map[string]any{"storageNodes": int64(3)})}, extra...)
}

func createStrict(run *unstructured.Unstructured) error {
	return k8s.Create(context.Background(), run, client.FieldValidation(metav1.FieldValidationStrict))
}

// An isolation level the engine does not offer, cluster settings that are not setting names, and
// YDB configuration sections the operator derives are rejected at admission, naming the field.
func TestAdmissionRejectsUnequalTerms(t *testing.T) {
	cases := []struct {
		name      string
		mutations []mutation
		want      []string
	}{
		{"unknown isolation level", []mutation{set("spec.workload.isolation", "Snapshot")},
			[]string{"spec.workload.isolation", `Unsupported value: "Snapshot"`}},
		{"ReadCommitted on YDB", ydbRun(set("spec.workload.isolation", "ReadCommitted")),
			[]string{"spec.workload.isolation", benchv1.IsolationYDBReadCommittedMessage}},
		{"ReadCommitted on an external YDB", []mutation{del("spec.database.postgres"), set("spec.database.engine", "YDB"),
			set("spec.database.external", map[string]any{"secretRef": map[string]any{"name": "db"}}), set("spec.workload.isolation", "ReadCommitted")},
			[]string{"spec.workload.isolation", "is not offered by YDB"}},
		{"cluster setting name with upper case", cockroachRun(set("spec.database.cockroach.clusterSettings", map[string]any{"KV.Rangefeed.Enabled": "true"})),
			[]string{"spec.database.cockroach.clusterSettings", "lower-case and dotted"}},
		{"cluster setting name with a quote", cockroachRun(set("spec.database.cockroach.clusterSettings", map[string]any{"kv.x'; DROP": "true"})),
			[]string{"spec.database.cockroach.clusterSettings", "lower-case and dotted"}},
		{"cluster setting without a dot", cockroachRun(set("spec.database.cockroach.clusterSettings", map[string]any{"version": "25.2"})),
			[]string{"spec.database.cockroach.clusterSettings", "lower-case and dotted"}},
		{"empty cluster setting value", cockroachRun(set("spec.database.cockroach.clusterSettings", map[string]any{"kv.rangefeed.enabled": ""})),
			[]string{"spec.database.cockroach.clusterSettings", "1 to 256 characters"}},
		{"YDB config section the operator derives", ydbRun(set("spec.database.ydb.config", map[string]any{"domains_config": map[string]any{}})),
			[]string{"spec.database.ydb.config", "derived by the operator"}},
		{"YDB config section not a key", ydbRun(set("spec.database.ydb.config", map[string]any{"TableService": map[string]any{}})),
			[]string{"spec.database.ydb.config", "lower-case with underscores"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := manifest(t, fmt.Sprintf("unequal-%d", i), tc.mutations...)
			err := createStrict(run)
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

// Every level an engine offers is accepted, as are cluster settings and YDB sections; the stored
// object keeps them, and an omitted isolation stays omitted (each engine's default applies).
func TestAdmissionAcceptsEqualTerms(t *testing.T) {
	cases := []struct {
		name      string
		mutations []mutation
		check     func(t *testing.T, spec benchv1.BenchmarkRunSpec)
	}{
		{"PostgreSQL default", nil, func(t *testing.T, s benchv1.BenchmarkRunSpec) {
			if s.Workload.Isolation != "" || effectiveIsolation(s) != benchv1.IsolationReadCommitted {
				t.Errorf("isolation %q (effective %q), want omitted, ReadCommitted", s.Workload.Isolation, effectiveIsolation(s))
			}
		}},
		{"PostgreSQL Serializable", []mutation{set("spec.workload.isolation", "Serializable")}, nil},
		{"PostgreSQL RepeatableRead", []mutation{set("spec.workload.isolation", "RepeatableRead")}, nil},
		{"CockroachDB default", cockroachRun(), func(t *testing.T, s benchv1.BenchmarkRunSpec) {
			if got := effectiveIsolation(s); got != benchv1.IsolationSerializable {
				t.Errorf("effective isolation %q, want Serializable", got)
			}
		}},
		{"CockroachDB ReadCommitted with settings", cockroachRun(set("spec.workload.isolation", "ReadCommitted"),
			set("spec.database.cockroach.clusterSettings", map[string]any{"kv.snapshot_rebalance.max_rate": "64MiB", "sql.stats.automatic_collection.enabled": "false"})),
			func(t *testing.T, s benchv1.BenchmarkRunSpec) {
				if got := s.Database.Cockroach.ClusterSettings["kv.snapshot_rebalance.max_rate"]; got != "64MiB" {
					t.Errorf("cluster setting stored as %q", got)
				}
			}},
		{"CockroachDB RepeatableRead", cockroachRun(set("spec.workload.isolation", "RepeatableRead")), nil},
		{"YDB Serializable with config", ydbRun(set("spec.workload.isolation", "Serializable"),
			set("spec.database.ydb.config", map[string]any{"table_service_config": map[string]any{"enable_oltp_sink": true}})),
			func(t *testing.T, s benchv1.BenchmarkRunSpec) {
				if got := string(s.Database.YDB.Config["table_service_config"].Raw); got != `{"enable_oltp_sink":true}` {
					t.Errorf("ydb.config stored as %s", got)
				}
			}},
		{"YDB RepeatableRead", ydbRun(set("spec.workload.isolation", "RepeatableRead")), nil},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := manifest(t, fmt.Sprintf("equal-%d", i), tc.mutations...)
			if err := createStrict(run); err != nil {
				t.Fatalf("rejected: %v", err)
			}
			stored := &benchv1.BenchmarkRun{}
			if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(run), stored); err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, stored.Spec)
			}
		})
	}
}

// A suite rejects ReadCommitted when one of its databases is YDB, and accepts it otherwise.
func TestSuiteAdmissionIsolation(t *testing.T) {
	withYDB := func(s map[string]any) {
		s["workload"].(map[string]any)["isolation"] = "ReadCommitted"
		s["databases"] = append(s["databases"].([]any), map[string]any{"name": "ydb", "database": map[string]any{"engine": "YDB"}})
	}
	err := createStrict(suiteManifest(t, "iso-ydb", withYDB))
	if err == nil || !strings.Contains(err.Error(), "spec.workload.isolation") || !strings.Contains(err.Error(), "is not offered by YDB") {
		t.Fatalf("a suite with YDB and ReadCommitted: %v, want rejection naming spec.workload.isolation", err)
	}
	err = createStrict(suiteManifest(t, "iso-pg", func(s map[string]any) { s["workload"].(map[string]any)["isolation"] = "Serializable" }))
	if err != nil {
		t.Fatalf("a suite with Serializable: %v", err)
	}
}

// effectiveIsolation is the level a run's transactions run at, as its engine answers it.
func effectiveIsolation(s benchv1.BenchmarkRunSpec) benchv1.Isolation {
	return registry.Default().Engine(s.Database).Capabilities().Isolation.Effective(s.Workload)
}

// Admission refuses exactly the levels each engine of the registry refuses, in the engine's words,
// and each engine's default is one it accepts.
func TestAdmissionAgreesWithTheEnginesIsolation(t *testing.T) {
	for _, e := range registry.Default().Engines() {
		iso := e.Capabilities().Isolation
		if _, refused := iso.Refused[iso.Default]; refused || iso.Default == "" {
			t.Errorf("%s: default %q is refused or empty", e.Name(), iso.Default)
		}
		for _, l := range []benchv1.Isolation{benchv1.IsolationReadCommitted, benchv1.IsolationRepeatableRead, benchv1.IsolationSerializable} {
			name := strings.ToLower(fmt.Sprintf("iso-%s-%s", e.Name(), l))
			run := manifest(t, name, del("spec.database.postgres"), set("spec.database.engine", string(e.Name())), set("spec.workload.isolation", string(l)))
			err := createStrict(run)
			why, refused := iso.Refused[l]
			switch {
			case refused && (err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "spec.workload.isolation")):
				t.Errorf("%s %s: admission %v, want a rejection naming spec.workload.isolation with %q", e.Name(), l, err, why)
			case !refused && err != nil:
				t.Errorf("%s %s: rejected: %v", e.Name(), l, err)
			}
		}
	}
}
