package tpcc

import (
	"math/big"
	"testing"
)

func TestDecimalCents(t *testing.T) {
	cases := []struct {
		units int64
		scale int
		want  int64
	}{{-10_000_000_000, 9, -1000}, {30000001, 2, 30000001}, {5, 0, 500}, {12, 1, 120}}
	for _, tc := range cases {
		if got, err := DecimalCents(big.NewInt(tc.units), tc.scale); err != nil || got != tc.want {
			t.Errorf("DecimalCents(%d, %d) = %d, %v; want %d", tc.units, tc.scale, got, err, tc.want)
		}
	}
}
