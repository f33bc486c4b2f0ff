package report

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/browser"
)

// TestReportsInABrowser opens the golden reports (the 20-step run, the 3-database suite, the
// comparison of runs) in headless Chromium and checks what a reader sees: every chart not folded
// away laid out with something drawn in it and its axes labelled, the run's timeline near the
// top and its steps' charts folded (closed <details>), one bar per database, nothing requested
// from outside the file, nothing failed to load or logged an error, and a screenshot in colour.
// TPCC_SCREENSHOTS=DIR keeps the PNGs.
func TestReportsInABrowser(t *testing.T) {
	browser.Require(t)
	c, _ := suite3()
	var databases []string
	for _, d := range c.Databases {
		databases = append(databases, d.Name)
	}
	cases := []struct {
		file   string
		charts []string // titles that must be there
		bars   map[string][]string
		// timeline is the first panel of the run's timeline, which must start within the top
		// 1800 px; folded the number of closed <details> (the run's steps).
		timeline string
		folded   int
	}{
		{file: "run20.html", charts: []string{"tpmC against active warehouses", "p90 response time per step",
			"Step 19: p90 response time over time", "Step 19: standby replay lag", "Step 19: CPU of the database pods",
			"Run timeline: New-Order p90 against its bound (190.0ms)", "Run timeline: standby replay lag", "Run timeline: CPU of the database pods"},
			timeline: "Run timeline: New-Order throughput", folded: 20},
		{file: "suite3.html", charts: []string{"Mean tpmC per database", "tpmC against active warehouses (full-length steps)",
			"Efficiency against active warehouses (full-length steps)"}, bars: map[string][]string{"Mean tpmC per database": databases}},
		{file: "compare.html", charts: []string{"Mean tpmC per database"},
			bars: map[string][]string{"Mean tpmC per database": {"pg-capacity", "pg-async", "pg-running"}}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			doc, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p, err := browser.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if probs := p.Problems(); len(probs) > 0 {
				t.Errorf("the browser saw: %s", strings.Join(probs, "; "))
			}
			if n := strings.Count(string(doc), "<svg"); len(p.Charts) != n {
				t.Errorf("%d charts laid out, the file has %d", len(p.Charts), n)
			}
			for _, prob := range p.ChartProblems() {
				t.Error(prob)
			}
			for _, title := range tc.charts {
				if _, ok := p.ChartTitled(title); !ok {
					t.Errorf("no chart %q", title)
				}
			}
			if tc.timeline != "" {
				ch, ok := p.ChartTitled(tc.timeline)
				if !ok || ch.Folded || ch.Top > 1800 || ch.Top > p.Charts[len(p.Charts)-1].Top {
					t.Errorf("the timeline %+v is not shown near the top", ch)
				}
				t.Logf("%s: the timeline starts %.0f px down", tc.file, ch.Top)
			}
			if p.Details != tc.folded || p.OpenDetails != 0 {
				t.Errorf("%d <details>, %d of them open; want %d, all closed", p.Details, p.OpenDetails, tc.folded)
			}
			for title, names := range tc.bars {
				ch, _ := p.ChartTitled(title)
				if ch.Bars != len(names) {
					t.Errorf("%q has %d bars, want one per database (%d)", title, ch.Bars, len(names))
				}
				for _, name := range names {
					if !slices.ContainsFunc(ch.AxisLabels, func(l string) bool { return strings.TrimSuffix(l, " ★") == name }) {
						t.Errorf("%q has no bar labelled %q: %q", title, name, ch.AxisLabels)
					}
				}
			}
			ink, err := browser.Measure(p.Screenshot)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d charts, screenshot %d×%d, %.1f %% in colour", tc.file, len(p.Charts), ink.Width, ink.Height, 100*ink.Coloured)
			// The run's page is mostly tables with its steps' charts folded: its colour is a
			// few tenths of a per cent, against none at all without the charts' colours.
			if ink.Width != 1280 || ink.Height < 900 || ink.Coloured < 0.001 {
				t.Errorf("screenshot %+v: the charts' colours are missing", ink)
			}
			dir := os.Getenv("TPCC_SCREENSHOTS")
			if dir == "" {
				dir = t.TempDir()
			}
			if err := os.WriteFile(filepath.Join(dir, strings.TrimSuffix(tc.file, ".html")+".png"), p.Screenshot, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}
