package snapshot

import (
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func TestHistogramRoundTripKeepsEveryBucket(t *testing.T) {
	h := NewHistogram()
	for _, v := range []int64{1, 999, 1000, 1001, 5_000_000, 20_000_000, HistogramHighestMicros} {
		if err := h.RecordValues(v, v%7+1); err != nil {
			t.Fatal(err)
		}
	}
	encoded, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(encoded, "HISTF") {
		t.Errorf("encoding starts %q, want the V2 compressed base64 prefix HISTF", encoded[:8])
	}
	decoded, err := DecodeHistogram(encoded)
	if err != nil {
		t.Fatal(err)
	}
	if !decoded.Equals(h) {
		t.Error("decoded histogram differs from the encoded one")
	}
}

func TestDecodeHistogramEmptyStringIsEmptyHistogram(t *testing.T) {
	h, err := DecodeHistogram("")
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != 0 {
		t.Errorf("TotalCount = %d, want 0", h.TotalCount())
	}
}

func TestDecodeHistogramRejectsBadInput(t *testing.T) {
	otherGeometry := hdr.New(1, 60_000_000, 2)
	_ = otherGeometry.RecordValue(1000)
	foreign, err := otherGeometry.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		encoded string
		want    string
	}{
		"not base64":     {encoded: "not base64!", want: "decode HDR histogram"},
		"truncated":      {encoded: "HISTFAAA", want: "decode HDR histogram"},
		"other geometry": {encoded: string(foreign), want: "differs from the contract"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeHistogram(tc.encoded)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestRecordLatencyClampsToGeometry(t *testing.T) {
	for name, tc := range map[string]struct {
		latency    time.Duration
		wantMicros int64
	}{
		"sub-microsecond": {latency: 300 * time.Nanosecond, wantMicros: 1},
		"in range":        {latency: 1500 * time.Microsecond, wantMicros: 1500},
		"over an hour":    {latency: 2 * time.Hour, wantMicros: HistogramHighestMicros},
	} {
		t.Run(name, func(t *testing.T) {
			h := NewHistogram()
			RecordLatency(h, tc.latency)
			if h.TotalCount() != 1 {
				t.Fatalf("TotalCount = %d, want 1", h.TotalCount())
			}
			if got := h.Max(); !h.ValuesAreEquivalent(got, tc.wantMicros) {
				t.Errorf("recorded %d µs, want %d µs", got, tc.wantMicros)
			}
		})
	}
}

func TestHistogramPrecision(t *testing.T) {
	h := NewHistogram()
	for _, v := range []int64{1, 10, 1234, 5_000_000, 20_000_000, 3_599_999_999} {
		h.Reset()
		_ = h.RecordValue(v)
		got := h.ValueAtPercentile(50)
		if rel := float64(got-v) / float64(v); rel < 0 || rel > HistogramMaxRelativeError {
			t.Errorf("value %d µs reads back as %d µs (relative error %.5f), want within %.5f", v, got, rel, HistogramMaxRelativeError)
		}
	}
}
