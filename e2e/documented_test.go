//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// readmeCommand is the README command that starts with prefix (its comment stripped), as argv:
// the e2e runs README's own commands, so a stale one fails here.
func readmeCommand(t *testing.T, prefix string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		return strings.Fields(line)
	}
	t.Fatalf("README.md has no command starting with %q", prefix)
	return nil
}

// forRun points a README command about the run `demo` at another run in a namespace.
func forRun(argv []string, namespace, name string) []string {
	out := []string{"-n", namespace}
	for _, a := range argv[1:] { // argv[0] is kubectl
		a = strings.ReplaceAll(a, "br/demo", "br/"+name)
		if a == "demo" {
			a = name
		}
		out = append(out, a)
	}
	return out
}

// endedWait is README's `kubectl wait br/demo --for=condition=Ended` started in the background
// for another run, before that run ends.
type endedWait struct {
	done    chan struct{}
	err     error
	out     []byte
	started time.Time
	ended   time.Time
}

func waitEndedInBackground(t *testing.T, namespace, name string) *endedWait {
	t.Helper()
	args := forRun(readmeCommand(t, "kubectl wait br/demo"), namespace, name)
	w := &endedWait{done: make(chan struct{}), started: time.Now()}
	go func() {
		defer close(w.done)
		w.out, w.err = exec.Command(kubectl, args...).CombinedOutput()
		w.ended = time.Now()
	}()
	t.Logf("kubectl %s (in the background)", strings.Join(args, " "))
	return w
}

// expect checks that the wait returned 0, and only once the run had ended in phase want.
func (w *endedWait) expect(t *testing.T, key client.ObjectKey, want benchv1.Phase) {
	t.Helper()
	select {
	case <-w.done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("kubectl wait --for=condition=Ended still waits 2 minutes after %s ended %s", key.Name, want)
	}
	if w.err != nil {
		t.Fatalf("kubectl wait for %s: %v: %s", key.Name, w.err, w.out)
	}
	run := &benchv1.BenchmarkRun{}
	if err := k8s.Get(context.Background(), key, run); err != nil {
		t.Fatal(err)
	}
	ended := conditionOf(run, benchv1.ConditionEnded)
	if run.Status.Phase != want || ended == nil || ended.Status != metav1.ConditionTrue {
		t.Fatalf("%s: phase %s, Ended %+v; want %s and Ended True", key.Name, run.Status.Phase, ended, want)
	}
	if w.ended.Before(ended.LastTransitionTime.Time.Add(-time.Second)) {
		t.Errorf("kubectl wait returned at %s, before the run ended at %s", w.ended.Format(time.RFC3339), ended.LastTransitionTime.Format(time.RFC3339))
	}
	t.Logf("kubectl wait returned %s after it started, as %s ended %s: %s", w.ended.Sub(w.started).Round(time.Second), key.Name, want, strings.TrimSpace(string(w.out)))
}

func conditionOf(run *benchv1.BenchmarkRun, conditionType string) *metav1.Condition {
	for i := range run.Status.Conditions {
		if run.Status.Conditions[i].Type == conditionType {
			return &run.Status.Conditions[i]
		}
	}
	return nil
}

// TestKubectlWaitEndsOnFailure: README's `kubectl wait --for=condition=Ended` returns for a run
// that fails — here a CockroachDB run on a cluster without cockroach-operator, which the manager's
// operator check fails at once with DatabaseOperatorMissing — while waiting for Ready would not;
// `kubectl get br -o wide` shows the reason. (TestPostgresSyncRun runs the same wait on a run that
// succeeds.)
func TestKubectlWaitEndsOnFailure(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "e2e-wait")
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-operator"},
		Spec: benchv1.BenchmarkRunSpec{
			Database: benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB},
			Workload: benchv1.WorkloadSpec{Warehouses: 2},
		},
	}
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	wait := waitEndedInBackground(t, ns, run.Name)
	key := client.ObjectKeyFromObject(run)
	wait.expect(t, key, benchv1.PhaseFailed)

	// Ready stays False on a failed run: waiting for it times out.
	out, err := exec.Command(kubectl, "-n", ns, "wait", "br/"+run.Name, "--for=condition=Ready", "--timeout=5s").CombinedOutput()
	if err == nil {
		t.Errorf("kubectl wait --for=condition=Ready returned on a failed run: %s", out)
	}

	wide := forRun(readmeCommand(t, "kubectl get br -o wide"), ns, run.Name)
	out, err = exec.Command(kubectl, wide...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v: %s", strings.Join(wide, " "), err, out)
	}
	t.Logf("kubectl %s:\n%s", strings.Join(wide, " "), out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "REASON") || !strings.Contains(lines[1], "DatabaseOperatorMissing") {
		t.Errorf("kubectl get br -o wide: want a REASON column showing DatabaseOperatorMissing")
	}
	for _, column := range []string{"STEP", "ACTIVE", "LIVE-TPMC"} {
		if !strings.Contains(lines[0], column) {
			t.Errorf("kubectl get br -o wide has no %s column", column)
		}
	}
}

// uninstallAndCheck runs README's uninstall block verbatim and checks that nothing of the
// operator's is left: no CRD of bench.oltp.io, no ClusterRole or ClusterRoleBinding of the
// release, not its namespace, no object the operator labelled anywhere.
func uninstallAndCheck() error {
	block, err := exec.Command(filepath.Join(repoRoot, "hack/doc-block.sh"), filepath.Join(repoRoot, "README.md"), "uninstall").Output()
	if err != nil {
		return fmt.Errorf("hack/doc-block.sh README.md uninstall: %w", err)
	}
	helm, err := exec.Command(filepath.Join(repoRoot, "hack/cluster/helm.sh")).Output()
	if err != nil {
		return fmt.Errorf("hack/cluster/helm.sh: %w", err)
	}
	fmt.Fprintf(os.Stderr, "e2e: README's uninstall block:\n%s", block)
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", string(block))
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(strings.TrimSpace(string(helm)))+":"+filepath.Dir(kubectl)+":"+os.Getenv("PATH"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("README's uninstall block: %w", err)
	}
	// What could be left: the namespace (terminating), cluster-scoped objects, labelled objects
	// in any namespace (garbage collection is asynchronous: poll).
	checks := [][]string{
		{"get", "crd", "-o", "name"},
		{"get", "clusterroles,clusterrolebindings", "-l", "app.kubernetes.io/instance=tpcc-operator", "-o", "name"},
		{"get", "namespace", "tpcc-operator-system", "-o", "name", "--ignore-not-found"},
		{"get", "jobs,pods,configmaps,secrets,services,persistentvolumeclaims,clusters.postgresql.cnpg.io", "-A",
			"-l", "app.kubernetes.io/managed-by=tpcc-operator", "-o", "name"},
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var left []string
		for _, args := range checks {
			out, err := exec.Command(kubectl, args...).Output()
			if err != nil {
				return fmt.Errorf("kubectl %s: %w", strings.Join(args, " "), err)
			}
			for _, name := range strings.Fields(string(out)) {
				if args[1] != "crd" || strings.HasSuffix(name, ".bench.oltp.io") {
					left = append(left, name)
				}
			}
		}
		if len(left) == 0 {
			fmt.Fprintln(os.Stderr, "e2e: after README's uninstall nothing of tpcc-operator is left")
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("3 minutes after README's uninstall these are left: %s", strings.Join(left, " "))
		}
		time.Sleep(5 * time.Second)
	}
}
