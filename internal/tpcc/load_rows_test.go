package tpcc

import "testing"

func TestLoadRows(t *testing.T) {
	if RowsPerWarehouse != 499_011 {
		t.Fatalf("RowsPerWarehouse = %d, want 499,011 (1 + 10 + 30,000 × 3 + 9,000 + 300,000 + 100,000)", RowsPerWarehouse)
	}
	for _, tc := range []struct {
		warehouses int
		want       int64
	}{
		{0, 0},
		{-1, 0},
		{1, 100_000 + 499_011},
		{10, 100_000 + 4_990_110},
		{18_000, 100_000 + 8_982_198_000}, // the 9.0 G rows of a large run
	} {
		if got := LoadRows(tc.warehouses); got != tc.want {
			t.Errorf("LoadRows(%d) = %d, want %d", tc.warehouses, got, tc.want)
		}
	}
}
