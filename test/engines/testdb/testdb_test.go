package testdb

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/controllers/run"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// TestMain starts an API server whose BenchmarkRun CRD lists the test engine in
// spec.database.engine's enum, as the API would list a real engine.
func TestMain(m *testing.M) {
	ct.Main(m, nil, testenv.WithOwnCRDs(addToEngineEnum))
}

// addToEngineEnum appends Name to every enum of crd that lists the builtin engines: the API's one
// Engine type, generated wherever a field has it (spec.database.engine, the description in status).
func addToEngineEnum(crd *apiextensionsv1.CustomResourceDefinition) {
	for i := range crd.Spec.Versions {
		if s := crd.Spec.Versions[i].Schema; s != nil && s.OpenAPIV3Schema != nil {
			addToEnum(s.OpenAPIV3Schema)
		}
	}
}

func addToEnum(s *apiextensionsv1.JSONSchemaProps) {
	if isEngineEnum(s.Enum) {
		s.Enum = append(s.Enum, apiextensionsv1.JSON{Raw: []byte(`"` + string(Name) + `"`)})
	}
	for k, p := range s.Properties {
		addToEnum(&p)
		s.Properties[k] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		addToEnum(s.Items.Schema)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		addToEnum(s.AdditionalProperties.Schema)
	}
}

// isEngineEnum says whether enum lists exactly the builtin engines.
func isEngineEnum(enum []apiextensionsv1.JSON) bool {
	names := registry.Default().Names()
	if len(enum) != len(names) {
		return false
	}
	for i, n := range names {
		if string(enum[i].Raw) != `"`+string(n)+`"` {
			return false
		}
	}
	return true
}

const warehouses = 2

// TestWireSide drives the TPC-C core with the test driver against the local PostgreSQL server:
// the load, the consistency check, the dataset the check pod reports, terminals running the five
// transactions, and the New-Order ledger. It returns nothing the other test needs; TestEngine
// repeats the load it depends on.
func TestWireSide(t *testing.T) {
	url, ds := loadAndCheck(t)
	if ds.Engine != Dialect || ds.Warehouses != warehouses || !ds.Finished || ds.Rows["orders"] != warehouses*30000 {
		t.Errorf("dataset %+v", ds)
	}
	ctx := context.Background()
	d := NewDriver()
	exec, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: d, URL: url, MaxConns: 4, Isolation: isolation.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Close()
	before, err := tpcc.ReadDistrictCounts(ctx, d, url, 1, warehouses)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := d.ReadLoaded(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	ledger := tpcc.NewLedger(1, warehouses)
	rec := tpcc.NewRecorder()
	terms, err := tpcc.NewTerminals(tpcc.TerminalsConfig{Executor: exec, Constants: loaded.Meta.Constants, ActiveWarehouses: warehouses,
		From: 1, To: warehouses, Wait: snapshot.WaitNone, Duration: 3 * time.Second, Seed: 7, Recorder: rec, Ledger: ledger})
	if err != nil {
		t.Fatal(err)
	}
	terms.Run(ctx)
	m := rec.Collect(time.Now())
	for _, tx := range []snapshot.Transaction{snapshot.NewOrder, snapshot.Payment, snapshot.OrderStatus, snapshot.Delivery, snapshot.StockLevel} {
		if m.Completed(tx) == 0 {
			t.Errorf("no %s completed through the test driver", tx)
		}
	}
	after, err := tpcc.ReadDistrictCounts(ctx, d, url, 1, warehouses)
	if err != nil {
		t.Fatal(err)
	}
	if v := tpcc.CheckLedger(ledger.Districts(), before, after); !v.Pass {
		t.Errorf("ledger: %+v", v)
	}
}

// loadAndCheck loads warehouses through the test driver into a fresh database of the local server,
// checks it, and reads the dataset a check pod would report.
func loadAndCheck(t *testing.T) (string, snapshot.Dataset) {
	t.Helper()
	url := pgtest.Database(t, pgtest.URL(t), "testdb")
	ctx := context.Background()
	d := NewDriver()
	if err := tpcc.Load(ctx, tpcc.LoadOptions{Driver: d, URL: url, Warehouses: warehouses, From: 1, To: warehouses, Threads: 2, Finish: true}); err != nil {
		t.Fatal(err)
	}
	results, err := tpcc.Check(ctx, tpcc.CheckOptions{Driver: d, URL: url, Warehouses: warehouses, From: 1, To: warehouses, Threads: 2, LoadTime: true})
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	if !tpcc.WriteCheckReport(&report, results) {
		t.Fatalf("the check failed:\n%s", report.String())
	}
	ds, err := tpcc.ReadDataset(ctx, d, url)
	if err != nil {
		t.Fatal(err)
	}
	return url, ds
}

// TestEngine runs a BenchmarkRun of the test engine through the run reconciler against envtest,
// with the dataset the test driver read from the real server as its check pod's report: the
// ConfigMap deployed and waited for, the loader, check and step Jobs speaking the engine's dialect
// to its URL, a search to a result, the engine's description in status, the reports naming it,
// and the ConfigMap torn down.
func TestEngine(t *testing.T) {
	url, ds := loadAndCheck(t)
	engines, err := registry.Default().With(Engine{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	ns := ct.NewNamespace(t, "testdb")
	pods := ct.NewClientPods()
	cfg := run.DefaultConfig()
	cfg.Engines = engines
	cfg.PollInterval = 100 * time.Millisecond
	cfg.Jobs = jobs.Config{ClientImage: "tpcc:test"}
	cfg.SnapshotURL = pods.URL
	cfg.Images = registry.Images{Name: "testdb:1.0"}
	ct.StartManager(t, ns, func(mgr ctrl.Manager) error {
		r := &run.Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("tpcc-operator"), Config: cfg}
		return r.SetupWithManager(mgr)
	})

	r := ct.NewRun(ns, "tdb", warehouses, 1)
	r.Spec.Database.Engine = Name
	if err := ct.K8s.Create(context.Background(), r); err != nil {
		t.Fatal(err)
	}

	// Deploying: the ConfigMap, owned by the run, waited for until the test marks it ready.
	cm := &corev1.ConfigMap{}
	ct.Eventually(t, 20*time.Second, func() error {
		return ct.K8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "tdb-db"}, cm)
	})
	if owner := metav1.GetControllerOf(cm); owner == nil || owner.Name != "tdb" || cm.Data["image"] != "testdb:1.0" {
		t.Errorf("ConfigMap owner %v, data %v: want the run's, with the manager's image for TestDB", owner, cm.Data)
	}
	ct.Eventually(t, 10*time.Second, func() error {
		got := ct.GetRun(t, r)
		c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionDatabaseReady)
		if got.Status.Phase != benchv1.PhaseDeploying || c == nil || c.Reason != "TestDBStarting" {
			return fmt.Errorf("phase %s, DatabaseReady %+v: want Deploying, TestDBStarting", got.Status.Phase, c)
		}
		return nil
	})
	cm.Data[ReadyKey] = "true"
	if err := ct.K8s.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}

	// Loading: the loader and the check speak the engine's dialect to its URL.
	loader := ct.GetJob(t, ns, "tdb-load")
	assertClient(t, loader, url)
	ct.SetJobProgress(t, loader, "0-1", 2, true) // one loader pod per warehouse at most
	check := ct.GetJob(t, ns, "tdb-check")
	assertClient(t, check, url)
	ct.CheckPod(t, check, ds)
	ct.SetJobProgress(t, check, "", 1, true)

	// Running: every step's clients speak the dialect at the engine's default isolation.
	uids := &ct.JobUIDs{Seen: map[string][]types.UID{}}
	got := ct.DriveSteps(t, r, pods, ct.Boundary(1), uids, func(step int, stepPods []*corev1.Pod) {
		job := ct.GetJob(t, ns, jobs.StepJobName(r, int32(step)))
		assertClient(t, job, url)
		if args := job.Spec.Template.Spec.Containers[0].Args; !hasFlag(args, "--isolation", "repeatable-read") {
			t.Errorf("step %d args %v: want --isolation repeatable-read, TestDB's default", step, args)
		}
	})
	if got.Status.Phase != benchv1.PhaseSucceeded || got.Status.Result == nil || got.Status.Result.MaxCompliantWarehouses != 1 {
		t.Fatalf("phase %s, result %+v, steps %v", got.Status.Phase, got.Status.Result, ct.StepSummary(got))
	}
	if got.Status.Load == nil || got.Status.Load.Dataset == nil || got.Status.Load.Dataset.Engine != Dialect {
		t.Errorf("status.load %+v: want the test driver's dataset", got.Status.Load)
	}
	desc := got.Status.Database.Description
	if desc == nil || desc.Engine != Name || desc.DefaultIsolation != benchv1.IsolationRepeatableRead || !strings.Contains(desc.Deployment, "TestDB") {
		t.Fatalf("status.database.description %+v", desc)
	}

	// The reports name the engine from its description, and never another engine.
	md := report.RunMarkdown(got, *got.Status.Result)
	comparison, err := report.CompareRuns([]*benchv1.BenchmarkRun{got}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(comparison)
	if err != nil {
		t.Fatal(err)
	}
	// The server's own version string, which the client reads from it, is the one place the
	// reports may name another engine: the test's server is what it is.
	server := got.Status.Environment.ServerVersion
	heading := fmt.Sprintf("# BenchmarkRun %s/%s — %s\n", ns, "tdb", Name)
	for name, c := range map[string]struct {
		text string
		want []string
	}{
		"run report":      {md, []string{heading, desc.Durability.Words, desc.IsolationCaveat}},
		"comparison":      {report.Markdown(comparison), []string{desc.Deployment, desc.Durability.Words}},
		"comparison JSON": {string(body), []string{`"engine":"TestDB"`, desc.Deployment}},
	} {
		if err := ct.ContainsAll(c.text, c.want...); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		text := strings.ReplaceAll(c.text, server, "")
		for _, other := range registry.Default().Names() {
			if strings.Contains(text, string(other)) {
				t.Errorf("%s names %s:\n%s", name, other, text)
			}
		}
	}

	// Teardown Delete: the ConfigMap goes with the run's end.
	ct.Eventually(t, 20*time.Second, func() error {
		err := ct.K8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "tdb-db"}, &corev1.ConfigMap{})
		if err == nil {
			return fmt.Errorf("the ConfigMap still exists")
		}
		return client.IgnoreNotFound(err)
	})
}

// assertClient fails unless job's tpcc container speaks the test dialect to url.
func assertClient(t *testing.T, job *batchv1.Job, url string) {
	t.Helper()
	c := job.Spec.Template.Spec.Containers[0]
	if !hasFlag(c.Args, "--engine", Dialect) {
		t.Errorf("Job %s args %v: want --engine %s", job.Name, c.Args, Dialect)
	}
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "TPCC_URL" })
	if i < 0 || c.Env[i].Value != url {
		t.Errorf("Job %s env %v: want TPCC_URL %s", job.Name, c.Env, url)
	}
}

func hasFlag(args []string, flag, value string) bool {
	i := slices.Index(args, flag)
	return i >= 0 && i+1 < len(args) && args[i+1] == value
}
