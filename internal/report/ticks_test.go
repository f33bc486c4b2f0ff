package report

import (
	"fmt"
	"strings"
	"testing"
)

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 100, "[0 20 40 60 80 100]"}, {0, 2480, "[0 500 1000 1500 2000 2500]"}, {0.5, 0.9, "[0.5 0.6 0.7 0.8 0.9]"}, {5, 5, "[5 5.2 5.4 5.6 5.8 6]"},
		{0, 0.025, "[0 0.005 0.01 0.015 0.02 0.025]"}, {0, 0.03, "[0 0.01 0.02 0.03]"}, {0, 1, "[0 0.2 0.4 0.6 0.8 1]"},
		{0, 7.3, "[0 2 4 6 8]"}, {0, 12600, "[0 5000 10000 15000]"}, {0, 0, "[0 0.2 0.4 0.6 0.8 1]"},
	} {
		if got := fmt.Sprint(niceTicks(tc.lo, tc.hi, 5)); got != tc.want {
			t.Errorf("niceTicks(%v, %v) = %s, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestTickLabels reads each range's axis as a reader does: the labels, and that no two are the
// same (a CPU axis of 0 to 0.025 cores once read 0.03, 0.02, 0.02, 0.01, 0.01, 0).
func TestTickLabels(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 0.025, "0 0.005 0.01 0.015 0.02 0.025"},
		{0, 0.03, "0 0.01 0.02 0.03"},
		{0, 0.0024, "0 0.0005 0.001 0.0015 0.002 0.0025"},
		{0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{0, 2.4, "0 0.5 1 1.5 2 2.5"},
		{0, 1.2, "0 0.25 0.5 0.75 1 1.25"},
		{0, 7.3, "0 2 4 6 8"},
		{0, 12600, "0 5000 10k 15k"},
		{0, 11000, "0 2500 5000 7500 10k 12.5k"},
		{0, 3.2e6, "0 1M 2M 3M 4M"},
		{0, 2.3e6, "0 500k 1M 1.5M 2M 2.5M"},
		{0, 0, "0 0.2 0.4 0.6 0.8 1"},
		{-0.02, 0.02, "-0.02 -0.01 0 0.01 0.02"},
	} {
		labels := tickLabels(niceTicks(tc.lo, tc.hi, 5))
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("ticks of [%v, %v] read %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
		seen := map[string]bool{}
		for _, l := range labels {
			if seen[l] {
				t.Errorf("ticks of [%v, %v]: %q twice in %q", tc.lo, tc.hi, l, labels)
			}
			seen[l] = true
		}
	}
}
