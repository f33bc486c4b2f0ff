//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// TestDemoPlacement: config/samples/demo.yaml, which sets no placement, on a cluster of several
// nodes (the local one has 4): its three PostgreSQL instances run on three distinct nodes, its
// client pod on none of them, the loader pods off the database's nodes too; every step records it
// and the report shows it without a flag. In CI it reads the run of `make demo`, which runs beside
// the suite (E2E_DEMO_RUN); in the long tier it runs the sample itself, its search cut to one 60 s step
// (placement does not depend on it), and checks the record against the live pods too.
func TestDemoPlacement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var nodes corev1.NodeList
	if err := k8s.List(ctx, &nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) < 4 {
		t.Skipf("%d nodes: the placement case needs 4 (three database instances on their own nodes, the client on a fourth; hack/cluster/up.sh brings up 4)", len(nodes.Items))
	}
	live := map[string]string{} // pod -> node, as the API server had them while the step ran
	key := demoRun(t)
	if key.Name != "" {
		// make demo's own run: once it has ended, its status and report as recorded (its database gone).
		t.Logf("reading the run %s of make demo (E2E_DEMO_RUN), once it has ended", key)
	} else {
		longCase(t, 12, "the demo's run on a run of its own, with its live pods (.ci/run reads make demo's run instead: E2E_DEMO_RUN)")
		key = createDemoForPlacement(t, ctx)
		// While the step runs, the pods as the API server has them.
		waitFor(t, key, runTimeout, "a step measuring", func(r *benchv1.BenchmarkRun) bool {
			return r.Status.Current != nil && r.Status.Current.Elapsed != nil && r.Status.Current.Elapsed.Duration > 5*time.Second
		})
		var pods corev1.PodList
		if err := k8s.List(ctx, &pods, client.InNamespace(key.Namespace)); err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			live[p.Name] = p.Spec.NodeName
			t.Logf("pod %-28s node %s", p.Name, p.Spec.NodeName)
		}
	}

	done := waitFor(t, key, demoRunTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool { return r.Status.Phase == benchv1.PhaseSucceeded })
	done = withStepDetail(t, done)
	if len(done.Status.Steps) == 0 {
		t.Fatal("no steps")
	}
	var distinct, clientNodes []string // step 0's database nodes and client nodes
	for i, step := range done.Status.Steps {
		db, clients := checkStepPlacement(t, step, live)
		if i == 0 {
			distinct, clientNodes = db, clients
		}
	}
	load := done.Status.Load.Placement
	if len(load) == 0 {
		t.Error("the load recorded no placement")
	}
	for _, pod := range load {
		t.Logf("load: %-7s %-28s on %s", pod.Role, pod.Name, pod.Node)
		if slices.Contains(distinct, pod.Node) {
			t.Errorf("%s pod %s ran on database node %s", pod.Role, pod.Name, pod.Node)
		}
	}
	// The storage calibration before the load: fio in the client image, on a volume of the
	// database's class and size on each of the database's nodes.
	var calibrated []string
	if done.Status.Environment != nil {
		for _, c := range done.Status.Environment.StorageCalibration {
			t.Logf("storage calibration: node %s %s %s: %s, fdatasync p50 %s p99 %s, %.0f writes/s, %.2f MB/s; error %q", c.Node, c.StorageClass, c.Size,
				c.Tool, durationOrNone(c.SyncP50), durationOrNone(c.SyncP99), c.WritesPerSecond, float64(c.BytesPerSecond)/1e6, c.Error)
			if c.Error != "" || c.Tool != "fio-3.33" || c.BlockSize != 8192 || c.SyncP50 == nil || c.SyncP50.Duration <= 0 ||
				c.SyncP99 == nil || c.SyncP99.Duration < c.SyncP50.Duration || c.WritesPerSecond <= 0 || c.StorageClass == "" || c.Size == "" {
				t.Errorf("calibration record %+v: want a measurement", c)
			}
			calibrated = append(calibrated, c.Node)
		}
	}
	slices.Sort(calibrated)
	if !slices.Equal(calibrated, distinct) {
		t.Errorf("storage calibrated on nodes %v, want one record per database node %v", calibrated, distinct)
	}
	report := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: done.Status.Report.ConfigMapName}, report); err != nil {
		t.Fatal(err)
	}
	md := report.Data["report.md"]
	if !strings.Contains(md, "Storage calibration (before the load)") {
		t.Error("report.md has no storage calibration")
	}
	section := md[max(0, strings.Index(md, "## Placement")):]
	t.Logf("report.md:\n%s", section)
	if !strings.Contains(md, "## Placement") || len(clientNodes) == 0 || !strings.Contains(section, clientNodes[0]) || strings.Contains(md, "does not survive") {
		t.Errorf("report.md's placement section does not show it:\n%s", md)
	}
	if !strings.Contains(report.Data["report.html"], "<h2>Placement</h2>") {
		t.Error("report.html has no placement section")
	}
}

// createDemoForPlacement creates config/samples/demo.yaml in a namespace of its own, its search cut
// to one 60 s step without the measured CPU limit (placement depends on neither).
func createDemoForPlacement(t *testing.T, ctx context.Context) client.ObjectKey {
	t.Helper()
	ns := newNamespace(t, "e2e-placement")
	run := readDemoSample(t)
	if run.Spec.Placement != nil {
		t.Fatalf("demo.yaml sets a placement %+v: this case proves the defaults", run.Spec.Placement)
	}
	run.Namespace = ns
	run.Spec.Workload.Duration = &metav1.Duration{Duration: 60 * time.Second}
	run.Spec.Search = benchv1.SearchSpec{Mode: benchv1.SearchFixed}
	// Measured as loaded, without the CPU limit that puts the demo's capacity inside its warehouses.
	if pg := run.Spec.Database.Postgres; pg != nil && pg.LoadResources != nil {
		pg.Resources, pg.LoadResources = *pg.LoadResources, nil
	}
	run.Spec.SLA.MinEfficiencyPercent = ptr(int32(50)) // one minute of 8 warehouses: see smallSyncRun
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	return client.ObjectKeyFromObject(run)
}

// checkStepPlacement: the step's three database instances on three distinct nodes, its client
// pods on none of them, nothing flagged; the pods where the API server had them (live, when known).
// It returns the step's database nodes (distinct, sorted) and its client pods' nodes.
func checkStepPlacement(t *testing.T, step benchv1.StepResult, live map[string]string) (dbNodes, clientNodes []string) {
	t.Helper()
	p := step.Placement
	if p == nil {
		t.Fatalf("step %d recorded no placement", step.Index)
	}
	for _, pod := range p.Pods {
		t.Logf("step %d: %-8s %-28s on %s", step.Index, pod.Role, pod.Name, pod.Node)
		if want, ok := live[pod.Name]; ok && want != pod.Node {
			t.Errorf("status puts %s on %q, the API server on %q", pod.Name, pod.Node, want)
		}
		switch pod.Role {
		case benchv1.RoleDatabase:
			dbNodes = append(dbNodes, pod.Node)
		case benchv1.RoleClient:
			clientNodes = append(clientNodes, pod.Node)
		}
	}
	distinct := slices.Compact(slices.Sorted(slices.Values(dbNodes)))
	if len(dbNodes) != 3 || len(distinct) != 3 || slices.Contains(distinct, "") {
		t.Errorf("database pods on %v: want 3 instances on 3 distinct nodes", dbNodes)
	}
	if len(clientNodes) != 1 || clientNodes[0] == "" || slices.Contains(distinct, clientNodes[0]) {
		t.Errorf("client pods on %v, database pods on %v: want the client on a node of its own", clientNodes, distinct)
	}
	if p.Primary == "" || !slices.Contains(distinct, p.PrimaryNode) {
		t.Errorf("primary %q on %q", p.Primary, p.PrimaryNode)
	}
	if len(p.ClientsOnDatabaseNodes) > 0 || len(p.SharedDatabaseNodes) > 0 || len(p.Findings) > 0 {
		t.Errorf("flagged: clients on database nodes %v, shared database nodes %v, findings %q", p.ClientsOnDatabaseNodes, p.SharedDatabaseNodes, p.Findings)
	}
	return distinct, clientNodes
}

func durationOrNone(d *metav1.Duration) string {
	if d == nil {
		return "none"
	}
	return d.Duration.String()
}
