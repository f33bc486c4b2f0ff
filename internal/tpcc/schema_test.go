package tpcc

import "testing"

func TestFormatRanges(t *testing.T) {
	cases := map[string][]int{"": nil, "4": {4}, "1-3,7,9-10": {9, 1, 2, 3, 7, 10}}
	for want, in := range cases {
		if got := FormatRanges(in); got != want {
			t.Errorf("FormatRanges(%v) = %q, want %q", in, got, want)
		}
	}
}
