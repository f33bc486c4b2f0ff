package tpcc

import (
	"fmt"
	"math/big"
	"strconv"
)

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

// DecimalCents converts units × 10^-scale to cents; a value with a non-zero digit below the cent
// is an error (TPC-C money has two decimals, so it would be a corrupted row).
func DecimalCents(units *big.Int, scale int) (int64, error) {
	q := new(big.Int).Set(units)
	if scale < 2 {
		q.Mul(q, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(2-scale)), nil))
	} else if scale > 2 {
		var rem big.Int
		q.QuoRem(q, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale-2)), nil), &rem)
		if rem.Sign() != 0 {
			return 0, fmt.Errorf("amount %s×10^-%d has digits below the cent", units, scale)
		}
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("amount %s×10^-%d is out of range", units, scale)
	}
	return q.Int64(), nil
}
