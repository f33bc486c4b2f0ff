package tpcc

import (
	"io"
	"strconv"
	"sync/atomic"
	"time"
)

// CopyTimestampLayout is the text form of the load time in COPY rows (a timestamp without zone).
const CopyTimestampLayout = "2006-01-02 15:04:05.000000"

// AppendCopyRow appends row as one line of PostgreSQL's COPY text format: tab-separated, \N for
// NULL, newline-terminated. Generated text is letters and digits only, so nothing is escaped.
// ts is the load time already formatted with CopyTimestampLayout.
func AppendCopyRow(dst []byte, t Table, row []Value, ts []byte) []byte {
	for i, v := range row {
		if i > 0 {
			dst = append(dst, '\t')
		}
		switch v.Kind {
		case ValueInt:
			dst = strconv.AppendInt(dst, v.Int, 10)
		case ValueDecimal:
			dst = AppendDecimal(dst, v.Int, t.Columns[i].Type.Scale)
		case ValueText:
			dst = append(dst, v.Text...)
		case ValueTimestamp:
			dst = append(dst, ts...)
		case ValueNull:
			dst = append(dst, '\\', 'N')
		}
	}
	return append(dst, '\n')
}

// AppendDecimal appends units × 10^-scale in plain decimal notation, e.g. (-1000, 2) → "-10.00".
func AppendDecimal(dst []byte, units int64, scale int) []byte {
	if scale == 0 {
		return strconv.AppendInt(dst, units, 10)
	}
	if units < 0 {
		dst = append(dst, '-')
		units = -units
	}
	var pow int64 = 1
	for i := 0; i < scale; i++ {
		pow *= 10
	}
	dst = strconv.AppendInt(dst, units/pow, 10)
	dst = append(dst, '.')
	frac := units % pow
	for p := pow / 10; p > 1 && frac < p; p /= 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, frac, 10)
}

// copyReader streams a RowSource as COPY text: each Read generates rows straight into the
// caller's buffer (through a small carry-over for a row that does not fit).
type copyReader struct {
	src     RowSource
	table   Table
	row     []Value
	ts      []byte
	carry   []byte // backing store of pending
	pend    []byte // encoded bytes of a row not yet returned
	rows    int64
	done    bool
	counter *atomic.Int64 // optional: shared count of rows encoded, for progress
}

// NewCopyReader returns an io.Reader of src's rows in COPY text format; ts is the load time.
func NewCopyReader(src RowSource, now time.Time) *copyReader {
	t := src.Table()
	return &copyReader{
		src: src, table: t, row: make([]Value, len(t.Columns)),
		ts:    now.UTC().AppendFormat(nil, CopyTimestampLayout),
		carry: make([]byte, 0, 4096),
	}
}

// Rows returns how many rows have been encoded so far.
func (c *copyReader) Rows() int64 { return c.rows }

func (c *copyReader) Read(p []byte) (int, error) {
	if c.counter != nil {
		before := c.rows
		defer func() { c.counter.Add(c.rows - before) }()
	}
	n := 0
	for n < len(p) {
		if len(c.pend) > 0 {
			k := copy(p[n:], c.pend)
			n += k
			c.pend = c.pend[k:]
			continue
		}
		if c.done {
			break
		}
		if !c.src.Next(c.row) {
			c.done = true
			break
		}
		c.rows++
		// Encode in place when the row surely fits (the longest row is < 1 KiB); else carry over.
		if len(p)-n >= 2048 {
			n = len(AppendCopyRow(p[:n], c.table, c.row, c.ts))
		} else {
			c.carry = AppendCopyRow(c.carry[:0], c.table, c.row, c.ts)
			c.pend = c.carry
		}
	}
	if n == 0 && c.done {
		return 0, io.EOF
	}
	return n, nil
}
