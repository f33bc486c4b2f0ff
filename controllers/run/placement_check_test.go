package run

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
)

// readyNode creates a Node for the test, deleted when the test ends, and makes it schedulable.
func readyNode(t *testing.T, name string) {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}}}
	if err := k8s.Create(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), node) })
	makeSchedulable(t, node)
}

// makeSchedulable does what a kubelet and the node lifecycle controller do for a healthy node,
// which envtest has neither of: reports it Ready and lifts the not-ready taint the API server
// puts on a new node.
func makeSchedulable(t *testing.T, node *corev1.Node) {
	t.Helper()
	ctx := context.Background()
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
		LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(), Reason: "KubeletReady"}}
	if err := k8s.Status().Update(ctx, node); err != nil {
		t.Fatal(err)
	}
	node.Spec.Taints = nil
	if err := k8s.Update(ctx, node); err != nil {
		t.Fatal(err)
	}
}

// A three-instance PostgreSQL under the default required anti-affinity, on a cluster of two
// schedulable nodes, fails at once with PlacementUnsatisfiable naming 3 and 2 and the fix, and
// no Cluster is created; with a third node the same run deploys its Cluster.
func TestImpossiblePlacementFailsAtOnce(t *testing.T) {
	ctx := context.Background()
	ns := ct.NewNamespace(t, "placement-check")
	startManager(t, ns, testConfig(ct.NewClientPods()))
	readyNode(t, "pc-n1")
	readyNode(t, "pc-n2")

	run := ct.NewRun(ns, "two", 4, 2)
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	failed := waitFailed(t, run)
	if failed.Reason != "PlacementUnsatisfiable" {
		t.Fatalf("failed with %s: %s", failed.Reason, failed.Message)
	}
	if err := ct.ContainsAll(failed.Message, "needs 3 nodes", "found 2 of 2", "Fix:", "podAntiAffinity: {}"); err != nil {
		t.Error(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the run failed after %s, not at once", d)
	}
	cluster := &unstructured.Unstructured{}
	cluster.SetAPIVersion("postgresql.cnpg.io/v1")
	cluster.SetKind("Cluster")
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "two-db"}, cluster); !apierrors.IsNotFound(err) {
		t.Errorf("a Cluster was deployed for an impossible placement: %v", err)
	}

	readyNode(t, "pc-n3")
	fits := ct.NewRun(ns, "three", 4, 2)
	if err := k8s.Create(ctx, fits); err != nil {
		t.Fatal(err)
	}
	ct.Eventually(t, 30*time.Second, func() error {
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "three-db"}, cluster); err != nil {
			return err
		}
		got := ct.GetRun(t, fits)
		if got.Status.Phase == benchv1.PhaseFailed {
			return fmt.Errorf("the run on three nodes failed: %+v", got.Status.Conditions)
		}
		return nil
	})
}
