package snapshot

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// TestAddEncodedMatchesTheLibraryDecoder checks the accumulating decoder
// against hdrhistogram-go's own Decode on varied histograms.
func TestAddEncodedMatchesTheLibraryDecoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		h := NewHistogram()
		n := rng.IntN(20_000)
		for range n {
			v := realisticLatencies[Transactions[trial%5]].draw(rng)
			_ = h.RecordValues(v, 1+rng.Int64N(1<<uint(rng.IntN(40))))
		}
		encoded := mustEncode(t, h)
		want, err := hdr.Decode([]byte(encoded))
		if err != nil {
			t.Fatal(err)
		}
		c := newCounts()
		total, err := c.addEncoded(encoded)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if total != want.TotalCount() || !slices.Equal(c.buckets, want.Export().Counts) {
			t.Fatalf("trial %d: accumulated counts differ from hdr.Decode (total %d vs %d)", trial, total, want.TotalCount())
		}
		if !c.histogram().Equals(h) {
			t.Fatalf("trial %d: rebuilt histogram differs from the original", trial)
		}
	}
}

// v2 builds a V2 compressed encoding around an arbitrary header and payload.
func v2(outerCookie, innerCookie uint32, payloadLen int32, digits int32, lowest, highest int64, payload []byte) string {
	var inner bytes.Buffer
	for _, field := range []any{innerCookie, payloadLen, int32(0), digits, lowest, highest, float64(1)} {
		_ = binary.Write(&inner, binary.BigEndian, field)
	}
	inner.Write(payload)
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write(inner.Bytes())
	_ = w.Close()
	var outer bytes.Buffer
	_ = binary.Write(&outer, binary.BigEndian, outerCookie)
	_ = binary.Write(&outer, binary.BigEndian, int32(z.Len()))
	outer.Write(z.Bytes())
	return base64.StdEncoding.EncodeToString(outer.Bytes())
}

func TestAddEncodedRejectsCorruptInput(t *testing.T) {
	const outer, inner = 0x1c849314, 0x1c849313
	const digits = int32(HistogramSignificantDigits)
	good := []byte{0x02, 0x04} // counts 1 and 2
	zeroRun := func(n int64) []byte {
		u := uint64((-n << 1) ^ (-n >> 63))
		return binary.AppendUvarint(nil, u)
	}
	for name, tc := range map[string]struct {
		encoded string
		want    string
	}{
		"not base64":        {encoded: "%%%", want: "base64"},
		"short envelope":    {encoded: base64.StdEncoding.EncodeToString([]byte{1, 2, 3}), want: "shorter than the 8-byte envelope"},
		"outer cookie":      {encoded: v2(0x12345678, inner, 2, digits, 1, HistogramHighestMicros, good), want: "not the V2 compressed encoding"},
		"inner cookie":      {encoded: v2(outer, 0x1c849302, 2, digits, 1, HistogramHighestMicros, good), want: "inner cookie"},
		"geometry":          {encoded: v2(outer, inner, 2, digits+1, 1, HistogramHighestMicros, good), want: "differs from the contract"},
		"payload length":    {encoded: v2(outer, inner, 5, digits, 1, HistogramHighestMicros, good), want: "announces 5 payload bytes, 2 present"},
		"truncated varint":  {encoded: v2(outer, inner, 1, digits, 1, HistogramHighestMicros, []byte{0x80}), want: "truncated varint"},
		"zero run too long": {encoded: v2(outer, inner, int32(len(zeroRun(1e9))), digits, 1, HistogramHighestMicros, zeroRun(1e9)), want: "zero run"},
		"compressed length": {encoded: base64.StdEncoding.EncodeToString([]byte{0x1c, 0x84, 0x93, 0x14, 0, 0, 1, 0, 1}), want: "does not fit"},
		"not zlib":          {encoded: base64.StdEncoding.EncodeToString([]byte{0x1c, 0x84, 0x93, 0x14, 0, 0, 0, 2, 9, 9}), want: "zlib"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := newCounts().addEncoded(tc.encoded)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	// The builder itself is sound: the good payload decodes.
	c := newCounts()
	if total, err := c.addEncoded(v2(outer, inner, 2, digits, 1, HistogramHighestMicros, good)); err != nil || total != 3 {
		t.Fatalf("well-formed hand-built histogram: total %d, error %v", total, err)
	}
}

// FuzzAddEncoded holds the accumulating decoder to the library's: whatever
// the input, both accept it with the same counts or ours rejects it.
func FuzzAddEncoded(f *testing.F) {
	h := NewHistogram()
	_ = h.RecordValues(1234, 5)
	_ = h.RecordValues(5_000_000, 7)
	f.Add(mustEncode(f, h))
	f.Add(mustEncode(f, NewHistogram()))
	f.Add("HISTFAAAACl4nJNpmSzMwMDAyQABzFAaxmey/w+RsMmAiLEwMAIAUbsDeA==")
	f.Fuzz(func(t *testing.T, encoded string) {
		c := newCounts()
		total, err := c.addEncoded(encoded)
		if err != nil {
			return
		}
		want, libErr := hdr.Decode([]byte(encoded))
		if libErr != nil {
			if encoded == "" {
				return
			}
			t.Fatalf("accepted %q that hdr.Decode rejects: %v", encoded, libErr)
		}
		if total != want.TotalCount() || !slices.Equal(c.buckets, want.Export().Counts) {
			t.Fatalf("counts differ from hdr.Decode for %q", encoded)
		}
	})
}
