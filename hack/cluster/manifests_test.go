// Package cluster_test checks the scripts that patch upstream manifests for the offline cluster
// (cnpg.sh, local-path.sh) against the real manifests of the pinned module versions.
package cluster_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// moduleFile copies a file of a module version (from the module cache, downloaded through the
// proxy when missing) to dst.
func moduleFile(t *testing.T, module, file, dst string) {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", module, err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: no Dir in %s", module, out)
	}
	data, err := os.ReadFile(filepath.Join(info.Dir, file))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, script string, args ...string) []*unstructured.Unstructured {
	t.Helper()
	cmd := exec.Command(script, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v: %s", script, err, stderr.String())
	}
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); err == io.EOF {
			return objs
		} else if err != nil {
			t.Fatalf("%s printed invalid YAML: %v", script, err)
		}
		if len(obj) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: obj})
		}
	}
}

func imagesDir(t *testing.T) string {
	dir := t.TempDir()
	env := "BUSYBOX_IMAGE=localhost/busybox:debian\n" +
		"LOCAL_PATH_IMAGE=localhost/local-path-provisioner:v0.0.30\n" +
		"CNPG_OPERATOR_IMAGE=localhost/cnpg/cloudnative-pg:1.29.1\n" +
		"POSTGRES_IMAGE=localhost/cnpg/postgresql:15.18-bookworm\n"
	if err := os.WriteFile(filepath.Join(dir, "images.env"), []byte(env), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func deploymentContainer(t *testing.T, objs []*unstructured.Unstructured, name string) map[string]any {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == "Deployment" && o.GetName() == name {
			containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			return containers[0].(map[string]any)
		}
	}
	t.Fatalf("no Deployment %s", name)
	return nil
}

func TestCNPGManifestRunsLocalImages(t *testing.T) {
	images := imagesDir(t)
	moduleFile(t, "github.com/cloudnative-pg/cloudnative-pg@v1.29.1", "releases/cnpg-1.29.1.yaml", filepath.Join(images, "cnpg.upstream.yaml"))
	objs := run(t, "./cnpg.sh", images)
	if len(objs) < 20 {
		t.Fatalf("%d objects, want the whole release (CRDs, RBAC, webhooks, Deployment)", len(objs))
	}
	c := deploymentContainer(t, objs, "cnpg-controller-manager")
	if c["image"] != "localhost/cnpg/cloudnative-pg:1.29.1" || c["imagePullPolicy"] != "IfNotPresent" {
		t.Errorf("operator image %v, pull policy %v", c["image"], c["imagePullPolicy"])
	}
	env := map[string]string{}
	list, _, _ := unstructured.NestedSlice(c, "env")
	for _, e := range list {
		m := e.(map[string]any)
		if v, ok := m["value"].(string); ok {
			env[m["name"].(string)] = v
		}
	}
	// The instance pods' bootstrap container runs OPERATOR_IMAGE_NAME; runs naming no image get POSTGRES_IMAGE_NAME.
	if env["OPERATOR_IMAGE_NAME"] != "localhost/cnpg/cloudnative-pg:1.29.1" || env["POSTGRES_IMAGE_NAME"] != "localhost/cnpg/postgresql:15.18-bookworm" {
		t.Errorf("env = %v", env)
	}
}

func TestCNPGManifestPatchFailsLoudlyOnUpstreamDrift(t *testing.T) {
	images := imagesDir(t)
	if err := os.WriteFile(filepath.Join(images, "cnpg.upstream.yaml"), []byte("kind: Deployment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("./cnpg.sh", images).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ghcr.io/cloudnative-pg/cloudnative-pg:") {
		t.Fatalf("err = %v, output %q: want a failure naming the line that is gone", err, out)
	}
}

func TestLocalPathManifestIsOfflineAndDefault(t *testing.T) {
	images := imagesDir(t)
	moduleFile(t, "github.com/rancher/local-path-provisioner@v0.0.30", "deploy/local-path-storage.yaml", filepath.Join(images, "local-path-storage.upstream.yaml"))
	objs := run(t, "./local-path.sh", images, "/volumes/here")
	c := deploymentContainer(t, objs, "local-path-provisioner")
	if c["image"] != "localhost/local-path-provisioner:v0.0.30" {
		t.Errorf("provisioner image %v", c["image"])
	}
	var storageClass, config *unstructured.Unstructured
	for _, o := range objs {
		switch o.GetKind() {
		case "StorageClass":
			storageClass = o
		case "ConfigMap":
			config = o
		}
	}
	if storageClass == nil || storageClass.GetAnnotations()["storageclass.kubernetes.io/is-default-class"] != "true" {
		t.Fatalf("StorageClass %v is not the default", storageClass)
	}
	data, _, _ := unstructured.NestedStringMap(config.Object, "data")
	if !strings.Contains(data["config.json"], `"/volumes/here"`) || strings.Contains(data["config.json"], "/opt/local-path-provisioner") {
		t.Errorf("config.json = %s, want the volumes under /volumes/here", data["config.json"])
	}
	if !strings.Contains(data["helperPod.yaml"], "image: localhost/busybox:debian") {
		t.Errorf("helperPod.yaml = %s, want the local busybox", data["helperPod.yaml"])
	}
}
