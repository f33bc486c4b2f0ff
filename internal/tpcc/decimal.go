package tpcc

import "strconv"

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
