// Package hack_test tests the scripts users run from the Makefile: the Docker targets (rendered:
// this machine has no Docker daemon), what the Dockerfile copies, and that make demo changes
// nothing on a cluster this project did not create.
package hack_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

var repoRoot, _ = filepath.Abs("..")

// make docker-build docker-push renders the two images README names, under one prefix and tag;
// CONTAINER_TOOL swaps Docker for another builder.
func TestDockerTargets(t *testing.T) {
	out, err := exec.Command("make", "-s", "-n", "-C", repoRoot, "docker-build", "docker-push",
		"IMG_PREFIX=registry.example.com/team/tpcc-operator", "TAG=0.1.0").Output()
	if err != nil {
		t.Fatalf("make -n docker-build docker-push: %v%s", err, stderr(err))
	}
	want := `docker build --target manager -t registry.example.com/team/tpcc-operator/manager:0.1.0 .
docker build --target client -t registry.example.com/team/tpcc-operator/tpcc:0.1.0 .
docker push registry.example.com/team/tpcc-operator/manager:0.1.0
docker push registry.example.com/team/tpcc-operator/tpcc:0.1.0
`
	if string(out) != want {
		t.Errorf("make -n docker-build docker-push:\n%s\nwant:\n%s", out, want)
	}
	out, err = exec.Command("make", "-s", "-n", "-C", repoRoot, "docker-build", "CONTAINER_TOOL=podman").Output()
	if err != nil || !strings.HasPrefix(string(out), "podman build --target manager -t tpcc-operator/manager:dev .") {
		t.Errorf("make -n docker-build CONTAINER_TOOL=podman: %v: %s", err, out)
	}
	// The chart's image.prefix and image.tag name the same two images (charts/chart_test.go renders
	// them); the Dockerfile has both targets.
	dockerfile := readFile(t, filepath.Join(repoRoot, "Dockerfile"))
	for _, target := range []string{" AS manager", " AS client"} {
		if !strings.Contains(dockerfile, target) {
			t.Errorf("Dockerfile has no stage%s", target)
		}
	}
}

// The client image's fio is the same source in both builds: the Dockerfile's (users with Docker)
// and hack/images.sh's (this project's offline images), version and checksum alike.
func TestFioSourceIsTheSameInBothBuilds(t *testing.T) {
	dockerfile := readFile(t, filepath.Join(repoRoot, "Dockerfile"))
	images := readFile(t, filepath.Join(repoRoot, "hack", "images.sh"))
	for _, name := range []string{"FIO_VERSION", "FIO_SHA256"} {
		value := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindStringSubmatch(images)
		if value == nil {
			t.Fatalf("hack/images.sh sets no %s", name)
		}
		if !strings.Contains(dockerfile, "ARG "+name+"="+value[1]+"\n") {
			t.Errorf("the Dockerfile's ARG %s is not hack/images.sh's %s", name, value[1])
		}
	}
	if !strings.Contains(dockerfile, "COPY --from=fio /out-fio /fio") {
		t.Errorf("the Dockerfile's client stage does not copy fio to /fio (tpcc storage-probe's default)")
	}
}

// The Dockerfile copies every folder of this module the manager and the client import, so a
// package added elsewhere fails here rather than in a user's docker build.
func TestDockerfileCopiesEveryPackage(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", "./cmd/manager", "./cmd/tpcc")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v%s", err, stderr(err))
	}
	copied := map[string]bool{}
	for _, line := range strings.Split(readFile(t, filepath.Join(repoRoot, "Dockerfile")), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 3 && fields[0] == "COPY" && !strings.HasPrefix(fields[1], "--") {
			for _, src := range fields[1 : len(fields)-1] {
				copied[strings.TrimSuffix(src, "/")] = true
			}
		}
	}
	for _, file := range []string{"go.mod", "go.sum"} {
		if !copied[file] {
			t.Errorf("the Dockerfile does not copy %s", file)
		}
	}
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(repoRoot, dir)
		if err != nil {
			t.Fatal(err)
		}
		top := strings.Split(rel, string(filepath.Separator))[0]
		if !copied[top] {
			t.Errorf("the manager or the client imports %s, but the Dockerfile does not copy %s/", rel, top)
		}
	}
}

// make demo (and make demo-suite) against a cluster this project did not create — a real API
// server, nothing installed — refuses before changing anything: exit 3, a message naming the
// opt-in TPCC_ALLOW_CLUSTER_INSTALL=1 and the local alternative, and the cluster's objects exactly
// as they were (every listable resource, every namespace, every CRD).
func TestDemoRefusesAClusterItDidNotCreate(t *testing.T) {
	kubectl := kubectlBinary(t)
	env, err := testenv.StartEmpty()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	// A fresh API server still writes its own bootstrap objects for a while: start from a settled one.
	before := settledObjects(t, env)
	for _, script := range []string{"hack/demo.sh", "hack/demo-suite.sh"} {
		t.Run(filepath.Base(script), func(t *testing.T) {
			cmd := exec.Command(filepath.Join(repoRoot, script))
			cmd.Env = append(withoutEnv(os.Environ(), "KUBECONFIG", "TPCC_ALLOW_CLUSTER_INSTALL", "DEMO_CLUSTER", "IMG_PREFIX", "TAG"),
				"KUBECONFIG="+kubeconfig, "KUBECTL="+kubectl, "HOME="+dir)
			var output bytes.Buffer
			cmd.Stdout, cmd.Stderr = &output, &output
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 3 {
				t.Fatalf("%s: %v, want exit 3:\n%s", script, err, output.String())
			}
			for _, want := range []string{"refusing to install", "Nothing was changed", "TPCC_ALLOW_CLUSTER_INSTALL=1", "DEMO_CLUSTER=local", "CloudNativePG 1.29.1"} {
				if !strings.Contains(output.String(), want) {
					t.Errorf("%s's message lacks %q:\n%s", script, want, output.String())
				}
			}
			t.Logf("%s:\n%s", script, output.String())
		})
	}
	after := clusterObjects(t, env)
	if before != after {
		t.Errorf("the cluster changed:\n%s", diffLines(before, after))
	}
	if !strings.Contains(before, "namespaces default") {
		t.Fatalf("the snapshot does not see the default namespace:\n%s", before)
	}
}

// On a cluster this project did not create where CloudNativePG and the operator are installed
// already, hack/cluster/install.sh (what make demo and make e2e call) uses them: exit 0, saying it
// installs nothing, and the cluster is unchanged.
func TestInstallUsesWhatIsInstalledOnAClusterItDidNotCreate(t *testing.T) {
	kubectl := kubectlBinary(t)
	env, err := testenv.Start() // every CRD: ours and CloudNativePG's among them
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	c, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "their-operators"}}
	labels := map[string]string{"app.kubernetes.io/name": "tpcc-operator"}
	manager := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "tpcc-operator-controller-manager", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "registry.example.com/tpcc-operator/manager:0.1.0"}}}},
		},
	}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, manager); err != nil {
		t.Fatal(err)
	}
	manager.Status = appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	if err := c.Status().Update(ctx, manager); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	before := settledObjects(t, env)
	cmd := exec.Command(filepath.Join(repoRoot, "hack/cluster/install.sh"))
	cmd.Env = append(withoutEnv(os.Environ(), "KUBECONFIG", "TPCC_ALLOW_CLUSTER_INSTALL", "IMG_PREFIX", "TAG"),
		"KUBECONFIG="+kubeconfig, "KUBECTL="+kubectl, "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "installing nothing") {
		t.Fatalf("install.sh: %v, want exit 0 saying it installs nothing:\n%s", err, out)
	}
	if after := clusterObjects(t, env); after != before {
		t.Errorf("the cluster changed:\n%s", diffLines(before, after))
	}
}

// settledObjects is clusterObjects once a fresh API server has stopped writing its own bootstrap
// objects (the same listing three times, 2 s apart).
func settledObjects(t *testing.T, env *testenv.Env) string {
	t.Helper()
	before := clusterObjects(t, env)
	for settled := 0; settled < 3; {
		time.Sleep(2 * time.Second)
		now := clusterObjects(t, env)
		if now == before {
			settled++
		} else {
			settled, before = 0, now
		}
	}
	return before
}

// clusterObjects lists every object of every listable resource (events and the API server's own
// lease renewals aside) with its resource version.
func clusterObjects(t *testing.T, env *testenv.Env) string {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !contains(r.Verbs, "list") || r.Name == "events" || r.Name == "leases" {
				continue
			}
			items, err := dyn.Resource(gv.WithResource(r.Name)).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatalf("listing %s: %v", r.Name, err)
			}
			for _, item := range items.Items {
				out = append(out, fmt.Sprintf("%s %s/%s %s", r.Name, item.GetNamespace(), item.GetName(), item.GetResourceVersion()))
				if r.Name == "namespaces" && item.GetName() == "default" {
					out = append(out, "namespaces default")
				}
			}
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		drop := false
		for _, n := range names {
			drop = drop || strings.HasPrefix(kv, n+"=")
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

func kubectlBinary(t *testing.T) string {
	t.Helper()
	if k := os.Getenv("KUBECTL"); k != "" {
		return k
	}
	out, err := exec.Command(filepath.Join(repoRoot, "hack/k8s-bins.sh"), "kubectl").Output()
	if err != nil {
		t.Fatalf("hack/k8s-bins.sh kubectl: %v%s", err, stderr(err))
	}
	return filepath.Join(strings.TrimSpace(string(out)), "kubectl")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func stderr(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return ": " + strings.TrimSpace(string(exit.Stderr))
	}
	return ""
}

// diffLines lists the lines only in a (-) or only in b (+).
func diffLines(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	inA, inB := in(a), in(b)
	var out []string
	for l := range inA {
		if !inB[l] {
			out = append(out, "- "+l)
		}
	}
	for l := range inB {
		if !inA[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// The project's packages compile under one configuration everywhere: the Makefile's (make verify,
// make test, make e2e, the plugin), .ci/run's for what it runs outside make, and hack/images.sh's
// for the images. Go's build cache keys a package on CGO_ENABLED and -trimpath, so a second
// configuration compiles every dependency a second time on a fresh machine. Checked where it
// counts: the same compiled package (its export data in the build cache) under each.
func TestOneBuildConfiguration(t *testing.T) {
	out, err := exec.Command("make", "-s", "-C", repoRoot, "--eval", "print-go-env: ; @echo \"$$CGO_ENABLED|$$GOFLAGS\"", "print-go-env").Output()
	if err != nil {
		t.Fatalf("make print-go-env: %v%s", err, stderr(err))
	}
	makefile := strings.TrimSpace(string(out))
	makeCgo, makeFlags, _ := strings.Cut(makefile, "|")
	if makefile != "0|-trimpath" {
		t.Errorf("the Makefile exports CGO_ENABLED|GOFLAGS %q, want \"0|-trimpath\" (the images' configuration)", makefile)
	}
	ci := regexp.MustCompile(`(?m)^export CGO_ENABLED=(\S+) GOFLAGS=(\S+)$`).FindStringSubmatch(readFile(t, filepath.Join(repoRoot, ".ci", "run")))
	if ci == nil {
		t.Fatal(".ci/run exports no CGO_ENABLED=… GOFLAGS=… line")
	}
	images := readFile(t, filepath.Join(repoRoot, "hack", "images.sh"))
	img := regexp.MustCompile(`(?m)^export GOFLAGS=(\S+) CGO_ENABLED=(\S+)$`).FindStringSubmatch(images)
	if img == nil {
		t.Fatal("hack/images.sh exports no GOFLAGS=… CGO_ENABLED=… line")
	}
	for _, bin := range []string{"./cmd/manager", "./cmd/tpcc"} {
		if !strings.Contains(images, `go build -trimpath -ldflags "-s -w" -o "$work/`+strings.TrimPrefix(bin, "./cmd/")+`" `+bin) {
			t.Errorf("hack/images.sh does not build %s with -trimpath", bin)
		}
	}
	// pgconn imports net, whose files differ with cgo: a package that changes with either setting.
	const pkg = "github.com/jackc/pgx/v5/pgconn"
	exportFile := func(env ...string) string { return exportFile(t, repoRoot, pkg, env...) }
	want := exportFile("CGO_ENABLED=0", "GOFLAGS=-trimpath")
	for name, env := range map[string][]string{
		"the Makefile's": {"CGO_ENABLED=" + makeCgo, "GOFLAGS=" + makeFlags},
		".ci/run's":      {"CGO_ENABLED=" + ci[1], "GOFLAGS=" + ci[2]},
		// images.sh passes -trimpath on the command line; GOFLAGS carries it here.
		"hack/images.sh's": {"CGO_ENABLED=" + img[2], "GOFLAGS=" + img[1] + " -trimpath"},
	} {
		if got := exportFile(env...); got != want {
			t.Errorf("%s configuration compiles %s apart from the images' (%s, not %s): every dependency compiles twice on a fresh machine", name, pkg, got, want)
		}
	}
	// And the check can fail: without -trimpath it is another compile.
	if other := exportFile("CGO_ENABLED=0", "GOFLAGS="); other == want {
		t.Errorf("with and without -trimpath the same compiled %s: the check above proves nothing", pkg)
	}
}

// The programs hack/upstream builds (Helm, controller-gen, the local cluster's CoreDNS,
// local-path-provisioner and metrics-server) compile the libraries they share with the project
// into the very packages the project's build compiled: same versions (hack/upstream/sync.sh's
// pins, which make verify keeps equal to the root's) and same configuration (build.sh's). Checked
// on client-go's typed clientset, whose compiled form depends on most of what they share.
func TestUpstreamProgramsShareTheProjectsPackages(t *testing.T) {
	build := readFile(t, filepath.Join(repoRoot, "hack", "upstream", "build.sh"))
	m := regexp.MustCompile(`CGO_ENABLED=(\S+) GOWORK=off GOFLAGS="([^"]+)" go build`).FindStringSubmatch(build)
	if m == nil {
		t.Fatal(`hack/upstream/build.sh has no CGO_ENABLED=… GOWORK=off GOFLAGS="…" go build line`)
	}
	const pkg = "k8s.io/client-go/kubernetes"
	root := exportFile(t, repoRoot, pkg, "CGO_ENABLED=0", "GOFLAGS=-trimpath")
	upstream := exportFile(t, filepath.Join(repoRoot, "hack", "upstream"), pkg, "CGO_ENABLED="+m[1], "GOWORK=off", "GOFLAGS="+m[2])
	if upstream != root {
		t.Errorf("hack/upstream compiles %s apart from the project (%s, not %s): Helm and the cluster's programs compile their Kubernetes libraries again on a fresh machine", pkg, upstream, root)
	}
}

// exportFile is the build cache's file of pkg's compiled export data, compiled in module dir under
// the extra environment env.
func exportFile(t *testing.T, dir, pkg string, env ...string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-f", "{{.Export}}", pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export %s in %s (%v): %v%s", pkg, dir, env, err, stderr(err))
	}
	return strings.TrimSpace(string(out))
}
