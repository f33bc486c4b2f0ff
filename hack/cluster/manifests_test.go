// Package cluster_test checks the scripts that patch upstream manifests for the offline cluster
// (cnpg.sh, local-path.sh) against the real manifests of the pinned module versions, and the
// checked-in metrics-server manifest as metrics-server.sh fills it in.
package cluster_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"go/parser"
	"go/token"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
		"POSTGRES_IMAGE=localhost/cnpg/postgresql:15.18-bookworm\n" +
		"PGBOUNCER_IMAGE=localhost/cnpg/pgbouncer:1.24.1-trixie\n" +
		"METRICS_SERVER_IMAGE=localhost/metrics-server:v0.9.0\n"
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
	// The instance pods' bootstrap container runs OPERATOR_IMAGE_NAME; runs naming no image get
	// POSTGRES_IMAGE_NAME, Poolers PGBOUNCER_IMAGE_NAME.
	if env["OPERATOR_IMAGE_NAME"] != "localhost/cnpg/cloudnative-pg:1.29.1" || env["POSTGRES_IMAGE_NAME"] != "localhost/cnpg/postgresql:15.18-bookworm" ||
		env["PGBOUNCER_IMAGE_NAME"] != "localhost/cnpg/pgbouncer:1.24.1-trixie" {
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

// With nodes named, each node's volumes live in a folder of its own.
func TestLocalPathVolumesPerNode(t *testing.T) {
	images := imagesDir(t)
	moduleFile(t, "github.com/rancher/local-path-provisioner@v0.0.30", "deploy/local-path-storage.yaml", filepath.Join(images, "local-path-storage.upstream.yaml"))
	objs := run(t, "./local-path.sh", images, "/volumes/here", "tpcc-node-0", "tpcc-node-1")
	for _, o := range objs {
		if o.GetKind() != "ConfigMap" {
			continue
		}
		data, _, _ := unstructured.NestedStringMap(o.Object, "data")
		var config struct {
			NodePathMap []struct {
				Node  string   `json:"node"`
				Paths []string `json:"paths"`
			} `json:"nodePathMap"`
		}
		if err := json.Unmarshal([]byte(data["config.json"]), &config); err != nil {
			t.Fatalf("config.json does not parse: %v\n%s", err, data["config.json"])
		}
		got := map[string]string{}
		for _, e := range config.NodePathMap {
			got[e.Node] = strings.Join(e.Paths, ",")
		}
		want := map[string]string{"DEFAULT_PATH_FOR_NON_LISTED_NODES": "/volumes/here/unlisted",
			"tpcc-node-0": "/volumes/here/tpcc-node-0", "tpcc-node-1": "/volumes/here/tpcc-node-1"}
		if len(got) != len(want) {
			t.Fatalf("nodePathMap %v, want %v", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("nodePathMap[%s] = %q, want %q", k, got[k], v)
			}
		}
		return
	}
	t.Fatal("no ConfigMap")
}

// writeCA writes a fresh self-signed CA as up.sh lays it out (PKI_DIR/ca.crt, ca.key) and returns it.
func writeCA(t *testing.T, dir string) *x509.Certificate {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	files := map[string]*pem.Block{
		"ca.crt": {Type: "CERTIFICATE", Bytes: der},
		"ca.key": {Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)},
	}
	for name, block := range files {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cert
}

func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return nil
}

// servingCert decodes the metrics-server-tls Secret's certificate and checks that the CA signs it
// for the Service's name, as the API server verifies it through the APIService's caBundle.
func servingCert(t *testing.T, objs []*unstructured.Unstructured, ca *x509.Certificate) string {
	t.Helper()
	secret := find(t, objs, "Secret", "metrics-server-tls")
	data, _, _ := unstructured.NestedStringMap(secret.Object, "data")
	crt, err := base64.StdEncoding.DecodeString(data["tls.crt"])
	if err != nil || data["tls.key"] == "" {
		t.Fatalf("Secret data %v: %v", data, err)
	}
	block, _ := pem.Decode(crt)
	if block == nil {
		t.Fatalf("tls.crt is no PEM: %q", crt)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "metrics-server.kube-system.svc"}); err != nil {
		t.Errorf("serving certificate: %v", err)
	}
	return data["tls.crt"]
}

func TestMetricsServerManifest(t *testing.T) {
	images, pki := imagesDir(t), t.TempDir()
	ca := writeCA(t, pki)
	objs := run(t, "./metrics-server.sh", images, pki)

	// RBAC: named resources and verbs only, and what metrics-server needs.
	var rules []rbacRule
	for _, o := range objs {
		if o.GetKind() != "ClusterRole" && o.GetKind() != "Role" {
			continue
		}
		list, _, _ := unstructured.NestedSlice(o.Object, "rules")
		for _, r := range list {
			rule := toRule(r.(map[string]any))
			for _, v := range slices.Concat(rule.groups, rule.resources, rule.verbs) {
				if strings.Contains(v, "*") {
					t.Errorf("%s %s has a wildcard rule %+v", o.GetKind(), o.GetName(), rule)
				}
			}
			if o.GetName() == "system:metrics-server" {
				rules = append(rules, rule)
			}
		}
	}
	for _, want := range [][3]string{{"", "nodes/metrics", "get"}, {"", "pods", "list"}, {"", "pods", "watch"}, {"", "nodes", "list"}, {"", "nodes", "watch"}} {
		if !allows(rules, want[0], want[1], want[2]) {
			t.Errorf("ClusterRole system:metrics-server does not allow %s on %s", want[2], want[1])
		}
	}
	for _, denied := range [][3]string{{"", "secrets", "get"}, {"", "pods", "delete"}, {"", "nodes/proxy", "get"}} {
		if allows(rules, denied[0], denied[1], denied[2]) {
			t.Errorf("ClusterRole system:metrics-server allows %s on %s", denied[2], denied[1])
		}
	}
	bindings := map[string]string{ // binding → the role it grants metrics-server's ServiceAccount
		"ClusterRoleBinding/system:metrics-server":                "ClusterRole/system:metrics-server",
		"ClusterRoleBinding/metrics-server:system:auth-delegator": "ClusterRole/system:auth-delegator",
		"RoleBinding/metrics-server-auth-reader":                  "Role/extension-apiserver-authentication-reader",
	}
	for binding, role := range bindings {
		kind, name, _ := strings.Cut(binding, "/")
		o := find(t, objs, kind, name)
		ref, _, _ := unstructured.NestedStringMap(o.Object, "roleRef")
		subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
		if ref["kind"]+"/"+ref["name"] != role || len(subjects) != 1 {
			t.Errorf("%s grants %v to %v, want %s", binding, ref, subjects, role)
			continue
		}
		s := subjects[0].(map[string]any)
		if s["kind"] != "ServiceAccount" || s["name"] != "metrics-server" || s["namespace"] != "kube-system" {
			t.Errorf("%s binds %v", binding, s)
		}
	}
	if rb := find(t, objs, "RoleBinding", "metrics-server-auth-reader"); rb.GetNamespace() != "kube-system" {
		t.Errorf("the authentication reader is bound in %q, want kube-system", rb.GetNamespace())
	}

	// The pod: the local image and the restricted Pod Security profile.
	deploy := find(t, objs, "Deployment", "metrics-server")
	pod, _, _ := unstructured.NestedMap(deploy.Object, "spec", "template", "spec")
	if pod["serviceAccountName"] != "metrics-server" || pod["hostNetwork"] == true || pod["hostPID"] == true {
		t.Errorf("pod spec %v", pod)
	}
	restrictedPod(t, pod)
	volumes, _, _ := unstructured.NestedSlice(pod, "volumes")
	for _, v := range volumes {
		vol := v.(map[string]any)
		if _, ok := vol["secret"]; !ok {
			if _, ok := vol["emptyDir"]; !ok {
				t.Errorf("volume %v: only secret and emptyDir volumes", vol)
			}
		}
	}
	c := localContainer(t, objs, "metrics-server", "localhost/metrics-server:v0.9.0")
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	for _, want := range []string{"--kubelet-preferred-address-types=InternalIP", "--kubelet-certificate-authority=/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"} {
		if !slices.Contains(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	if slices.Contains(args, "--kubelet-insecure-tls") {
		t.Errorf("args %v skip verifying the kubelet's certificate, which the cluster CA signs", args)
	}

	// The APIService: metrics.k8s.io/v1beta1 from the Service, verified with the cluster CA.
	api := find(t, objs, "APIService", "v1beta1.metrics.k8s.io")
	spec, _, _ := unstructured.NestedMap(api.Object, "spec")
	svc, _, _ := unstructured.NestedMap(spec, "service")
	if spec["group"] != "metrics.k8s.io" || spec["version"] != "v1beta1" || spec["insecureSkipTLSVerify"] == true ||
		svc["name"] != "metrics-server" || svc["namespace"] != "kube-system" {
		t.Errorf("APIService spec %v", spec)
	}
	caBundle, _, _ := unstructured.NestedString(spec, "caBundle")
	bundle, err := base64.StdEncoding.DecodeString(caBundle)
	if block, _ := pem.Decode(bundle); err != nil || block == nil || !bytes.Equal(block.Bytes, ca.Raw) {
		t.Errorf("caBundle is not the cluster CA (%v)", err)
	}
	find(t, objs, "Service", "metrics-server")
	find(t, objs, "ServiceAccount", "metrics-server")

	// The serving certificate is issued once per CA: kept on a second run, reissued for a new CA.
	first := servingCert(t, objs, ca)
	if again := servingCert(t, run(t, "./metrics-server.sh", images, pki), ca); again != first {
		t.Errorf("a second run reissued the serving certificate")
	}
	newCA := writeCA(t, pki)
	if renewed := servingCert(t, run(t, "./metrics-server.sh", images, pki), newCA); renewed == first {
		t.Errorf("the serving certificate was not reissued for a new CA")
	}
}

type rbacRule struct{ groups, resources, verbs []string }

func toRule(m map[string]any) rbacRule {
	var r rbacRule
	r.groups, _, _ = unstructured.NestedStringSlice(m, "apiGroups")
	r.resources, _, _ = unstructured.NestedStringSlice(m, "resources")
	r.verbs, _, _ = unstructured.NestedStringSlice(m, "verbs")
	return r
}

func allows(rules []rbacRule, group, resource, verb string) bool {
	for _, r := range rules {
		if slices.Contains(r.groups, group) && slices.Contains(r.resources, resource) && slices.Contains(r.verbs, verb) {
			return true
		}
	}
	return false
}

// restrictedPod checks a pod spec's securityContext against the restricted Pod Security profile:
// non-root with a non-zero user, the runtime's default seccomp profile.
func restrictedPod(t *testing.T, pod map[string]any) {
	t.Helper()
	podSC, _, _ := unstructured.NestedMap(pod, "securityContext")
	if podSC["runAsNonRoot"] != true || podSC["runAsUser"] == int64(0) {
		t.Errorf("pod securityContext %v: want runAsNonRoot and a non-zero user", podSC)
	}
	if v, _, _ := unstructured.NestedString(podSC, "seccompProfile", "type"); v != "RuntimeDefault" {
		t.Errorf("pod seccompProfile %q, want RuntimeDefault", v)
	}
}

// localContainer returns a Deployment's container after checking it runs the local image (never
// pulled) under the restricted profile: no privilege escalation, every capability dropped and none
// added, not privileged, the pod's non-root user kept.
func localContainer(t *testing.T, objs []*unstructured.Unstructured, name, image string) map[string]any {
	t.Helper()
	c := deploymentContainer(t, objs, name)
	if c["image"] != image || c["imagePullPolicy"] != "Never" {
		t.Errorf("image %v, pull policy %v; want %s, Never", c["image"], c["imagePullPolicy"], image)
	}
	sc, _, _ := unstructured.NestedMap(c, "securityContext")
	drop, _, _ := unstructured.NestedStringSlice(sc, "capabilities", "drop")
	add, _, _ := unstructured.NestedStringSlice(sc, "capabilities", "add")
	if sc["allowPrivilegeEscalation"] != false || sc["privileged"] == true || !slices.Equal(drop, []string{"ALL"}) || len(add) > 0 {
		t.Errorf("container securityContext %v", sc)
	}
	if sc["runAsUser"] == int64(0) || sc["runAsNonRoot"] == false {
		t.Errorf("container securityContext %v overrides the pod's non-root user", sc)
	}
	return c
}

// CoreDNS is built with the plugins its Corefile uses and no others (hack/upstream/coredns/main.go
// imports them): a directive the Corefile gains without its plugin would stop CoreDNS at start
// ("unknown directive"), and the cluster's every Service name with it.
func TestCoreDNSIsBuiltWithTheCorefilesPlugins(t *testing.T) {
	main, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "upstream", "coredns", "main.go"), nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var built []string
	for _, imp := range main.Imports {
		if p, ok := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), "github.com/coredns/coredns/plugin/"); ok {
			built = append(built, p)
		}
	}
	manifest, err := os.ReadFile("coredns.yaml")
	if err != nil {
		t.Fatal(err)
	}
	corefile, ok := strings.CutPrefix(string(manifest)[strings.Index(string(manifest), "Corefile: |"):], "Corefile: |")
	if !ok {
		t.Fatal("coredns.yaml has no Corefile")
	}
	var used []string
	depth := 0
	for _, line := range strings.Split(corefile, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if line[0] != ' ' { // the next YAML document
			break
		}
		if depth == 1 && f[0] != "}" && !slices.Contains(used, f[0]) {
			used = append(used, f[0]) // a directive of the server block (nested blocks are its options)
		}
		depth += strings.Count(line, "{") - strings.Count(line, "}")
		if depth == 0 && strings.Contains(line, "}") {
			break
		}
	}
	slices.Sort(built)
	slices.Sort(used)
	if len(used) == 0 || !slices.Equal(built, used) {
		t.Errorf("hack/upstream/coredns/main.go builds CoreDNS with plugins %v; the Corefile uses %v", built, used)
	}
}
