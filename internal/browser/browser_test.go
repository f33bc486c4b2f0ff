package browser

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, name, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const chart = `<svg xmlns="http://www.w3.org/2000/svg" class="chart bars" width="300" height="200" aria-label="Bars">` +
	`<rect class="bar" x="20" y="20" width="40" height="160" fill="#0072b2"/>` +
	`<rect class="bar" x="80" y="60" width="40" height="120" fill="#d55e00"/>` +
	`<text x="150" y="195" class="axis">warehouses</text><text x="10" y="100" class="axis">tpmC</text></svg>`

// A self-contained page: its chart as laid out, nothing requested but the file, no problems, a
// coloured screenshot.
func TestOpenSelfContained(t *testing.T) {
	Require(t)
	path := write(t, "ok.html", `<!doctype html><html><head><meta charset="utf-8"><title>ok</title></head><body><table><tr><td>1</td></tr></table>`+chart+`</body></html>`)
	p, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if probs := p.Problems(); len(probs) > 0 {
		t.Fatalf("problems on a self-contained page: %q", probs)
	}
	if p.Title != "ok" || p.Tables != 1 || len(p.Charts) != 1 {
		t.Fatalf("page %+v", p)
	}
	c := p.Charts[0]
	if c.Title != "Bars" || c.Bars != 2 || c.Width != 300 || c.Height != 200 || c.DrawnWidth < 100 || c.DrawnHeight < 160 {
		t.Errorf("chart %+v", c)
	}
	if !slices.Equal(c.AxisLabels, []string{"warehouses", "tpmC"}) {
		t.Errorf("axis labels %q", c.AxisLabels)
	}
	ink, err := Measure(p.Screenshot)
	if err != nil {
		t.Fatal(err)
	}
	// 40×160 + 40×120 coloured pixels in a 1280×900 window: ~1 %.
	if ink.Width != 1280 || ink.Coloured < 0.008 || ink.Coloured > 0.02 {
		t.Errorf("screenshot %+v", ink)
	}
}

// A chart in a closed <details> is folded (not laid out, not judged by ChartProblems); one in
// an open one, or below another, is laid out further down the page.
func TestOpenFoldedCharts(t *testing.T) {
	Require(t)
	path := write(t, "folded.html", `<!doctype html><html><head><meta charset="utf-8"><title>f</title></head><body>`+chart+
		`<details open><summary>open</summary>`+chart+`</details><details><summary>closed</summary>`+chart+`</details></body></html>`)
	p, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Charts) != 3 || p.Details != 2 || p.OpenDetails != 1 {
		t.Fatalf("page %+v", p)
	}
	if c := p.Charts; c[0].Folded || c[1].Folded || !c[2].Folded || c[1].Top < c[0].Top+200 {
		t.Errorf("charts %+v", c)
	}
	if probs := p.ChartProblems(); len(probs) > 0 {
		t.Errorf("a folded chart judged as laid out: %q", probs)
	}
}

// What a report must never do is each caught: a request for the network, a missing file, a
// script that throws or logs an error, a broken image.
func TestOpenReportsWhatFailed(t *testing.T) {
	Require(t)
	path := write(t, "bad.html", `<!doctype html><html><head><title>bad</title>`+
		`<link rel="stylesheet" href="https://cdn.example.invalid/style.css">`+
		`<link rel="stylesheet" href="missing.css"></head><body>`+chart+
		`<img src="absent.png" alt="">`+
		`<script>console.error("drawn badly"); throw new Error("boom")</script></body></html>`)
	p, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	probs := strings.Join(p.Problems(), "\n")
	for _, want := range []string{
		"requested https://cdn.example.invalid/style.css",
		"load failed: https://cdn.example.invalid/style.css",
		"load failed: file://" + filepath.Dir(path) + "/missing.css",
		"image did not load: file://" + filepath.Dir(path) + "/absent.png",
		"console error: drawn badly",
		"boom",
		"1 <script> elements",
	} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems lack %q:\n%s", want, probs)
		}
	}
	if len(p.Charts) != 1 || p.Charts[0].Bars != 2 {
		t.Errorf("charts %+v", p.Charts)
	}
}

func TestOpenMissingFile(t *testing.T) {
	if _, err := Open(context.Background(), filepath.Join(t.TempDir(), "none.html")); err == nil || !strings.Contains(err.Error(), "none.html") {
		t.Errorf("err %v, want one naming the file", err)
	}
}

func TestChartProblems(t *testing.T) {
	good := Chart{Title: "c", Width: 720, Height: 260, DrawnWidth: 700, DrawnHeight: 250, Lines: 2, AxisLabels: []string{"x", "y"}}
	if probs := good.Problems(); len(probs) > 0 {
		t.Errorf("a good chart: %q", probs)
	}
	for _, tc := range []struct {
		change func(*Chart)
		want   string
	}{
		{func(c *Chart) { c.Width = 150 }, `chart "c" laid out 150×260`},
		{func(c *Chart) { c.DrawnHeight = 40 }, `chart "c" has 700×40 drawn in its 720×260`},
		{func(c *Chart) { c.Lines = 0 }, `chart "c" draws no bar, line or marker`},
		{func(c *Chart) { c.AxisLabels = []string{"x", ""} }, `chart "c" axis labels ["x" ""]`},
	} {
		c := good
		c.AxisLabels = slices.Clone(good.AxisLabels)
		tc.change(&c)
		if probs := c.Problems(); len(probs) != 1 || probs[0] != tc.want {
			t.Errorf("got %q, want %q", probs, tc.want)
		}
	}
	if probs := (&Page{}).ChartProblems(); !slices.Equal(probs, []string{"no chart"}) {
		t.Errorf("a page without charts: %q", probs)
	}
}
