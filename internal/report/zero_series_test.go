package report

import (
	"strings"
	"testing"
)

func TestAllZero(t *testing.T) {
	zero := line{Points: []point{{X: 1}, {X: 2}}}
	for _, tc := range []struct {
		name  string
		lines []line
		want  bool
	}{
		{"no line", nil, false},
		{"lines without points", []line{{Name: "a"}, {Name: "b"}}, false},
		{"every point zero", []line{zero, zero}, true},
		{"one point not zero", []line{zero, {Points: []point{{X: 1}, {X: 2, Y: 0.001}}}}, false},
		{"a negative point", []line{{Points: []point{{X: 1, Y: -1}}}}, false},
	} {
		if got := allZero(tc.lines); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestZeroSentences(t *testing.T) {
	traffic := []line{{Points: []point{{X: 1, Y: 0}, {X: 2, Y: 1.5}}}}
	quiet := []line{{Points: []point{{X: 1, Y: 0}}}}
	for _, tc := range []struct {
		name, what string
		network    []line
		want       string
	}{
		{"disk zero, network counted: cgroup v1", "Step 3: per-pod disk I/O", traffic,
			"Step 3: per-pod disk I/O reads zero throughout: the kubelet reported the pods' network traffic but no disk traffic, as on nodes under cgroup v1, "},
		{"disk and network zero: no reason known", "Step 3: per-pod disk I/O", quiet, "Step 3: per-pod disk I/O reads zero throughout."},
		{"no network figures: no reason known", "Step 3: per-pod disk I/O", nil, "Step 3: per-pod disk I/O reads zero throughout."},
	} {
		if got := zeroSentence(tc.what, diskZeroReason(tc.network)); !strings.HasPrefix(got, tc.want) || !strings.HasSuffix(got, ".") {
			t.Errorf("%s: %q, want %q…", tc.name, got, tc.want)
		}
	}
}

// TestChartOrZero writes the chart, or the sentence in its place.
func TestChartOrZero(t *testing.T) {
	render := func([]line) string { return "<svg/>" }
	for _, tc := range []struct {
		lines []line
		want  string
	}{
		{[]line{{Points: []point{{X: 1, Y: 2}}}}, "<svg/>\n"},
		{[]line{{Points: []point{{X: 1}}}}, "<p>CPU reads zero throughout: idle.</p>\n"},
	} {
		p := &page{}
		chartOrZero(p, tc.lines, "CPU", "idle", render)
		if got := p.b.String(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}
