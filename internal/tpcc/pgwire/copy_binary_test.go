package pgwire

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/tpcctest"
)

func TestAppendBinaryNumeric(t *testing.T) {
	cases := []struct {
		units int64
		scale int
		want  string // ndigits weight sign dscale | digits, hex
	}{
		{0, 2, "0000 0000 0000 0002"},
		{1000, 2, "0001 0000 0000 0002 000a"},                        // 10.00
		{-1000, 2, "0001 0000 4000 0002 000a"},                       // -10.00
		{30000000, 2, "0001 0001 0000 0002 001e"},                    // 300000.00 = 30·10000¹
		{5, 4, "0001 ffff 0000 0004 0005"},                           // 0.0005
		{2000, 4, "0001 ffff 0000 0004 07d0"},                        // 0.2000
		{-5, 2, "0001 ffff 4000 0002 01f4"},                          // -0.05
		{999999, 2, "0002 0000 0000 0002 270f 26ac"},                 // 9999.99
		{123456789012, 2, "0004 0002 0000 0002 000c 0d80 1ed2 04b0"}, // 1234567890.12 = 12|3456|7890.1200
		{7, 0, "0001 0000 0000 0000 0007"},
		{-9223372036854775807, 0, "0005 0004 4000 0000 039a 0d2c 0170 1565 16af"}, // 922|3372|0368|5477|5807,
	}
	for _, tc := range cases {
		want, _ := hex.DecodeString(strings.NewReplacer(" ", "", "|", "").Replace(tc.want))
		if got := AppendBinaryNumeric(nil, tc.units, tc.scale); !bytes.Equal(got, want) {
			t.Errorf("AppendBinaryNumeric(%d, %d) = % x, want % x", tc.units, tc.scale, got, want)
		}
	}
}

func TestPostgresMicros(t *testing.T) {
	if got := PostgresMicros(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)); got != 0 {
		t.Errorf("epoch: %d", got)
	}
	if got := PostgresMicros(time.Date(2000, 1, 1, 1, 0, 0, 1999, time.FixedZone("x", 3600))); got != 1 {
		t.Errorf("2000-01-01 00:00:00.000001999 UTC: %d µs, want 1 (truncated)", got)
	}
}

// The binary stream of every table loads into PostgreSQL exactly the rows the text stream loads,
// including decimals at their edges, NULLs, padded chars and a load time with sub-µs digits.
func TestBinaryCopyMatchesText(t *testing.T) {
	c := connect(t, pgtestDatabase(t))
	ctx := context.Background()
	gen := &tpcc.Generator{Seed: 42, Constants: tpcc.ConstantsForSeed(42), Now: tpcctest.Now.Add(123456789 * time.Nanosecond)}
	for _, s := range Postgres.SchemaDDL(tpcc.TablesLogged) {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, table := range append([]tpcc.Table{tpcc.ItemTable}, tpcc.WarehouseTables...) {
		w := 3
		if table.Name == tpcc.ItemTable.Name {
			w = 0
		}
		bin := "bin_" + table.Name
		if _, err := c.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (LIKE %s)", bin, table.Name)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.PgConn().CopyFrom(ctx, NewCopyReaderFormat(tpcctest.Source(gen, table, w), gen.Now, CopyText), CopyStatementFormat(table, CopyText)); err != nil {
			t.Fatalf("text COPY %s: %v", table.Name, err)
		}
		binTable := table
		binTable.Name = bin
		tag, err := c.PgConn().CopyFrom(ctx, NewCopyReaderFormat(tpcctest.Source(gen, table, w), gen.Now, CopyBinary), CopyStatementFormat(binTable, CopyBinary))
		if err != nil {
			t.Fatalf("binary COPY %s: %v", table.Name, err)
		}
		if tag.RowsAffected() == 0 {
			t.Fatalf("binary COPY %s: no rows", table.Name)
		}
		diff := queryInt(t, c, fmt.Sprintf(`SELECT count(*) FROM ((TABLE %[1]s EXCEPT ALL TABLE %[2]s) UNION ALL (TABLE %[2]s EXCEPT ALL TABLE %[1]s)) d`, table.Name, bin))
		if diff != 0 {
			t.Errorf("%s: %d rows differ between the text and the binary load", table.Name, diff)
		}
	}
	if got := queryInt(t, c, "SELECT count(*) FROM bin_orders WHERE o_entry_d <> '2026-11-21 10:00:00.123456'"); got != 0 {
		t.Errorf("%d binary-loaded orders with another entry time", got)
	}
	// Decimal edges no generated row reaches: zero, signs, the largest values of each column type.
	if _, err := c.Exec(ctx, "CREATE TABLE num (v2 numeric(12,2), v4 numeric(4,4))"); err != nil {
		t.Fatal(err)
	}
	numTable := tpcc.Table{Name: "num", Columns: []tpcc.Column{{Name: "v2", Type: tpcc.ColumnType{Kind: tpcc.KindDecimal, Precision: 12, Scale: 2}},
		{Name: "v4", Type: tpcc.ColumnType{Kind: tpcc.KindDecimal, Precision: 4, Scale: 4}}}}
	edges := [][2]int64{{0, 0}, {1, 1}, {-1, -1}, {9999999999, 9999}, {-9999999999, -9999}, {10000, 10}, {-2147483648, 100}, {100000000, 1000}}
	_, err := c.PgConn().CopyFrom(ctx, &sliceCopy{t: numTable, rows: edges}, CopyStatementFormat(numTable, CopyBinary))
	if err != nil {
		t.Fatalf("binary COPY of decimal edges: %v", err)
	}
	rows, err := c.Query(ctx, "SELECT v2::text, v4::text FROM num")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		got = append(got, a+" "+b)
	}
	var want []string
	for _, e := range edges {
		want = append(want, string(tpcc.AppendDecimal(nil, e[0], 2))+" "+string(tpcc.AppendDecimal(nil, e[1], 4)))
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("decimal edges through binary COPY:\n got %s\nwant %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
}

// sliceCopy is a binary COPY stream of fixed decimal rows.
type sliceCopy struct {
	t    tpcc.Table
	rows [][2]int64
	buf  []byte
	done bool
}

func (s *sliceCopy) Read(p []byte) (int, error) {
	if !s.done {
		s.done = true
		s.buf = append(s.buf, binaryCopyHeader...)
		for _, r := range s.rows {
			s.buf = AppendBinaryCopyRow(s.buf, s.t, []tpcc.Value{{Kind: tpcc.ValueDecimal, Int: r[0]}, {Kind: tpcc.ValueDecimal, Int: r[1]}}, 0)
		}
		s.buf = append(s.buf, 0xff, 0xff)
	}
	if len(s.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}
