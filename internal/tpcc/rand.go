package tpcc

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// The A constants of NURand(A, x, y) for the three non-uniform fields (Clause 2.1.6).
const (
	NURandALastName   = 255  // C_LAST: NURand(255, 0, 999)
	NURandACustomerID = 1023 // C_ID: NURand(1023, 1, 3000)
	NURandAItemID     = 8191 // OL_I_ID: NURand(8191, 1, 100000)
)

// Rand is a fast, seedable generator (PCG) with the TPC-C random functions as methods.
// It is not safe for concurrent use: give each goroutine its own.
type Rand struct {
	pcg rand.PCG
}

// NewRand returns a generator for the stream (seed, stream); equal arguments give equal sequences.
func NewRand(seed, stream uint64) *Rand {
	r := &Rand{}
	r.pcg.Seed(seed, stream)
	return r
}

// Uint64 returns 64 uniformly random bits.
func (r *Rand) Uint64() uint64 { return r.pcg.Uint64() }

// Intn returns a uniform integer in [0, n); n must be > 0.
// Multiply-high reduction: the bias is below n/2^64, far under anything measurable.
func (r *Rand) Intn(n int) int {
	hi, _ := bits.Mul64(r.pcg.Uint64(), uint64(n))
	return int(hi)
}

// IntRange returns a uniform integer in [lo, hi], both inclusive (the spec's random(x, y)).
func (r *Rand) IntRange(lo, hi int) int { return lo + r.Intn(hi-lo+1) }

// NURand is the spec's non-uniform random function (Clause 2.1.6):
// (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
func (r *Rand) NURand(a, x, y, c int) int {
	return (((r.IntRange(0, a) | r.IntRange(x, y)) + c) % (y - x + 1)) + x
}

// LastNameNumber returns NURand(255, 0, 999) with c (C-Load at load time, C-Run at run time);
// LastName turns the number into the customer's last name.
func (r *Rand) LastNameNumber(c int) int { return r.NURand(NURandALastName, 0, 999, c) }

// CustomerID returns NURand(1023, 1, 3000) with c = Constants.CID.
func (r *Rand) CustomerID(c int) int { return r.NURand(NURandACustomerID, 1, CustomersPerDistrict, c) }

// ItemID returns NURand(8191, 1, 100000) with c = Constants.OLIID.
func (r *Rand) ItemID(c int) int { return r.NURand(NURandAItemID, 1, Items, c) }

var lastNameSyllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// AppendLastName appends the last name of num in [0, 999]: the syllables of its three digits
// (Clause 4.3.2.3), e.g. 371 → "PRICALLYOUGHT".
func AppendLastName(dst []byte, num int) []byte {
	dst = append(dst, lastNameSyllables[num/100]...)
	dst = append(dst, lastNameSyllables[num/10%10]...)
	return append(dst, lastNameSyllables[num%10]...)
}

// LastName returns the last name of num in [0, 999] (Clause 4.3.2.3).
func LastName(num int) string { return string(AppendLastName(make([]byte, 0, 15), num)) }

const alphanumeric = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// AppendAString appends a random a-string (Clause 4.3.2.2) of length in [minLen, maxLen].
// The alphabet is letters and digits only, so the value never needs quoting or escaping.
func (r *Rand) AppendAString(dst []byte, minLen, maxLen int) []byte {
	n := r.IntRange(minLen, maxLen)
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	out := dst[start:]
	for i := 0; i < n; {
		// One 64-bit draw yields ten 6-bit indexes; 62 of 64 values are accepted.
		v := r.pcg.Uint64()
		for k := 0; k < 10 && i < n; k++ {
			if idx := v & 63; idx < 62 {
				out[i] = alphanumeric[idx]
				i++
			}
			v >>= 6
		}
	}
	return dst
}

// AppendNString appends a random n-string (digits) of length in [minLen, maxLen].
func (r *Rand) AppendNString(dst []byte, minLen, maxLen int) []byte {
	n := r.IntRange(minLen, maxLen)
	for i := 0; i < n; i++ {
		dst = append(dst, byte('0'+r.Intn(10)))
	}
	return dst
}

// AppendData appends an a-string of length in [minLen, maxLen] that, with probability 10 %,
// holds "ORIGINAL" at a random position (I_DATA and S_DATA, Clause 4.3.3.1).
func (r *Rand) AppendData(dst []byte, minLen, maxLen int) []byte {
	if r.Intn(10) != 0 {
		return r.AppendAString(dst, minLen, maxLen)
	}
	const original = "ORIGINAL"
	n := r.IntRange(minLen, maxLen)
	at := r.Intn(n - len(original) + 1)
	dst = r.AppendAString(dst, at, at)
	dst = append(dst, original...)
	rest := n - at - len(original)
	return r.AppendAString(dst, rest, rest)
}

// Permutation fills p with a uniformly random permutation of 1..len(p) (Fisher–Yates).
func (r *Rand) Permutation(p []int) {
	for i := range p {
		p[i] = i + 1
	}
	for i := len(p) - 1; i > 0; i-- {
		j := r.Intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
}
