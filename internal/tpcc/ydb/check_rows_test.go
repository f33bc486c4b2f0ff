package ydb

import (
	"strings"
	"testing"
	"time"

	"github.com/ydb-platform/ydb-go-sdk/v3/pkg/decimal"
	"github.com/ydb-platform/ydb-go-sdk/v3/types"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/clientcheck"
)

func TestYDBCheckQueries(t *testing.T) {
	want := map[int]string{
		0: "DECLARE $from AS Int32;\nDECLARE $to AS Int32;\nSELECT w_id, w_ytd FROM `warehouse` WHERE w_id BETWEEN $from AND $to;",
		3: "DECLARE $from AS Int32;\nDECLARE $to AS Int32;\nSELECT s_w_id, COUNT(*) AS n FROM `stock` WHERE s_w_id BETWEEN $from AND $to GROUP BY s_w_id;",
		5: "DECLARE $from AS Int32;\nDECLARE $to AS Int32;\nSELECT h_c_w_id, h_c_d_id, h_c_id, h_amount FROM `history` VIEW `history_customer_idx` WHERE h_c_w_id BETWEEN $from AND $to;",
		8: "DECLARE $from AS Int32;\nDECLARE $to AS Int32;\nSELECT ol_w_id, ol_d_id, ol_o_id, ol_number, ol_delivery_d, ol_amount FROM `order_line` WHERE ol_w_id BETWEEN $from AND $to;",
	}
	for i, w := range want {
		if got := ydbCheckQuery(clientcheck.Reads[i], 3, 12).text(); got != w {
			t.Errorf("read %d:\n got %s\nwant %s", i, got, w)
		}
	}
	// Every read names columns of its table (column panics otherwise) of a kind the YDB scan
	// converts.
	for _, r := range clientcheck.Reads {
		for _, c := range r.Columns {
			if k := r.Column(c).Type.Kind; k == tpcc.KindVarchar || k == tpcc.KindChar {
				t.Errorf("%s.%s: text is not read by the check", r.Table.Name, c)
			}
		}
	}
}

func TestYDBCheckValues(t *testing.T) {
	i := int32(7)
	ts := time.Date(2026, 11, 21, 10, 0, 0, 123456000, time.UTC)
	money := func(s string) *types.Decimal {
		units, err := decimal.Parse(s, 22, 9)
		if err != nil {
			t.Fatal(err)
		}
		return &types.Decimal{Bytes: decimal.BigIntToByte(units, 22), Precision: 22, Scale: 9}
	}
	var nilInt *int32
	var nilDec *types.Decimal
	var nilTime *time.Time
	u := uint64(100000)
	cases := []struct {
		in   any
		want clientcheck.Value
	}{
		{&i, clientcheck.Int(7)}, {&u, clientcheck.Int(100000)},
		{func() **int32 { p := &i; return &p }(), clientcheck.Int(7)}, {&nilInt, clientcheck.Null},
		{func() **time.Time { p := &ts; return &p }(), clientcheck.Int(ts.UnixMicro())}, {&nilTime, clientcheck.Null},
		{func() **types.Decimal { p := money("-10.00"); return &p }(), clientcheck.Int(-1000)},
		{func() **types.Decimal { p := money("300000.01"); return &p }(), clientcheck.Int(30000001)},
		{&nilDec, clientcheck.Null},
	}
	for _, tc := range cases {
		got, err := ydbCheckValue(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ydbCheckValue(%T) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	if _, err := ydbCheckValue(func() **types.Decimal { p := money("0.001"); return &p }()); err == nil || !strings.Contains(err.Error(), "below the cent") {
		t.Errorf("a sub-cent amount: %v", err)
	}
}
