package report

import (
	"fmt"
	"strings"
	"time"
)

// page is the shell every HTML report shares: one self-contained document, its style inline,
// no script and nothing fetched from the network.
type page struct {
	b strings.Builder
}

const style = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 12px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1.05em}
table{border-collapse:collapse;margin:8px 0;font-size:.85em}th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}
th{background:#f3f3f3}td.l,th.l{text-align:left}tr.yes td.c{color:#067d3c}tr.no td.c{color:#b00020}tr.inconclusive td{color:#7a6a00}tr.inconclusive td.c{font-style:italic}
.note{font-size:10px;fill:#a33}.notice{background:#fff6e0;border-left:4px solid #e69f00;padding:6px 10px}
svg.chart{display:block;margin:10px 0}svg .title{font-size:13px;font-weight:600}svg .tick{font-size:10px;fill:#444}
svg .axis{font-size:11px;fill:#222}svg .legend{font-size:11px}.muted{color:#666;font-size:.85em}
.timeline svg.chart{margin:0}details.step{margin:4px 0;border:1px solid #ddd;padding:2px 8px}details.step>summary{cursor:pointer;font-weight:600;padding:2px 0}`

func newPage(title string) *page {
	p := &page{}
	fmt.Fprintf(&p.b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", esc(title), style)
	return p
}

func (p *page) raw(s string)                   { p.b.WriteString(s) }
func (p *page) printf(format string, a ...any) { fmt.Fprintf(&p.b, format, a...) }
func (p *page) h(level int, text string) {
	fmt.Fprintf(&p.b, "<h%d>%s</h%d>\n", level, esc(text), level)
}
func (p *page) para(text string)   { fmt.Fprintf(&p.b, "<p>%s</p>\n", esc(text)) }
func (p *page) notice(text string) { fmt.Fprintf(&p.b, "<p class=\"notice\">%s</p>\n", esc(text)) }
func (p *page) muted(text string)  { fmt.Fprintf(&p.b, "<p class=\"muted\">%s</p>\n", esc(text)) }

// list writes a bulleted list.
func (p *page) list(items []string) {
	if len(items) == 0 {
		return
	}
	p.b.WriteString("<ul>\n")
	for _, it := range items {
		fmt.Fprintf(&p.b, "<li>%s</li>\n", esc(it))
	}
	p.b.WriteString("</ul>\n")
}

// table writes a table; a header cell starting with "<" is left-aligned (its column too).
func (p *page) table(header []string, rows [][]string, rowClass func(int) string) {
	left := make([]bool, len(header))
	p.b.WriteString("<table>\n<tr>")
	for i, h := range header {
		if strings.HasPrefix(h, "<") {
			left[i], h = true, h[1:]
		}
		if left[i] {
			fmt.Fprintf(&p.b, "<th class=\"l\">%s</th>", esc(h))
		} else {
			fmt.Fprintf(&p.b, "<th>%s</th>", esc(h))
		}
	}
	p.b.WriteString("</tr>\n")
	for r, row := range rows {
		if rowClass != nil && rowClass(r) != "" {
			fmt.Fprintf(&p.b, "<tr class=\"%s\">", rowClass(r))
		} else {
			p.b.WriteString("<tr>")
		}
		for i, c := range row {
			class := ""
			switch {
			case i < len(left) && left[i]:
				class = ` class="l"`
			case i < len(header) && header[i] == "compliant":
				class = ` class="c"`
			}
			fmt.Fprintf(&p.b, "<td%s>%s</td>", class, esc(c))
		}
		p.b.WriteString("</tr>\n")
	}
	p.b.WriteString("</table>\n")
}

func (p *page) end(generated time.Time) string {
	fmt.Fprintf(&p.b, "<p class=\"muted\">Generated %s by tpcc-operator. Self-contained: no script, nothing loaded from the network.</p>\n</body>\n</html>\n",
		generated.UTC().Format(time.RFC3339))
	return p.b.String()
}
