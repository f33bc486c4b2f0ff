// Package charts_test renders the Helm chart with a real helm binary (built from its Go module by
// hack/cluster/helm.sh, or $HELM) and checks what it produces, including that its defaults install
// the same operator as the kustomize config/default (rendered by kubectl's kustomize).
package charts_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
)

const (
	chartDir  = "tpcc-operator"
	release   = "tpcc-operator"
	namespace = "tpcc-operator-system"
)

var (
	toolsOnce          sync.Once
	helmPath, kubectl  string
	errTools           error
	repoRoot, _        = filepath.Abs("..")
	generatedRolePath  = filepath.Join(repoRoot, "config/rbac/role.yaml")
	kustomizeDirectory = filepath.Join(repoRoot, "config/default")
)

// tools finds helm and kubectl the way the Makefile does: built from source and cached on first use.
func tools(t *testing.T) (string, string) {
	t.Helper()
	toolsOnce.Do(func() {
		out, err := exec.Command(filepath.Join(repoRoot, "hack/cluster/helm.sh")).Output()
		if err != nil {
			errTools = fmt.Errorf("hack/cluster/helm.sh: %w%s", err, stderr(err))
			return
		}
		helmPath = strings.TrimSpace(string(out))
		if kubectl = os.Getenv("KUBECTL"); kubectl != "" {
			return
		}
		out, err = exec.Command(filepath.Join(repoRoot, "hack/k8s-bins.sh"), "kubectl").Output()
		if err != nil {
			errTools = fmt.Errorf("hack/k8s-bins.sh kubectl: %w%s", err, stderr(err))
			return
		}
		kubectl = filepath.Join(strings.TrimSpace(string(out)), "kubectl")
	})
	if errTools != nil {
		t.Fatal(errTools)
	}
	return helmPath, kubectl
}

func stderr(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return ": " + strings.TrimSpace(string(exit.Stderr))
	}
	return ""
}

// baseline is what every render sets first (a later --set of the same key wins): the image prefix,
// which has no default, as config/default names the images.
var baseline = []string{"image.prefix=tpcc-operator"}

// render runs `helm template` with --set arguments and returns its objects, or helm's error output.
func render(t *testing.T, sets ...string) ([]*unstructured.Unstructured, error) {
	t.Helper()
	helm, _ := tools(t)
	args := []string{"template", release, chartDir, "--namespace", namespace}
	for _, s := range append(append([]string(nil), baseline...), sets...) {
		args = append(args, "--set", s)
	}
	cmd := exec.Command(helm, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: %s", err, errOut.String())
	}
	return decode(t, out.Bytes()), nil
}

func mustRender(t *testing.T, sets ...string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := render(t, sets...)
	if err != nil {
		t.Fatalf("helm template %v: %v", sets, err)
	}
	return objs
}

func decode(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); err != nil {
			if err == io.EOF {
				return objs
			}
			t.Fatalf("decoding rendered YAML: %v", err)
		}
		if len(obj) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: obj})
		}
	}
}

func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

func ofKind(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

func managerContainer(t *testing.T, objs []*unstructured.Unstructured) map[string]any {
	t.Helper()
	deploy := find(objs, "Deployment", release+"-controller-manager")
	if deploy == nil {
		t.Fatal("no Deployment tpcc-operator-controller-manager")
	}
	containers, _, _ := unstructured.NestedSlice(deploy.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("want one container, got %d", len(containers))
	}
	return containers[0].(map[string]any)
}

func containerEnv(c map[string]any) map[string]string {
	out := map[string]string{}
	list, _, _ := unstructured.NestedSlice(c, "env")
	for _, e := range list {
		m := e.(map[string]any)
		out[fmt.Sprint(m["name"])] = fmt.Sprint(m["value"])
	}
	return out
}

func args(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	list, _, _ := unstructured.NestedStringSlice(managerContainer(t, objs), "args")
	return list
}

func field(t *testing.T, obj *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, found, err := unstructured.NestedFieldNoCopy(obj.Object, path...)
	if err != nil || !found {
		t.Fatalf("%s %s has no %s", obj.GetKind(), obj.GetName(), strings.Join(path, "."))
	}
	return v
}

// TestChartDefaultsMatchKustomize: `helm install tpcc-operator -n tpcc-operator-system --set
// image.prefix=tpcc-operator` and `kubectl apply -k config/default` create the same objects with
// the same content — both images named by one prefix and tag —; the chart only adds its labels
// and leaves the namespace to `--create-namespace`.
func TestChartDefaultsMatchKustomize(t *testing.T) {
	_, kubectlPath := tools(t)
	out, err := exec.Command(kubectlPath, "kustomize", kustomizeDirectory).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize config/default: %v%s", err, stderr(err))
	}
	kustomized := decode(t, out)
	chart := mustRender(t)

	for _, want := range kustomized {
		if want.GetKind() == "Namespace" {
			continue
		}
		got := find(chart, want.GetKind(), want.GetName())
		if got == nil {
			t.Errorf("the chart lacks %s %s", want.GetKind(), want.GetName())
			continue
		}
		if got.GetNamespace() != want.GetNamespace() {
			t.Errorf("%s %s: namespace %q, kustomize %q", want.GetKind(), want.GetName(), got.GetNamespace(), want.GetNamespace())
		}
		var paths [][]string
		switch want.GetKind() {
		case "CustomResourceDefinition":
			paths = [][]string{{"spec"}}
		case "ClusterRole", "Role":
			paths = [][]string{{"rules"}}
		case "ClusterRoleBinding", "RoleBinding":
			paths = [][]string{{"roleRef"}, {"subjects"}}
		case "ServiceAccount":
		case "Deployment":
			paths = [][]string{{"spec", "replicas"}, {"spec", "template", "spec"}}
		case "Service":
			paths = [][]string{{"spec", "ports"}}
		default:
			t.Errorf("kustomize renders a %s the test does not compare: extend the test", want.GetKind())
		}
		for _, p := range paths {
			if g, w := field(t, got, p...), field(t, want, p...); !reflect.DeepEqual(g, w) {
				t.Errorf("%s %s .%s differs:\nchart:     %v\nkustomize: %v", want.GetKind(), want.GetName(), strings.Join(p, "."), g, w)
			}
		}
	}
	for _, got := range chart {
		if find(kustomized, got.GetKind(), got.GetName()) == nil {
			t.Errorf("the chart renders %s %s, which config/default does not", got.GetKind(), got.GetName())
		}
	}

	// The Service selects the Deployment's pods.
	service := find(chart, "Service", release+"-controller-manager-metrics")
	deploy := find(chart, "Deployment", release+"-controller-manager")
	selector, _, _ := unstructured.NestedStringMap(service.Object, "spec", "selector")
	podLabels, _, _ := unstructured.NestedStringMap(deploy.Object, "spec", "template", "metadata", "labels")
	for k, v := range selector {
		if podLabels[k] != v {
			t.Errorf("Service selector %s=%s does not match the pods' labels %v", k, v, podLabels)
		}
	}
}

// TestChartCRDIsTheGeneratedOne: the chart ships controller-gen's CRDs unchanged.
func TestChartCRDIsTheGeneratedOne(t *testing.T) {
	for _, crdName := range []string{"benchmarkruns", "benchmarksuites", "networkfaults"} {
		generated := filepath.Join(repoRoot, "config/crd/bases/bench.oltp.io_"+crdName+".yaml")
		shipped := filepath.Join(chartDir, "files/bench.oltp.io_"+crdName+".yaml")
		want, err := os.ReadFile(generated)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(shipped)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("charts/%s differs from %s: after `make manifests`, copy it: cp %s charts/%s", shipped, generated, generated, shipped)
		}
		crd := find(mustRender(t), "CustomResourceDefinition", crdName+".bench.oltp.io")
		if crd == nil {
			t.Fatalf("the chart renders no %s CRD", crdName)
		}
		if crd.GetAnnotations()["helm.sh/resource-policy"] != "keep" {
			t.Errorf("CRD annotations %v: want helm.sh/resource-policy=keep, so uninstalling keeps recorded runs", crd.GetAnnotations())
		}
		if _, ok := crd.GetAnnotations()["controller-gen.kubebuilder.io/version"]; !ok {
			t.Errorf("CRD annotations %v lost controller-gen's", crd.GetAnnotations())
		}
	}
}

func TestChartValues(t *testing.T) {
	tests := []struct {
		name  string
		sets  []string
		check func(t *testing.T, objs []*unstructured.Unstructured)
	}{
		{
			name: "defaults: leader election, all namespaces, the manager's own client image",
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				want := []string{"--leader-elect", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081",
					"--client-network-policy", "--operator-pod-labels=app.kubernetes.io/name=tpcc-operator,app.kubernetes.io/component=manager"}
				if got := args(t, objs); !reflect.DeepEqual(got, want) {
					t.Errorf("args = %v, want %v", got, want)
				}
				if len(ofKind(objs, "ClusterRoleBinding")) != 1 || len(ofKind(objs, "RoleBinding")) != 1 {
					t.Errorf("want one ClusterRoleBinding and the leader-election RoleBinding")
				}
			},
		},
		{
			name: "one image prefix and tag name both images",
			sets: []string{"image.prefix=registry.example.com:5000/team/tpcc-operator/", "image.tag=0.1.0", "image.pullPolicy=Always",
				"databaseImages.postgres=localhost/cnpg/postgresql:15.18-bookworm"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				c := managerContainer(t, objs)
				if c["image"] != "registry.example.com:5000/team/tpcc-operator/manager:0.1.0" || c["imagePullPolicy"] != "Always" {
					t.Errorf("manager image %v policy %v", c["image"], c["imagePullPolicy"])
				}
				if env := containerEnv(c); env["TPCC_CLIENT_IMAGE"] != "registry.example.com:5000/team/tpcc-operator/tpcc:0.1.0" || env["TPCC_IMAGE_PULL_POLICY"] != "Always" {
					t.Errorf("manager env %v: want the client image beside the manager's, same policy", env)
				}
				if got := strings.Join(args(t, objs), " "); !strings.Contains(got, "--image=PostgreSQL=localhost/cnpg/postgresql:15.18-bookworm") {
					t.Errorf("args %q lack --image=PostgreSQL=…", got)
				}
			},
		},
		{
			name: "the storage calibration's runtime, or none",
			sets: []string{"storageCalibration.runtime=0s"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				if got := strings.Join(args(t, objs), " "); !strings.Contains(got, "--storage-calibration=0s") {
					t.Errorf("args %q lack --storage-calibration=0s", got)
				}
			},
		},
		{
			name: "the tag defaults to the chart's appVersion",
			sets: []string{"image.prefix=localhost/tpcc-operator"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				chart, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				appVersion := strings.Trim(strings.TrimSpace(strings.SplitN(strings.SplitN(string(chart), "appVersion:", 2)[1], "\n", 2)[0]), `"`)
				if c := managerContainer(t, objs); c["image"] != "localhost/tpcc-operator/manager:"+appVersion {
					t.Errorf("manager image %v, want tag %s", c["image"], appVersion)
				}
			},
		},
		{
			name: "a default results database",
			sets: []string{"results.secretName=results-app"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				if got := strings.Join(args(t, objs), " "); !strings.Contains(got, "--results-secret=results-app/uri") {
					t.Errorf("args %q lack --results-secret=results-app/uri", got)
				}
			},
		},
		{
			name: "watched namespaces: the flag, and permissions in those namespaces only",
			sets: []string{"watchNamespaces={team-a,team-b}"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				if got := strings.Join(args(t, objs), " "); !strings.Contains(got, "--namespaces=team-a,team-b") {
					t.Errorf("args %q lack --namespaces=team-a,team-b", got)
				}
				if n := len(ofKind(objs, "ClusterRoleBinding")); n != 0 {
					t.Errorf("%d ClusterRoleBindings, want none", n)
				}
				namespaces := map[string]bool{}
				for _, rb := range ofKind(objs, "RoleBinding") {
					if rb.GetName() == release+"-manager-rolebinding" {
						namespaces[rb.GetNamespace()] = true
					}
				}
				if !namespaces["team-a"] || !namespaces["team-b"] || len(namespaces) != 2 {
					t.Errorf("manager RoleBindings in %v, want team-a and team-b", namespaces)
				}
			},
		},
		{
			name: "network policy by default: the manager makes one per run, admitting its own pods",
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				// --operator-pod-labels selects the Deployment's pods, and POD_NAMESPACE is theirs.
				podLabels := managerPodLabels(t, objs)
				flag := strings.TrimPrefix(args(t, objs)[4], "--operator-pod-labels=")
				for _, kv := range strings.Split(flag, ",") {
					k, v, _ := strings.Cut(kv, "=")
					if podLabels[k] != v {
						t.Errorf("--operator-pod-labels %s=%s does not select the manager's pods %v", k, v, podLabels)
					}
				}
				env, _, _ := unstructured.NestedSlice(managerContainer(t, objs), "env")
				want := map[string]any{"name": "POD_NAMESPACE", "valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.namespace"}}}
				if len(env) == 0 || !reflect.DeepEqual(env[0], want) {
					t.Errorf("env %v, want POD_NAMESPACE from the pod's namespace first", env)
				}
				if n := len(ofKind(objs, "NetworkPolicy")); n != 0 {
					t.Errorf("%d NetworkPolicies without watchNamespaces: the chart cannot know the runs' namespaces", n)
				}
			},
		},
		{
			name: "network policy in each watched namespace admits only the manager to the client pods' port",
			sets: []string{"watchNamespaces={team-a,team-b}"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				policies := ofKind(objs, "NetworkPolicy")
				if len(policies) != 2 || policies[0].GetNamespace() != "team-a" || policies[1].GetNamespace() != "team-b" {
					t.Fatalf("NetworkPolicies %v, want one in team-a and one in team-b", policies)
				}
				for _, np := range policies {
					if np.GetName() != release+"-client-ingress" {
						t.Errorf("NetworkPolicy %s", np.GetName())
					}
					checkClientPolicy(t, np, managerPodLabels(t, objs))
				}
			},
		},
		{
			name: "network policy off: neither the flag nor the policies",
			sets: []string{"networkPolicy.enabled=false", "watchNamespaces={team-a}"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				if got := strings.Join(args(t, objs), " "); strings.Contains(got, "network-policy") || strings.Contains(got, "operator-pod-labels") {
					t.Errorf("args %q", got)
				}
				if n := len(ofKind(objs, "NetworkPolicy")); n != 0 {
					t.Errorf("%d NetworkPolicies rendered although disabled", n)
				}
			},
		},
		{
			name: "leader election off",
			sets: []string{"leaderElection.enabled=false"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				if got := strings.Join(args(t, objs), " "); strings.Contains(got, "--leader-elect") {
					t.Errorf("args %q still elect a leader", got)
				}
				if find(objs, "Role", release+"-leader-election-role") != nil {
					t.Error("the leader election Role is still rendered")
				}
			},
		},
		{
			name: "resources, extra flags, no metrics Service, CRD left out",
			sets: []string{"resources.limits.memory=1Gi", "extraArgs={--poll-interval=5s}", "metrics.service.enabled=false", "crds.install=false"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				limit, _, _ := unstructured.NestedString(managerContainer(t, objs), "resources", "limits", "memory")
				if limit != "1Gi" {
					t.Errorf("memory limit %q, want 1Gi", limit)
				}
				if got := args(t, objs); got[len(got)-1] != "--poll-interval=5s" {
					t.Errorf("args %v do not end with the extra flag", got)
				}
				if len(ofKind(objs, "Service")) != 0 || len(ofKind(objs, "CustomResourceDefinition")) != 0 {
					t.Error("Service or CRD rendered although disabled")
				}
			},
		},
		{
			name: "defaults: no ServiceMonitor, no dashboard, no metrics RBAC",
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				if n := len(ofKind(objs, "ServiceMonitor")) + len(ofKind(objs, "ConfigMap")); n != 0 {
					t.Errorf("%d ServiceMonitors or ConfigMaps rendered by default", n)
				}
				for _, name := range []string{"-metrics-auth-role", "-metrics-reader"} {
					if find(objs, "ClusterRole", release+name) != nil {
						t.Errorf("ClusterRole %s%s rendered without metrics.secure", release, name)
					}
				}
			},
		},
		{
			name: "ServiceMonitor over HTTP selects the metrics Service",
			sets: []string{"metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.labels.release=kube-prometheus-stack"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				sm := find(objs, "ServiceMonitor", release+"-controller-manager-metrics")
				service := find(objs, "Service", release+"-controller-manager-metrics")
				if sm == nil || service == nil {
					t.Fatal("no ServiceMonitor or no metrics Service")
				}
				if sm.GetAPIVersion() != "monitoring.coreos.com/v1" || sm.GetNamespace() != namespace || sm.GetLabels()["release"] != "kube-prometheus-stack" {
					t.Errorf("ServiceMonitor %s in %q, labels %v", sm.GetAPIVersion(), sm.GetNamespace(), sm.GetLabels())
				}
				selector, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
				for k, v := range selector {
					if service.GetLabels()[k] != v {
						t.Errorf("ServiceMonitor selector %s=%s does not match the Service's labels %v", k, v, service.GetLabels())
					}
				}
				namespaces, _, _ := unstructured.NestedStringSlice(sm.Object, "spec", "namespaceSelector", "matchNames")
				if !reflect.DeepEqual(namespaces, []string{namespace}) {
					t.Errorf("namespaceSelector %v, want the release namespace", namespaces)
				}
				endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
				ports, _, _ := unstructured.NestedSlice(service.Object, "spec", "ports")
				if len(endpoints) != 1 || len(ports) != 1 {
					t.Fatalf("endpoints %v, Service ports %v", endpoints, ports)
				}
				ep, port := endpoints[0].(map[string]any), ports[0].(map[string]any)
				if ep["port"] != port["name"] || ep["scheme"] != "http" || ep["path"] != "/metrics" || ep["interval"] != "30s" {
					t.Errorf("endpoint %v, Service port %v", ep, port)
				}
				if _, ok := ep["bearerTokenFile"]; ok {
					t.Error("a token is sent to a plain HTTP endpoint")
				}
			},
		},
		{
			name: "secure metrics: HTTPS with a token, the manager's TokenReview/SubjectAccessReview role, a reader role bound to Prometheus",
			sets: []string{"metrics.secure=true", "metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.namespace=monitoring",
				"metrics.readerSubjects[0].kind=ServiceAccount", "metrics.readerSubjects[0].name=prometheus", "metrics.readerSubjects[0].namespace=monitoring"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				if got := strings.Join(args(t, objs), " "); !strings.Contains(got, "--metrics-secure") {
					t.Errorf("args %q lack --metrics-secure", got)
				}
				sm := find(objs, "ServiceMonitor", release+"-controller-manager-metrics")
				if sm == nil || sm.GetNamespace() != "monitoring" {
					t.Fatalf("ServiceMonitor %v, want it in monitoring", sm)
				}
				endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
				ep := endpoints[0].(map[string]any)
				skip, _, _ := unstructured.NestedBool(ep, "tlsConfig", "insecureSkipVerify")
				if ep["scheme"] != "https" || ep["bearerTokenFile"] != "/var/run/secrets/kubernetes.io/serviceaccount/token" || !skip {
					t.Errorf("endpoint %v", ep)
				}
				rules := func(name string) []any {
					role := find(objs, "ClusterRole", release+name)
					if role == nil {
						t.Fatalf("no ClusterRole %s%s", release, name)
					}
					list, _, _ := unstructured.NestedSlice(role.Object, "rules")
					return list
				}
				wantAuth := []any{
					map[string]any{"apiGroups": []any{"authentication.k8s.io"}, "resources": []any{"tokenreviews"}, "verbs": []any{"create"}},
					map[string]any{"apiGroups": []any{"authorization.k8s.io"}, "resources": []any{"subjectaccessreviews"}, "verbs": []any{"create"}},
				}
				if got := rules("-metrics-auth-role"); !reflect.DeepEqual(got, wantAuth) {
					t.Errorf("metrics-auth-role rules %v", got)
				}
				wantReader := []any{map[string]any{"nonResourceURLs": []any{"/metrics"}, "verbs": []any{"get"}}}
				if got := rules("-metrics-reader"); !reflect.DeepEqual(got, wantReader) {
					t.Errorf("metrics-reader rules %v", got)
				}
				for name, subject := range map[string]map[string]any{
					"-metrics-auth-rolebinding": {"kind": "ServiceAccount", "name": release + "-controller-manager", "namespace": namespace},
					"-metrics-reader":           {"kind": "ServiceAccount", "name": "prometheus", "namespace": "monitoring"},
				} {
					binding := find(objs, "ClusterRoleBinding", release+name)
					if binding == nil {
						t.Fatalf("no ClusterRoleBinding %s%s", release, name)
					}
					subjects, _, _ := unstructured.NestedSlice(binding.Object, "subjects")
					if len(subjects) != 1 || !reflect.DeepEqual(subjects[0], subject) {
						t.Errorf("ClusterRoleBinding %s%s subjects %v, want %v", release, name, subjects, subject)
					}
				}
			},
		},
		{
			name: "Grafana dashboard: a ConfigMap with the sidecar label and the dashboard file",
			sets: []string{"grafana.dashboard.enabled=true", "grafana.dashboard.namespace=grafana", "grafana.dashboard.annotations.grafana_folder=Benchmarks"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				cm := find(objs, "ConfigMap", release+"-dashboard")
				if cm == nil {
					t.Fatal("no dashboard ConfigMap")
				}
				if cm.GetNamespace() != "grafana" || cm.GetLabels()["grafana_dashboard"] != "1" || cm.GetAnnotations()["grafana_folder"] != "Benchmarks" {
					t.Errorf("ConfigMap in %q, labels %v, annotations %v", cm.GetNamespace(), cm.GetLabels(), cm.GetAnnotations())
				}
				want, err := os.ReadFile(filepath.Join(chartDir, "files/dashboard.json"))
				if err != nil {
					t.Fatal(err)
				}
				data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
				if strings.TrimSpace(data["tpcc-operator.json"]) != strings.TrimSpace(string(want)) {
					t.Error("the ConfigMap's tpcc-operator.json differs from files/dashboard.json")
				}
				if len(ofKind(objs, "ServiceMonitor")) != 0 {
					t.Error("a ServiceMonitor rendered although disabled")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, mustRender(t, tt.sets...))
		})
	}
}

// managerPodLabels are the labels of the Deployment's pods.
func managerPodLabels(t *testing.T, objs []*unstructured.Unstructured) map[string]string {
	t.Helper()
	deploy := find(objs, "Deployment", release+"-controller-manager")
	labels, _, _ := unstructured.NestedStringMap(deploy.Object, "spec", "template", "metadata", "labels")
	return labels
}

// checkClientPolicy: the policy selects a real step's client pods (and not the loader's), isolates
// them for ingress only, and admits only pods with the manager's labels in the release namespace,
// on the snapshot port.
func checkClientPolicy(t *testing.T, np *unstructured.Unstructured, managerLabels map[string]string) {
	t.Helper()
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: np.GetNamespace(), Name: "r"},
		Spec: benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}, Workload: benchv1.WorkloadSpec{Warehouses: 10}}}
	conn := engines.Connection{Engine: "postgres", URL: "postgres://h/db"}
	clientPods := jobs.StepJob(run, 0, 10, 0, conn, jobs.Config{}).Spec.Template.Labels
	loaderPods := jobs.LoaderJob(run, conn, 0, jobs.Config{}).Spec.Template.Labels
	selector, _, _ := unstructured.NestedStringMap(np.Object, "spec", "podSelector", "matchLabels")
	selects := func(labels map[string]string) bool {
		for k, v := range selector {
			if labels[k] != v {
				return false
			}
		}
		return len(selector) > 0
	}
	if !selects(clientPods) || selects(loaderPods) {
		t.Errorf("podSelector %v: selects client pods %v: %v, loader pods %v: %v; want only the clients", selector, clientPods, selects(clientPods), loaderPods, selects(loaderPods))
	}
	types, _, _ := unstructured.NestedStringSlice(np.Object, "spec", "policyTypes")
	if !reflect.DeepEqual(types, []string{"Ingress"}) {
		t.Errorf("policyTypes %v, want [Ingress]: egress to the database stays open", types)
	}
	ingress, _, _ := unstructured.NestedSlice(np.Object, "spec", "ingress")
	if len(ingress) != 1 {
		t.Fatalf("ingress %v, want one rule", ingress)
	}
	rule := ingress[0].(map[string]any)
	from, _ := rule["from"].([]any)
	ports, _ := rule["ports"].([]any)
	if len(from) != 1 || len(ports) != 1 {
		t.Fatalf("rule %v: want one peer and one port", rule)
	}
	peer := from[0].(map[string]any)
	ns, _, _ := unstructured.NestedStringMap(peer, "namespaceSelector", "matchLabels")
	pods, _, _ := unstructured.NestedStringMap(peer, "podSelector", "matchLabels")
	if !reflect.DeepEqual(ns, map[string]string{"kubernetes.io/metadata.name": namespace}) || len(pods) == 0 {
		t.Errorf("peer %v: want the release namespace and the manager's pod labels", peer)
	}
	for k, v := range pods {
		if managerLabels[k] != v {
			t.Errorf("peer podSelector %s=%s does not select the manager's pods %v", k, v, managerLabels)
		}
	}
	port := ports[0].(map[string]any)
	if fmt.Sprint(port["port"]) != fmt.Sprint(jobs.SnapshotPort) || port["protocol"] != "TCP" {
		t.Errorf("port %v, want TCP %d", port, jobs.SnapshotPort)
	}
}

// TestNetworkPolicyKustomizeMatchesTheChart: config/networkpolicy, for kustomize users, is the
// policy the chart renders into a watched namespace.
func TestNetworkPolicyKustomizeMatchesTheChart(t *testing.T) {
	_, kubectlPath := tools(t)
	out, err := exec.Command(kubectlPath, "kustomize", filepath.Join(repoRoot, "config/networkpolicy")).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize config/networkpolicy: %v%s", err, stderr(err))
	}
	kustomized := decode(t, out)
	chart := ofKind(mustRender(t, "watchNamespaces={team-a}"), "NetworkPolicy")
	if len(kustomized) != 1 || len(chart) != 1 {
		t.Fatalf("kustomize renders %d objects, the chart %d NetworkPolicies; want 1 and 1", len(kustomized), len(chart))
	}
	if kustomized[0].GetName() != chart[0].GetName() {
		t.Errorf("names: kustomize %s, chart %s", kustomized[0].GetName(), chart[0].GetName())
	}
	if g, w := field(t, chart[0], "spec"), field(t, kustomized[0], "spec"); !reflect.DeepEqual(g, w) {
		t.Errorf("spec differs:\nchart:     %v\nkustomize: %v", g, w)
	}
	// The manager of config/default is the one admitted.
	defaults, err := exec.Command(kubectlPath, "kustomize", kustomizeDirectory).Output()
	if err != nil {
		t.Fatal(err)
	}
	var managerLabels map[string]string
	for _, o := range decode(t, defaults) {
		if o.GetKind() == "Deployment" {
			managerLabels, _, _ = unstructured.NestedStringMap(o.Object, "spec", "template", "metadata", "labels")
			if o.GetNamespace() != namespace {
				t.Errorf("config/default's manager runs in %s, config/networkpolicy admits %s", o.GetNamespace(), namespace)
			}
		}
	}
	kustomized[0].SetNamespace("team-a")
	checkClientPolicy(t, kustomized[0], managerLabels)
}

func TestChartRejectsBadValues(t *testing.T) {
	tests := []struct {
		name    string
		sets    []string
		wantErr string
	}{
		{"unknown pull policy", []string{"image.pullPolicy=Sometimes"}, "/image/pullPolicy"},
		{"no image prefix: no public registry has the images", []string{"image.prefix="}, "image.prefix: required"},
		{"the values of earlier versions", []string{"image.repository=localhost/tpcc-operator/manager"}, "repository"},
		{"an image prefix with a tag", []string{"image.prefix=registry.example.com/tpcc:1.0"}, "/image/prefix"},
		{"several replicas without leader election", []string{"replicaCount=2", "leaderElection.enabled=false"}, "needs leaderElection.enabled"},
		{"namespace that is not a DNS label", []string{"watchNamespaces={Team_A}"}, "/watchNamespaces/0"},
		{"metrics port out of range", []string{"metrics.port=70000"}, "/metrics/port"},
		{"no service account to use", []string{"serviceAccount.create=false"}, "serviceAccount.name: required"},
		{"ServiceMonitor without the metrics Service", []string{"metrics.serviceMonitor.enabled=true", "metrics.service.enabled=false"}, "needs metrics.service.enabled"},
		{"reader ServiceAccount without namespace", []string{"metrics.secure=true", "metrics.readerSubjects[0].kind=ServiceAccount", "metrics.readerSubjects[0].name=prometheus"}, "needs its namespace"},
		{"results Secret that is no Secret name", []string{"results.secretName=Results_DB"}, "/results/secretName"},
		{"scrape interval that is no duration", []string{"metrics.serviceMonitor.interval=often"}, "/metrics/serviceMonitor/interval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := render(t, tt.sets...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("helm template %v: err = %v, want it to mention %q", tt.sets, err, tt.wantErr)
			}
		})
	}
}

// TestChartRBACIsTheGeneratedOne: the chart's ClusterRole grants exactly what controller-gen
// derived from the controller's markers.
func TestChartRBACIsTheGeneratedOne(t *testing.T) {
	generated := generatedRole(t)
	chartRole := find(mustRender(t), "ClusterRole", release+"-manager-role")
	if chartRole == nil {
		t.Fatal("the chart renders no manager ClusterRole")
	}
	if g, w := field(t, chartRole, "rules"), field(t, generated, "rules"); !reflect.DeepEqual(g, w) {
		t.Errorf("chart rules differ from config/rbac/role.yaml (update charts/tpcc-operator/templates/rbac.yaml):\nchart:     %v\ngenerated: %v", g, w)
	}
}

// TestKustomizeOverlaySetsBothImages: an overlay of config/default with one images entry per image
// (what config/default's comment shows) points the manager and the client image it passes to its
// pods (TPCC_CLIENT_IMAGE) at the pushed images.
func TestKustomizeOverlaySetsBothImages(t *testing.T) {
	_, kubectlPath := tools(t)
	dir := t.TempDir()
	base, err := filepath.Rel(dir, kustomizeDirectory)
	if err != nil {
		t.Fatal(err)
	}
	overlay := "resources: [" + base + "]\nimages:\n" +
		"- {name: tpcc-operator/manager, newName: registry.example.com/team/manager, newTag: 0.1.0}\n" +
		"- {name: tpcc-operator/tpcc, newName: registry.example.com/team/tpcc, newTag: 0.1.0}\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(overlay), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(kubectlPath, "kustomize", dir).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize: %v%s", err, stderr(err))
	}
	c := managerContainer(t, decode(t, out))
	if c["image"] != "registry.example.com/team/manager:0.1.0" {
		t.Errorf("manager image %v", c["image"])
	}
	if env := containerEnv(c); env["TPCC_CLIENT_IMAGE"] != "registry.example.com/team/tpcc:0.1.0" {
		t.Errorf("TPCC_CLIENT_IMAGE %q, want the overlay's client image", env["TPCC_CLIENT_IMAGE"])
	}
}

// TestCreatedResourcesCanBeReadBack: every kind the manager creates it must also be able to read,
// because it creates objects once and, when one of that name exists (a pass repeated after a
// restart), reads it to check it is the run's own (internal/kube CreateOwned). A kind
// granted create without get works until the manager restarts mid-run, then the run stalls on
// "forbidden" (the e2e's killed manager found it for NetworkPolicies). Events are written, never
// read back.
func TestCreatedResourcesCanBeReadBack(t *testing.T) {
	role := generatedRole(t)
	writeOnly := map[string]bool{"events": true}
	for _, r := range field(t, role, "rules").([]any) {
		rule := r.(map[string]any)
		verbs := map[string]bool{}
		for _, v := range rule["verbs"].([]any) {
			verbs[v.(string)] = true
		}
		if !verbs["create"] || verbs["get"] {
			continue
		}
		for _, res := range rule["resources"].([]any) {
			if !writeOnly[res.(string)] {
				t.Errorf("%v %s: create without get — a restarted manager cannot check that an existing one is the run's", rule["apiGroups"], res)
			}
		}
	}
}

// generatedRole is the manager's ClusterRole as controller-gen wrote it (config/rbac/role.yaml).
func generatedRole(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(generatedRolePath)
	if err != nil {
		t.Fatal(err)
	}
	role := find(decode(t, data), "ClusterRole", "manager-role")
	if role == nil {
		t.Fatal("config/rbac/role.yaml has no ClusterRole manager-role")
	}
	return role
}
