package snapshot

import (
	"math"
	"testing"
	"time"
)

func TestMeanCycleIsTheDecksWeightedWaits(t *testing.T) {
	// (444·30 + 433·15 + 41·12 + 41·7 + 41·7) / 1000 s, Clause 5.2.5's minimums in the deck's mix.
	want := time.Duration((444*30 + 433*15 + 41*12 + 41*7 + 41*7) * float64(time.Second) / 1000)
	if got := MeanCycle(); got != want {
		t.Fatalf("MeanCycle = %v, want %v", got, want)
	}
}

func TestConnections(t *testing.T) {
	for _, c := range []struct {
		wait       WaitMode
		warehouses int
		want       int
	}{
		{WaitSpec, 0, 0},
		// L = 10/20.881 s = 0.479: ⌈0.479 + 3·0.692⌉ = 3.
		{WaitSpec, 1, 3},
		{WaitSpec, 4, 7},
		{WaitSpec, 10, 12},
		// The study's pod: 18 000 warehouses over 36 pods. L = 239.5: ⌈239.5 + 3·15.5⌉ = 286, where
		// two per warehouse gave 1 000.
		{WaitSpec, 500, 286},
		// 100 000 warehouses over 256 pods.
		{WaitSpec, 390, 228},
		{WaitNone, 1, 10},
		{WaitNone, 500, 5000},
	} {
		if got := Connections(c.wait, c.warehouses); got != c.want {
			t.Errorf("Connections(%s, %d) = %d, want %d", c.wait, c.warehouses, got, c.want)
		}
	}
}

// The pool never falls below the mean concurrency with the hold time it is sized for, nor exceeds
// one connection per terminal.
func TestConnectionsCoverTheMeanConcurrency(t *testing.T) {
	for w := 1; w <= 5000; w += 7 {
		got := Connections(WaitSpec, w)
		l := TransactionRate(WaitSpec, w) * ConnectionHold.Seconds()
		if float64(got) < l+ConnectionSafety*math.Sqrt(l) || got > w*TerminalsPerWarehouse {
			t.Fatalf("%d warehouses: %d connections for a mean concurrency of %.1f", w, got, l)
		}
	}
	if r := TransactionRate(WaitNone, 10); !math.IsInf(r, 1) {
		t.Errorf("TransactionRate without waits = %g, want +Inf", r)
	}
}
