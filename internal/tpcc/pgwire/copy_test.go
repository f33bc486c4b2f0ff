package pgwire

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/tpcctest"
)

func TestGenerationIsDeterministicPerWarehouse(t *testing.T) {
	a, b := tpcctest.Generator(), tpcctest.Generator()
	for _, table := range tpcc.WarehouseTables {
		ra, _ := io.ReadAll(NewCopyReaderFormat(tpcctest.Source(a, table, 5), tpcctest.Now, CopyText))
		rb, _ := io.ReadAll(NewCopyReaderFormat(tpcctest.Source(b, table, 5), tpcctest.Now, CopyText))
		if !bytes.Equal(ra, rb) {
			t.Errorf("%s: two generations of warehouse 5 differ", table.Name)
		}
		rc, _ := io.ReadAll(NewCopyReaderFormat(tpcctest.Source(a, table, 6), tpcctest.Now, CopyText))
		if table.Name != tpcc.NewOrderTable.Name && bytes.Equal(ra, bytes.ReplaceAll(rc, []byte("\t6\t"), []byte("\t5\t"))) {
			t.Errorf("%s: warehouses 5 and 6 are identical apart from their id", table.Name)
		}
	}
}

func TestCopyRowFormat(t *testing.T) {
	g := tpcctest.Generator()
	out, err := io.ReadAll(NewCopyReaderFormat(tpcctest.Source(g, tpcc.OrdersTable, 1), tpcctest.Now, CopyText))
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
	g := tpcctest.Generator()
	for _, format := range []CopyFormat{CopyText, CopyBinary} {
		whole, _ := io.ReadAll(NewCopyReaderFormat(tpcctest.Source(g, tpcc.CustomerTable, 1), tpcctest.Now, format))
		r := NewCopyReaderFormat(tpcctest.Source(g, tpcc.CustomerTable, 1), tpcctest.Now, format)
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
	g := tpcctest.Generator()
	buf := make([]byte, 256<<10)
	var bytesOut int64
	for i := 0; i < b.N; i++ {
		for _, table := range tpcc.WarehouseTables {
			r := NewCopyReaderFormat(tpcctest.Source(g, table, i+1), tpcctest.Now, format)
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
