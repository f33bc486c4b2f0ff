package hack_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

// hack/uninstall.sh on an API server with every CRD (ours and the three database operators'), the
// operator's namespace, a database a run kept and a CloudNativePG Cluster no run made (a results
// database): a dry run lists what it deletes and changes nothing; with the database operators it
// refuses while that Cluster exists, and, told to go ahead, lists their removal too; run for real,
// it removes the operator's CRDs and namespace and leaves the databases.
func TestUninstall(t *testing.T) {
	kubectl := kubectlBinary(t)
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	c, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ns := range []string{"tpcc-operator-system", "bench"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	cluster := func(name string, labels map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("postgresql.cnpg.io/v1")
		u.SetKind("Cluster")
		u.SetNamespace("bench")
		u.SetName(name)
		u.SetLabels(labels)
		u.Object["spec"] = map[string]any{"instances": int64(1), "storage": map[string]any{"size": "1Gi"}}
		if err := c.Create(ctx, u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	kept := cluster("pg-db", map[string]string{"app.kubernetes.io/managed-by": "tpcc-operator", "bench.oltp.io/run": "pg"})
	results := cluster("results", nil)

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	// A helm that has the operator's release and records what it is asked.
	helmLog := filepath.Join(dir, "helm.log")
	helm := filepath.Join(dir, "helm")
	if err := os.WriteFile(helm, []byte("#!/bin/sh\necho \"$*\" >> "+helmLog+"\n[ \"$1 $2\" = \"status tpcc-operator\" ] && exit 0\n[ \"$1\" = status ] && exit 1\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	uninstall := func(vars ...string) (string, int) {
		cmd := exec.Command(filepath.Join(repoRoot, "hack/uninstall.sh"))
		cmd.Env = append(withoutEnv(os.Environ(), "KUBECONFIG", "DRY_RUN", "UNINSTALL_RETAINED", "UNINSTALL_DB_OPERATORS", "UNINSTALL_OTHER_DATABASES"),
			append([]string{"KUBECONFIG=" + kubeconfig, "KUBECTL=" + kubectl, "HELM=" + helm, "HOME=" + dir}, vars...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.String(), exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), 0
	}
	has := func(t *testing.T, out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
	}
	lacks := func(t *testing.T, out string, unwanted ...string) {
		t.Helper()
		for _, w := range unwanted {
			if strings.Contains(out, w) {
				t.Errorf("output has %q:\n%s", w, out)
			}
		}
	}
	before := settledObjects(t, env)

	t.Run("dry run", func(t *testing.T) {
		out, code := uninstall("DRY_RUN=1")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		has(t, out,
			"would run: "+kubectl+" delete benchmarksuites,benchmarkruns --all --all-namespaces --wait",
			"would run: "+helm+" uninstall tpcc-operator --namespace tpcc-operator-system --wait",
			"delete crd benchmarkruns.bench.oltp.io", "delete crd benchmarksuites.bench.oltp.io",
			"delete namespace tpcc-operator-system --wait=true",
			"UNINSTALL_RETAINED=1 deletes them", "Cluster bench/pg-db", "nothing was changed")
		lacks(t, out, "bench/results", "cnpg-1.29.1.yaml", "ydb.tech")
	})
	t.Run("database operators refused while a database no run made exists", func(t *testing.T) {
		out, code := uninstall("DRY_RUN=1", "UNINSTALL_DB_OPERATORS=1")
		if code != 3 {
			t.Fatalf("exit %d, want 3:\n%s", code, out)
		}
		has(t, out, "refusing", "Cluster bench/results", "Nothing was changed", "UNINSTALL_OTHER_DATABASES=1")
		lacks(t, out, "would run")
	})
	t.Run("everything", func(t *testing.T) {
		out, code := uninstall("DRY_RUN=1", "UNINSTALL_DB_OPERATORS=1", "UNINSTALL_OTHER_DATABASES=1", "UNINSTALL_RETAINED=1")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		has(t, out,
			"delete clusters.postgresql.cnpg.io,crdbclusters.crdb.cockroachlabs.com,storages.ydb.tech,databases.ydb.tech -A -l app.kubernetes.io/managed-by=tpcc-operator --wait",
			"delete --ignore-not-found -f https://raw.githubusercontent.com/cloudnative-pg/cloudnative-pg/v1.29.1/releases/cnpg-1.29.1.yaml",
			"cockroach-operator/v2.18.3/install/operator.yaml", "cockroach-operator/v2.18.3/install/crds.yaml",
			"customresourcedefinition.apiextensions.k8s.io/storages.ydb.tech", "customresourcedefinition.apiextensions.k8s.io/databases.ydb.tech")
	})
	if after := settledObjects(t, env); after != before {
		t.Errorf("a dry run changed the cluster:\n%s", diffLines(before, after))
	}

	t.Run("for real, the operator only", func(t *testing.T) {
		// envtest has no namespace controller: a namespace stays Terminating.
		out, code := uninstall("NAMESPACE_WAIT=false")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		log, err := os.ReadFile(helmLog)
		if err != nil || !strings.Contains(string(log), "uninstall tpcc-operator --namespace tpcc-operator-system --wait") {
			t.Errorf("helm was asked %q (%v), want the release uninstalled", log, err)
		}
		deadline := time.Now().Add(time.Minute)
		for _, name := range []string{"benchmarkruns.bench.oltp.io", "benchmarksuites.bench.oltp.io"} {
			for {
				err := c.Get(ctx, client.ObjectKey{Name: name}, &apiextensionsv1.CustomResourceDefinition{})
				if apierrors.IsNotFound(err) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("CRD %s still there: %v", name, err)
				}
				time.Sleep(time.Second)
			}
		}
		ns := &corev1.Namespace{}
		if err := c.Get(ctx, client.ObjectKey{Name: "tpcc-operator-system"}, ns); err == nil && ns.DeletionTimestamp.IsZero() {
			t.Error("namespace tpcc-operator-system is not being deleted")
		}
		for _, u := range []*unstructured.Unstructured{kept, results} {
			if err := c.Get(ctx, client.ObjectKeyFromObject(u), u.DeepCopy()); err != nil {
				t.Errorf("Cluster %s: %v, want it left", u.GetName(), err)
			}
		}
	})
}
