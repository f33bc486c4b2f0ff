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

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
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

// render runs `helm template` with --set arguments and returns its objects, or helm's error output.
func render(t *testing.T, sets ...string) ([]*unstructured.Unstructured, error) {
	t.Helper()
	helm, _ := tools(t)
	args := []string{"template", release, chartDir, "--namespace", namespace}
	for _, s := range sets {
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

// TestChartDefaultsMatchKustomize: `helm install tpcc-operator -n tpcc-operator-system` and
// `kubectl apply -k config/default` create the same objects with the same content; the chart
// only adds its labels and leaves the namespace to `--create-namespace`.
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
	for _, crdName := range []string{"benchmarkruns", "benchmarksuites"} {
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
				want := []string{"--leader-elect", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081"}
				if got := args(t, objs); !reflect.DeepEqual(got, want) {
					t.Errorf("args = %v, want %v", got, want)
				}
				if len(ofKind(objs, "ClusterRoleBinding")) != 1 || len(ofKind(objs, "RoleBinding")) != 1 {
					t.Errorf("want one ClusterRoleBinding and the leader-election RoleBinding")
				}
			},
		},
		{
			name: "images for a local cluster",
			sets: []string{"image.repository=localhost/tpcc-operator/manager", "image.tag=abc", "image.pullPolicy=Never",
				"clientImage.repository=localhost/tpcc-operator/tpcc", "clientImage.tag=abc", "clientImage.pullPolicy=Never",
				"databaseImages.postgres=localhost/cnpg/postgresql:15.18-bookworm"},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				c := managerContainer(t, objs)
				if c["image"] != "localhost/tpcc-operator/manager:abc" || c["imagePullPolicy"] != "Never" {
					t.Errorf("manager image %v policy %v", c["image"], c["imagePullPolicy"])
				}
				got := strings.Join(args(t, objs), " ")
				for _, want := range []string{"--client-image=localhost/tpcc-operator/tpcc:abc", "--image-pull-policy=Never", "--postgres-image=localhost/cnpg/postgresql:15.18-bookworm"} {
					if !strings.Contains(got, want) {
						t.Errorf("args %q lack %s", got, want)
					}
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

func TestChartRejectsBadValues(t *testing.T) {
	tests := []struct {
		name    string
		sets    []string
		wantErr string
	}{
		{"unknown pull policy", []string{"image.pullPolicy=Sometimes"}, "/image/pullPolicy"},
		{"client image without tag", []string{"clientImage.repository=localhost/tpcc"}, "clientImage.tag: required"},
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
	data, err := os.ReadFile(generatedRolePath)
	if err != nil {
		t.Fatal(err)
	}
	generated := find(decode(t, data), "ClusterRole", "manager-role")
	if generated == nil {
		t.Fatal("config/rbac/role.yaml has no ClusterRole manager-role")
	}
	chartRole := find(mustRender(t), "ClusterRole", release+"-manager-role")
	if chartRole == nil {
		t.Fatal("the chart renders no manager ClusterRole")
	}
	if g, w := field(t, chartRole, "rules"), field(t, generated, "rules"); !reflect.DeepEqual(g, w) {
		t.Errorf("chart rules differ from config/rbac/role.yaml (update charts/tpcc-operator/templates/rbac.yaml):\nchart:     %v\ngenerated: %v", g, w)
	}
}
