//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ydb-platform/ydb-go-sdk/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/drivers"
)

// The distributed engines on databases the user brings (make e2e-external, hack/e2e-external.sh):
// a BenchmarkRun with `engine: CockroachDB` or `YDB` and `external` loads a few warehouses, checks
// them, measures one short step and records the result; the test then checks the database again
// from here. Each test is skipped, saying so, when its variable is unset. The database must be
// reachable from the cluster's pods and from this machine.

// TestExternalCockroach runs against TPCC_E2E_COCKROACH_URL, in a fresh database it creates there
// (and drops afterwards unless TPCC_E2E_KEEP=1).
func TestExternalCockroach(t *testing.T) {
	raw := os.Getenv("TPCC_E2E_COCKROACH_URL")
	if raw == "" {
		t.Skip("CockroachDB skipped: TPCC_E2E_COCKROACH_URL is not set")
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal("TPCC_E2E_COCKROACH_URL is not a URL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, raw)
	if err != nil {
		t.Fatalf("TPCC_E2E_COCKROACH_URL: cannot connect to %s (error withheld: it may quote the password)", u.Host)
	}
	defer admin.Close(context.Background())
	name := fmt.Sprintf("tpcc_e2e_run_%d", time.Now().UnixNano()%1_000_000_000)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if os.Getenv("TPCC_E2E_KEEP") == "1" {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" CASCADE"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	externalRun(t, benchv1.EngineCockroachDB, mustDriver(t, "cockroach"), u.String())
}

// TestExternalYDB runs against the database of TPCC_E2E_YDB_ENDPOINT; the TPC-C tables are dropped
// there before and after (unless TPCC_E2E_KEEP=1).
func TestExternalYDB(t *testing.T) {
	endpoint := os.Getenv("TPCC_E2E_YDB_ENDPOINT")
	if endpoint == "" {
		t.Skip("YDB skipped: TPCC_E2E_YDB_ENDPOINT is not set")
	}
	d := mustDriver(t, "ydb")
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		db, err := ydb.Open(ctx, endpoint)
		if err != nil {
			t.Fatalf("TPCC_E2E_YDB_ENDPOINT: %v", err)
		}
		defer db.Close(context.Background()) //nolint:errcheck
		for _, s := range d.DropSchemaDDL() {
			if err := db.Query().Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	drop()
	t.Cleanup(func() {
		if os.Getenv("TPCC_E2E_KEEP") != "1" {
			drop()
		}
	})
	externalRun(t, benchv1.EngineYDB, d, endpoint)
}

// mustDriver is the workload's driver of an --engine name (the registry's).
func mustDriver(t *testing.T, name string) tpcc.Driver {
	t.Helper()
	d, err := drivers.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func externalRun(t *testing.T, engine benchv1.Engine, driver tpcc.Driver, uri string) {
	t.Helper()
	const warehouses = 2
	ns := newNamespace(t, "e2e-ext-"+map[benchv1.Engine]string{benchv1.EngineCockroachDB: "crdb", benchv1.EngineYDB: "ydb"}[engine])
	ctx := context.Background()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, StringData: map[string]string{"uri": uri}}
	if err := k8s.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "external"},
		Spec: benchv1.BenchmarkRunSpec{
			Database: benchv1.DatabaseSpec{
				Engine:   engine,
				External: &benchv1.ExternalSpec{SecretRef: benchv1.SecretKeyRef{Name: secret.Name, Key: "uri"}},
				Teardown: benchv1.TeardownRetain,
			},
			Workload: benchv1.WorkloadSpec{
				Warehouses: warehouses,
				Duration:   &metav1.Duration{Duration: 60 * time.Second},
				RampUp:     &metav1.Duration{Duration: 10 * time.Second},
				Wait:       benchv1.WaitSpec,
			},
			Search: benchv1.SearchSpec{Mode: benchv1.SearchFixed},
		},
	}
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(run)
	loaded := waitFor(t, key, runTimeout, "loaded and checked data", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseRunning || r.Status.Phase == benchv1.PhaseSucceeded
	})
	t.Logf("%s: load %+v", engine, loaded.Status.Load)
	done := waitFor(t, key, runTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded
	})
	if len(done.Status.Steps) != 1 {
		t.Fatalf("%d steps recorded, want 1 (Fixed mode)", len(done.Status.Steps))
	}
	step := done.Status.Steps[0]
	t.Logf("%s step 0: %d active warehouses, tpmC %.1f, efficiency %.1f%%, compliant %v, reasons %v",
		engine, step.ActiveWarehouses, step.TpmC, step.Efficiency, step.Compliant, step.Reasons)
	for tx, stats := range step.Transactions {
		t.Logf("  %-12s count %5d  p50 %-8s p90 %-8s p99 %-8s", tx, stats.Count, stats.P50.Duration, stats.P90.Duration, stats.P99.Duration)
	}
	if step.TpmC <= 0 || done.Status.Result == nil || done.Status.Result.TpmC <= 0 {
		t.Fatalf("step tpmC %.2f, result %+v: want a recorded result with tpmC > 0", step.TpmC, done.Status.Result)
	}
	if done.Status.Report == nil {
		t.Error("no status.report")
	}

	// Check again, after the step's transactions (3.3.2.11 holds only before the first Delivery).
	cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	results, err := tpcc.Check(cctx, tpcc.CheckOptions{Driver: driver, URL: uri, Warehouses: warehouses, Threads: 2})
	if err != nil {
		t.Fatalf("check after the step: %v", err)
	}
	for _, r := range results {
		if !r.Pass && !r.Skipped {
			t.Errorf("check after the step: %s %s: %s", r.Condition.ID, r.Condition.Name, r.Detail)
		}
	}
	t.Logf("%s: check after the step: %d conditions", engine, len(results))
}
