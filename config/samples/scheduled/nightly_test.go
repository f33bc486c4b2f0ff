// Package scheduled holds the scheduled-runs example (nightly-suite.yaml, docs/results.md) and
// its test.
package scheduled

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

var (
	env *testenv.Env
	k8s client.Client
)

func TestMain(m *testing.M) {
	testenv.Main(m, func(e *testenv.Env, c client.Client) { env, k8s = e, c })
}

func decodeAll(t *testing.T, body []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(body), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// The example is accepted by the API server as it is (strict field validation, the CronJob's pod
// under the restricted Pod Security profile), and the command its pod runs — kubectl create -f on
// the ConfigMap's manifest, as the CronJob's ServiceAccount — creates a valid BenchmarkSuite each
// time, under a new name; the ServiceAccount can do nothing else.
func TestNightlySuiteExample(t *testing.T) {
	ctx := context.Background()
	body, err := os.ReadFile("nightly-suite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs := decodeAll(t, body)
	kinds := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		kinds[o.GetKind()] = o
		if err := k8s.Create(ctx, o, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
			t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	for _, kind := range []string{"Namespace", "ServiceAccount", "Role", "RoleBinding", "ConfigMap", "CronJob"} {
		if kinds[kind] == nil {
			t.Fatalf("the example has no %s", kind)
		}
	}

	cron := &batchv1.CronJob{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "bench", Name: "nightly-suite"}, cron); err != nil {
		t.Fatal(err)
	}
	podSpec := cron.Spec.JobTemplate.Spec.Template.Spec
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "nightly-suite-pod"}, Spec: podSpec}
	if err := k8s.Create(ctx, pod, client.DryRunAll); err != nil {
		t.Errorf("the CronJob's pod is refused under the restricted profile: %v", err)
	}
	c := podSpec.Containers[0]
	if strings.Join(c.Args, " ") != "create -f /manifests/suite.yaml" || c.VolumeMounts[0].MountPath != "/manifests" ||
		podSpec.Volumes[0].ConfigMap == nil || podSpec.Volumes[0].ConfigMap.Name != "nightly-suite" || cron.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent {
		t.Errorf("the CronJob's pod does not create the ConfigMap's suite: args %v, mounts %+v, volumes %+v, concurrency %s", c.Args, c.VolumeMounts, podSpec.Volumes, cron.Spec.ConcurrencyPolicy)
	}

	// kubectl create -f /manifests/suite.yaml, as the ServiceAccount, on two nights.
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "bench", Name: "nightly-suite"}, cm); err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:bench:" + podSpec.ServiceAccountName}
	as, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for range 2 {
		manifest := decodeAll(t, []byte(cm.Data["suite.yaml"]))
		if len(manifest) != 1 {
			t.Fatalf("suite.yaml holds %d objects", len(manifest))
		}
		u := manifest[0]
		u.SetNamespace("bench") // kubectl create -f in the pod's namespace
		if err := as.Create(ctx, u, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
			t.Fatalf("creating the night's suite as the CronJob's ServiceAccount: %v", err)
		}
		names[u.GetName()] = true
	}
	if len(names) != 2 {
		t.Errorf("two nights made suites %v: want two names", names)
	}
	list := &benchv1.BenchmarkSuiteList{}
	if err := k8s.List(ctx, list, client.InNamespace("bench"), client.MatchingLabels{"pipeline": "nightly"}); err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Items {
		if !strings.HasPrefix(s.Name, "nightly-") || s.Spec.Results == nil || s.Spec.Results.SecretRef.Name != "results-app" ||
			s.Spec.Baseline == nil || s.Spec.Baseline.MatchLabels["pipeline"] != "nightly" || s.Spec.Baseline.TolerancePercent != "5" || !s.Spec.RetainReports {
			t.Errorf("suite %s: %+v", s.Name, s.Spec)
		}
	}
	if len(list.Items) != 2 {
		t.Errorf("%d suites labelled pipeline=nightly, want 2", len(list.Items))
	}
	// Least privilege: it may not read, change or delete suites, nor create runs.
	if err := as.Delete(ctx, &list.Items[0]); !apierrors.IsForbidden(err) {
		t.Errorf("the ServiceAccount deleted a suite: %v", err)
	}
	if err := as.List(ctx, &benchv1.BenchmarkSuiteList{}, client.InNamespace("bench")); !apierrors.IsForbidden(err) {
		t.Errorf("the ServiceAccount listed suites: %v", err)
	}
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "x"},
		Spec: benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}, Workload: benchv1.WorkloadSpec{Warehouses: 1}}}
	if err := as.Create(ctx, run); !apierrors.IsForbidden(err) {
		t.Errorf("the ServiceAccount created a run: %v", err)
	}
}
