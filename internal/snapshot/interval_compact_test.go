package snapshot

import (
	"reflect"
	"testing"
	"time"
)

// A series collected piece by piece (the operator appends what each poll merged) equals the
// series compacted at once, wherever the pieces split; a standby that appears late, or telemetry
// that starts late, is padded in the earlier intervals.
func TestCompactAppendEqualsCompactAtOnce(t *testing.T) {
	merged := stepSeries(t, 40, 10)
	// Interval 0 without telemetry, s2 only from interval 25.
	merged[0].Telemetry = nil
	for i := range 25 {
		if tel := merged[i].Telemetry; tel != nil {
			tel.Standbys = tel.Standbys[:1]
		}
	}
	want := Compact(merged, 10*time.Second)
	for _, cuts := range [][]int{{0}, {1}, {1, 2, 3}, {10, 25, 26}, {39}, {40}} {
		var got CompactSeries
		from := 0
		for _, cut := range append(cuts, len(merged)) {
			got.Append(Compact(merged[from:cut], 10*time.Second))
			from = cut
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cuts %v: appended series differs from the one compacted at once\n got %+v\nwant %+v", cuts, got.ReplayLagMillis, want.ReplayLagMillis)
		}
	}
	if lag := want.ReplayLagMillis["s2"]; lag[0] != -1 || lag[24] != -1 || lag[25] < 0 {
		t.Errorf("s2 lag column %v: want -1 before interval 25", lag[:27])
	}
}

func TestSig3(t *testing.T) {
	for in, want := range map[int64]int64{0: 0, 7: 7, 999: 999, 1000: 1000, 28799: 28800, 28749: 28700, 1234567: 1230000, 99950: 100000} {
		if got := sig3(in); got != want {
			t.Errorf("sig3(%d) = %d, want %d", in, got, want)
		}
	}
}

// An interval's percentiles in the series are read by the nearest rank, as the step's are: of 16
// responses of 1..16 ms the p90 is the 15th (HdrHistogram's own rank rule reads the 14th).
func TestCompactReadsNearestRank(t *testing.T) {
	h := NewHistogram()
	for v := int64(1); v <= 16; v++ {
		_ = h.RecordValue(v * 1000)
	}
	merged := []MergedInterval{{Index: 0, Seconds: 10, Transactions: map[Transaction]*MergedTransaction{NewOrder: {Histogram: h, Commits: 16}}}}
	col := Compact(merged, 10*time.Second).Types[NewOrder]
	if col.P90[0] != sig3(ValueAtRank(h, 15)) || col.P50[0] != sig3(ValueAtRank(h, 8)) || col.P99[0] != sig3(ValueAtRank(h, 16)) {
		t.Errorf("p50 %d, p90 %d, p99 %d µs: want the 8th, 15th and 16th of 16 (%d, %d, %d)", col.P50[0], col.P90[0], col.P99[0],
			sig3(ValueAtRank(h, 8)), sig3(ValueAtRank(h, 15)), sig3(ValueAtRank(h, 16)))
	}
}
