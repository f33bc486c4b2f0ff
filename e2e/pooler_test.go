//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// TestPooledStep: a run with postgres.pooler measures its step through CloudNativePG's Pooler —
// PgBouncer from Debian's package, transaction pooling, 3 server connections — while the primary
// serves the step's transactions over the pooler's connections only, never more than its pool and
// never one from a client pod; the step is compliant, the server's default isolation is the run's
// (read back by the clients), the check after the step passes over a direct connection, and the
// report says a pooler stood in front of the database.
func TestPooledStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := newNamespace(t, "e2e-pooler")
	run := oneInstance(smallSyncRun(ns, "pooled"))
	run.Spec.Database.Postgres.Pooler = &benchv1.PostgresPooler{Instances: 1, PoolMode: benchv1.PoolModeTransaction, DefaultPoolSize: 3}
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(run)
	measuring := waitFor(t, key, runTimeout, "a step measuring", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded || (r.Status.Current != nil && r.Status.Current.StartTime != nil)
	})
	if measuring.Status.Phase == benchv1.PhaseSucceeded {
		t.Fatal("the run ended before its step's connections could be read")
	}
	cluster := &cnpgv1.Cluster{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: measuring.Status.Database.Name}, cluster); err != nil {
		t.Fatal(err)
	}
	poolerIPs := podIPs(t, ns, client.MatchingLabels{"cnpg.io/poolerName": "pooled-db-pooler-rw"})
	clientIPs := podIPs(t, ns, client.MatchingLabels{"app.kubernetes.io/component": "client"})
	if len(poolerIPs) != 1 || len(clientIPs) == 0 {
		t.Fatalf("PgBouncer pods %v, client pods %v: want one and some", poolerIPs, clientIPs)
	}
	// The primary's client backends of the tpcc database, by address, a few times while the step
	// measures.
	most := 0
	for i := 0; i < 6; i++ {
		rows := psql(t, ns, cluster.Status.CurrentPrimary,
			"select coalesce(host(client_addr), 'local') || '|' || count(*) from pg_stat_activity where datname = 'tpcc' and backend_type = 'client backend' and pid <> pg_backend_pid() group by client_addr")
		t.Logf("sample %d: backends of tpcc by address: %q", i, rows)
		for _, line := range strings.Split(rows, "\n") {
			addr, n, ok := strings.Cut(line, "|")
			if !ok {
				continue
			}
			count, _ := strconv.Atoi(n)
			switch {
			case poolerIPs[addr]:
				most = max(most, count)
				if count > 3 {
					t.Errorf("the pooler holds %d server connections, its pool is 3", count)
				}
			case clientIPs[addr]:
				t.Errorf("a client pod (%s) holds %d connections to the primary directly", addr, count)
			}
		}
		time.Sleep(5 * time.Second)
	}
	if most == 0 {
		t.Error("no connection from the pooler to the primary while the step measured")
	}

	done := waitFor(t, key, runTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool { return r.Status.Phase == benchv1.PhaseSucceeded })
	if len(done.Status.Steps) != 1 || !done.Status.Steps[0].Compliant {
		t.Fatalf("steps %+v: want one compliant step", done.Status.Steps)
	}
	t.Logf("step through the pooler: tpmC %.1f, efficiency %.1f%%", done.Status.Steps[0].TpmC, done.Status.Steps[0].Efficiency)
	assertCheckedAfterTheLastStep(t, done)
	if d := done.Status.Database.Description; d == nil || !strings.Contains(d.Pooler, "PgBouncer") {
		t.Errorf("status.database.description %+v: want the pooler", d)
	}
	isolation := ""
	if env := done.Status.Environment; env != nil {
		for _, s := range env.Tuning {
			if s.Name == "default_transaction_isolation" {
				isolation = fmt.Sprintf("%s→%s (%s)", s.Requested, s.Effective, s.Source)
			}
		}
	}
	if isolation != "read committed→read committed (postgres.pooler)" {
		t.Errorf("default_transaction_isolation asked and read back: %q", isolation)
	}
	report := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: done.Status.Report.ConfigMapName}, report); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report.Data["report.md"], "through PgBouncer (CloudNativePG Pooler, 1 instance, transaction pooling, 3 server connections each)") {
		t.Errorf("report.md does not say the pooler:\n%s", report.Data["report.md"])
	}
}

// podIPs are the IPs of the namespace's running pods the labels select.
func podIPs(t *testing.T, namespace string, labels client.MatchingLabels) map[string]bool {
	t.Helper()
	var pods corev1.PodList
	if err := k8s.List(context.Background(), &pods, client.InNamespace(namespace), labels); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, p := range pods.Items {
		if p.Status.PodIP != "" && p.Status.Phase == corev1.PodRunning {
			out[p.Status.PodIP] = true
		}
	}
	return out
}
