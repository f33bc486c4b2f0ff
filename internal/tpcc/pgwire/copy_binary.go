package pgwire

import (
	"encoding/binary"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// binaryCopyHeader starts a COPY binary stream: the signature, flags 0, no header extension.
var binaryCopyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// postgresEpochMicros is 2000-01-01 00:00:00 UTC, PostgreSQL's timestamp epoch, in Unix µs.
const postgresEpochMicros = 946_684_800_000_000

// PostgresMicros is t in PostgreSQL's binary timestamp form: microseconds since 2000-01-01 UTC,
// truncated like the text form (CopyTimestampLayout) truncates.
func PostgresMicros(t time.Time) int64 {
	return t.UTC().Truncate(time.Microsecond).UnixMicro() - postgresEpochMicros
}

// AppendBinaryCopyRow appends row as one tuple of PostgreSQL's COPY binary format: a 16-bit field
// count, then per field a 32-bit length (-1 for NULL) and the value in the column type's binary
// send format (int4, numeric, varchar/bpchar bytes, timestamp). ts is the load time in
// PostgresMicros.
func AppendBinaryCopyRow(dst []byte, t tpcc.Table, row []tpcc.Value, ts int64) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(row)))
	for i, v := range row {
		switch v.Kind {
		case tpcc.ValueInt:
			dst = binary.BigEndian.AppendUint32(dst, 4)
			dst = binary.BigEndian.AppendUint32(dst, uint32(int32(v.Int)))
		case tpcc.ValueDecimal:
			at := len(dst)
			dst = append(dst, 0, 0, 0, 0)
			dst = AppendBinaryNumeric(dst, v.Int, t.Columns[i].Type.Scale)
			binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
		case tpcc.ValueText:
			dst = binary.BigEndian.AppendUint32(dst, uint32(len(v.Text)))
			dst = append(dst, v.Text...)
		case tpcc.ValueTimestamp:
			dst = binary.BigEndian.AppendUint32(dst, 8)
			dst = binary.BigEndian.AppendUint64(dst, uint64(ts))
		case tpcc.ValueNull:
			dst = binary.BigEndian.AppendUint32(dst, 0xffffffff)
		}
	}
	return dst
}

// numericNegative is the sign word of a negative numeric in its binary form.
const numericNegative = 0x4000

// AppendBinaryNumeric appends units × 10^-scale (0 ≤ scale ≤ 4) in numeric's binary send format:
// ndigits, weight, sign and dscale as 16-bit words, then the base-10000 digits, most significant
// first, without leading or trailing zero digits. The weight is the power of 10000 of the first
// digit; with scale ≤ 4 the fraction is one base-10000 digit.
func AppendBinaryNumeric(dst []byte, units int64, scale int) []byte {
	var sign uint16
	if units < 0 {
		sign = numericNegative
		units = -units
	}
	var pow int64 = 1
	for i := 0; i < scale; i++ {
		pow *= 10
	}
	intPart, frac := units/pow, units%pow
	var digits [6]uint16 // int64 has at most 5 base-10000 integer digits, plus one fractional
	n := 0
	for x := intPart; x > 0; x /= 10000 {
		n++
	}
	weight := n - 1
	for i, x := n-1, intPart; i >= 0; i, x = i-1, x/10000 {
		digits[i] = uint16(x % 10000)
	}
	if scale > 0 {
		digits[n] = uint16(frac * (10000 / pow))
		n++
	}
	first := 0
	for first < n && digits[first] == 0 { // only when the integer part is 0
		first++
		weight--
	}
	for n > first && digits[n-1] == 0 {
		n--
	}
	if first == n { // zero
		weight, sign = 0, 0
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(n-first))
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(weight)))
	dst = binary.BigEndian.AppendUint16(dst, sign)
	dst = binary.BigEndian.AppendUint16(dst, uint16(scale))
	for _, d := range digits[first:n] {
		dst = binary.BigEndian.AppendUint16(dst, d)
	}
	return dst
}
