package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// The HTML reports' charts are inline SVG written here by hand: no script, no stylesheet from the
// network, no dependency. A chart is a plot area with a labelled x and y axis, nice ticks, lines,
// point markers, vertical markers (checkpoints, faults) and shaded bands (outages) on the x axis.

// palette colours the lines of a chart in order; colorblind-safe (Okabe–Ito).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

func color(i int) string { return palette[i%len(palette)] }

// point is one (x, y) of a line. Marked points draw a filled circle (compliant steps), the others
// a hollow one when the line shows markers.
type point struct {
	X, Y   float64
	Marked bool
	Title  string // hover text
	// Break starts a new stretch of the line: it is not joined to the point before it (the gap
	// between two steps on the run's timeline).
	Break bool
}

// line is one series of a chart.
type line struct {
	Name    string
	Color   string
	Points  []point
	Markers bool // draw each point
	NoLine  bool // points only
	Dashed  bool
}

// vmark is a vertical line at X (a checkpoint, a fault) with a short label.
type vmark struct {
	X     float64
	Label string
	Color string
}

// band is a shaded stretch of the x axis (an outage, a step's measured interval), its label
// written at its top left (upright, or along the band when Vertical), its Title the hover text
// (else the label). It is orange unless coloured.
type band struct {
	From, To float64
	Label    string
	Title    string
	Color    string
	Vertical bool
}

// chart is a line chart.
type chart struct {
	Title          string
	XLabel, YLabel string
	Width, Height  int
	Lines          []line
	Marks          []vmark
	Bands          []band
	// XMin/XMax fix the x range (else the data's); YZero starts the y axis at 0.
	XMin, XMax *float64
	YZero      bool
	// XWhole keeps whole-number x ticks only (steps, warehouses).
	XWhole bool
}

const (
	padLeft, padRight, padTop, padBottom = 64, 16, 28, 44
	// legendWidth is the room right of a plot for its legend.
	legendWidth = 190
)

// num formats a figure compactly: 1200 → 1200, 0.25 → 0.25, 1.5e6 → 1.5M (an axis's ticks are
// formatted by tickLabels, at the precision their step needs).
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	case a == math.Trunc(a):
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	}
}

// f1 writes a coordinate with one decimal.
func f1(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

func esc(s string) string { return html.EscapeString(s) }

// svg renders the chart: its title, the outage bands, the grid and axes with their ticks and
// labels, the vertical marks, the lines and, when more than one line is named, the legend right
// of the plot.
func (c chart) svg() string {
	a := c.area()
	// The legend stands right of the plot, never over the data: one row per named line.
	legend := c.legendRows()
	tw, th := a.w, a.h
	if legend > 0 {
		tw = a.w + legendWidth
		th = max(a.h, padTop+14*legend+4)
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, tw, th, tw, th, esc(c.Title))
	fmt.Fprintf(&b, `<title>%s</title>`, esc(c.Title))
	fmt.Fprintf(&b, `<text x="%d" y="16" class="title">%s</text>`, padLeft, esc(c.Title))
	a.writeBands(&b, c.Bands)
	a.writeYGrid(&b)
	a.writeXTicks(&b, c.XWhole)
	a.writeAxes(&b, c.XLabel, c.YLabel)
	a.writeMarks(&b, c.Marks)
	a.writeLines(&b, c.Lines)
	if legend > 0 {
		a.writeLegend(&b, c.Lines)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// plotArea is a line chart's geometry: its size, the ranges its axes span, the plot's width and
// height inside the padding, and the y axis's ticks.
type plotArea struct {
	w, h                   int
	xmin, xmax, ymin, ymax float64
	pw, ph                 float64
	yticks                 []float64
}

// sx is the horizontal position of x.
func (a plotArea) sx(x float64) float64 { return padLeft + (x-a.xmin)/(a.xmax-a.xmin)*a.pw }

// sy is the vertical position of y.
func (a plotArea) sy(y float64) float64 { return padTop + a.ph - (y-a.ymin)/(a.ymax-a.ymin)*a.ph }

// area lays the chart out: its size (720×260 unless set) and its axes' ranges, the y range
// widened to its outer ticks.
func (c chart) area() plotArea {
	a := plotArea{w: c.Width, h: c.Height}
	if a.w == 0 {
		a.w = 720
	}
	if a.h == 0 {
		a.h = 260
	}
	a.xmin, a.xmax = c.xRange()
	a.ymin, a.ymax = c.yRange()
	a.yticks = niceTicks(a.ymin, a.ymax, 5)
	a.ymin, a.ymax = math.Min(a.ymin, a.yticks[0]), math.Max(a.ymax, a.yticks[len(a.yticks)-1])
	if a.ymax == a.ymin {
		a.ymax = a.ymin + 1
	}
	a.pw, a.ph = float64(a.w-padLeft-padRight), float64(a.h-padTop-padBottom)
	return a
}

// xRange is the x range of the points, marks and bands, or what XMin and XMax fix; [0, 1]
// without any, and one either side of a single x.
func (c chart) xRange() (xmin, xmax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, l := range c.Lines {
		for _, p := range l.Points {
			xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
		}
	}
	for _, m := range c.Marks {
		xmin, xmax = math.Min(xmin, m.X), math.Max(xmax, m.X)
	}
	for _, b := range c.Bands {
		xmin, xmax = math.Min(xmin, b.From), math.Max(xmax, b.To)
	}
	if c.XMin != nil {
		xmin = *c.XMin
	}
	if c.XMax != nil {
		xmax = *c.XMax
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax = 0, 1
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	return xmin, xmax
}

// yRange is the y range of the points, from 0 when YZero; [0, 1] without any.
func (c chart) yRange() (ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, l := range c.Lines {
		for _, p := range l.Points {
			ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
		}
	}
	if math.IsInf(ymin, 0) {
		ymin, ymax = 0, 1
	}
	if c.YZero {
		ymin = math.Min(0, ymin)
	}
	return ymin, ymax
}

// legendRows is the number of rows of the legend: the named lines when there are two lines or
// more, else none.
func (c chart) legendRows() int {
	rows := 0
	if len(c.Lines) > 1 {
		for _, l := range c.Lines {
			if l.Name != "" {
				rows++
			}
		}
	}
	return rows
}

// lineColor is a line's own colour, else the palette's i-th.
func lineColor(i int, l line) string {
	if l.Color != "" {
		return l.Color
	}
	return color(i)
}

// writeBands shades each band over the plot's height, clipped to the x range, with its label.
func (a plotArea) writeBands(b *strings.Builder, bands []band) {
	for _, bd := range bands {
		x0, x1 := a.sx(math.Max(bd.From, a.xmin)), a.sx(math.Min(bd.To, a.xmax))
		col, title := bd.Color, bd.Title
		if col == "" {
			col = "#d55e00"
		}
		if title == "" {
			title = bd.Label
		}
		fmt.Fprintf(b, `<rect class="band" x="%s" y="%d" width="%s" height="%s" fill="%s" fill-opacity="0.18">`, f1(x0), padTop, f1(math.Max(1, x1-x0)), f1(a.ph), col)
		if title != "" {
			fmt.Fprintf(b, `<title>%s</title>`, esc(title))
		}
		b.WriteString(`</rect>`)
		switch {
		case bd.Label == "":
		case bd.Vertical:
			x := x0 + 10
			fmt.Fprintf(b, `<text x="%s" y="%d" class="note" transform="rotate(-90 %s %d)" text-anchor="end">%s</text>`, f1(x), padTop+2, f1(x), padTop+2, esc(bd.Label))
		default:
			fmt.Fprintf(b, `<text x="%s" y="%d" class="note">%s</text>`, f1(x0+2), padTop+10, esc(bd.Label))
		}
	}
}

// writeYGrid draws a grid line across the plot at each y tick, with its value left of the axis.
func (a plotArea) writeYGrid(b *strings.Builder) {
	labels := tickLabels(a.yticks)
	for i, t := range a.yticks {
		y := a.sy(t)
		fmt.Fprintf(b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#ddd"/>`, padLeft, f1(y), a.w-padRight, f1(y))
		fmt.Fprintf(b, `<text x="%d" y="%s" class="tick" text-anchor="end">%s</text>`, padLeft-4, f1(y+4), labels[i])
	}
}

// writeXTicks draws the x ticks inside the x range below the plot, whole numbers only when
// whole, each with its value.
func (a plotArea) writeXTicks(b *strings.Builder, whole bool) {
	ticks := niceTicks(a.xmin, a.xmax, 8)
	labels := tickLabels(ticks)
	for i, t := range ticks {
		if t < a.xmin-1e-9 || t > a.xmax+1e-9 || (whole && t != math.Trunc(t)) {
			continue
		}
		x := a.sx(t)
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#888"/>`, f1(x), f1(padTop+a.ph), f1(x), f1(padTop+a.ph+4))
		fmt.Fprintf(b, `<text x="%s" y="%s" class="tick" text-anchor="middle">%s</text>`, f1(x), f1(padTop+a.ph+16), labels[i])
	}
}

// writeAxes draws the x and y axes and their labels.
func (a plotArea) writeAxes(b *strings.Builder, xlabel, ylabel string) {
	fmt.Fprintf(b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#444"/>`, padLeft, f1(padTop+a.ph), a.w-padRight, f1(padTop+a.ph))
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%s" stroke="#444"/>`, padLeft, padTop, padLeft, f1(padTop+a.ph))
	fmt.Fprintf(b, `<text x="%s" y="%d" class="axis" text-anchor="middle">%s</text>`, f1(padLeft+a.pw/2), a.h-6, esc(xlabel))
	fmt.Fprintf(b, `<text x="14" y="%s" class="axis" text-anchor="middle" transform="rotate(-90 14 %s)">%s</text>`, f1(padTop+a.ph/2), f1(padTop+a.ph/2), esc(ylabel))
}

// writeMarks draws each mark as a dashed vertical line over the plot's height (grey unless
// coloured), its label as hover text.
func (a plotArea) writeMarks(b *strings.Builder, marks []vmark) {
	for _, m := range marks {
		col := m.Color
		if col == "" {
			col = "#666"
		}
		x := a.sx(m.X)
		fmt.Fprintf(b, `<line class="mark" x1="%s" y1="%d" x2="%s" y2="%s" stroke="%s" stroke-dasharray="3 3"><title>%s</title></line>`, f1(x), padTop, f1(x), f1(padTop+a.ph), col, esc(m.Label))
	}
}

// writeLines draws each line: a polyline through its points (unless NoLine, or it has one
// point) and a circle per point when it shows markers or has a single point.
func (a plotArea) writeLines(b *strings.Builder, lines []line) {
	for i, l := range lines {
		col := lineColor(i, l)
		if len(l.Points) > 1 && !l.NoLine {
			a.writePolyline(b, l, col)
		}
		if l.Markers || len(l.Points) == 1 {
			a.writeMarkers(b, l.Points, col)
		}
	}
}

// writePolyline joins a line's points, dashed when the line is. A line with breaks is a group,
// named once, of one polyline per stretch between breaks (a stretch of one point a dot).
func (a plotArea) writePolyline(b *strings.Builder, l line, col string) {
	dash := ""
	if l.Dashed {
		dash = ` stroke-dasharray="6 3"`
	}
	parts := stretches(l.Points)
	if len(parts) == 1 {
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5"%s points="%s"><title>%s</title></polyline>`, col, dash, a.coords(parts[0]), esc(l.Name))
		return
	}
	fmt.Fprintf(b, `<g fill="none" stroke="%s" stroke-width="1.5"%s><title>%s</title>`, col, dash, esc(l.Name))
	for _, stretch := range parts {
		if len(stretch) == 1 {
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="1.5" fill="%s"/>`, f1(a.sx(stretch[0].X)), f1(a.sy(stretch[0].Y)), col)
			continue
		}
		fmt.Fprintf(b, `<polyline points="%s"/>`, a.coords(stretch))
	}
	b.WriteString(`</g>`)
}

// coords are the points' positions, as a polyline's points attribute.
func (a plotArea) coords(points []point) string {
	pts := make([]string, len(points))
	for j, p := range points {
		pts[j] = f1(a.sx(p.X)) + "," + f1(a.sy(p.Y))
	}
	return strings.Join(pts, " ")
}

// stretches cuts points at each Break: the runs of points a line joins.
func stretches(points []point) [][]point {
	var out [][]point
	from := 0
	for i := 1; i <= len(points); i++ {
		if i == len(points) || points[i].Break {
			out = append(out, points[from:i])
			from = i
		}
	}
	return out
}

// writeMarkers draws a circle at each point: filled for a marked point, hollow otherwise.
func (a plotArea) writeMarkers(b *strings.Builder, points []point, col string) {
	for _, p := range points {
		fill := "#fff"
		if p.Marked {
			fill = col
		}
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="4" stroke="%s" fill="%s"><title>%s</title></circle>`, f1(a.sx(p.X)), f1(a.sy(p.Y)), col, fill, esc(p.Title))
	}
}

// writeLegend lists the named lines right of the plot, one row each: a short stroke of the
// line's colour and its name.
func (a plotArea) writeLegend(b *strings.Builder, lines []line) {
	row := 0
	for i, l := range lines {
		if l.Name == "" {
			continue
		}
		y := padTop + 12 + 14*row
		row++
		x := a.w - padRight + 16
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/><text x="%d" y="%d" class="legend">%s</text>`, x, y-4, x+14, y-4, lineColor(i, l), x+18, y, esc(l.Name))
	}
}

// bar is one bar of a bar chart with optional whiskers.
type bar struct {
	Label            string
	Value            float64
	Low, High        float64 // the whisker; equal to Value (or zero) draws none
	Color, Title     string
	Leader, NoResult bool
	// Floor labels the value "≥": a floor, not a capacity.
	Floor bool
}

// barChart draws one vertical bar per label with whiskers.
func barChart(title, ylabel string, bars []bar) string {
	w, h := max(360, 120*len(bars)+padLeft+padRight), 300
	ymax := 0.0
	for _, br := range bars {
		ymax = math.Max(ymax, math.Max(br.Value, br.High))
	}
	yticks := niceTicks(0, math.Max(ymax, 1), 5)
	ymax = yticks[len(yticks)-1]
	pw, ph := float64(w-padLeft-padRight), float64(h-padTop-padBottom)
	sy := func(y float64) float64 { return padTop + ph - y/ymax*ph }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart bars" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, w, h, w, h, esc(title))
	fmt.Fprintf(&b, `<title>%s</title><text x="%d" y="16" class="title">%s</text>`, esc(title), padLeft, esc(title))
	ylabels := tickLabels(yticks)
	for i, t := range yticks {
		y := sy(t)
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#ddd"/>`, padLeft, f1(y), w-padRight, f1(y))
		fmt.Fprintf(&b, `<text x="%d" y="%s" class="tick" text-anchor="end">%s</text>`, padLeft-4, f1(y+4), ylabels[i])
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#444"/>`, padLeft, f1(padTop+ph), w-padRight, f1(padTop+ph))
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%s" stroke="#444"/>`, padLeft, padTop, padLeft, f1(padTop+ph))
	fmt.Fprintf(&b, `<text x="14" y="%s" class="axis" text-anchor="middle" transform="rotate(-90 14 %s)">%s</text>`, f1(padTop+ph/2), f1(padTop+ph/2), esc(ylabel))
	slot := pw / float64(max(1, len(bars)))
	for i, br := range bars {
		cx := padLeft + slot*(float64(i)+0.5)
		bw := math.Min(60, slot*0.6)
		col := br.Color
		if col == "" {
			col = color(i)
		}
		y := sy(br.Value)
		fmt.Fprintf(&b, `<rect class="bar" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`, f1(cx-bw/2), f1(y), f1(bw), f1(padTop+ph-y), col, esc(br.Title))
		if br.High > br.Low {
			yl, yh := sy(br.Low), sy(br.High)
			fmt.Fprintf(&b, `<g class="whisker" stroke="#222"><line x1="%s" y1="%s" x2="%s" y2="%s"/><line x1="%s" y1="%s" x2="%s" y2="%s"/><line x1="%s" y1="%s" x2="%s" y2="%s"/></g>`,
				f1(cx), f1(yl), f1(cx), f1(yh), f1(cx-8), f1(yl), f1(cx+8), f1(yl), f1(cx-8), f1(yh), f1(cx+8), f1(yh))
		}
		label := num(br.Value)
		if br.NoResult {
			label = "no result"
		} else if br.Floor {
			label = "≥ " + label
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" class="tick" text-anchor="middle">%s</text>`, f1(cx), f1(math.Min(y, sy(br.High))-4), esc(label))
		name := br.Label
		if br.Leader {
			name += " ★"
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" class="axis" text-anchor="middle">%s</text>`, f1(cx), f1(padTop+ph+16), esc(name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}
