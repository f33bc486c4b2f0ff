// reportcheck opens HTML reports in headless Chromium (internal/browser) and says what a reader
// sees: the charts, the tables, a PNG screenshot beside each file, and every problem — a request
// outside the file, a failed load, an error logged, sideways scrolling, a chart with nothing drawn.
// It exits 1 when a report has a problem or no chart, 2 on bad usage. CI runs it on make demo's
// bin/demo.html.
//
// usage: go run ./hack/reportcheck FILE.html...
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/browser"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: reportcheck FILE.html...")
		os.Exit(2)
	}
	failed := false
	for _, file := range os.Args[1:] {
		problems, err := check(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
			os.Exit(2)
		}
		for _, p := range problems {
			fmt.Printf("%s: PROBLEM: %s\n", file, p)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func check(file string) ([]string, error) {
	p, err := browser.Open(context.Background(), file)
	if err != nil {
		return nil, err
	}
	problems := append(p.Problems(), p.ChartProblems()...)
	ink, err := browser.Measure(p.Screenshot)
	if err != nil {
		return nil, err
	}
	png := strings.TrimSuffix(file, ".html") + ".png"
	if err := os.WriteFile(png, p.Screenshot, 0o644); err != nil {
		return nil, err
	}
	fmt.Printf("%s: %q, %d charts, %d tables, screenshot %d×%d (%.1f %% in colour) in %s\n",
		file, p.Title, len(p.Charts), p.Tables, ink.Width, ink.Height, 100*ink.Coloured, png)
	return problems, nil
}
