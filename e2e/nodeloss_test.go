//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// TestNodeLoss: the loss of a machine under load. PostgreSQL with 3 instances on 3 database nodes
// (placement keeps them off the system node, where the operators and CoreDNS run), one synchronous
// standby of two (a quorum survives one loss), wait None so the clients commit every second. One
// Fixed step with `Mark` 20 s into it: when the mark is recorded the test takes the node of
// CloudNativePG's current primary away at once (hack/cluster/node.sh lose: kubelet, containerd and
// every container killed together, the pods' links cut), brings it back once a standby was
// promoted (or after 2 minutes), and checks the step's fault record: the outage measured in the
// clients' clock and then over, the ledger passed, the consistency conditions passed, the database
// whole again (readyTime), and the node Ready with its instance back.
//
// Not parallel: the lost node may hold other tests' pods. Local cluster only (node.sh); elsewhere
// the same measurement is driven with your own tooling (docs/failover.md, "The loss of a machine").
func TestNodeLoss(t *testing.T) {
	longCase(t, 11, "a node taken away under a run and given back")
	ctx := context.Background()
	nodeScript := filepath.Join(repoRoot, "hack/cluster/node.sh")
	if out, err := exec.Command(nodeScript, "list").CombinedOutput(); err != nil || os.Geteuid() != 0 {
		t.Skipf("not the local cluster (hack/cluster/node.sh list: %v, %s; euid %d): the node loss needs hack/cluster/node.sh", err, strings.TrimSpace(string(out)), os.Geteuid())
	} else {
		t.Logf("nodes:\n%s", out)
	}
	ns := newNamespace(t, "e2e-nodeloss")
	run := smallSyncRun(ns, "nodeloss")
	run.Spec.Database.Postgres.SynchronousReplicas = ptr(int32(1))
	run.Spec.Workload.Wait = benchv1.WaitNone
	run.Spec.Workload.Duration = &metav1.Duration{Duration: 4 * time.Minute}
	run.Spec.Faults = []benchv1.Fault{{Action: benchv1.FaultMark, At: metav1.Duration{Duration: 20 * time.Second}, In: benchv1.FaultInEveryStep}}
	run.Spec.Placement = &benchv1.Placement{Database: &benchv1.PodPlacement{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"tpcc-node-0"}}}}}}}}}}
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(run)

	marked := waitFor(t, key, runTimeout, "the mark recorded (status.current.faults, Injected)", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Current != nil && len(r.Status.Current.Faults) > 0 && r.Status.Current.Faults[0].State == benchv1.FaultInjected
	})
	cluster := &cnpgv1.Cluster{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: marked.Status.Database.Name}, cluster); err != nil {
		t.Fatal(err)
	}
	primary := cluster.Status.CurrentPrimary
	pod := &corev1.Pod{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: primary}, pod); err != nil {
		t.Fatal(err)
	}
	node := pod.Spec.NodeName
	if node == "" || node == "tpcc-node-0" {
		t.Fatalf("primary %s on node %q: want a database node", primary, node)
	}
	out, err := exec.Command(nodeScript, "lose", node).CombinedOutput()
	if err != nil {
		t.Fatalf("node.sh lose %s: %v\n%s", node, err, out)
	}
	lost := time.Now()
	t.Logf("mark %+v; lost %s (primary %s): %s", marked.Status.Current.Faults[0], node, primary, strings.TrimSpace(string(out)))
	restored := false
	restore := func() {
		if restored {
			return
		}
		restored = true
		out, err := exec.Command(nodeScript, "restore", node).CombinedOutput()
		if err != nil {
			t.Errorf("node.sh restore %s: %v\n%s", node, err, out)
			return
		}
		t.Logf("restored %s %s after its loss: %s", node, time.Since(lost).Round(time.Second), strings.TrimSpace(string(out)))
	}
	t.Cleanup(restore) // never leave the cluster a node short

	// Bring the machine back once CloudNativePG has promoted another instance (or after 2 minutes).
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(cluster), cluster); err == nil && cluster.Status.CurrentPrimary != primary {
			t.Logf("CloudNativePG promoted %s %s after the loss", cluster.Status.CurrentPrimary, time.Since(lost).Round(time.Second))
			time.Sleep(15 * time.Second) // the promoted primary serves alone for a while
			break
		}
	}
	restore()

	done := waitFor(t, key, runTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded || r.Status.Phase == benchv1.PhaseFailed
	})
	if done.Status.Phase != benchv1.PhaseSucceeded || len(done.Status.Steps) != 1 {
		t.Fatalf("phase %s, %d steps, conditions %s", done.Status.Phase, len(done.Status.Steps), conditionMessages(done))
	}
	step := withStepDetail(t, done).Status.Steps[0]
	f := step.Fault
	if f == nil || len(f.Injections) != 1 {
		t.Fatalf("fault record %+v", f)
	}
	inj := f.Injections[0]
	t.Logf("step: tpmC %.1f, compliant %v, reasons %q; injection %+v", step.TpmC, step.Compliant, step.Reasons, inj)
	if inj.State != benchv1.FaultInjected || inj.PrimaryBefore != primary {
		t.Errorf("injection %+v: want the mark Injected with primary %s before it", inj, primary)
	}
	if inj.PrimaryAfter == "" || inj.PrimaryAfter == primary || inj.PromotedTime == nil {
		t.Errorf("CloudNativePG promoted %q at %v: want another instance than %s", inj.PrimaryAfter, inj.PromotedTime, primary)
	} else {
		t.Logf("promoted %s %s after the loss", inj.PrimaryAfter, inj.PromotedTime.Sub(lost).Round(time.Second))
	}
	if inj.DegradedTime != nil {
		t.Logf("CloudNativePG reported an instance missing %s after the loss", inj.DegradedTime.Sub(lost).Round(time.Second))
	}
	if inj.ReadyTime == nil {
		t.Errorf("the database was not whole again (no readyTime) after %s came back", node)
	} else {
		t.Logf("every instance ready %s after the loss", inj.ReadyTime.Sub(lost).Round(time.Second))
	}
	m := f.Measurement
	if m == nil {
		t.Fatal("no measurement of the loss")
	}
	t.Logf("measurement: unavailability %s from %v (to the step's end: %v), recovery %v, baseline %.1f New-Orders/s, errors %v, commits unknown %d",
		m.Unavailability.Duration, m.UnavailableFrom, m.UnavailableAtEnd, m.Recovery, m.BaselineNewOrdersPerSecond, m.Errors, m.CommitsUnknown)
	if m.Unavailability.Duration < time.Second || m.UnavailableAtEnd || m.BaselineNewOrdersPerSecond <= 0 {
		t.Errorf("unavailability %s (to the end: %v), baseline %.2f/s: want an outage measured and over before the step's end",
			m.Unavailability.Duration, m.UnavailableAtEnd, m.BaselineNewOrdersPerSecond)
	}
	if l := f.Ledger; l == nil || !l.Pass || l.Acknowledged == 0 {
		t.Errorf("ledger %+v: want a pass", l)
	} else {
		t.Logf("ledger: %+v", *l)
	}
	if f.Consistency != "passed" {
		t.Errorf("consistency after the loss: %q", f.Consistency)
	}
	// The node is back, with the lost instance on it again.
	n := &corev1.Node{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
		t.Fatal(err)
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
			t.Errorf("node %s: Ready %s (%s)", node, c.Status, c.Message)
		}
	}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(cluster), cluster); err == nil {
		t.Logf("Cluster at the end: primary %s, ready %d of %d", cluster.Status.CurrentPrimary, cluster.Status.ReadyInstances, cluster.Status.Instances)
	}
	if p := step.Placement; p != nil {
		t.Logf("placement at the step's end: %+v", p.Pods)
	}
}
