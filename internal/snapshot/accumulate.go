package snapshot

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The operator merges hundreds of histograms per poll. Decoding each into a
// dense hdr.Histogram and merging it value by value (hdr.Merge) allocates and
// walks every bucket twice, so counts accumulates the V2 payload of every
// histogram straight into one counts array indexed like hdr.Snapshot.Counts
// (the V2 payload lists counts in that same index order); accumulate_test.go
// holds it to hdr.Decode's result.
//
// V2 compressed layout: base64( int32 cookie | int32 length | zlib( 40-byte
// header | payload ) ). Header: int32 cookie, int32 payload length, int32
// normalizing offset (unused by writers' logical order), int32 significant
// digits, int64 lowest, int64 highest, float64 conversion ratio. Payload:
// ZigZag LEB128 varints (at most 9 bytes); a positive value is the count at
// the next index, a negative one skips that many zero counts.
const (
	v2CompressedCookie = 0x1c849304
	v2Cookie           = 0x1c849303
	cookieFlagsMask    = 0xf0
	v2HeaderBytes      = 40
)

// contractCountsLen is the counts array length of the contract's geometry.
var contractCountsLen = len(NewHistogram().Export().Counts)

// counts is a histogram of the contract's geometry under accumulation.
type counts struct {
	buckets []int64
	total   int64
}

func newCounts() *counts { return &counts{buckets: make([]int64, contractCountsLen)} }

// add adds another accumulation.
func (c *counts) add(other *counts) error {
	if other.total > math.MaxInt64-c.total {
		return errors.New("histogram counts overflow int64")
	}
	for i, n := range other.buckets {
		c.buckets[i] += n
	}
	c.total += other.total
	return nil
}

// histogram returns the accumulation as an hdr.Histogram.
func (c *counts) histogram() *hdr.Histogram {
	return hdr.Import(&hdr.Snapshot{
		LowestTrackableValue:  HistogramLowestMicros,
		HighestTrackableValue: HistogramHighestMicros,
		SignificantFigures:    HistogramSignificantDigits,
		Counts:                c.buckets,
	})
}

// decoderPool reuses the buffers of decodeInto across calls and goroutines.
var decoderPool = sync.Pool{New: func() any { return &decoder{} }}

type decoder struct {
	raw     []byte
	payload bytes.Buffer
	zr      io.ReadCloser
}

// addEncoded decodes one V2 compressed histogram into c and returns the
// number of samples it held. The histogram must have the contract's geometry.
func (c *counts) addEncoded(encoded string) (int64, error) {
	if encoded == "" {
		return 0, nil
	}
	d := decoderPool.Get().(*decoder)
	defer decoderPool.Put(d)

	need := base64.StdEncoding.DecodedLen(len(encoded))
	if cap(d.raw) < need {
		d.raw = make([]byte, need)
	}
	n, err := base64.StdEncoding.Decode(d.raw[:need], []byte(encoded))
	if err != nil {
		return 0, fmt.Errorf("decode HDR histogram: base64: %w", err)
	}
	raw := d.raw[:n]
	if len(raw) < 8 {
		return 0, fmt.Errorf("decode HDR histogram: %d bytes, shorter than the 8-byte envelope", len(raw))
	}
	if cookie := int32(binary.BigEndian.Uint32(raw)) &^ cookieFlagsMask; cookie != v2CompressedCookie {
		return 0, fmt.Errorf("decode HDR histogram: cookie %#x is not the V2 compressed encoding", cookie)
	}
	compressedLen := int64(int32(binary.BigEndian.Uint32(raw[4:])))
	if compressedLen < 0 || compressedLen > int64(len(raw)-8) {
		return 0, fmt.Errorf("decode HDR histogram: compressed length %d does not fit the %d bytes present", compressedLen, len(raw)-8)
	}
	compressed := bytes.NewReader(raw[8 : 8+compressedLen])
	if d.zr == nil {
		d.zr, err = zlib.NewReader(compressed)
	} else {
		err = d.zr.(zlib.Resetter).Reset(compressed, nil)
	}
	if err != nil {
		d.zr = nil
		return 0, fmt.Errorf("decode HDR histogram: zlib: %w", err)
	}
	d.payload.Reset()
	// A valid payload has at most one 9-byte varint per index.
	limit := int64(v2HeaderBytes + 9*contractCountsLen)
	if _, err := d.payload.ReadFrom(io.LimitReader(d.zr, limit+1)); err != nil {
		return 0, fmt.Errorf("decode HDR histogram: zlib: %w", err)
	}
	body := d.payload.Bytes()
	if int64(len(body)) > limit {
		return 0, errors.New("decode HDR histogram: payload larger than the geometry allows")
	}
	payload, err := checkHeader(body)
	if err != nil {
		return 0, err
	}
	return c.addPayload(payload)
}

func checkHeader(body []byte) ([]byte, error) {
	if len(body) < v2HeaderBytes {
		return nil, fmt.Errorf("decode HDR histogram: header truncated at %d bytes", len(body))
	}
	if cookie := int32(binary.BigEndian.Uint32(body)) &^ cookieFlagsMask; cookie != v2Cookie {
		return nil, fmt.Errorf("decode HDR histogram: inner cookie %#x is not V2", cookie)
	}
	payloadLen := int64(int32(binary.BigEndian.Uint32(body[4:])))
	digits := int64(int32(binary.BigEndian.Uint32(body[12:])))
	lowest := int64(binary.BigEndian.Uint64(body[16:]))
	highest := int64(binary.BigEndian.Uint64(body[24:]))
	if lowest != HistogramLowestMicros || highest != HistogramHighestMicros || digits != HistogramSignificantDigits {
		return nil, fmt.Errorf("histogram geometry %d..%d µs at %d significant digits differs from the contract's %d..%d µs at %d (histograms must share a geometry to merge exactly)",
			lowest, highest, digits, HistogramLowestMicros, HistogramHighestMicros, HistogramSignificantDigits)
	}
	if payloadLen != int64(len(body)-v2HeaderBytes) {
		return nil, fmt.Errorf("decode HDR histogram: header announces %d payload bytes, %d present", payloadLen, len(body)-v2HeaderBytes)
	}
	return body[v2HeaderBytes:], nil
}

func (c *counts) addPayload(payload []byte) (int64, error) {
	index := 0
	var total int64
	for len(payload) > 0 {
		v, n, err := readZigZag(payload)
		if err != nil {
			return 0, err
		}
		payload = payload[n:]
		if v < 0 {
			zeros := -v
			if zeros <= 0 || zeros > int64(len(c.buckets)-index) {
				return 0, fmt.Errorf("decode HDR histogram: zero run of %d at index %d overflows %d counts", zeros, index, len(c.buckets))
			}
			index += int(zeros)
			continue
		}
		if index >= len(c.buckets) {
			return 0, fmt.Errorf("decode HDR histogram: count at index %d beyond %d counts", index, len(c.buckets))
		}
		if v > math.MaxInt64-total || v > math.MaxInt64-c.total-total {
			return 0, errors.New("decode HDR histogram: counts overflow int64")
		}
		c.buckets[index] += v
		total += v
		index++
	}
	c.total += total
	return total, nil
}

// readZigZag reads one ZigZag LEB128-64b9B varint: 7 bits per byte for up
// to 8 bytes, all 8 bits of a ninth.
func readZigZag(buf []byte) (int64, int, error) {
	var value uint64
	for i := 0; i < 9; i++ {
		if i >= len(buf) {
			return 0, 0, errors.New("decode HDR histogram: truncated varint")
		}
		b := buf[i]
		if i == 8 {
			value |= uint64(b) << 56
			return int64((value >> 1) ^ -(value & 1)), 9, nil
		}
		value |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			return int64((value >> 1) ^ -(value & 1)), i + 1, nil
		}
	}
	panic("unreachable")
}
