//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/browser"
)

// browserChecksRunReport opens a real run's HTML report (written by `kubectl tpcc report -o html`)
// in headless Chromium: nothing requested from outside the file, nothing failed to load or logged
// an error, no sideways scrolling, the capacity curve and each step's latency, replay lag and CPU
// charts laid out with something drawn and both axes labelled, and a screenshot in colour. The PNG
// is kept in $TPCC_E2E_ARTIFACTS when set.
func browserChecksRunReport(t *testing.T, file string) {
	t.Helper()
	browser.Require(t)
	p, err := browser.Open(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	if probs := p.Problems(); len(probs) > 0 {
		t.Errorf("the browser saw: %s", strings.Join(probs, "; "))
	}
	for _, title := range []string{"tpmC against active warehouses", "Efficiency against active warehouses", "p90 response time per step",
		"Step 0: p90 response time over time", "Step 0: standby replay lag", "Step 0: CPU of the database pods"} {
		ch, ok := p.ChartTitled(title)
		if !ok {
			t.Errorf("no chart %q among %d", title, len(p.Charts))
			continue
		}
		for _, prob := range ch.Problems() {
			t.Error(prob)
		}
	}
	ink, err := browser.Measure(p.Screenshot)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s in Chromium: %d charts, %d tables, screenshot %d×%d, %.1f %% in colour", filepath.Base(file), len(p.Charts), p.Tables, ink.Width, ink.Height, 100*ink.Coloured)
	if ink.Coloured < 0.001 { // a 1-step run's page is mostly tables: 0.28 % in the first e2e
		t.Errorf("screenshot %+v: the charts' colours are missing", ink)
	}
	if dir := os.Getenv("TPCC_E2E_ARTIFACTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, strings.TrimSuffix(filepath.Base(file), ".html")+".png"), p.Screenshot, 0o644); err != nil {
			t.Error(err)
		}
	}
}
