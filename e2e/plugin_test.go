//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// testPluginFollowsAndReports builds kubectl-tpcc, follows a small run with `kubectl tpcc status
// -w` (as kubectl runs the plugin: the binary kubectl-tpcc on PATH) until it ends, then writes its
// HTML report with `kubectl tpcc report -o html -f` and checks the file: well-formed, self-contained,
// with its charts. The run records into a results database in the cluster (results_test.go): once
// it is deleted, kubectl tpcc history still lists it and its report is rebuilt from the database.
func testPluginFollowsAndReports(t *testing.T) {
	ns := newNamespace(t, "plugin")
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl-tpcc"), "./cmd/kubectl-tpcc")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/kubectl-tpcc: %v\n%s", err, out)
	}
	createResultsDatabase(t, ns)
	run := smallSyncRun(ns, "plugin") // three instances: the page shows the standbys' replay lag
	withResults(run)
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	plugin := func(args ...string) (string, string, int) {
		cmd := exec.Command(kubectl, append([]string{"tpcc", "-n", ns}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		err := cmd.Run()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("kubectl tpcc %v: %v", args, err)
		}
		return out.String(), errs.String(), code
	}

	out, errs, code := plugin("status", "plugin", "-w", "--interval", "2s", "--timeout", "30m")
	t.Logf("kubectl tpcc status -w:\n%s", out)
	if code != 0 {
		t.Fatalf("status -w exited %d (0: Succeeded): %s", code, errs)
	}
	for _, want := range []string{"following plugin", "Loading", "Running — step 0", "Succeeded", "result: ", "report: ConfigMap plugin-report"} {
		if !strings.Contains(out, want) {
			t.Errorf("status -w lacks %q", want)
		}
	}

	file := filepath.Join(t.TempDir(), "plugin.html")
	if _, errs, code := plugin("report", "plugin", "-o", "html", "-f", file); code != 0 {
		t.Fatalf("report -o html exited %d: %s", code, errs)
	}
	page, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := html.Parse(bytes.NewReader(page)); err != nil {
		t.Fatalf("%s does not parse: %v", file, err)
	}
	for _, want := range []string{"<svg", "tpmC against active warehouses", "Step 0: p90 response time over time", "Step 0: standby replay lag"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	if strings.Contains(string(page), "<script") {
		t.Error("the HTML report holds a script")
	}
	browserChecksRunReport(t, file)
	// The operator's own copy in the report ConfigMap.
	out, _, _ = plugin("report", "plugin", "-o", "md")
	if !strings.Contains(out, "| step | kind | measured |") {
		t.Errorf("report -o md:\n%s", out)
	}
	checkResultsOutliveTheRun(t, ns, "plugin", file, plugin)
}
