package pgwire

import (
	"bytes"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"io"
	"strings"
	"testing"
	"time"
)

var pgTestNow = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func testGenerator() *tpcc.Generator {
	return &tpcc.Generator{Seed: 42, Constants: tpcc.Constants{CLoad: 157, CRun: 223, CID: 259, OLIID: 7911}, Now: pgTestNow}
}

// collect returns all rows of table t for warehouse w, with text values copied out.
func mustSource(g *tpcc.Generator, t tpcc.Table, w int) tpcc.RowSource {
	s, err := g.Source(t, w)
	if err != nil {
		panic(err)
	}
	return s
}

func TestGenerationIsDeterministicPerWarehouse(t *testing.T) {
	a, b := testGenerator(), testGenerator()
	for _, table := range tpcc.WarehouseTables {
		ra, _ := io.ReadAll(NewCopyReaderFormat(mustSource(a, table, 5), pgTestNow, CopyText))
		rb, _ := io.ReadAll(NewCopyReaderFormat(mustSource(b, table, 5), pgTestNow, CopyText))
		if !bytes.Equal(ra, rb) {
			t.Errorf("%s: two generations of warehouse 5 differ", table.Name)
		}
		rc, _ := io.ReadAll(NewCopyReaderFormat(mustSource(a, table, 6), pgTestNow, CopyText))
		if table.Name != tpcc.NewOrderTable.Name && bytes.Equal(ra, bytes.ReplaceAll(rc, []byte("\t6\t"), []byte("\t5\t"))) {
			t.Errorf("%s: warehouses 5 and 6 are identical apart from their id", table.Name)
		}
	}
}

func TestCopyRowFormat(t *testing.T) {
	g := testGenerator()
	out, err := io.ReadAll(NewCopyReaderFormat(mustSource(g, tpcc.OrdersTable, 1), pgTestNow, CopyText))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != tpcc.OrdersPerWarehouse {
		t.Fatalf("%d COPY lines, want %d", len(lines), tpcc.OrdersPerWarehouse)
	}
	first := strings.Split(lines[0], "\t")
	if len(first) != len(tpcc.OrdersTable.Columns) || first[0] != "1" || first[4] != "2026-11-21 10:00:00.000000" {
		t.Errorf("first orders line %q", lines[0])
	}
	last := strings.Split(lines[len(lines)-1], "\t")
	if last[0] != "3000" || last[1] != "10" || last[5] != `\N` {
		t.Errorf("last orders line %q: want order 3000 of district 10 with a NULL carrier", lines[len(lines)-1])
	}
}

// Small reads (shorter than a row) must yield the same bytes as one large read.
func TestCopyReaderSmallReads(t *testing.T) {
	g := testGenerator()
	for _, format := range []CopyFormat{CopyText, CopyBinary} {
		whole, _ := io.ReadAll(NewCopyReaderFormat(mustSource(g, tpcc.CustomerTable, 1), pgTestNow, format))
		r := NewCopyReaderFormat(mustSource(g, tpcc.CustomerTable, 1), pgTestNow, format)
		var got []byte
		buf := make([]byte, 7) // shorter than a row and than the binary header
		for {
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
		}
		if !bytes.Equal(whole, got) {
			t.Errorf("format %d: small reads: %d bytes, whole read: %d bytes, not equal", format, len(got), len(whole))
		}
		if format == CopyBinary && (!bytes.HasPrefix(whole, binaryCopyHeader) || !bytes.HasSuffix(whole, []byte{0xff, 0xff})) {
			t.Errorf("binary stream lacks the header or the trailer")
		}
	}
}

func BenchmarkGenerateWarehouseCopyText(b *testing.B)   { benchmarkGenerateWarehouse(b, CopyText) }
func BenchmarkGenerateWarehouseCopyBinary(b *testing.B) { benchmarkGenerateWarehouse(b, CopyBinary) }

// benchmarkGenerateWarehouse generates and encodes every table of one warehouse per iteration, as
// the loader streams it (without the database).
func benchmarkGenerateWarehouse(b *testing.B, format CopyFormat) {
	g := testGenerator()
	buf := make([]byte, 256<<10)
	var bytesOut int64
	for i := 0; i < b.N; i++ {
		for _, table := range tpcc.WarehouseTables {
			r := NewCopyReaderFormat(mustSource(g, table, i+1), pgTestNow, format)
			for {
				n, err := r.Read(buf)
				bytesOut += int64(n)
				if err == io.EOF {
					break
				}
			}
		}
	}
	b.ReportMetric(float64(bytesOut)/float64(b.N)/1e6, "MB/warehouse")
}
