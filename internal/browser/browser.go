// Package browser opens an HTML report in a real, headless Chromium (Debian's chromium package)
// and reports what a reader would see: the charts as laid out (their rendered size, bars, axis
// labels), every request the page made, everything that failed to load or logged an error, and a
// PNG screenshot of the whole page. Tests use it; nothing the operator ships links it.
package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// EnvChromium names a Chromium (or Chrome) binary to use instead of the one on PATH.
const EnvChromium = "TPCC_CHROMIUM"

// ErrNoChromium says no Chromium was found; the error wrapping it says where it looked.
var ErrNoChromium = errors.New("no Chromium found")

// Find returns the Chromium binary: $TPCC_CHROMIUM, else chromium, chromium-browser,
// google-chrome or headless_shell on PATH.
func Find() (string, error) {
	if p := os.Getenv(EnvChromium); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvChromium, p, err)
		}
		return p, nil
	}
	names := []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: set %s or put one of %s on PATH (Debian: apt-get install chromium)", ErrNoChromium, EnvChromium, strings.Join(names, ", "))
}

// Chart is one inline <svg> as the browser laid it out.
type Chart struct {
	Title string `json:"title"` // aria-label
	Class string `json:"class"`
	// Width and Height are the rendered box; DrawnWidth and DrawnHeight the bounding box of what
	// is drawn inside it (0 when nothing is).
	Width       float64  `json:"width"`
	Height      float64  `json:"height"`
	DrawnWidth  float64  `json:"drawnWidth"`
	DrawnHeight float64  `json:"drawnHeight"`
	Bars        int      `json:"bars"`       // rect.bar
	Lines       int      `json:"lines"`      // polyline
	Markers     int      `json:"markers"`    // circle: a step, a sample
	AxisLabels  []string `json:"axisLabels"` // text.axis, in document order
	// Top is where the chart starts, in pixels from the top of the page. Folded is a chart
	// inside a closed <details>: not laid out until the reader opens it.
	Top    float64 `json:"top"`
	Folded bool    `json:"folded"`
}

// Page is what the browser showed.
type Page struct {
	URL    string  `json:"url"`
	Title  string  `json:"title"`
	Charts []Chart `json:"charts"`
	Tables int     `json:"tables"`
	// Details counts the <details> elements, OpenDetails those open as the page loads.
	Details     int `json:"details"`
	OpenDetails int `json:"openDetails"`
	// ScrollWidth is the page's width; wider than ViewportWidth, the reader scrolls sideways, and
	// Overflowing names the innermost elements that stick out (at most 5).
	ViewportWidth int      `json:"viewportWidth"`
	ScrollWidth   int      `json:"scrollWidth"`
	Overflowing   []string `json:"overflowing"`
	// Scripts counts <script> elements; BrokenImages lists <img> that did not load.
	Scripts      int      `json:"scripts"`
	BrokenImages []string `json:"brokenImages"`
	// Requests are the URLs the page asked for, the document itself included.
	Requests []string `json:"-"`
	// Failed are loads that failed, console errors, uncaught exceptions and error log entries.
	Failed []string `json:"-"`
	// Screenshot is a PNG of the whole page.
	Screenshot []byte `json:"-"`
}

// Problems lists what a self-contained report must not show: a request for anything but the
// document (or a data: URL), a failed load, an error logged, a broken image, a script.
func (p *Page) Problems() []string {
	var out []string
	for _, r := range p.Requests {
		if r != p.URL && !strings.HasPrefix(r, "data:") {
			out = append(out, "requested "+r)
		}
	}
	out = append(out, p.Failed...)
	for _, img := range p.BrokenImages {
		out = append(out, "image did not load: "+img)
	}
	if p.ScrollWidth > p.ViewportWidth {
		out = append(out, fmt.Sprintf("the page is %d px wide in a %d px window: %s", p.ScrollWidth, p.ViewportWidth, strings.Join(p.Overflowing, "; ")))
	}
	if p.Scripts > 0 {
		out = append(out, fmt.Sprintf("%d <script> elements", p.Scripts))
	}
	return out
}

// Problems lists what is wrong with a chart as laid out: too small to read, nothing drawn over at
// least half its box, no bar, line or marker, an axis without its label.
func (c Chart) Problems() []string {
	var out []string
	if c.Width < 200 || c.Height < 100 {
		out = append(out, fmt.Sprintf("chart %q laid out %.0f×%.0f", c.Title, c.Width, c.Height))
	}
	if c.DrawnWidth < c.Width/2 || c.DrawnHeight < c.Height/2 {
		out = append(out, fmt.Sprintf("chart %q has %.0f×%.0f drawn in its %.0f×%.0f", c.Title, c.DrawnWidth, c.DrawnHeight, c.Width, c.Height))
	}
	if c.Bars == 0 && c.Lines == 0 && c.Markers == 0 {
		out = append(out, fmt.Sprintf("chart %q draws no bar, line or marker", c.Title))
	}
	if len(c.AxisLabels) < 2 || slices.Contains(c.AxisLabels, "") {
		out = append(out, fmt.Sprintf("chart %q axis labels %q", c.Title, c.AxisLabels))
	}
	return out
}

// ChartProblems are the Problems of every chart not folded away, and "no chart" for a page
// without one.
func (p *Page) ChartProblems() []string {
	if len(p.Charts) == 0 {
		return []string{"no chart"}
	}
	var out []string
	for _, c := range p.Charts {
		if !c.Folded {
			out = append(out, c.Problems()...)
		}
	}
	return out
}

// ChartTitled returns the chart whose title (aria-label) is title.
func (p *Page) ChartTitled(title string) (Chart, bool) {
	for _, c := range p.Charts {
		if c.Title == title {
			return c, true
		}
	}
	return Chart{}, false
}

// layoutScript gathers the charts as laid out. getBBox needs the layout, so it runs after load.
const layoutScript = `(() => {
  const charts = [...document.querySelectorAll('svg')].map(s => {
    const r = s.getBoundingClientRect();
    let bb = {width: 0, height: 0};
    try { bb = s.getBBox(); } catch (e) {}
    return {title: s.getAttribute('aria-label') || '', class: s.getAttribute('class') || '',
      width: r.width, height: r.height, drawnWidth: bb.width, drawnHeight: bb.height,
      bars: s.querySelectorAll('rect.bar').length, lines: s.querySelectorAll('polyline').length,
      markers: s.querySelectorAll('circle').length,
      axisLabels: [...s.querySelectorAll('text.axis')].map(t => t.textContent.trim()),
      top: r.top + window.scrollY, folded: !!s.closest('details:not([open])')};
  });
  const overflowing = [...document.body.querySelectorAll('*')]
    .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && ![...e.children].some(c => c.getBoundingClientRect().right > window.innerWidth + 1))
    .slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className : '') + ' ' + JSON.stringify((e.textContent || '').trim().slice(0, 60)) + ' ends at ' + Math.round(e.getBoundingClientRect().right) + 'px');
  return JSON.stringify({url: document.URL, title: document.title, charts, viewportWidth: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth, overflowing,
    tables: document.querySelectorAll('table').length, scripts: document.scripts.length,
    details: document.querySelectorAll('details').length, openDetails: document.querySelectorAll('details[open]').length,
    brokenImages: [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)});
})()`

// Open loads the HTML file at path in headless Chromium with a 1280-pixel-wide window, waits
// until it has loaded, and returns what it showed. The browser runs without network access to
// anything but the file: a request elsewhere shows up in Problems, not as a wait.
func Open(ctx context.Context, path string) (*Page, error) {
	bin, err := Find()
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, err
	}
	docURL := (&url.URL{Scheme: "file", Path: abs}).String()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // the tests run as root in CI; the page is our own file
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		// Anything but the file goes to a proxy that does not exist: it fails at once and is
		// recorded, instead of reaching a network.
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	var mu sync.Mutex
	requests := map[network.RequestID]string{}
	var order []string
	var failed []string
	chromedp.ListenTarget(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests[e.RequestID] = e.Request.URL
			order = append(order, e.Request.URL)
		case *network.EventLoadingFailed:
			failed = append(failed, fmt.Sprintf("load failed: %s: %s", requests[e.RequestID], e.ErrorText))
		case *network.EventResponseReceived:
			if e.Response.Status >= 400 {
				failed = append(failed, fmt.Sprintf("load failed: %s: HTTP %d", e.Response.URL, int(e.Response.Status)))
			}
		case *runtime.EventExceptionThrown:
			failed = append(failed, "exception: "+e.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, strings.Trim(string(a.Value), `"`))
				}
				failed = append(failed, "console error: "+strings.Join(args, " "))
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError {
				failed = append(failed, fmt.Sprintf("%s error: %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		}
	})

	var raw string
	var shot []byte
	err = chromedp.Run(bctx,
		network.Enable(),
		cdplog.Enable(),
		runtime.Enable(),
		chromedp.Navigate(docURL),
		chromedp.WaitReady("body", chromedp.ByQuery),
		chromedp.Evaluate(layoutScript, &raw),
		chromedp.FullScreenshot(&shot, 100), // quality 100: PNG
	)
	if err != nil {
		return nil, fmt.Errorf("chromium %s on %s: %w", bin, path, err)
	}
	var p Page
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return nil, fmt.Errorf("reading the page's layout: %w", err)
	}
	// Let events still in flight arrive (they are delivered on another goroutine).
	_ = chromedp.Run(bctx, chromedp.Sleep(200*time.Millisecond))
	mu.Lock()
	p.Requests = append([]string(nil), order...)
	p.Failed = append([]string(nil), failed...)
	mu.Unlock()
	sort.Strings(p.Failed)
	p.Screenshot = shot
	return &p, nil
}
