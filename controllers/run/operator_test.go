package run

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/engines"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/postgres"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

// With the CRDs the tests install (CloudNativePG 1.29.1, cockroach-operator v2.18.3, ydb-operator
// 0.8.0), every engine's objects — with every optional field set — are served in full.
func TestOperatorsSupportedWithTheirCRDs(t *testing.T) {
	checker, err := engines.NewOperatorChecker(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	// The API server publishes a CRD's schema a few seconds after it serves the kind.
	ct.Eventually(t, time.Minute, func() error {
		reports, err := registry.Default().CheckOperators(checker)
		if err != nil {
			return err
		}
		if len(reports) != 3 {
			return fmt.Errorf("%d reports, want one per engine with an operator", len(reports))
		}
		for _, r := range reports {
			if !r.Support.OK() || len(r.Support.Unchecked) > 0 {
				return fmt.Errorf("%s: %+v: %s", r.Engine, r.Support, r.Support.Message(&r.Operator))
			}
		}
		return nil
	})
}

// On an API server without the database operators' CRDs every engine is reported missing; with a
// CloudNativePG Cluster CRD whose schema lacks spec.postgresql.synchronous (as before CloudNativePG
// 1.24) PostgreSQL is reported unsupported, naming the field. Runs then fail at once — before any
// database object is applied — with DatabaseOperatorMissing / DatabaseOperatorUnsupported in the
// Failed, Ready and Ended conditions and a Warning event.
func TestOperatorMissingOrUnsupportedFailsTheRunAtOnce(t *testing.T) {
	bare, err := testenv.StartWithoutOperators()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bare.Stop() }()
	c, err := client.New(bare.Config, client.Options{Scheme: bare.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	checker, err := engines.NewOperatorChecker(bare.Config)
	if err != nil {
		t.Fatal(err)
	}
	reports, err := registry.Default().CheckOperators(checker)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		if len(r.Support.Missing) == 0 {
			t.Errorf("%s: reported %+v without its CRDs, want missing", r.Engine, r.Support)
		}
	}

	// CloudNativePG's Cluster CRD as an older release had it: no spec.postgresql.synchronous.
	crd := cnpgClusterCRD(t)
	for i := range crd.Spec.Versions {
		spec := crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"]
		pg := spec.Properties["postgresql"]
		delete(pg.Properties, "synchronous")
		spec.Properties["postgresql"] = pg
		crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	}
	ctx := context.Background()
	if err := c.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	var pg registry.OperatorReport
	ct.Eventually(t, time.Minute, func() error { // the CRD's OpenAPI document is published shortly after
		reports, err := registry.Default().CheckOperators(checker)
		if err != nil {
			return err
		}
		pg = reports[0]
		if pg.Engine != benchv1.EnginePostgreSQL || len(pg.Support.Missing) > 0 || len(pg.Support.Unchecked) > 0 {
			return fmt.Errorf("PostgreSQL: %+v", pg.Support)
		}
		return nil
	})
	if pg.Support.OK() || !strings.Contains(strings.Join(pg.Support.Unknown, " "), "spec.postgresql.synchronous") {
		t.Fatalf("PostgreSQL with an old Cluster CRD: %+v, want spec.postgresql.synchronous unknown", pg.Support)
	}

	ns := "operators"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	startManagerOn(t, bare, ns)
	cases := []struct {
		engine          benchv1.Engine
		reason, mention string
	}{
		{benchv1.EnginePostgreSQL, "DatabaseOperatorUnsupported", "spec.postgresql.synchronous"},
		{benchv1.EngineCockroachDB, "DatabaseOperatorMissing", "cockroach-operator v2.18.3"},
		{benchv1.EngineYDB, "DatabaseOperatorMissing", "ydb-operator 0.8.0"},
	}
	for _, tc := range cases {
		run := ct.NewRun(ns, strings.ToLower(string(tc.engine)), 4, 2)
		run.Spec.Database.Engine = tc.engine
		if err := c.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		ct.Eventually(t, 30*time.Second, func() error {
			got := &benchv1.BenchmarkRun{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
				return err
			}
			if got.Status.Phase != benchv1.PhaseFailed {
				return fmt.Errorf("%s: phase %q", tc.engine, got.Status.Phase)
			}
			for _, ct := range []string{benchv1.ConditionFailed, benchv1.ConditionEnded} {
				cond := meta.FindStatusCondition(got.Status.Conditions, ct)
				if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != tc.reason || !strings.Contains(cond.Message, tc.mention) {
					return fmt.Errorf("%s: %s condition %+v, want True, %s, mentioning %q", tc.engine, ct, cond, tc.reason, tc.mention)
				}
			}
			if ready := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionReady); ready == nil || ready.Status != metav1.ConditionFalse || ready.Reason != tc.reason {
				return fmt.Errorf("%s: Ready %+v, want False with %s", tc.engine, ready, tc.reason)
			}
			events := &eventsv1.EventList{}
			if err := c.List(ctx, events, client.InNamespace(ns)); err != nil {
				return err
			}
			for _, e := range events.Items {
				if e.Regarding.Name == run.Name && e.Type == corev1.EventTypeWarning && e.Reason == tc.reason {
					return nil
				}
			}
			return fmt.Errorf("%s: no Warning event %s", tc.engine, tc.reason)
		})
	}
	// `kubectl get br -o wide` shows the reason: the server-side table's priority-1 Reason column.
	columns, row := serverTable(t, bare, ns, "cockroachdb")
	reasonColumn := false
	for i, col := range columns {
		if col.Name == "Reason" {
			reasonColumn = true
			if col.Priority != 1 || fmt.Sprint(row[i]) != "DatabaseOperatorMissing" {
				t.Errorf("Reason column %+v shows %v, want priority 1 and DatabaseOperatorMissing", col, row[i])
			}
		}
	}
	if !reasonColumn {
		t.Errorf("no Reason column in %+v", columns)
	}

	// Nothing was applied for the PostgreSQL run, whose CRD exists.
	cluster := &unstructured.Unstructured{}
	cluster.SetGroupVersionKind(postgres.ClusterGVK)
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "postgresql-db"}, cluster); !apierrors.IsNotFound(err) {
		t.Errorf("the Cluster of a run whose CRD is unsupported: %v, want not found", err)
	}
}

// cnpgClusterCRD reads CloudNativePG 1.29.1's Cluster CRD from its Go module.
func cnpgClusterCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	paths, err := testenv.CRDPaths(env.RepoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		body, err := os.ReadFile(filepath.Join(p, "postgresql.cnpg.io_clusters.yaml"))
		if err != nil {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(body, crd); err != nil {
			t.Fatal(err)
		}
		return crd
	}
	t.Fatal("postgresql.cnpg.io_clusters.yaml is in none of the CRD folders")
	return nil
}

// startManagerOn runs the run reconciler against another API server for one namespace.
func startManagerOn(t *testing.T, e *testenv.Env, namespace string) {
	t.Helper()
	mgr, err := ctrl.NewManager(e.Config, ctrl.Options{
		Scheme:     e.Scheme,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		Controller: ct.SkipNameValidation(),
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.PollInterval = 100 * time.Millisecond
	reconciler := &Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("tpcc-operator"), Config: cfg}
	if err := reconciler.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// serverTable reads a run as the API server's Table (what kubectl get prints): its columns and row.
func serverTable(t *testing.T, e *testenv.Env, namespace, name string) ([]metav1.TableColumnDefinition, []any) {
	t.Helper()
	httpClient, err := rest.HTTPClientFor(e.Config)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/apis/bench.oltp.io/v1alpha1/namespaces/%s/benchmarkruns/%s", strings.TrimSuffix(e.Config.Host, "/"), namespace, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	table := &metav1.Table{}
	if err := json.NewDecoder(resp.Body).Decode(table); err != nil {
		t.Fatal(err)
	}
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) != len(table.ColumnDefinitions) {
		t.Fatalf("table %+v: want one row with a cell per column", table)
	}
	return table.ColumnDefinitions, table.Rows[0].Cells
}
