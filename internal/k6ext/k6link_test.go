package k6ext

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests of this file guard the go:linkname of k6link.go: each failure names the linked k6
// function and the k6 version it was checked against, so a k6 upgrade that breaks the link says
// so instead of failing somewhere in `tpcc run`.

// linkTarget reads the go:linkname directive of k6link.go: the local name and the k6 symbol.
func linkTarget(t *testing.T) (local, symbol string) {
	t.Helper()
	src, err := os.ReadFile("k6link.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^//go:linkname (\w+) (\S+)$`).FindAllStringSubmatch(string(src), -1)
	if len(m) != 1 {
		t.Fatalf("k6link.go holds %d go:linkname directives, want exactly one (the package's only link into k6)", len(m))
	}
	return m[0][1], m[0][2]
}

// linkBroken is the start of every failure message of these tests.
func linkBroken(t *testing.T) string {
	_, symbol := linkTarget(t)
	return fmt.Sprintf("the go:linkname to %s (k6link.go, checked against k6 %s)", symbol, K6Version)
}

// TestNoOtherLinkname keeps the package's go:linkname in k6link.go alone.
func TestNoOtherLinkname(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f == "k6link.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte("//go:linkname")) || bytes.Contains(src, []byte(`"unsafe"`)) {
			t.Errorf("%s links into another package (go:linkname or unsafe): keep that in k6link.go, with its reason", f)
		}
	}
}

// k6Module returns the version and source directory of the go.k6.io/k6 module the build uses.
func k6Module(t *testing.T) (version, dir string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-m", "-f", "{{.Version}} {{.Dir}}", "go.k6.io/k6").Output()
	if err != nil {
		t.Fatalf("go list -m go.k6.io/k6: %v", err)
	}
	version, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || dir == "" {
		t.Fatalf("go list -m go.k6.io/k6 printed %q: want the version and the module's directory (is it downloaded?)", out)
	}
	return version, dir
}

// signature renders a function declaration's parameter and result types with their packages'
// import paths, e.g. "(*go.k6.io/k6/cmd/state.GlobalState)".
func signature(file *ast.File, fn *ast.FuncDecl) string {
	imports := map[string]string{}
	for _, im := range file.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	var expr func(ast.Expr) string
	expr = func(e ast.Expr) string {
		switch e := e.(type) {
		case *ast.Ident:
			return e.Name
		case *ast.StarExpr:
			return "*" + expr(e.X)
		case *ast.SelectorExpr:
			return imports[expr(e.X)] + "." + e.Sel.Name
		case *ast.ArrayType:
			return "[]" + expr(e.Elt)
		case *ast.Ellipsis:
			return "..." + expr(e.Elt)
		}
		return fmt.Sprintf("%T", e)
	}
	list := func(fl *ast.FieldList) string {
		var types []string
		if fl != nil {
			for _, f := range fl.List {
				for range max(len(f.Names), 1) {
					types = append(types, expr(f.Type))
				}
			}
		}
		return "(" + strings.Join(types, ", ") + ")"
	}
	return list(fn.Type.Params) + " " + list(fn.Type.Results)
}

// findFunc parses the non-test files of dir and returns the file and declaration of the
// package-level function name.
func findFunc(t *testing.T, dir, name string) (*ast.File, *ast.FuncDecl) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", path, err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name {
				return f, fn
			}
		}
	}
	return nil, nil
}

// TestLinkedSymbolMatchesK6Source reads the linked function in the source of the k6 module the
// build uses: it must exist with the signature of the local declaration, in the k6 version the
// link was checked against. A body-less declaration is trusted by the compiler, so only this
// test sees a changed signature.
func TestLinkedSymbolMatchesK6Source(t *testing.T) {
	local, symbol := linkTarget(t)
	broken := linkBroken(t)
	version, dir := k6Module(t)
	if version != K6Version {
		t.Fatalf("%s: the build uses go.k6.io/k6 %s; re-check that k6 has no public way to run its CLI in-process "+
			"(k6link.go lists what was checked), that the symbol still does what RunK6 needs, then update K6Version", broken, version)
	}
	dot := strings.LastIndex(symbol, ".")
	pkg, name := symbol[:dot], symbol[dot+1:]
	rel, ok := strings.CutPrefix(pkg, "go.k6.io/k6/")
	if !ok {
		t.Fatalf("%s: the symbol is not in the go.k6.io/k6 module", broken)
	}
	kf, kfn := findFunc(t, filepath.Join(dir, filepath.FromSlash(rel)), name)
	if kfn == nil {
		t.Fatalf("%s: k6 %s has no function %s in %s", broken, version, name, pkg)
	}
	lf, lfn := findFunc(t, ".", local)
	if lfn == nil {
		t.Fatalf("k6link.go declares no function %s for its go:linkname", local)
	}
	if lfn.Body != nil {
		t.Fatalf("%s: the local declaration %s has a body; a linked declaration has none", broken, local)
	}
	if got, want := signature(kf, kfn), signature(lf, lfn); got != want {
		t.Fatalf("%s: k6 %s declares %s%s, the local declaration is %s%s", broken, version, name, got, local, want)
	}
}

// runK6 runs the k6 CLI in-process with its output captured and returns the exit code, stdout
// and stderr.
func runK6(ctx context.Context, inv K6Invocation) (int, string, string) {
	var stdout, stderr bytes.Buffer
	inv.Stdout, inv.Stderr = &stdout, &stderr
	if inv.Env == nil {
		inv.Env = OfflineEnv(nil)
	}
	code := RunK6(ctx, inv)
	return code, stdout.String(), stderr.String()
}

// TestLinkedK6Version runs `k6 version --json` in-process: the k6 linked in is the version the
// link was checked against, and it lists the extension.
func TestLinkedK6Version(t *testing.T) {
	broken := linkBroken(t)
	code, stdout, stderr := runK6(context.Background(), K6Invocation{Args: []string{"version", "--json"}})
	if code != 0 {
		t.Fatalf("%s: `k6 version --json` exited with %d, want 0; stderr:\n%s", broken, code, stderr)
	}
	var v struct {
		Version    string `json:"version"`
		Extensions []struct {
			Imports []string `json:"imports"`
		} `json:"extensions"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("%s: `k6 version --json` printed %q: %v", broken, stdout, err)
	}
	if v.Version != K6Version {
		t.Fatalf("%s: the k6 linked in says it is %s", broken, v.Version)
	}
	var imports []string
	for _, e := range v.Extensions {
		imports = append(imports, e.Imports...)
	}
	if !slices.Contains(imports, ModuleName) {
		t.Fatalf("`k6 version --json` lists the extension imports %v, want %s among them", imports, ModuleName)
	}
}

// TestRunK6 runs the k6 CLI in-process several times, one after the other in this process, and
// checks what RunK6 promises: its arguments, environment and stdin reach k6, its output goes to
// the writers given, and every exit code comes back instead of ending the process.
func TestRunK6(t *testing.T) {
	broken := linkBroken(t)
	script := filepath.Join(t.TempDir(), "file.js")
	if err := os.WriteFile(script, []byte("console.log('from a file'); export default function () {}"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := []string{"run", "--quiet", "--address=", "--summary-mode=disabled"}
	requireProbe := "if (__ENV.TPCC_PROBE !== 'seen') { throw new Error('TPCC_PROBE is ' + __ENV.TPCC_PROBE) }\nexport default function () {}"
	cases := []struct {
		name         string
		args         []string
		env          map[string]string
		stdin        string
		code         int
		stdout, logs string // substrings of stdout and stderr
	}{
		{name: "version", args: []string{"version"}, code: 0, stdout: K6Version},
		{name: "a script on stdin", args: append(run, "-"), stdin: "console.log('from stdin'); export default function () {}",
			code: 0, logs: "from stdin"},
		{name: "a script file named in the arguments", args: append(run, script), code: 0, logs: "from a file"},
		{name: "the environment reaches __ENV", args: append(run, "-"), env: OfflineEnv(map[string]string{"TPCC_PROBE": "seen"}),
			stdin: requireProbe, code: 0},
		{name: "an --env argument reaches __ENV", args: append(run, "--env", "TPCC_PROBE=seen", "-"), stdin: requireProbe, code: 0},
		{name: "without it the script fails to initialise", args: append(run, "-"), stdin: requireProbe, code: 107,
			logs: "TPCC_PROBE is undefined"},
		{name: "a crossed threshold", args: append(run, "-"), code: 99, logs: "thresholds on metrics 'iterations' have been crossed",
			stdin: "export const options = {iterations: 1, thresholds: {iterations: ['count>5']}}\nexport default function () {}"},
		{name: "a syntax error", args: append(run, "-"), stdin: "export default function ( {}", code: 107, logs: "Expected"},
		{name: "an aborted test", args: append(run, "-"),
			stdin: "import exec from 'k6/execution'\nexport default function () { exec.test.abort('enough') }", code: 108, logs: "enough"},
		{name: "an unknown flag, an error without an exit code", args: []string{"run", "--no-such-flag", "-"}, stdin: "export default function () {}",
			code: -1, logs: "unknown flag: --no-such-flag"},
		{name: "the options of a script", args: []string{"inspect", "-"}, stdin: "export const options = {vus: 3, iterations: 7}\nexport default function () {}",
			code: 0, stdout: `"iterations": 7`},
	}
	for _, c := range cases {
		inv := K6Invocation{Args: c.args, Env: c.env}
		if c.stdin != "" {
			inv.Stdin = strings.NewReader(c.stdin)
		}
		code, stdout, stderr := runK6(context.Background(), inv)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.logs) {
			t.Errorf("%s: %s: exit code %d, want %d; stdout has %q: %v; stderr has %q: %v\nstdout:\n%s\nstderr:\n%s",
				broken, c.name, code, c.code, c.stdout, strings.Contains(stdout, c.stdout), c.logs, strings.Contains(stderr, c.logs), stdout, stderr)
		}
	}
}

// TestRunK6Cancel cancels a run's context: k6 stops the test and RunK6 returns.
func TestRunK6Cancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	code, _, stderr := runK6(ctx, K6Invocation{Args: []string{"run", "--quiet", "--address=", "--summary-mode=disabled", "-"},
		Stdin: strings.NewReader("import { sleep } from 'k6'\nexport const options = {vus: 1, duration: '1m'}\nexport default function () { sleep(30) }")})
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("%s: a cancelled run returned after %v (code %d), want within seconds of the cancel; stderr:\n%s", linkBroken(t), took, code, stderr)
	}
}
