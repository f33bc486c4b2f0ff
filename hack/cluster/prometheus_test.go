package cluster_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestPrometheusManifest: prometheus.sh fills in the image and the operator's namespace; the pod
// meets the restricted Pod Security profile; Prometheus gets no RBAC (static targets) and scrapes
// the manager's metrics Service over HTTPS with its ServiceAccount token.
func TestPrometheusManifest(t *testing.T) {
	images := imagesDir(t)
	env, err := os.ReadFile(filepath.Join(images, "images.env"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(images, "images.env"), append(env, "PROMETHEUS_IMAGE=localhost/prometheus:3.16.0\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	objs := run(t, "./prometheus.sh", images, "ops")
	for _, o := range objs {
		if strings.HasPrefix(o.GetAPIVersion(), "rbac.authorization.k8s.io/") {
			t.Errorf("%s %s: static targets need no RBAC (the chart binds the metrics reader role)", o.GetKind(), o.GetName())
		}
	}
	ns := find(t, objs, "Namespace", "tpcc-monitoring")
	if ns.GetLabels()["pod-security.kubernetes.io/enforce"] != "restricted" {
		t.Errorf("namespace labels %v: want the restricted profile enforced", ns.GetLabels())
	}

	cm := find(t, objs, "ConfigMap", "prometheus-config")
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	var config struct {
		ScrapeConfigs []struct {
			JobName       string `json:"job_name"`
			Scheme        string `json:"scheme"`
			TLSConfig     map[string]any
			Authorization struct {
				CredentialsFile string `json:"credentials_file"`
			} `json:"authorization"`
			StaticConfigs []struct {
				Targets []string `json:"targets"`
			} `json:"static_configs"`
		} `json:"scrape_configs"`
	}
	if err := yaml.Unmarshal([]byte(data["prometheus.yml"]), &config); err != nil {
		t.Fatalf("prometheus.yml: %v", err)
	}
	if len(config.ScrapeConfigs) != 1 {
		t.Fatalf("scrape configs %+v, want one", config.ScrapeConfigs)
	}
	sc := config.ScrapeConfigs[0]
	if sc.Scheme != "https" || sc.Authorization.CredentialsFile != "/var/run/secrets/kubernetes.io/serviceaccount/token" ||
		len(sc.StaticConfigs) != 1 || !slices.Equal(sc.StaticConfigs[0].Targets, []string{"tpcc-operator-controller-manager-metrics.ops.svc:8080"}) {
		t.Errorf("scrape config %+v", sc)
	}

	deploy := find(t, objs, "Deployment", "prometheus")
	pod, _, _ := unstructured.NestedMap(deploy.Object, "spec", "template", "spec")
	if pod["serviceAccountName"] != "prometheus" {
		t.Errorf("service account %v", pod["serviceAccountName"])
	}
	restrictedPod(t, pod)
	c := localContainer(t, objs, "prometheus", "localhost/prometheus:3.16.0")
	if ro, _, _ := unstructured.NestedBool(c, "securityContext", "readOnlyRootFilesystem"); !ro {
		t.Errorf("container securityContext %v: want a read-only root filesystem", c["securityContext"])
	}
	svc := find(t, objs, "Service", "prometheus")
	if ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports"); len(ports) != 1 || fmt.Sprint(ports[0].(map[string]any)["port"]) != "9090" {
		t.Errorf("Service ports %v, want 9090 (the e2e queries it through the API server's service proxy)", ports)
	}
}
