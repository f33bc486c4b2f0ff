//go:build e2e

// Package e2e runs BenchmarkRuns on a real cluster (KUBECONFIG): CloudNativePG and the operator,
// installed through its Helm chart by hack/cluster/install.sh, real PostgreSQL pods, real client
// pods. `make e2e` (hack/e2e.sh) brings up the local cluster when none answers.
//
//	KUBECONFIG=... go test -tags e2e -timeout 60m -v ./e2e/
//
// The operator is installed by hack/cluster/install.sh, which runs README's install block verbatim,
// and uninstalled at the end by README's uninstall block, after which nothing of it may be left.
//
// env: E2E_SKIP_INSTALL=1 (the operator is installed already: neither installed nor uninstalled),
// E2E_SKIP_UNINSTALL=1, E2E_UNINSTALL_AFTER=FILE (an absolute path, with E2E_SKIP_INSTALL=1: the operator was
// installed by `make demo` running beside the suite, as .ci/run does; README's uninstall still ends
// the suite, once FILE exists — make demo has ended — and at most 45 minutes later), KUBECTL
// (default: hack/k8s-bins.sh), E2E_OPERATOR_NAMESPACE (tpcc-operator-system).
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

var (
	k8s               client.Client
	kubectl           string
	repoRoot, _       = filepath.Abs("..")
	operatorNamespace = envOr("E2E_OPERATOR_NAMESPACE", "tpcc-operator-system")
)

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

func TestMain(m *testing.M) {
	if err := setup(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		os.Exit(1)
	}
	code := m.Run()
	// Last, README's uninstall, and nothing of the operator's may be left (an operator the suite
	// did not install is left alone, unless make demo beside it installed it for both).
	after := os.Getenv("E2E_UNINSTALL_AFTER")
	if code == 0 && (os.Getenv("E2E_SKIP_INSTALL") != "1" || after != "") && os.Getenv("E2E_SKIP_UNINSTALL") != "1" {
		if after != "" {
			if err := waitForFile(after, 45*time.Minute); err != nil {
				fmt.Fprintln(os.Stderr, "e2e uninstall:", err)
				os.Exit(1)
			}
		}
		if err := uninstallAndCheck(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e uninstall:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// waitForFile waits until path exists (E2E_UNINSTALL_AFTER: make demo beside the suite has ended).
func waitForFile(path string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	logged := false
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		} else if !os.IsNotExist(err) {
			return fmt.Errorf("E2E_UNINSTALL_AFTER=%s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("E2E_UNINSTALL_AFTER=%s: not there after %s (make demo beside the suite has not ended): the operator was left installed", path, timeout)
		}
		if !logged {
			fmt.Fprintf(os.Stderr, "e2e: README's uninstall waits for %s (make demo beside the suite to end)\n", path)
			logged = true
		}
		time.Sleep(5 * time.Second)
	}
}

func setup() error {
	if os.Getenv("KUBECONFIG") == "" {
		return fmt.Errorf("KUBECONFIG is not set: the e2e suite runs against a real cluster (make e2e brings up a local one)")
	}
	kubectl = os.Getenv("KUBECTL")
	if kubectl == "" {
		out, err := exec.Command(filepath.Join(repoRoot, "hack/k8s-bins.sh"), "kubectl").Output()
		if err != nil {
			return fmt.Errorf("hack/k8s-bins.sh kubectl: %w", err)
		}
		kubectl = filepath.Join(strings.TrimSpace(string(out)), "kubectl")
	}
	if os.Getenv("E2E_SKIP_INSTALL") != "1" {
		install := exec.Command(filepath.Join(repoRoot, "hack/cluster/install.sh"))
		install.Env = append(os.Environ(), "KUBECTL="+kubectl)
		install.Stdout, install.Stderr = os.Stderr, os.Stderr
		if err := install.Run(); err != nil {
			return fmt.Errorf("hack/cluster/install.sh: %w", err)
		}
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, benchv1.AddToScheme, cnpgv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	return err
}

// newNamespace creates a namespace for one test and deletes it afterwards.
func newNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: prefix + "-" + rand.String(5)}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			dumpNamespace(t, ns.Name)
		}
		_ = k8s.Delete(context.Background(), ns)
	})
	return ns.Name
}

// smallSyncRun is a PostgreSQL run of the reference configuration (3 instances, 2 synchronous
// standbys, remote_apply) small enough for a 2-core machine: 2 warehouses, one short step.
func smallSyncRun(namespace, name string) *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: benchv1.BenchmarkRunSpec{
			Database: benchv1.DatabaseSpec{
				Engine: benchv1.EnginePostgreSQL,
				Postgres: &benchv1.PostgresSpec{
					Instances:           3,
					SynchronousReplicas: ptr(int32(2)),
					SynchronousCommit:   benchv1.SynchronousCommit("remote_apply"),
					Parameters:          map[string]string{"shared_buffers": "64MB", "max_connections": "100"},
				},
				Teardown: benchv1.TeardownDelete,
			},
			Workload: benchv1.WorkloadSpec{
				Warehouses: 2,
				Duration:   &metav1.Duration{Duration: 60 * time.Second},
				RampUp:     &metav1.Duration{Duration: 10 * time.Second},
				Wait:       benchv1.WaitSpec,
			},
			Search: benchv1.SearchSpec{Mode: benchv1.SearchFixed},
			// One minute of 2 warehouses counts ~25 New-Orders: counting noise alone puts a healthy
			// database below the default 85 % efficiency in 11.5 % of steps, below 50 % in 0.0025 %
			// (the steady-state simulation of internal/tpcc, 200 000 steps). These runs test the
			// operator, so the bound is 50 %, as the suite case's.
			//
			// The latency bounds are New-Order's and Payment's: such a step completes about two of
			// each 4 % type, none in one step of eight (Poisson), and a bound without a sample
			// cannot be judged (the step would be inconclusive and retried). A run that bounds them
			// needs longer steps or more warehouses (the demo: 10 warehouses, 2-minute steps).
			SLA: benchv1.SLASpec{MinEfficiencyPercent: ptr(int32(50)), Latency: []benchv1.LatencyBound{
				{Transaction: benchv1.NewOrder, Percentile: "90", Max: metav1.Duration{Duration: 5 * time.Second}},
				{Transaction: benchv1.Payment, Percentile: "90", Max: metav1.Duration{Duration: 5 * time.Second}},
			}},
		},
	}
	run.Spec.Database.Postgres.Storage.Size = resource.MustParse("1Gi")
	return run
}

// oneInstance makes a run's PostgreSQL a single instance: for a case whose subject is not
// replication (the restart case), a database that comes up in a third of the time and CPU.
func oneInstance(run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
	run.Spec.Database.Postgres.Instances = 1
	run.Spec.Database.Postgres.SynchronousReplicas = ptr(int32(0))
	run.Spec.Database.Postgres.SynchronousCommit = benchv1.SynchronousCommit("on")
	return run
}

// jobWatcher records every Job UID seen in a namespace, to prove no Job was ever created twice.
type jobWatcher struct {
	mu   sync.Mutex
	uids map[string]map[string]bool // Job name -> UIDs
}

func watchJobs(ctx context.Context, t *testing.T, namespace string) *jobWatcher {
	w := &jobWatcher{uids: map[string]map[string]bool{}}
	go func() {
		for ctx.Err() == nil {
			var jobs batchv1.JobList
			if err := k8s.List(ctx, &jobs, client.InNamespace(namespace)); err == nil {
				w.mu.Lock()
				for _, j := range jobs.Items {
					if w.uids[j.Name] == nil {
						w.uids[j.Name] = map[string]bool{}
					}
					w.uids[j.Name][string(j.UID)] = true
				}
				w.mu.Unlock()
			}
			time.Sleep(time.Second)
		}
	}()
	return w
}

func (w *jobWatcher) snapshot() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for name, uids := range w.uids {
		out[name] = len(uids)
	}
	return out
}

// waitFor polls the run until done returns true, failing after timeout or when the run fails.
func waitFor(t *testing.T, key client.ObjectKey, timeout time.Duration, what string, done func(*benchv1.BenchmarkRun) bool) *benchv1.BenchmarkRun {
	t.Helper()
	deadline := time.Now().Add(timeout)
	lastPhase := benchv1.Phase("")
	for {
		run := &benchv1.BenchmarkRun{}
		if err := k8s.Get(context.Background(), key, run); err != nil {
			t.Fatalf("reading %s: %v", key, err)
		}
		if run.Status.Phase != lastPhase {
			t.Logf("%s: phase %s", key.Name, run.Status.Phase)
			lastPhase = run.Status.Phase
		}
		if done(run) {
			return run
		}
		if run.Status.Phase == benchv1.PhaseFailed {
			t.Fatalf("%s failed while waiting for %s: %s", key.Name, what, conditionMessages(run))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no %s within %s; phase %s, %s", key.Name, what, timeout, run.Status.Phase, conditionMessages(run))
		}
		time.Sleep(3 * time.Second)
	}
}

func conditionMessages(run *benchv1.BenchmarkRun) string {
	var parts []string
	for _, c := range run.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, "; ")
}

// psql runs a query on a CloudNativePG instance pod through kubectl exec.
func psql(t *testing.T, namespace, pod, query string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, kubectl, "-n", namespace, "exec", pod, "-c", "postgres", "--",
		"psql", "-XAt", "-c", query).CombinedOutput()
	if err != nil {
		t.Fatalf("psql on %s: %v: %s", pod, err, out)
	}
	return strings.TrimSpace(string(out))
}

// dumpNamespace records what a failed case's namespace held. The long parts — the runs' YAML, the
// events, the manager's log — go to bin/e2e-dumps/NAMESPACE.txt; the test's log ends with the
// objects' table and each run's status in a few lines, so that a log cut to its last lines (a
// CI summary) still says how the runs stood, below the manager's log rather than buried by it.
func dumpNamespace(t *testing.T, namespace string) {
	kubectlOut := func(args ...string) string {
		out, _ := exec.Command(kubectl, args...).CombinedOutput()
		return string(out)
	}
	var dump strings.Builder
	for _, args := range [][]string{
		{"get", "benchmarkruns", "-o", "yaml"},
		{"get", "events", "--sort-by=.lastTimestamp"},
	} {
		fmt.Fprintf(&dump, "$ kubectl -n %s %s\n%s\n", namespace, strings.Join(args, " "), kubectlOut(append([]string{"-n", namespace}, args...)...))
	}
	fmt.Fprintf(&dump, "$ kubectl -n %s logs deploy/tpcc-operator-controller-manager --tail=400\n%s\n", operatorNamespace,
		kubectlOut("-n", operatorNamespace, "logs", "deploy/tpcc-operator-controller-manager", "--tail=400"))
	path := filepath.Join(repoRoot, "bin", "e2e-dumps", namespace+".txt")
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = os.WriteFile(path, []byte(dump.String()), 0o644)
	}
	if err != nil {
		t.Logf("writing %s: %v; the dump follows\n%s", path, err, dump.String())
	} else {
		t.Logf("the runs' YAML, the events and the manager's log: %s", path)
	}
	t.Logf("kubectl get -o wide:\n%s", kubectlOut("-n", namespace, "get", "benchmarksuites,benchmarkruns,clusters.postgresql.cnpg.io,jobs,pods,pvc", "-o", "wide"))
	var runs benchv1.BenchmarkRunList
	if err := k8s.List(context.Background(), &runs, client.InNamespace(namespace)); err != nil {
		t.Logf("listing the runs: %v", err)
	}
	for _, run := range runs.Items {
		t.Logf("run %s: phase %s; %s", run.Name, run.Status.Phase, conditionMessages(&run))
		for _, s := range run.Status.Steps {
			t.Logf("  step %d (%s, attempt %d): %d active warehouses, %s, tpmC %.1f, reasons %q",
				s.Index, s.Kind, s.Attempt, s.ActiveWarehouses, s.Verdict, s.TpmC, s.Reasons)
		}
		if r := run.Status.Result; r != nil {
			t.Logf("  result: %s", r.Message)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func isNotFound(err error) bool { return apierrors.IsNotFound(err) }
