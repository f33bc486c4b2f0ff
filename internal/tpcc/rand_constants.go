package tpcc

import "fmt"

// Constants are the run-wide C values of NURand (Clause 2.1.6). Every terminal uses the same
// values; they are recorded in the meta table at load time and read back by the run.
type Constants struct {
	CLoad int // C for C_LAST during the load, in [0, 255]
	CRun  int // C for C_LAST during the run, in [0, 255]; |CRun − CLoad| is a valid C-Delta
	CID   int // C for C_ID, in [0, 1023]
	OLIID int // C for OL_I_ID, in [0, 8191]
}

// ValidCDelta reports whether C-Run is allowed for C-Load (Clause 2.1.6.1):
// |C_Run − C_Load| in [65, 119], and neither 96 nor 112.
func ValidCDelta(cLoad, cRun int) bool {
	d := cRun - cLoad
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// NewConstants draws C-Load, C_ID and OL_I_ID uniformly from their ranges and C-Run uniformly
// among the values with a valid C-Delta (there are always some: for any C-Load in [0, 255]
// C-Load+65..C-Load+119 or C-Load−119..C-Load−65 lies inside [0, 255]).
func NewConstants(r *Rand) Constants {
	c := Constants{
		CLoad: r.IntRange(0, NURandALastName),
		CID:   r.IntRange(0, NURandACustomerID),
		OLIID: r.IntRange(0, NURandAItemID),
	}
	valid := make([]int, 0, 2*55)
	for v := 0; v <= NURandALastName; v++ {
		if ValidCDelta(c.CLoad, v) {
			valid = append(valid, v)
		}
	}
	c.CRun = valid[r.Intn(len(valid))]
	return c
}

// Validate returns an error naming the first constant that is out of range or an invalid C-Delta.
func (c Constants) Validate() error {
	switch {
	case c.CLoad < 0 || c.CLoad > NURandALastName:
		return fmt.Errorf("C-Load %d outside [0, %d]", c.CLoad, NURandALastName)
	case c.CRun < 0 || c.CRun > NURandALastName:
		return fmt.Errorf("C-Run %d outside [0, %d]", c.CRun, NURandALastName)
	case !ValidCDelta(c.CLoad, c.CRun):
		return fmt.Errorf("C-Run %d with C-Load %d: C-Delta must be in [65, 119] and not 96 or 112 (Clause 2.1.6.1)", c.CRun, c.CLoad)
	case c.CID < 0 || c.CID > NURandACustomerID:
		return fmt.Errorf("C for C_ID %d outside [0, %d]", c.CID, NURandACustomerID)
	case c.OLIID < 0 || c.OLIID > NURandAItemID:
		return fmt.Errorf("C for OL_I_ID %d outside [0, %d]", c.OLIID, NURandAItemID)
	}
	return nil
}
