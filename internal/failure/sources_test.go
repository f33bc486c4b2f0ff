package failure

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Every failure reason the controllers can set has an entry in internal/failure (which
// docs/troubleshooting.md's tables are rendered from and the kubectl plugin takes its hints from),
// and the catalog lists no reason the controllers never set. The reasons are found in the source
// (go/ast over the reconcilers' packages, controllers/run and controllers/suite), so a new reason
// fails this test until it is documented:
//   - BenchmarkRun: the reason argument of every r.fail(ctx, run, REASON, message) call — a string
//     literal, or a variable whose values are string literals assigned in the same function or
//     returned (as the same named result) by the same-package function it is assigned from;
//   - BenchmarkSuite runs: string literals assigned to a record's .Reason in a statement that also
//     sets its .Phase to benchv1.PhaseFailed;
//   - BenchmarkSuite: the reason of every kube.SetCondition(…, benchv1.ConditionFailed,
//     metav1.ConditionTrue, REASON, …).
//
// A reason argument the test cannot follow fails it, naming the place: pass a literal instead.
func TestEveryFailureReasonIsCatalogued(t *testing.T) {
	found, problems := map[Kind]map[string][]string{}, []string(nil)
	controllers := filepath.Join("..", "..", "controllers")
	for _, dirs := range [][]string{{filepath.Join(controllers, "run"), filepath.Join(controllers, "run", "plan")}, {filepath.Join(controllers, "suite")}} {
		f, p := failureReasonsInSource(t, dirs...)
		for kind, names := range f {
			if found[kind] == nil {
				found[kind] = map[string][]string{}
			}
			for name, at := range names {
				found[kind][name] = append(found[kind][name], at...)
			}
		}
		problems = append(problems, p...)
	}
	for _, p := range problems {
		t.Error(p)
	}
	for _, kind := range []Kind{Run, SuiteRun, Suite} {
		var inCode []string
		for name := range found[kind] {
			inCode = append(inCode, name)
		}
		sort.Strings(inCode)
		catalogued := Names(kind)
		if len(inCode) == 0 {
			t.Errorf("%s: the scan found no reason at all: the test no longer sees how the controllers fail", kind)
		}
		for _, name := range inCode {
			r, ok := Lookup(name)
			switch {
			case !ok:
				t.Errorf("%s reason %q (%s) is not in internal/failure's catalog: add what it means and what to do, then `go test ./internal/failure -update` rewrites docs/troubleshooting.md", kind, name, strings.Join(found[kind][name], ", "))
			case r.Kind != kind:
				t.Errorf("reason %q is set on a %s (%s) but catalogued as %s", name, kind, strings.Join(found[kind][name], ", "), r.Kind)
			}
		}
		for _, name := range catalogued {
			if _, ok := found[kind][name]; !ok {
				t.Errorf("%s reason %q is catalogued in internal/failure but no controller sets it: remove it", kind, name)
			}
		}
	}
}

// The scanner is tested on a fixture, so that a blind scanner cannot pass the test above.
func TestFailureReasonScannerFollowsVariables(t *testing.T) {
	src := `package controllers
func (r *R) a() error { return r.fail(ctx, run, "Literal", "m") }
func (r *R) b() error {
	reason := "Assigned"
	if x { reason = "Reassigned" }
	return r.fail(ctx, run, reason, "m")
}
func (r *R) c() error {
	if reason, message := verdict(run); reason != "" { return r.fail(ctx, run, reason, message) }
	return nil
}
func verdict(run *Run) (reason, message string) {
	if y { reason = "FromCallee" }
	return reason, ""
}
func (r *R) d() error { return r.fail(ctx, run, somePackage.Value, "m") }
const reasonConst = "FromConstant"
func (r *R) f() error { return r.fail(ctx, run, reasonConst, "m") }
func (r *R) e() error {
	func() { _, reason := 1, "Shadowed"; _ = reason }()
	reason := "Outer"
	return r.fail(ctx, run, reason, "m")
}
func record() {
	rec.Phase, rec.Reason = benchv1.PhaseFailed, "SuiteRecord"
	rec.Reason = "NotAFailure"
	setConditionIn(&s.Conditions, g, benchv1.ConditionFailed, metav1.ConditionTrue, "SuiteFailed", m)
	setConditionIn(&s.Conditions, g, benchv1.ConditionFailed, metav1.ConditionFalse, "NotFailed", m)
}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	found, problems := failureReasonsInSource(t, dir)
	got := map[Kind][]string{}
	for kind, names := range found {
		for name := range names {
			got[kind] = append(got[kind], name)
		}
		sort.Strings(got[kind])
	}
	want := map[Kind][]string{
		Run:      {"Assigned", "FromCallee", "FromConstant", "Literal", "Outer", "Reassigned"},
		SuiteRun: {"SuiteRecord"},
		Suite:    {"SuiteFailed"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "somePackage.Value") {
		t.Errorf("problems %q, want one naming somePackage.Value", problems)
	}
}

// failureReasonsInSource scans the non-test Go files of dir: found[kind][reason] lists where.
func failureReasonsInSource(t *testing.T, dirs ...string) (map[Kind]map[string][]string, []string) {
	t.Helper()
	fset := token.NewFileSet()
	var files []string
	for _, dir := range dirs {
		matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matches...)
	}
	funcs := map[string]*ast.FuncDecl{} // same-package functions (not methods) by name
	consts := map[string]string{}       // package-level string constants
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[fd.Name.Name] = fd
			}
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if lit, ok := stringLit(vs.Values[i]); ok {
								consts[name.Name] = lit
							}
						}
					}
				}
			}
		}
	}
	// The API package's string constants (benchv1.ReasonX), where the controllers name reasons.
	if apiFiles, _ := filepath.Glob(filepath.Join("..", "..", "api", "v1alpha1", "*.go")); len(apiFiles) > 0 {
		for _, name := range apiFiles {
			if strings.HasSuffix(name, "_test.go") || strings.HasPrefix(filepath.Base(name), "zz_") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
					for _, spec := range gd.Specs {
						vs := spec.(*ast.ValueSpec)
						for i, n := range vs.Names {
							if i < len(vs.Values) {
								if lit, ok := stringLit(vs.Values[i]); ok {
									consts["benchv1."+n.Name] = lit
								}
							}
						}
					}
				}
			}
		}
	}
	found := map[Kind]map[string][]string{}
	var problems []string
	add := func(kind Kind, name string, at token.Pos) {
		if found[kind] == nil {
			found[kind] = map[string][]string{}
		}
		pos := fset.Position(at)
		found[kind][name] = append(found[kind][name], fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line))
	}
	for _, f := range parsed {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Name.Name == "fail" {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "fail" && len(n.Args) == 4 {
						names, ok := reasonValues(n.Args[2], fd, funcs, consts, 0)
						if !ok {
							pos := fset.Position(n.Pos())
							problems = append(problems, fmt.Sprintf("%s:%d: cannot tell which reasons %s passes to fail: pass a string literal, or a variable assigned string literals",
								filepath.Base(pos.Filename), pos.Line, exprString(n.Args[2])))
						}
						for _, name := range names {
							add(Run, name, n.Pos())
						}
					}
					if name := exprString(n.Fun); (name == "setConditionIn" || name == "kube.SetCondition") && len(n.Args) == 6 &&
						exprString(n.Args[2]) == "benchv1.ConditionFailed" && exprString(n.Args[3]) == "metav1.ConditionTrue" {
						if lit, ok := stringLit(n.Args[4]); ok {
							add(Suite, lit, n.Pos())
						}
					}
				case *ast.AssignStmt:
					failed := false
					for i, lhs := range n.Lhs {
						if sel, ok := lhs.(*ast.SelectorExpr); ok && sel.Sel.Name == "Phase" && i < len(n.Rhs) && exprString(n.Rhs[i]) == "benchv1.PhaseFailed" {
							failed = true
						}
					}
					for i, lhs := range n.Lhs {
						if sel, ok := lhs.(*ast.SelectorExpr); ok && failed && sel.Sel.Name == "Reason" && i < len(n.Rhs) {
							if lit, ok := stringLit(n.Rhs[i]); ok {
								add(SuiteRun, lit, n.Pos())
							}
						}
					}
				}
				return true
			})
		}
	}
	return found, problems
}

// reasonValues resolves a reason expression to the string literals it can hold.
func reasonValues(e ast.Expr, fn *ast.FuncDecl, funcs map[string]*ast.FuncDecl, consts map[string]string, depth int) ([]string, bool) {
	if lit, ok := stringLit(e); ok {
		return []string{lit}, true
	}
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if v, ok := consts[exprString(sel)]; ok {
			return []string{v}, true // an API constant, benchv1.ReasonX
		}
		if exprString(sel) == "conflict.Reason" {
			// A kube.ConflictError stops a run on an object someone else owns;
			// its reasons are the API's Reason…Conflict constants.
			var out []string
			for name, v := range consts {
				if strings.HasPrefix(name, "benchv1.Reason") && strings.HasSuffix(name, "Conflict") {
					out = append(out, v)
				}
			}
			sort.Strings(out)
			return out, len(out) > 0
		}
	}
	id, ok := e.(*ast.Ident)
	if !ok || depth > 3 {
		return nil, false
	}
	if v, ok := consts[id.Name]; ok && (id.Obj == nil || id.Obj.Kind == ast.Con) {
		return []string{v}, true // a package-level string constant
	}
	var out []string
	resolved := true
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, lhs := range as.Lhs {
			// The same variable: the parser resolves each identifier to its declaration.
			if l, ok := lhs.(*ast.Ident); !ok || l.Name != id.Name || l.Obj == nil || l.Obj != id.Obj {
				continue
			}
			switch {
			case len(as.Rhs) == len(as.Lhs):
				if names, ok := reasonValues(as.Rhs[i], fn, funcs, consts, depth+1); ok && !isIdent(as.Rhs[i], id.Name) {
					out = append(out, names...)
				} else {
					resolved = false
				}
			case len(as.Rhs) == 1:
				call, ok := as.Rhs[0].(*ast.CallExpr)
				callee, isIdent := funcExprIdent(call, ok)
				target := funcs[callee]
				if !isIdent || target == nil || target.Type.Results == nil {
					resolved = false
					continue
				}
				names, ok := returnedValues(target, i, funcs, consts, depth+1)
				resolved = resolved && ok
				out = append(out, names...)
			}
		}
		return true
	})
	if len(out) == 0 {
		return nil, false
	}
	return out, resolved
}

func funcExprIdent(call *ast.CallExpr, ok bool) (string, bool) {
	if !ok {
		return "", false
	}
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name, true
	case *ast.SelectorExpr: // a function of another scanned package (plan.Next)
		if _, isPackage := f.X.(*ast.Ident); isPackage {
			return f.Sel.Name, true
		}
	}
	return "", false
}

// returnedValues resolves the i-th result of fn: each return statement's i-th expression (a
// literal, a constant, or the named result, resolved through its assignments); an empty string
// returned means no failure and is left out.
func returnedValues(fn *ast.FuncDecl, i int, funcs map[string]*ast.FuncDecl, consts map[string]string, depth int) ([]string, bool) {
	var out []string
	resolved := true
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		ret, ok := n.(*ast.ReturnStmt)
		if !ok {
			return true
		}
		if len(ret.Results) == 0 { // a bare return: the named result
			result := resultName(fn, i)
			if result == nil {
				resolved = false
				return true
			}
			names, ok := reasonValues(result, fn, funcs, consts, depth)
			resolved = resolved && ok
			out = append(out, names...)
			return true
		}
		if i >= len(ret.Results) {
			resolved = false
			return true
		}
		e := ret.Results[i]
		if lit, ok := stringLit(e); ok && lit == "" {
			return true
		}
		if id, ok := e.(*ast.Ident); ok {
			if result := resultName(fn, i); result != nil && result.Name == id.Name {
				e = result
			}
		}
		names, ok := reasonValues(e, fn, funcs, consts, depth)
		resolved = resolved && ok
		out = append(out, names...)
		return true
	})
	return out, resolved && len(out) > 0
}

// resultName is the i-th named result of fn, nil when results are unnamed.
func resultName(fn *ast.FuncDecl, i int) *ast.Ident {
	k := 0
	for _, field := range fn.Type.Results.List {
		for _, name := range field.Names {
			if k == i {
				return name
			}
			k++
		}
	}
	return nil
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.BasicLit:
		return e.Value
	}
	return fmt.Sprintf("%T", e)
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
