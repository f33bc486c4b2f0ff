package registry

import (
	"flag"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

func run(db benchv1.DatabaseSpec) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "r"},
		Spec: benchv1.BenchmarkRunSpec{Database: db, Workload: benchv1.WorkloadSpec{Warehouses: 10}}}
}

// Every builtin engine is found by its name, and its capabilities agree with what its backend
// implements: shared code may read either.
func TestBuiltinEnginesAgreeWithTheirBackends(t *testing.T) {
	r := Default()
	if got := len(r.Engines()); got != 3 {
		t.Fatalf("%d builtin engines, want 3", got)
	}
	dialects := map[string]bool{}
	for _, e := range r.Engines() {
		if got, ok := r.Lookup(e.Name()); !ok || got != e {
			t.Errorf("Lookup(%s) = %v, %v", e.Name(), got, ok)
		}
		if dialects[e.Dialect()] {
			t.Errorf("%s: dialect %q is another engine's", e.Name(), e.Dialect())
		}
		dialects[e.Dialect()] = true
		b := e.Backend("")
		caps := e.Capabilities()
		if _, ok := b.(engines.Snapshotter); ok != caps.Snapshot {
			t.Errorf("%s: Snapshot %v, but its backend is a Snapshotter: %v", e.Name(), caps.Snapshot, ok)
		}
		if _, ok := b.(engines.Replication); ok != caps.Replication {
			t.Errorf("%s: Replication %v, but its backend is a Replication: %v", e.Name(), caps.Replication, ok)
		}
		if _, ok := b.(engines.FaultTargets); ok != (len(caps.Faults) > 0) {
			t.Errorf("%s: faults %v, but its backend is a FaultTargets: %v", e.Name(), caps.Faults, ok)
		}
		if caps.Isolation.Default == "" {
			t.Errorf("%s: no default isolation", e.Name())
		}
		if _, refused := caps.Isolation.Refused[caps.Isolation.Default]; refused {
			t.Errorf("%s refuses its own default isolation", e.Name())
		}
		if b.Operator() == nil {
			t.Errorf("%s: its backend names no operator", e.Name())
		}
		if flag, env := e.LegacyImageFlag(); flag == "" || env == "" {
			t.Errorf("%s: no legacy image flag", e.Name())
		}
	}
}

// Each builtin engine describes a database of its own: a deployment naming the engine, a
// durability level, pods and tuning words; the registry adds the isolation fields.
func TestDescribe(t *testing.T) {
	for _, e := range Default().Engines() {
		db := benchv1.DatabaseSpec{Engine: e.Name()}
		d := Default().Describe(db)
		if d.Engine != e.Name() || !strings.HasPrefix(d.Deployment, string(e.Name())+", ") || d.Durability.Words == "" ||
			d.Durability.Level == "" || len(d.Pods) == 0 || d.Tuning.Words == "" || d.DefaultIsolation != e.Capabilities().Isolation.Default {
			t.Errorf("%s: %+v", e.Name(), d)
		}
		for _, p := range d.Pods {
			if p.Role == "" || p.Count < 1 {
				t.Errorf("%s: pods %+v", e.Name(), p)
			}
		}
		external := Default().Describe(benchv1.DatabaseSpec{Engine: e.Name(), External: &benchv1.ExternalSpec{}})
		if external.Deployment != string(e.Name())+", external" || external.Durability.Level != benchv1.DurabilityUnknown || len(external.Pods) != 0 ||
			external.DefaultIsolation != d.DefaultIsolation || external.IsolationCaveat != d.IsolationCaveat {
			t.Errorf("%s external: %+v", e.Name(), external)
		}
	}
}

// An engine the registry does not list is never taken for another: its backend builds nothing and
// says why, naming the field and the known engines; it supports nothing.
func TestUnknownEngine(t *testing.T) {
	db := benchv1.DatabaseSpec{Engine: "YugabyteDB"}
	e := Default().Engine(db)
	if e.Name() != "YugabyteDB" || e.Dialect() != "" || len(e.Capabilities().Faults) != 0 || e.Capabilities().Ledger {
		t.Fatalf("unknown engine = %s %q %+v", e.Name(), e.Dialect(), e.Capabilities())
	}
	_, err := Default().Backend(run(db), nil).Desired(run(db))
	want := `spec.database.engine "YugabyteDB" is not an engine this operator knows (it knows PostgreSQL, CockroachDB, YDB)`
	if err == nil || err.Error() != want {
		t.Errorf("Desired: %v, want %q", err, want)
	}
	if d := Default().Describe(db); d.Deployment != want || d.Durability.Level != benchv1.DurabilityUnknown {
		t.Errorf("Describe = %+v", d)
	}
	if c := Default().Connection(run(db), Default().Backend(run(db), nil)); c.Engine != "" || c.Ledger {
		t.Errorf("Connection = %+v", c)
	}
}

// The registry completes a backend's connection with the engine's dialect, effective isolation and
// ledger support, external databases included.
func TestConnection(t *testing.T) {
	for _, tc := range []struct {
		db        benchv1.DatabaseSpec
		isolation benchv1.Isolation
		dialect   string
		ledger    bool
	}{
		{benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}, "", "postgres", true},
		{benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB, External: &benchv1.ExternalSpec{SecretRef: benchv1.SecretKeyRef{Name: "db"}}}, "", "cockroach", true},
		{benchv1.DatabaseSpec{Engine: benchv1.EngineYDB}, benchv1.IsolationRepeatableRead, "ydb", false},
	} {
		r := run(tc.db)
		r.Spec.Workload.Isolation = tc.isolation
		c := Default().Connection(r, Default().Backend(r, nil))
		want := tc.isolation
		if want == "" {
			want = Default().Engine(tc.db).Capabilities().Isolation.Default
		}
		if c.Engine != tc.dialect || c.Isolation != want || c.Ledger != tc.ledger {
			t.Errorf("%s: connection %q %q %v, want %q %q %v", tc.db.Engine, c.Engine, c.Isolation, c.Ledger, tc.dialect, want, tc.ledger)
		}
		if tc.db.External != nil && (c.URLFrom == nil || c.URLFrom.Name != "db") {
			t.Errorf("external: %+v", c)
		}
	}
}

// A registry refuses two engines of one name; With adds a test's engine beside the builtin ones.
func TestNewAndWith(t *testing.T) {
	if _, err := New(Builtin()[0], Builtin()[0]); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("duplicate: %v", err)
	}
	more, err := Default().With(Builtin()[1:]...)
	if err == nil || more != nil {
		t.Errorf("With a builtin again: %v", err)
	}
}

// --image ENGINE=REF sets an engine's image, refusing an unknown engine or a malformed value with
// the engines named; it wins over the deprecated per-engine flags.
func TestImageFlag(t *testing.T) {
	f := &ImageFlag{Registry: Default()}
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	fs.Var(f, "image", "")
	if err := fs.Parse([]string{"--image", "PostgreSQL=pg:17", "--image", "YDB = ydb:25"}); err != nil {
		t.Fatal(err)
	}
	if f.Images[benchv1.EnginePostgreSQL] != "pg:17" || f.Images[benchv1.EngineYDB] != "ydb:25" || f.String() != "PostgreSQL=pg:17,YDB=ydb:25" {
		t.Errorf("images %v (%s)", f.Images, f.String())
	}
	merged := f.Merged(Images{benchv1.EnginePostgreSQL: "old:1", benchv1.EngineCockroachDB: "crdb:1", benchv1.EngineYDB: ""})
	if merged[benchv1.EnginePostgreSQL] != "pg:17" || merged[benchv1.EngineCockroachDB] != "crdb:1" || merged[benchv1.EngineYDB] != "ydb:25" {
		t.Errorf("merged %v", merged)
	}
	for value, want := range map[string]string{
		"postgres":       `want ENGINE=REF (ENGINE one of PostgreSQL, CockroachDB, YDB), got "postgres"`,
		"PostgreSQL=":    `want ENGINE=REF (ENGINE one of PostgreSQL, CockroachDB, YDB), got "PostgreSQL="`,
		"Postgres=pg:17": `engine "Postgres" in "Postgres=pg:17" is not one of PostgreSQL, CockroachDB, YDB`,
	} {
		if err := (&ImageFlag{Registry: Default()}).Set(value); err == nil || err.Error() != want {
			t.Errorf("Set(%q) = %v, want %q", value, err, want)
		}
	}
}
