package report

import (
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// go test ./internal/report/ -run Golden -update rewrites testdata/ (then read the diff, and open
// the .html files in a browser once).
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/report/ -run Golden -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the rendering (-update rewrites it); first difference at byte %d", path, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// voidElements have no end tag in HTML.
var voidElements = map[string]bool{"meta": true, "br": true, "hr": true, "img": true, "input": true, "link": true}

// wellFormed checks that every element is closed in order, the document parses, and each inline
// SVG is well-formed XML. It returns the number of svg elements.
func wellFormed(t *testing.T, doc string) int {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(doc))
	var stack []string
	svgs := 0
loop:
	for {
		switch z.Next() {
		case html.ErrorToken:
			break loop
		case html.StartTagToken:
			name, _ := z.TagName()
			if !voidElements[string(name)] {
				stack = append(stack, string(name))
			}
			if string(name) == "svg" {
				svgs++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(stack) == 0 || stack[len(stack)-1] != string(name) {
				t.Fatalf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		t.Fatalf("unclosed elements %v", stack)
	}
	if _, err := html.Parse(strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	for i, frag := range regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(doc, -1) {
		d := xml.NewDecoder(strings.NewReader(frag))
		for {
			_, err := d.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("svg %d is not well-formed XML: %v", i, err)
				}
				break
			}
		}
	}
	for _, banned := range []string{"<script", "http://", "https://", "<link"} {
		if strings.Contains(strings.ReplaceAll(doc, `xmlns="http://www.w3.org/2000/svg"`, ""), banned) {
			t.Errorf("the page holds %q: it must be self-contained", banned)
		}
	}
	return svgs
}

func TestRunGolden(t *testing.T) {
	run := run20()
	md := RunMarkdown(described(run), *run.Status.Result)
	golden(t, "run20.md", md)
	page := RunHTML(RunInput{Run: described(run), Result: *run.Status.Result, Series: series20(run), Generated: t0.Add(3 * time.Hour)})
	golden(t, "run20.html", page)
	// The timeline's 4 panels, 2 capacity charts, the p90 per step, and per step p90 over time,
	// replay lag, database CPU; the fault step's disk and network of the pods, and step 18's
	// network (its disk reads zero: a sentence).
	if n := wellFormed(t, page); n != 4+3+3*20+2+1 {
		t.Errorf("%d svg elements, want %d", n, 4+3+3*20+2+1)
	}
	if err := contains(page, "Step 18: per-pod disk I/O reads zero throughout: the kubelet reported the pods&#39; network traffic but no disk traffic, as on nodes under cgroup v1",
		`<details class="step"><summary>Step 15 — 131 active warehouses (Full): 1625.8 tpmC, compliant</summary>`); err != nil {
		t.Error(err)
	}
	if strings.Contains(page, "<details open") {
		t.Error("a step's details are open: they fold under the timeline")
	}
	if i, j := strings.Index(page, "Run timeline: New-Order throughput"), strings.Index(page, "<h2>Capacity</h2>"); i < 0 || i > j {
		t.Error("the timeline does not lead the page: it is not before the capacity curve")
	}
	if err := contains(page, "active warehouses", "efficiency %", "p90 (ms)", "replay lag (ms)", "CPU (cores)", "minutes",
		`class="band"`, "outage 8.2s", "<title>KillPrimary db-1</title>", "<title>db-2</title>", "1 checkpoint(s)", "Response times at 131 active warehouses",
		"ledger check over 1310 districts: passed", "PostgreSQL 18.1"); err != nil {
		t.Error(err)
	}
	if len(page) > 1000<<10 {
		t.Errorf("the 20-step page is %d KiB", len(page)>>10)
	}
}

func TestRunHTMLDropsTheSeriesWhenTooLarge(t *testing.T) {
	run := run20()
	full := RunHTML(RunInput{Run: described(run), Result: *run.Status.Result, Series: series20(run), Generated: t0})
	small := RunHTML(RunInput{Run: described(run), Result: *run.Status.Result, Series: series20(run), Generated: t0, MaxBytes: len(full) - 1})
	if wellFormed(t, small) != 3 || !strings.Contains(small, "The time-series charts are left out (the run&#39;s timeline and each step&#39;s)") || len(small) >= len(full) {
		t.Errorf("the page over its bound keeps its time series (%d of %d bytes)", len(small), len(full))
	}
	none := RunHTML(RunInput{Run: described(run), Result: *run.Status.Result, SeriesNote: "series.json.gz was too large for the report ConfigMap", Generated: t0})
	if !strings.Contains(none, "series.json.gz was too large") {
		t.Error("the page without series does not say why")
	}
}

func TestRunReportsOfARunUnderWay(t *testing.T) {
	for _, tc := range []struct {
		phase benchv1.Phase
		steps int
		want  string
	}{
		{benchv1.PhasePending, 0, "the run is Pending: 0 steps recorded so far; no result yet"},
		{benchv1.PhaseLoading, 0, "the run is Loading: 0 steps recorded so far"},
		{benchv1.PhaseRunning, 3, "the run is Running: 3 steps recorded so far"},
	} {
		run := run20()
		run.Status.Phase, run.Status.Steps, run.Status.Result, run.Status.Report = tc.phase, run.Status.Steps[:tc.steps], nil, nil
		result := PartialResult(run)
		md := RunMarkdown(described(run), result)
		page := RunHTML(RunInput{Run: described(run), Result: result, Generated: t0})
		wellFormed(t, page)
		if !strings.Contains(md, tc.want) || !strings.Contains(page, tc.want) || !strings.Contains(page, "this report shows what is recorded so far") {
			t.Errorf("%s: the reports lack %q", tc.phase, tc.want)
		}
	}
}

func TestComparisonGolden(t *testing.T) {
	c, curves := suite3()
	golden(t, "suite3.md", Markdown(c))
	page := ComparisonHTML(c, curves)
	golden(t, "suite3.html", page)
	if n := wellFormed(t, page); n != 3 {
		t.Errorf("%d svg elements, want the bar chart and 2 curve charts", n)
	}
	if n := strings.Count(page, `class="bar"`); n != 3 {
		t.Errorf("%d bars, want one per database", n)
	}
	if n := strings.Count(page, `class="whisker"`); n != 3 {
		t.Errorf("%d whiskers, want one per database", n)
	}
	if err := contains(page, "Mean tpmC per database", "95 % confidence interval", "pg-async ★", "NewOrder", "pg-sync p95",
		"durability not at parity", "tpmC against active warehouses", "study-crdb-2", "LoadFailed: loader pod OOMKilled"); err != nil {
		t.Error(err)
	}
	if n := strings.Count(page, "<polyline"); n != 2*len(curves) {
		t.Errorf("%d curves drawn, want %d", n, 2*len(curves))
	}
}

func TestCompareRunsGolden(t *testing.T) {
	a := run20()
	b := run20()
	b.Name, b.Spec.Database = "pg-async", pg(3, 0, "on")
	b.Spec.Workload.Wait = benchv1.WaitNone
	// pg-async was compliant at all 200 loaded warehouses: a floor, so no leader is named.
	b.Status.Result.TpmC, b.Status.Result.MaxCompliantWarehouses, b.Status.Result.Bound = 2300, 200, benchv1.BoundAllLoadedCompliant
	b.Status.Report.ConfigMapName = "pg-async-report"
	c := run20()
	c.Name, c.Status.Phase, c.Status.Result, c.Status.Report, c.Status.Steps = "pg-running", benchv1.PhaseRunning, nil, nil, c.Status.Steps[:4]
	cmp := mustCompareRuns([]*benchv1.BenchmarkRun{described(a), described(b), described(c)}, t0)
	md := Markdown(cmp)
	golden(t, "compare.md", md)
	page := ComparisonHTML(cmp, []Curve{{Run: a.Name, Database: a.Name, Steps: a.Status.Steps}, {Run: b.Name, Database: b.Name, Steps: b.Status.Steps}})
	golden(t, "compare.html", page)
	wellFormed(t, page)
	if err := contains(md, "# Comparison of BenchmarkRuns bench/pg-capacity, pg-async, pg-running", "durability not at parity: a commit on pg-async",
		"workload differs, so the figures are not measured on equal terms: pg-capacity: 200 warehouses", "pg-async: 200 warehouses, steps of 5m0s after a 1m0s ramp-up, wait None",
		"2 of 3 runs ended (in progress)", "No leader: pg-async (≥ 200 warehouses, AllLoadedCompliant) is a floor", "| ≥ 200 | ≥ 2300.0 |"); err != nil {
		t.Error(err)
	}
	if strings.Count(page, `class="bar"`) != 3 {
		t.Error("a bar per run")
	}
}
