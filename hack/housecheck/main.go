// Command housecheck keeps the project's house in order (make verify runs it):
//
//   - engine names: outside the places that are an engine's own (api/, the engine folders and
//     their registry, the wire-side dialect packages and theirs), no non-test Go file names a
//     database engine in an identifier or a string literal — shared code asks an engine's
//     descriptor instead (comments may name engines);
//   - imports point down: each rule below names packages that must not import others.
//
// It prints every offence with its file and line and exits 1 when there is one.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// enginePattern matches what names an engine in an identifier or a string: the engines' names and
// their usual abbreviations, in any case.
var enginePattern = regexp.MustCompile(`(?i)postgres|cockroach|crdb|ydb|cnpg|cloudnative`)

// engineOwn are the folders where naming an engine is the point: the API's enum and blocks, each
// engine's Kubernetes side and the registry listing them, each engine's wire side and the
// registry listing those, and the test-only engines (test/engines), each both sides in one folder. Support says why a folder outside the product's shared code names one.
var engineOwn = []string{
	"api/",
	"internal/engines/cockroach/", "internal/engines/postgres/", "internal/engines/ydb/", "internal/engines/registry/",
	"internal/tpcc/pgwire/", "internal/tpcc/ydb/", "internal/tpcc/drivers/", "internal/tpcc/crdb/", "internal/tpcc/crdbgrammar/",
	"test/engines/",
}

// engineSupport are folders outside the product's shared code that name an engine for a reason of
// their own.
var engineSupport = map[string]string{
	"internal/results/":               "the results database is PostgreSQL by design, whatever engine a run measures",
	"cmd/kubectl-tpcc/":               "its results-database flags take PostgreSQL URIs (the results database)",
	"internal/pgtest/":                "starts a PostgreSQL server for tests",
	"internal/testenv/":               "installs each engine operator's CRDs into envtest",
	"internal/snapshot/snapshottest/": "fakes the client pods of a PostgreSQL run for tests",
	"controllers/controllertest/":     "test support: plays CloudNativePG and PostgreSQL client pods against envtest",
	"hack/":                           "build and CI tooling: builds the PostgreSQL image, brings up CloudNativePG",
	"e2e/":                            "end-to-end tests against the engines",
	"config/":                         "sample manifests",
}

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	var offences []string
	offences = append(offences, engineNames(root)...)
	imports, err := importOffences(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "housecheck:", err)
		os.Exit(2)
	}
	offences = append(offences, imports...)
	if len(offences) > 0 {
		sort.Strings(offences)
		for _, o := range offences {
			fmt.Fprintln(os.Stderr, o)
		}
		fmt.Fprintf(os.Stderr, "housecheck: %d offences (an engine named in shared code: ask its descriptor in internal/engines or its driver in internal/tpcc; an import pointing up: move the shared part down)\n", len(offences))
		os.Exit(1)
	}
	fmt.Println("housecheck: ok")
}

func exempt(rel string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

// engineNames lists the identifiers and string literals naming an engine in non-test Go files
// outside the engines' own folders.
func engineNames(root string) []string {
	var out []string
	fset := token.NewFileSet()
	support := make([]string, 0, len(engineSupport))
	for p := range engineSupport {
		support = append(support, p)
	}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "bin" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || exempt(rel, engineOwn) || exempt(rel, support) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", rel, err))
			return nil
		}
		out = append(out, fileEngineNames(fset, rel, f)...)
		return nil
	})
	return out
}

// fileEngineNames are one file's identifiers and string literals that name an engine; import
// paths are left to the import rules.
func fileEngineNames(fset *token.FileSet, rel string, f *ast.File) []string {
	var out []string
	imports := map[*ast.BasicLit]bool{}
	for _, imp := range f.Imports {
		imports[imp.Path] = true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.Ident:
			if enginePattern.MatchString(x.Name) {
				out = append(out, fmt.Sprintf("%s:%d: identifier %s names an engine", rel, fset.Position(x.Pos()).Line, x.Name))
			}
		case *ast.BasicLit:
			if x.Kind != token.STRING || imports[x] {
				return true
			}
			if s, err := strconv.Unquote(x.Value); err == nil && enginePattern.MatchString(s) {
				out = append(out, fmt.Sprintf("%s:%d: string %q names an engine", rel, fset.Position(x.Pos()).Line, shorten(s)))
			}
		}
		return true
	})
	return out
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "…"
	}
	return s
}

const module = "github.com/tpcc-operator/tpcc-operator/"

// importRule: packages under From (a path prefix in the module) must not import packages under any
// of Not, except those under Unless.
type importRule struct {
	From   string
	Not    []string
	Unless []string
	Why    string
}

var importRules = []importRule{
	{From: "internal/engines", Not: []string{"internal/jobs", "internal/report", "controllers", "internal/tpcc", "internal/results"},
		Unless: []string{"internal/tpcc/isolation", "internal/tpcc/crdb/levels"},
		Why:    "an engine's Kubernetes side knows no jobs, reports or controllers, and of its wire side only the isolation vocabulary"},
	{From: "internal/tpcc", Not: []string{"k8s.io/", "sigs.k8s.io/", "api/", "controllers", "internal/engines", "internal/jobs", "internal/report"},
		Why: "the workload knows nothing of Kubernetes"},
	{From: "internal/report", Not: []string{"internal/engines", "controllers", "internal/jobs", "internal/results", "internal/tpcc"},
		Why: "reports render what status and an engine's description say, and know no engine"},
	{From: "internal/results", Not: []string{"internal/report", "controllers", "internal/engines"},
		Why: "the results database stores what runs recorded; rendering is the report's"},
	{From: "internal/jobs", Not: []string{"controllers", "internal/report", "internal/results", "internal/engines/"},
		Why: "jobs are built from a run and a connection, not from an engine's folder"},
	{From: "internal/search", Not: []string{"k8s.io/", "sigs.k8s.io/", "api/", "controllers", "internal/"},
		Unless: []string{"internal/search"}, Why: "the search is pure"},
	{From: "internal/sla", Not: []string{"k8s.io/", "sigs.k8s.io/", "controllers", "internal/engines", "internal/jobs", "internal/report"},
		Why: "verdicts are pure"},
	{From: "internal/snapshot", Not: []string{"k8s.io/", "sigs.k8s.io/", "api/", "controllers", "internal/"},
		Unless: []string{"internal/snapshot"}, Why: "the snapshot contract is the bottom layer both sides share"},
	{From: "internal/measure", Not: []string{"k8s.io/client-go", "sigs.k8s.io/", "controllers", "internal/engines", "internal/jobs", "internal/report", "internal/kube", "internal/results", "internal/resultsdb", "internal/metrics"},
		Why: "measurement is pure: it takes what the reconciler read and returns records"},
	{From: "internal/kube", Not: []string{"internal/"}, Why: "writing objects the operator's way knows nothing of runs' contents"},
	{From: "internal/", Not: []string{"controllers", "cmd/"}, Why: "internal packages sit below the controllers and commands"},
	{From: "api/", Not: []string{"internal/", "controllers", "cmd/"}, Why: "the API is the bottom"},
}

// importOffences lists the imports of the module's packages that break a rule. Tests may import
// what they need to build realistic inputs (a report test describes databases through the
// engines' registry); the packages themselves may not.
func importOffences(root string) ([]string, error) {
	cmd := exec.Command("go", "list", "-e", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	body, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], module) {
			continue
		}
		from := strings.TrimPrefix(fields[0], module)
		seen := map[string]bool{}
		for _, imp := range fields[1:] {
			if seen[imp] {
				continue
			}
			seen[imp] = true
			if o := breaks(from, imp); o != "" {
				out = append(out, o)
			}
		}
	}
	return out, nil
}

// breaks says which rule an import from package from (module-relative) breaks, "" when none.
func breaks(from, imp string) string {
	target := strings.TrimPrefix(imp, module)
	inModule := target != imp
	for _, r := range importRules {
		if !under(from, r.From) {
			continue
		}
		for _, not := range r.Not {
			external := strings.Contains(not, ".") // k8s.io/, sigs.k8s.io/
			if (external && strings.HasPrefix(imp, not)) || (!external && inModule && under(target, not)) {
				if exceptIn(target, r.Unless) || (inModule && under(target, from) && strings.HasSuffix(r.From, "/") == false && target == from) {
					continue
				}
				return fmt.Sprintf("%s imports %s: %s", from, target, r.Why)
			}
		}
	}
	return ""
}

// under says whether package p is path prefix or below it: "internal/engines" covers
// internal/engines and internal/engines/postgres; "internal/engines/" only what is below.
func under(p, prefix string) bool {
	if strings.HasSuffix(prefix, "/") {
		return strings.HasPrefix(p, prefix)
	}
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

func exceptIn(p string, unless []string) bool {
	for _, u := range unless {
		if under(p, u) {
			return true
		}
	}
	return false
}
