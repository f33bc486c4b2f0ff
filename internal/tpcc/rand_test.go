package tpcc

import (
	"strings"
	"testing"
)

func TestNURandStaysInRangeAndIsNonUniform(t *testing.T) {
	cases := []struct {
		name    string
		a, x, y int
	}{
		{"last name", NURandALastName, 0, 999},
		{"customer id", NURandACustomerID, 1, 3000},
		{"item id", NURandAItemID, 1, 100000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRand(1, 2)
			counts := make(map[int]int)
			const n = 200_000
			for i := 0; i < n; i++ {
				v := r.NURand(tc.a, tc.x, tc.y, 123%(tc.a+1))
				if v < tc.x || v > tc.y {
					t.Fatalf("NURand(%d,%d,%d) = %d out of range", tc.a, tc.x, tc.y, v)
				}
				counts[v]++
			}
			// Non-uniform: the most frequent value is drawn far more often than the uniform mean.
			maxCount := 0
			for _, c := range counts {
				maxCount = max(maxCount, c)
			}
			uniformMean := float64(n) / float64(tc.y-tc.x+1)
			if float64(maxCount) < 3*uniformMean {
				t.Errorf("max count %d is within 3x of the uniform mean %.1f: not the NURand skew", maxCount, uniformMean)
			}
		})
	}
}

func TestNURandMatchesTheFormula(t *testing.T) {
	// Replay the two uniform draws NURand makes and compare with the formula of Clause 2.1.6.
	r1, r2 := NewRand(7, 7), NewRand(7, 7)
	for i := 0; i < 1000; i++ {
		got := r1.NURand(255, 0, 999, 42)
		a, b := r2.IntRange(0, 255), r2.IntRange(0, 999)
		if want := (((a | b) + 42) % 1000) + 0; got != want {
			t.Fatalf("draw %d: NURand = %d, formula = %d", i, got, want)
		}
	}
}

func TestIntRangeCoversBothEnds(t *testing.T) {
	r := NewRand(3, 4)
	seen := map[int]bool{}
	for i := 0; i < 10_000; i++ {
		v := r.IntRange(5, 15)
		if v < 5 || v > 15 {
			t.Fatalf("IntRange(5,15) = %d", v)
		}
		seen[v] = true
	}
	if len(seen) != 11 {
		t.Errorf("IntRange(5,15) produced %d distinct values, want 11", len(seen))
	}
}

func TestValidCDelta(t *testing.T) {
	cases := []struct {
		load, run int
		want      bool
	}{
		{157, 223, true}, // benchbase's pair, delta 66
		{0, 65, true}, {0, 119, true}, {200, 81, true},
		{0, 64, false}, {0, 120, false},
		{0, 96, false}, {0, 112, false}, {200, 104, false}, {200, 88, false},
		{100, 100, false},
	}
	for _, tc := range cases {
		if got := ValidCDelta(tc.load, tc.run); got != tc.want {
			t.Errorf("ValidCDelta(%d, %d) = %v, want %v", tc.load, tc.run, got, tc.want)
		}
	}
}

func TestNewConstantsAreValidForManySeeds(t *testing.T) {
	seenLoad := map[int]bool{}
	for seed := uint64(0); seed < 2000; seed++ {
		c := NewConstants(NewRand(seed, 0))
		if err := c.Validate(); err != nil {
			t.Fatalf("seed %d: %+v: %v", seed, c, err)
		}
		seenLoad[c.CLoad] = true
	}
	if len(seenLoad) < 200 {
		t.Errorf("C-Load took only %d distinct values over 2000 seeds", len(seenLoad))
	}
}

func TestConstantsValidateNamesTheProblem(t *testing.T) {
	cases := []struct {
		c    Constants
		want string
	}{
		{Constants{CLoad: 300, CRun: 10}, "C-Load 300"},
		{Constants{CLoad: 10, CRun: 106}, "C-Delta"}, // delta 96
		{Constants{CLoad: 157, CRun: 223, CID: 1024}, "C_ID"},
		{Constants{CLoad: 157, CRun: 223, OLIID: -1}, "OL_I_ID"},
	}
	for _, tc := range cases {
		err := tc.c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want an error mentioning %q", tc.c, err, tc.want)
		}
	}
}

func TestLastName(t *testing.T) {
	cases := map[int]string{0: "BARBARBAR", 371: "PRICALLYOUGHT", 999: "EINGEINGEING", 40: "BARPRESBAR"}
	for num, want := range cases {
		if got := LastName(num); got != want {
			t.Errorf("LastName(%d) = %q, want %q", num, got, want)
		}
	}
}

func TestAStringLengthsAndAlphabet(t *testing.T) {
	r := NewRand(5, 6)
	for i := 0; i < 5000; i++ {
		s := string(r.AppendAString(nil, 8, 16))
		if len(s) < 8 || len(s) > 16 {
			t.Fatalf("a-string length %d outside [8,16]", len(s))
		}
		if strings.Trim(s, alphanumeric) != "" {
			t.Fatalf("a-string %q has characters outside the alphabet", s)
		}
		n := string(r.AppendNString(nil, 16, 16))
		if len(n) != 16 || strings.Trim(n, "0123456789") != "" {
			t.Fatalf("n-string %q", n)
		}
	}
}

func TestAppendDataOriginalShare(t *testing.T) {
	r := NewRand(8, 9)
	const n = 100_000
	original := 0
	for i := 0; i < n; i++ {
		s := string(r.AppendData(nil, 26, 50))
		if len(s) < 26 || len(s) > 50 {
			t.Fatalf("data length %d outside [26,50]", len(s))
		}
		if strings.Contains(s, "ORIGINAL") {
			original++
		}
	}
	// 10 % ± 0.5 % (about 5 standard deviations at n = 100 000).
	if share := float64(original) / n; share < 0.095 || share > 0.105 {
		t.Errorf("ORIGINAL share %.4f, want 0.10 ± 0.005", share)
	}
}

func TestPermutation(t *testing.T) {
	r := NewRand(1, 1)
	p := make([]int, 3000)
	r.Permutation(p)
	seen := make([]bool, 3001)
	identity := true
	for i, v := range p {
		if v < 1 || v > 3000 || seen[v] {
			t.Fatalf("position %d: %d is out of range or repeated", i, v)
		}
		seen[v] = true
		identity = identity && v == i+1
	}
	if identity {
		t.Error("permutation is the identity")
	}
}

func TestValidateRange(t *testing.T) {
	cases := []struct {
		w, from, to, threads int
		wantFrom, wantTo     int
		err                  string
	}{
		{4, 0, 0, 1, 1, 4, ""},
		{4, 2, 0, 1, 2, 4, ""},
		{4, 2, 3, 1, 2, 3, ""},
		{0, 0, 0, 1, 0, 0, "--warehouses must be >= 1"},
		{4, 5, 0, 1, 0, 0, "--from 5 outside 1..4"},
		{4, -1, 0, 1, 0, 0, "--from -1 outside"},
		{4, 3, 2, 1, 0, 0, "--to 2 outside 3..4"},
		{4, 1, 5, 1, 0, 0, "--to 5 outside 1..4"},
		{4, 0, 0, 0, 0, 0, "--threads must be >= 1"},
	}
	for _, tc := range cases {
		from, to, err := ValidateRange(tc.w, tc.from, tc.to, tc.threads)
		if tc.err == "" {
			if err != nil || from != tc.wantFrom || to != tc.wantTo {
				t.Errorf("ValidateRange(%d,%d,%d,%d) = %d, %d, %v", tc.w, tc.from, tc.to, tc.threads, from, to, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ValidateRange(%d,%d,%d,%d): error %v, want %q", tc.w, tc.from, tc.to, tc.threads, err, tc.err)
		}
	}
}
