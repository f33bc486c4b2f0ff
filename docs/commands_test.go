// Package docs_test walks every fenced shell command in README.md, CONTRIBUTING.md and docs/*.md
// and holds it to a checked list: each command is run by CI (.ci/run), run by the e2e (a named
// block run verbatim, or a test that runs README's own command), or — when it cannot run on this
// project's machines — checked here as far as that goes, with the reason it cannot run. A command
// the list does not know, or an entry no doc has any more, fails the test; so does a command whose
// static check fails (a make target that does not exist, a file that is not there, a flag kubectl,
// helm or the plugin does not parse, a -run pattern that names no test).
package docs_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// how a documented command is exercised.
type how struct {
	// ci: the command's text is in .ci/run, which runs it.
	ci bool
	// block: the command is in this named block (<!-- block: NAME -->), which hack/cluster/install.sh
	// or the e2e runs verbatim (the block name must appear in one of them).
	block string
	// e2e: an e2e test that runs the command as README has it (the name must be in e2e/*.go).
	e2e string
	// manual: why it cannot run on this project's machines (no Docker daemon, no internet, no
	// CockroachDB or YDB server, an example name).
	manual string
}

// checked is every documented command, by its text (continuations joined, comments stripped,
// spaces collapsed).
var checked = map[string]how{
	// README: quick start, install, follow, uninstall; docs/quickstart.md: following the demo.
	"make demo": {ci: true},
	"make test": {ci: true},
	"make docker-build docker-push IMG_PREFIX=registry.example.com/tpcc-operator TAG=0.1.0":                                                                                        {manual: "no Docker daemon here; make -n renders it (TestDockerTargets), hack/images.sh builds the same binaries into the images the e2e installs"},
	"kubectl apply --server-side -f https://raw.githubusercontent.com/cloudnative-pg/cloudnative-pg/v1.29.1/releases/cnpg-1.29.1.yaml":                                             {manual: "no internet here: hack/cluster/install.sh applies the same manifest from CloudNativePG's Go module v1.29.1"},
	`helm upgrade --install tpcc-operator charts/tpcc-operator --namespace tpcc-operator-system --create-namespace --set image.prefix="$IMG_PREFIX" --set image.tag="$TAG" --wait`: {block: "install-operator"},
	"kubectl label namespace tpcc-operator-system pod-security.kubernetes.io/enforce=restricted --overwrite":                                                                       {block: "install-operator"},
	"kubectl apply -f config/samples/demo.yaml":                                                                {ci: true}, // make demo applies it (hack/demo.sh)
	"kubectl get br -w":                                                                                        {manual: "follows until interrupted; the e2e runs kubectl get br -o wide and kubectl tpcc status -w"},
	"kubectl get br -o wide":                                                                                   {e2e: "TestKubectlWaitEndsOnFailure"},
	"kubectl wait br/demo --for=condition=Ended --timeout=30m":                                                 {e2e: "TestKubectlWaitEndsOnFailure"},
	`kubectl get br demo -o jsonpath='{.status.result.message}{"\n"}'`:                                         {manual: "names the demo's run: make demo prints the result with kubectl tpcc report"},
	"kubectl delete benchmarksuites,benchmarkruns --all --all-namespaces --wait":                               {block: "uninstall"},
	"helm uninstall tpcc-operator --namespace tpcc-operator-system --wait":                                     {block: "uninstall"},
	"kubectl delete crd benchmarkruns.bench.oltp.io benchmarksuites.bench.oltp.io networkfaults.bench.oltp.io": {block: "uninstall"},
	"kubectl delete namespace tpcc-operator-system":                                                            {block: "uninstall"},

	// CONTRIBUTING
	"make verify":             {ci: true},
	"make generate manifests": {ci: true}, // make verify regenerates and compares (hack/verify.sh)
	"make build":              {manual: "make test and the e2e build the same packages; make -n checks the target"},
	"make e2e":                {ci: true},
	"make e2e-long":           {manual: "the long e2e tier, ~1.5 hours on 2 cores: past CI's budget; make e2e runs the same suite's CI tier and its cases run by hand (docs/testing.md)"},

	// docs/supported-versions.md
	"kubectl apply -f https://raw.githubusercontent.com/cockroachdb/cockroach-operator/v2.18.3/install/crds.yaml -f https://raw.githubusercontent.com/cockroachdb/cockroach-operator/v2.18.3/install/operator.yaml":  {manual: "no internet and no CockroachDB images here (docs/engines.md)"},
	"helm repo add ydb https://charts.ydb.tech && helm install ydb-operator ydb/ydb-operator --version 0.8.0":                                                                                                        {manual: "no internet and no YDB images here (docs/engines.md)"},
	"kubectl delete -f https://raw.githubusercontent.com/cloudnative-pg/cloudnative-pg/v1.29.1/releases/cnpg-1.29.1.yaml":                                                                                            {manual: "no internet here; the local cluster is removed whole (make cluster-down)"},
	"kubectl delete -f https://raw.githubusercontent.com/cockroachdb/cockroach-operator/v2.18.3/install/operator.yaml -f https://raw.githubusercontent.com/cockroachdb/cockroach-operator/v2.18.3/install/crds.yaml": {manual: "no internet and no CockroachDB images here (docs/engines.md)"},
	"helm uninstall ydb-operator": {manual: "no internet and no YDB images here (docs/engines.md)"},

	// docs/failover.md: the fault injector
	"hack/fault-injector.sh install":   {e2e: "testNetworkFaults"},
	"hack/fault-injector.sh status":    {e2e: "uninstallFaultInjector"},
	"hack/fault-injector.sh uninstall": {e2e: "uninstallFaultInjector"},
	"FAULT_INJECTOR_IMAGE=registry.example.com/tpcc-operator/fault-injector:TAG hack/fault-injector.sh install": {manual: "no registry here: the local cluster imports hack/images.sh injector's archive instead, the rest of install is the same (testNetworkFaults)"},

	// docs/operations.md
	`helm upgrade tpcc-operator charts/tpcc-operator --namespace tpcc-operator-system --reuse-values --wait --set metrics.secure=true --set 'metrics.readerSubjects[0].kind=ServiceAccount' --set "metrics.readerSubjects[0].name=$PROMETHEUS_SA" --set "metrics.readerSubjects[0].namespace=$PROMETHEUS_NAMESPACE"`: {block: "metrics-prometheus"},

	"DRY_RUN=1 hack/uninstall.sh": {manual: "hack/uninstall_test.go runs it against envtest (TestUninstall); the e2e runs README's uninstall block"},
	"hack/uninstall.sh":           {manual: "hack/uninstall_test.go runs it against envtest (TestUninstall); the e2e runs README's uninstall block"},
	"UNINSTALL_RETAINED=1 UNINSTALL_DB_OPERATORS=1 hack/uninstall.sh": {manual: "hack/uninstall_test.go runs its dry run against envtest (TestUninstall): no database operator to remove here beyond CRDs"},

	// docs/engines.md
	"TPCC_E2E_COCKROACH_URL='postgres://root:PASSWORD@crdb-public.crdb:26257/defaultdb?sslmode=require' TPCC_E2E_YDB_ENDPOINT='grpc://ydb-grpc.ydb:2135/Root/testdb' make e2e-external": {manual: "no CockroachDB or YDB server here; .ci/run runs make e2e-external without them and with a malformed URL"},

	// docs/benchmarks.md
	"hack/pg-sync.sh up": {manual: "a benchmark's setup: make test starts the same cluster (hack/with-pg-sync.sh)"},
	"GO_TPC=/tmp/gotpc-build/go-tpc BENCH_WAREHOUSES=4 BENCH_RUNS=15 hack/bench-load.sh":                                                                                     {manual: "a benchmark against go-tpc, built outside the repository"},
	`KUBEBUILDER_ASSETS="$(hack/envtest-assets.sh)" nice -n 19 go test -count=1 -vet=off -run XXX -bench 'StudyScale/pods=' -benchtime 1x -timeout 60m ./controllers/run`:    {manual: "a benchmark of several minutes against envtest; make test runs the package's tests"},
	"TPCC_CHECK_BENCH_WAREHOUSES=10,40,80 hack/with-pg-sync.sh bash -c 'go test -run ^$ -bench BenchmarkCheck$ -benchtime 1x ./internal/tpcc/pgwire'":                        {manual: "a benchmark loading 130 warehouses (minutes); make test runs the package's tests"},
	"TPCC_PG_URL=$(hack/pg-sync.sh url) go test -run XXX -bench CopyWarehouse -benchtime 4x -count 4 -benchmem ./internal/tpcc/pgwire":                                       {manual: "a benchmark; make test runs the package's tests"},
	"TPCC_PG_URL=postgres://postgres@127.0.0.1:63432/bench?sslmode=disable go test -run XXX -bench PostgresTelemetrySample -benchtime 2000x -count 3 ./internal/tpcc/pgwire": {manual: "a benchmark against a loaded database; make test runs the package's tests"},

	// docs/reuse.md
	"DEMO_CLUSTER=local hack/bench-reuse.sh": {manual: "a measurement of ~35 minutes on the local cluster (two suites of three runs); its figures are in docs/reuse.md"},

	// docs/kubectl-tpcc.md
	"cp bin/kubectl-tpcc ~/.local/bin/":        {manual: "installs onto the reader's PATH; the e2e puts the plugin on PATH the same way (testPluginFollowsAndReports)"},
	"kubectl plugin list":                      {manual: "lists the reader's plugins"},
	"kubectl tpcc --help":                      {manual: "flags checked here"},
	"kubectl tpcc -n bench status pg-capacity": {manual: "a transcript with an example run"},
	"kubectl tpcc status -A":                   {manual: "a transcript; the plugin's listing is tested in cmd/kubectl-tpcc (TestPlugin)"},

	// docs/metrics.md
	"helm upgrade tpcc-operator charts/tpcc-operator -n tpcc-operator-system --reuse-values --set metrics.serviceMonitor.enabled=true --set metrics.serviceMonitor.labels.release=kube-prometheus-stack --set grafana.dashboard.enabled=true": {manual: "needs the Prometheus Operator's CRDs; the chart's ServiceMonitor and dashboard are rendered in charts/chart_test.go"},
	"kubectl get --raw '/api/v1/namespaces/tpcc-monitoring/services/prometheus:9090/proxy/api/v1/query?query=tpcc_run_max_compliant_warehouses'":                                                                                              {e2e: "TestPostgresSyncRun"},
	"kubectl -n tpcc-monitoring port-forward svc/prometheus 9090": {manual: "interactive"},

	// docs/suite.md
	"kubectl apply -f config/samples/suite.yaml":                                  {manual: "the study's three engines at 1000 warehouses; make demo-suite runs config/samples/suite-demo.yaml"},
	"kubectl get benchmarksuites -w":                                              {manual: "follows until interrupted"},
	"kubectl get benchmarkruns -l bench.oltp.io/suite=study":                      {manual: "names the study suite's runs"},
	`kubectl get configmap study-comparison -o jsonpath='{.data.comparison\.md}'`: {manual: "names the study suite's comparison; the e2e reads the demo suite's (testDemoSuite)"},

	// docs/troubleshooting.md
	"kubectl get br RUN -o wide": {manual: "RUN is a placeholder; the e2e runs README's kubectl get br -o wide"},
	`kubectl get br RUN -o jsonpath='{.status.conditions[?(@.type=="Failed")].message}'`: {manual: "RUN is a placeholder"},
	"kubectl tpcc status RUN": {manual: "RUN is a placeholder; the e2e follows a run with kubectl tpcc status -w"},
}

func TestDocumentedCommands(t *testing.T) {
	ci := readFile(t, filepath.Join("..", ".ci", "run"))
	runners := readFile(t, filepath.Join("..", "hack", "cluster", "install.sh"))
	e2e := ""
	files, _ := filepath.Glob(filepath.Join("..", "e2e", "*.go"))
	for _, f := range files {
		e2e += readFile(t, f)
	}
	seen := map[string]bool{}
	for _, file := range docFiles(t) {
		for _, b := range blocks(t, file) {
			if b.info == "" {
				t.Errorf("%s:%d: a fenced block without a language: tag it sh (commands, checked here), console (a transcript; its $ lines are checked) or what it holds (yaml, text, …)", b.file, b.line)
			}
			if b.name != "" && !strings.Contains(runners+e2e, b.name) && b.name != "quick-start" && b.name != "contributing-commands" {
				t.Errorf("%s:%d: block %q is run by neither hack/cluster/install.sh nor the e2e", b.file, b.line, b.name)
			}
			for _, c := range commands(b) {
				seen[c.text] = true
				h, ok := checked[c.text]
				if !ok {
					t.Errorf("%s:%d: %q is not in docs/commands_test.go's checked list: add it, saying how it is exercised", c.file, c.line, c.text)
					continue
				}
				switch {
				case h.ci:
					if !strings.Contains(ci, c.text) && !inMakeRecipeRunByCI(t, c.text, ci) {
						t.Errorf("%s:%d: %q is marked as run by CI, but .ci/run does not run it", c.file, c.line, c.text)
					}
				case h.block != "":
					if b.name != h.block {
						t.Errorf("%s:%d: %q is listed in block %q but stands outside it", c.file, c.line, c.text, h.block)
					}
				case h.e2e != "":
					if !strings.Contains(e2e, "func "+h.e2e+"(") {
						t.Errorf("%s:%d: %q is marked as run by e2e test %s, which does not exist", c.file, c.line, c.text, h.e2e)
					}
				case h.manual == "":
					t.Errorf("%s:%d: %q: say how it is exercised", c.file, c.line, c.text)
				}
				if err := staticCheck(t, c.text); err != nil {
					t.Errorf("%s:%d: %q: %v", c.file, c.line, c.text, err)
				}
			}
		}
	}
	var stale []string
	for text := range checked {
		if !seen[text] {
			stale = append(stale, text)
		}
	}
	sort.Strings(stale)
	for _, text := range stale {
		t.Errorf("checked list entry %q is in no doc any more: remove it", text)
	}
}

// The e2e's README commands are where the e2e says they are.
func TestE2ERunsREADMECommands(t *testing.T) {
	e2e := readFile(t, filepath.Join("..", "e2e", "documented_test.go"))
	for _, prefix := range []string{"kubectl wait br/demo", "kubectl get br -o wide"} {
		if !strings.Contains(e2e, `readmeCommand(t, "`+prefix+`")`) {
			t.Errorf("e2e/documented_test.go no longer runs README's %q", prefix)
		}
	}
	for _, name := range []string{"install-operator", "uninstall"} {
		out, err := exec.Command(filepath.Join("..", "hack", "doc-block.sh"), filepath.Join("..", "README.md"), name).CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) == 0 {
			t.Errorf("hack/doc-block.sh README.md %s: %v %s", name, err, out)
		}
	}
}

// The static checks catch what goes stale: a target, a flag, a file, a test name, a chart value.
func TestStaticCheckCatchesStaleCommands(t *testing.T) {
	for _, text := range []string{
		"make demo-everything",
		"kubectl wait br/demo --for=condition=Ended --timout=30m",
		"kubectl apply -f config/samples/no-such-sample.yaml",
		"kubectl tpcc status demo --follow",
		"go test ./internal/search -run TestNoSuchTest -v",
		`helm upgrade --install tpcc-operator charts/tpcc-operator --set image.repository="$IMG_PREFIX"`,
		"helm uninstall tpcc-operator --purge",
		"hack/no-such-script.sh up",
	} {
		if err := staticCheck(t, text); err == nil {
			t.Errorf("%q passed the static check", text)
		}
	}
	for _, text := range []string{"make demo", "kubectl wait br/demo --for=condition=Ended --timeout=30m", "go test ./internal/search -run TestGuidedAgreesWithLineSearch -v"} {
		if err := staticCheck(t, text); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// Every sample says how long it runs and what it needs.
func TestSamplesStateDurationAndFootprint(t *testing.T) {
	samples, err := filepath.Glob(filepath.Join("..", "config", "samples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range samples {
		if filepath.Base(path) == "kustomization.yaml" {
			continue
		}
		text := readFile(t, path)
		for _, field := range []string{"# Duration:", "# Footprint:"} {
			if !strings.Contains(text, field) {
				t.Errorf("%s: its header has no %q line", filepath.Base(path), field)
			}
		}
	}
	kustomization := readFile(t, filepath.Join("..", "config", "samples", "kustomization.yaml"))
	if n := len(regexp.MustCompile(`(?m)^- `).FindAllString(kustomization, -1)); n != 1 || !strings.Contains(kustomization, "\n- demo.yaml") {
		t.Errorf("config/samples/kustomization.yaml lists %d samples: kubectl apply -k config/samples must start the demo only, not every benchmark at once", n)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// inMakeRecipeRunByCI: a command a make target CI runs executes (make demo applies the demo sample).
func inMakeRecipeRunByCI(t *testing.T, text, ci string) bool {
	if text == "kubectl apply -f config/samples/demo.yaml" {
		return strings.Contains(ci, "make demo") && strings.Contains(readFile(t, filepath.Join("..", "hack", "demo.sh")), "config/samples/demo.yaml")
	}
	if text == "make generate manifests" {
		return strings.Contains(ci, "make verify") && strings.Contains(readFile(t, filepath.Join("..", "hack", "verify.sh")), "manifests")
	}
	return false
}

var repoPath = regexp.MustCompile(`^(config|charts|hack|docs|e2e|internal|cmd|api|controllers)/[^\s'"$]*$`)

// staticCheck checks what can be checked of a command without a cluster.
func staticCheck(t *testing.T, text string) error {
	t.Helper()
	for _, part := range strings.Split(text, "&&") {
		args := strings.Fields(part)
		for len(args) > 0 && strings.Contains(args[0], "=") && !strings.HasPrefix(args[0], "-") {
			args = args[1:] // VAR=value prefixes
		}
		if len(args) == 0 {
			continue
		}
		for _, a := range args {
			if p := strings.Trim(a, `'"`); repoPath.MatchString(p) {
				if _, err := os.Stat(filepath.Join("..", p)); err != nil {
					return fmt.Errorf("%s does not exist", p)
				}
			}
		}
		var err error
		switch {
		case args[0] == "make":
			err = makeDryRun(args[1:])
		case args[0] == "kubectl" && len(args) > 1 && args[1] == "tpcc":
			err = helpParses(pluginBinary(t), args[2:])
		case args[0] == "kubectl" && len(args) > 1 && args[1] == "plugin":
		case args[0] == "kubectl":
			err = helpParses(tool(t, "kubectl"), args[1:])
		case args[0] == "helm" && len(args) > 1 && (args[1] == "upgrade" || args[1] == "install") && strings.Contains(text, "charts/tpcc-operator"):
			err = helmTemplate(t, args)
		case args[0] == "helm":
			err = helpParses(tool(t, "helm"), args[1:])
		case args[0] == "go" && len(args) > 1 && args[1] == "test":
			err = goTestNamesTests(args[2:])
		case strings.HasPrefix(args[0], "hack/"):
			if info, statErr := os.Stat(filepath.Join("..", args[0])); statErr != nil || info.Mode()&0o111 == 0 {
				err = fmt.Errorf("%s is not an executable script", args[0])
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func makeDryRun(args []string) error {
	cmd := exec.Command("make", append([]string{"-n", "-C", ".."}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("make -n %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// helpParses runs the command with --help: flags it does not know fail, nothing else runs.
func helpParses(binary string, args []string) error {
	var clean []string
	for _, a := range args {
		clean = append(clean, strings.Trim(a, `'"`))
	}
	cmd := exec.Command(binary, append(clean, "--help")...)
	cmd.Env = append(os.Environ(), "KUBECONFIG=/nonexistent")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s --help: %v: %s", filepath.Base(binary), strings.Join(clean, " "), err, firstLines(out))
	}
	return nil
}

// helmTemplate renders an install or upgrade of the chart with the command's --set flags.
func helmTemplate(t *testing.T, args []string) error {
	render := []string{"template", "tpcc-operator", filepath.Join("..", "charts", "tpcc-operator"), "--set", "image.prefix=registry.example.com/tpcc-operator"}
	for i := 0; i < len(args); i++ {
		if args[i] == "--set" && i+1 < len(args) {
			value := strings.Trim(args[i+1], `'"`)
			value = strings.NewReplacer(`"$IMG_PREFIX"`, "registry.example.com/tpcc-operator", "$IMG_PREFIX", "registry.example.com/tpcc-operator",
				`"$TAG"`, "0.1.0", "$TAG", "0.1.0", "$PROMETHEUS_SA", "prometheus", "$PROMETHEUS_NAMESPACE", "monitoring").Replace(value)
			value = strings.ReplaceAll(value, `"`, "")
			render = append(render, "--set", value)
			i++
		}
	}
	cmd := exec.Command(tool(t, "helm"), render...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("helm %s: %v: %s", strings.Join(render, " "), err, firstLines(out))
	}
	return nil
}

var testFunc = regexp.MustCompile(`(?m)^func ((Test|Benchmark)\w+)\(`)

// goTestNamesTests checks that -run and -bench patterns name tests of the package.
func goTestNamesTests(args []string) error {
	var pkg, run, bench string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-run" && i+1 < len(args):
			run = strings.Trim(args[i+1], `'"`)
			i++
		case args[i] == "-bench" && i+1 < len(args):
			bench = strings.Trim(args[i+1], `'"`)
			i++
		case strings.HasPrefix(args[i], "./"):
			pkg = args[i]
		}
	}
	if pkg == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join("..", pkg, "*_test.go"))
	if len(files) == 0 {
		return fmt.Errorf("%s has no tests", pkg)
	}
	var names []string
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, m := range testFunc.FindAllStringSubmatch(string(data), -1) {
			names = append(names, m[1])
		}
	}
	for _, pattern := range []string{run, bench} {
		if pattern == "" || pattern == "XXX" {
			continue
		}
		re, err := regexp.Compile(strings.Split(pattern, "/")[0])
		if err != nil {
			return fmt.Errorf("pattern %q: %v", pattern, err)
		}
		matched := false
		for _, n := range names {
			matched = matched || re.MatchString(n)
		}
		if !matched {
			return fmt.Errorf("no test or benchmark of %s matches %q", pkg, pattern)
		}
	}
	return nil
}

func firstLines(out []byte) string {
	lines := strings.SplitN(string(out), "\n", 4)
	return strings.Join(lines[:min(3, len(lines))], " | ")
}

var (
	toolsOnce sync.Once
	tools     = map[string]string{}
	toolsErr  error
)

// tool is kubectl or helm as the Makefile gets them: built from source and cached on first use.
func tool(t *testing.T, name string) string {
	t.Helper()
	toolsOnce.Do(func() {
		out, err := exec.Command(filepath.Join("..", "hack", "k8s-bins.sh"), "kubectl").Output()
		if err != nil {
			toolsErr = fmt.Errorf("hack/k8s-bins.sh kubectl: %w%s", err, stderr(err))
			return
		}
		tools["kubectl"] = filepath.Join(strings.TrimSpace(string(out)), "kubectl")
		out, err = exec.Command(filepath.Join("..", "hack", "cluster", "helm.sh")).Output()
		if err != nil {
			toolsErr = fmt.Errorf("hack/cluster/helm.sh: %w%s", err, stderr(err))
			return
		}
		tools["helm"] = strings.TrimSpace(string(out))
		plugin := filepath.Join(t.TempDir(), "kubectl-tpcc")
		if out, err := exec.Command("go", "build", "-o", plugin, "../cmd/kubectl-tpcc").CombinedOutput(); err != nil {
			toolsErr = fmt.Errorf("go build ./cmd/kubectl-tpcc: %v: %s", err, out)
			return
		}
		tools["kubectl-tpcc"] = plugin
	})
	if toolsErr != nil {
		t.Fatal(toolsErr)
	}
	return tools[name]
}

func pluginBinary(t *testing.T) string { return tool(t, "kubectl-tpcc") }

func stderr(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return ": " + strings.TrimSpace(string(exit.Stderr))
	}
	return ""
}
