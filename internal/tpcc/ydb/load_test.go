package ydb

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ydb-platform/ydb-go-sdk/v3/types"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/tpcctest"
)

func firstRowYQL(t *testing.T, table tpcc.Table, w int) string {
	t.Helper()
	src := tpcctest.Source(tpcctest.Generator(), table, w)
	row := make([]tpcc.Value, len(table.Columns))
	if !src.Next(row) {
		t.Fatalf("%s: no rows", table.Name)
	}
	return YDBRow(table, row, tpcctest.Now).Yql()
}

func TestYDBRows(t *testing.T) {
	cases := []struct {
		table tpcc.Table
		want  []string
	}{
		{tpcc.WarehouseTable, []string{"`w_id`:3", "`w_tax`:Decimal(\".", "`w_ytd`:Decimal(\"300000.000000000\",22,9)", "`w_zip`:\"", "11111\"u"}},
		{tpcc.DistrictTable, []string{"`d_next_o_id`:3001", "`d_ytd`:Decimal(\"30000.000000000\",22,9)"}},
		{tpcc.CustomerTable, []string{"`c_balance`:Decimal(\"-10.000000000\",22,9)", "`c_last`:\"BARBARBAR\"u", "`c_middle`:\"OE\"u",
			"`c_since`:Timestamp(\"2026-11-21T10:00:00", "`c_credit_lim`:Decimal(\"50000.000000000\",22,9)"}},
		{tpcc.HistoryTable, []string{"`h_amount`:Decimal(\"10.000000000\",22,9)", "`h_pk`:" + strconv.FormatUint(HistoryKey(3, 1, 1), 10) + "ul"}},
		{tpcc.OrdersTable, []string{"`o_id`:1", "`o_carrier_id`:Just("}},
		{tpcc.OrderLineTable, []string{"`ol_delivery_d`:Just(Timestamp(", "`ol_amount`:Decimal(\".000000000\",22,9)"}},
		{tpcc.NewOrderTable, []string{"`no_o_id`:2101"}},
		{tpcc.StockTable, []string{"`s_ytd`:0", "`s_i_id`:1"}},
		{tpcc.ItemTable, []string{"`i_id`:1", "`i_price`:Decimal("}},
	}
	for _, tc := range cases {
		yql := firstRowYQL(t, tc.table, 3)
		for _, w := range tc.want {
			if !strings.Contains(yql, w) {
				t.Errorf("%s: YQL %s\n does not contain %s", tc.table.Name, yql, w)
			}
		}
		if strings.Count(yql, "`:") < len(tc.table.Columns) {
			t.Errorf("%s: %d fields in %s", tc.table.Name, strings.Count(yql, "`:"), yql)
		}
	}
}

func TestYDBUndeliveredOrderHasNullCarrier(t *testing.T) {
	src := tpcctest.Source(tpcctest.Generator(), tpcc.OrdersTable, 1)
	row := make([]tpcc.Value, len(tpcc.OrdersTable.Columns))
	for src.Next(row) {
		if row[0].Int == tpcc.FirstUndeliveredOrder {
			yql := YDBRow(tpcc.OrdersTable, row, tpcctest.Now).Yql()
			if !strings.Contains(yql, "`o_carrier_id`:Nothing(Optional<Int32>)") {
				t.Errorf("order 2101: %s", yql)
			}
			return
		}
	}
	t.Fatal("no order 2101")
}

func TestYDBBatches(t *testing.T) {
	var sizes []int
	err := YDBBatches(tpcctest.Source(tpcctest.Generator(), tpcc.NewOrderTable, 1), tpcctest.Now, 4000, func(rows types.Value, n int) error {
		sizes = append(sizes, n)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 3 || sizes[0] != 4000 || sizes[1] != 4000 || sizes[2] != 1000 {
		t.Errorf("batches %v, want [4000 4000 1000] for 9000 new_order rows", sizes)
	}
}

func TestHistoryKeysAreUnique(t *testing.T) {
	seen := map[uint64]bool{}
	for w := 1; w <= 20; w++ {
		for d := 1; d <= 10; d++ {
			for c := 1; c <= 3000; c++ {
				k := HistoryKey(w, d, c)
				if seen[k] {
					t.Fatalf("HistoryKey(%d,%d,%d) repeats", w, d, c)
				}
				seen[k] = true
			}
		}
	}
}
