package pgwire

import (
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// CopyTimestampLayout is the text form of the load time in COPY rows (a timestamp without zone).
const CopyTimestampLayout = "2006-01-02 15:04:05.000000"

// AppendCopyRow appends row as one line of PostgreSQL's COPY text format: tab-separated, \N for
// NULL, newline-terminated. Generated text is letters and digits only, so nothing is escaped.
// ts is the load time already formatted with CopyTimestampLayout.
func AppendCopyRow(dst []byte, t tpcc.Table, row []tpcc.Value, ts []byte) []byte {
	for i, v := range row {
		if i > 0 {
			dst = append(dst, '\t')
		}
		switch v.Kind {
		case tpcc.ValueInt:
			dst = strconv.AppendInt(dst, v.Int, 10)
		case tpcc.ValueDecimal:
			dst = tpcc.AppendDecimal(dst, v.Int, t.Columns[i].Type.Scale)
		case tpcc.ValueText:
			dst = append(dst, v.Text...)
		case tpcc.ValueTimestamp:
			dst = append(dst, ts...)
		case tpcc.ValueNull:
			dst = append(dst, '\\', 'N')
		}
	}
	return append(dst, '\n')
}

// CopyFormat is the COPY data format a load streams.
type CopyFormat uint8

const (
	// CopyText is COPY's text format. CockroachDB gets it: its binary COPY support is partial.
	CopyText CopyFormat = iota
	// CopyBinary is COPY's binary format. PostgreSQL gets it: the server then parses no numbers,
	// decimals or timestamps, which was a third of its CPU time per loaded row in text.
	CopyBinary
)

// copyReader streams a RowSource in a COPY format: each Read generates rows straight into the
// caller's buffer (through a small carry-over for a row that does not fit).
type copyReader struct {
	src      tpcc.RowSource
	table    tpcc.Table
	format   CopyFormat
	row      []tpcc.Value
	ts       []byte // text: the load time formatted with CopyTimestampLayout
	tsMicros int64  // binary: the load time in PostgreSQL's microseconds since 2000-01-01
	carry    []byte // backing store of pend
	pend     []byte // encoded bytes not yet returned (a row, the binary header or trailer)
	rows     int64
	started  bool
	done     bool
	counter  *atomic.Int64 // optional: shared count of rows encoded, for progress
}

// NewCopyReaderFormat returns an io.Reader of src's rows in the given COPY format; now is the
// load time.
func NewCopyReaderFormat(src tpcc.RowSource, now time.Time, format CopyFormat) *copyReader {
	t := src.Table()
	return &copyReader{
		src: src, table: t, format: format, row: make([]tpcc.Value, len(t.Columns)),
		ts:       now.UTC().AppendFormat(nil, CopyTimestampLayout),
		tsMicros: PostgresMicros(now),
		carry:    make([]byte, 0, 4096),
		started:  format == CopyText, // text has no header
	}
}

// Rows returns how many rows have been encoded so far.
func (c *copyReader) Rows() int64 { return c.rows }

func (c *copyReader) appendRow(dst []byte) []byte {
	if c.format == CopyBinary {
		return AppendBinaryCopyRow(dst, c.table, c.row, c.tsMicros)
	}
	return AppendCopyRow(dst, c.table, c.row, c.ts)
}

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
		if !c.started {
			c.started = true
			c.pend = append(c.carry[:0], binaryCopyHeader...)
			continue
		}
		if c.done {
			break
		}
		if !c.src.Next(c.row) {
			c.done = true
			if c.format == CopyBinary {
				c.pend = append(c.carry[:0], 0xff, 0xff) // trailer: a field count of -1
			}
			continue
		}
		c.rows++
		// Encode in place when the row surely fits (the longest row is < 1 KiB); else carry over.
		if len(p)-n >= 2048 {
			n = len(c.appendRow(p[:n]))
		} else {
			c.carry = c.appendRow(c.carry[:0])
			c.pend = c.carry
		}
	}
	if n == 0 && c.done {
		return 0, io.EOF
	}
	return n, nil
}
