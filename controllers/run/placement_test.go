package run

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/ydb"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
)

func podOn(name, node string, labels map[string]string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.PodSpec{NodeName: node}}
}

func TestPlacementRecord(t *testing.T) {
	storage := map[string]string{ydb.ComponentLabel: ydb.StorageComponent}
	dynamic := map[string]string{ydb.ComponentLabel: ydb.DynamicComponent}
	for _, tc := range []struct {
		name                  string
		database, clients     []corev1.Pod
		primary               string
		group                 func(map[string]string) string
		primaryNode           string
		clientsOnDB, sharedDB []string
		findings              []string
	}{
		{name: "one instance per node, clients apart",
			database: []corev1.Pod{podOn("db-2", "n2", nil), podOn("db-1", "n1", nil), podOn("db-3", "n3", nil)},
			clients:  []corev1.Pod{podOn("c-0", "n4", nil)}, primary: "db-2", primaryNode: "n2"},
		{name: "a client beside the primary",
			database: []corev1.Pod{podOn("db-1", "n1", nil), podOn("db-2", "n2", nil), podOn("db-3", "n3", nil)},
			clients:  []corev1.Pod{podOn("c-0", "n4", nil), podOn("c-1", "n1", nil)}, primary: "db-1", primaryNode: "n1",
			clientsOnDB: []string{"n1"},
			findings:    []string{"client pod c-1 shares node n1 with database pod db-1: the clients take CPU and memory from the database they measure"}},
		{name: "three instances on two nodes",
			database: []corev1.Pod{podOn("db-3", "n1", nil), podOn("db-1", "n1", nil), podOn("db-2", "n2", nil)},
			clients:  []corev1.Pod{podOn("c-0", "n3", nil)},
			sharedDB: []string{"n1"},
			findings: []string{"database pods db-1 and db-3 share node n1: the loss of that machine takes them together, so the database does not survive the loss of a machine"}},
		{name: "a pod not scheduled yet counts for nothing",
			database: []corev1.Pod{podOn("db-1", "", nil), podOn("db-2", "", nil)}, clients: []corev1.Pod{podOn("c-0", "", nil)}},
		{name: "YDB: a storage and a database node share a machine, two storage nodes must not",
			database: []corev1.Pod{podOn("s-0", "n1", storage), podOn("d-0", "n1", dynamic), podOn("s-1", "n2", storage), podOn("d-1", "n2", dynamic),
				podOn("s-2", "n2", storage), podOn("d-2", "n3", dynamic)},
			group:    ydb.Backend{}.PodGroup,
			sharedDB: []string{"n2"},
			findings: []string{"database pods (storage) s-1 and s-2 share node n2: the loss of that machine takes them together, so the database does not survive the loss of a machine"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := placementRecord(tc.database, tc.clients, tc.primary, tc.group)
			if rec.Primary != tc.primary || rec.PrimaryNode != tc.primaryNode {
				t.Errorf("primary %q on %q, want %q on %q", rec.Primary, rec.PrimaryNode, tc.primary, tc.primaryNode)
			}
			if !slices.Equal(rec.ClientsOnDatabaseNodes, tc.clientsOnDB) || !slices.Equal(rec.SharedDatabaseNodes, tc.sharedDB) {
				t.Errorf("clients on database nodes %v (want %v), shared database nodes %v (want %v)", rec.ClientsOnDatabaseNodes, tc.clientsOnDB, rec.SharedDatabaseNodes, tc.sharedDB)
			}
			if !slices.Equal(rec.Findings, tc.findings) {
				t.Errorf("findings:\n%q\nwant\n%q", rec.Findings, tc.findings)
			}
			if len(rec.Pods) != len(tc.database)+len(tc.clients) {
				t.Fatalf("%d pods recorded, want %d", len(rec.Pods), len(tc.database)+len(tc.clients))
			}
			for i, p := range rec.Pods {
				wantRole := benchv1.RoleDatabase
				if i >= len(tc.database) {
					wantRole = benchv1.RoleClient
				}
				if p.Role != wantRole || (i > 0 && rec.Pods[i-1].Role == p.Role && rec.Pods[i-1].Name > p.Name) {
					t.Errorf("pods not ordered database first, by name: %+v", rec.Pods)
				}
				if tc.group != nil && p.Role == benchv1.RoleDatabase && p.Group == "" {
					t.Errorf("database pod %s without its group", p.Name)
				}
			}
		})
	}
}

// bindPod plays the scheduler: the pod goes to node through the binding subresource.
func bindPod(t *testing.T, pod *corev1.Pod, node string) {
	t.Helper()
	binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name},
		Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	if err := k8s.SubResource("binding").Create(context.Background(), pod, binding); err != nil {
		t.Fatalf("binding %s to %s: %v", pod.Name, node, err)
	}
}

// A run records where its pods ran: the load its loader and check pods' nodes, each step every
// database and client pod's node, the primary's node, and — here, where the "scheduler" put two
// instances on one node and a client beside the primary — both findings, which the report repeats.
func TestStepsAndLoadRecordPlacement(t *testing.T) {
	ns := ct.NewNamespace(t, "placement")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pl", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	ct.DeployAndLoad(t, run, func() {
		// The loader Job's pods, as the Job controller and the scheduler would leave them.
		for i, node := range []string{"n4", "n3"} {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("pl-load-%d", i),
				Labels: map[string]string{"app.kubernetes.io/managed-by": "tpcc-operator", "bench.oltp.io/run": "pl", jobs.ComponentLabel: jobs.ComponentLoader}},
				Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "tpcc", Image: "tpcc:test"}}}}
			if err := k8s.Create(context.Background(), pod); err != nil {
				t.Fatal(err)
			}
		}
	})
	cluster := &unstructured.Unstructured{}
	cluster.SetAPIVersion("postgresql.cnpg.io/v1")
	cluster.SetKind("Cluster")
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "pl-db"}, cluster); err != nil {
		t.Fatal(err)
	}
	for i, node := range map[int]string{1: "n1", 2: "n1", 3: "n2"} {
		createInstancePod(t, cluster, i)
		bindPod(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("pl-db-%d", i)}}, node)
	}
	setClusterRoles(t, ns, "pl-db", "pl-db-3", time.Now(), 3)

	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, func(step int, stepPods []*corev1.Pod) {
		bindPod(t, stepPods[0], "n2")
	})
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) != 1 {
		t.Fatalf("phase %s, steps %v", got.Status.Phase, ct.StepSummary(got))
	}
	load := got.Status.Load.Placement
	if len(load) != 2 || load[0] != (benchv1.PodPlacementRecord{Name: "pl-load-0", Role: benchv1.RoleLoader, Node: "n4"}) || load[1].Node != "n3" {
		t.Errorf("load placement %+v", load)
	}
	p := withStepDetail(t, got).Status.Steps[0].Placement
	if p == nil {
		t.Fatal("step 0 has no placement record")
	}
	var nodes []string
	for _, pod := range p.Pods {
		nodes = append(nodes, pod.Role+":"+pod.Name+"@"+pod.Node)
	}
	want := []string{"Database:pl-db-1@n1", "Database:pl-db-2@n1", "Database:pl-db-3@n2", "Client:pl-step-0-0@n2"}
	if !slices.Equal(nodes, want) {
		t.Errorf("placement %v, want %v", nodes, want)
	}
	if p.Primary != "pl-db-3" || p.PrimaryNode != "n2" || !slices.Equal(p.ClientsOnDatabaseNodes, []string{"n2"}) || !slices.Equal(p.SharedDatabaseNodes, []string{"n1"}) {
		t.Errorf("placement %+v", p)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(run)}, cm); err != nil {
		t.Fatal(err)
	}
	md := cm.Data["report.md"]
	for _, want := range []string{"## Placement", "does not survive the loss of a machine", "client pod pl-step-0-0 shares node n2 with database pod pl-db-3",
		// The per-pod rows, read from the step's ConfigMap: status keeps the step's summary.
		"pl-db-1 n1, pl-db-2 n1, pl-db-3 n2", "pl-step-0-0 n2"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}
