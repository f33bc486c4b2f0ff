package tpcc

import (
	"fmt"
	"math"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// WaitMode says whether terminals apply keying and think times.
type WaitMode = snapshot.WaitMode

// ParseWaitMode turns a --wait value into a WaitMode.
func ParseWaitMode(s string) (WaitMode, error) {
	switch WaitMode(s) {
	case snapshot.WaitSpec, snapshot.WaitNone:
		return WaitMode(s), nil
	}
	return "", fmt.Errorf("--wait %q: want spec or none", s)
}

// KeyingTime is the constant keying time of each transaction (Clause 5.2.5.2, the minimums), as
// snapshot.DeckCards gives it.
var KeyingTime = byTxType(func(c snapshot.DeckCard) time.Duration { return c.Keying })

// MeanThinkTime is the mean think time of each transaction (Clause 5.2.5.4, the minimums), as
// snapshot.DeckCards gives it.
var MeanThinkTime = byTxType(func(c snapshot.DeckCard) time.Duration { return c.MeanThink })

func byTxType(of func(snapshot.DeckCard) time.Duration) (d [txTypes]time.Duration) {
	for _, c := range DeckCards {
		d[txTypeOf(c.Transaction)] = of(c)
	}
	return d
}

// MinSpecProbe is the shortest measured interval of a search's probe under spec waits: one
// New-Order cycle of a terminal, its keying time plus its mean think time (30 s), the longest mean
// cycle of the five transactions. A shorter probe ends before an average terminal completes one
// New-Order. The operator's admission rule and default (api/v1alpha1.MinSpecProbeDuration) are the
// same; TestMinSpecProbeMatchesTheOperator keeps them equal.
var MinSpecProbe = KeyingTime[txNewOrder] + MeanThinkTime[txNewOrder]

// thinkTimeTruncation is how many means a think time may reach (Clause 5.2.5.4 allows
// truncating the distribution at 10 times its mean).
const thinkTimeTruncation = 10

// ThinkTime draws a negative-exponential think time with the given mean, −ln(U)·mean with U
// uniform in (0, 1], truncated at 10 × mean.
func ThinkTime(rng *Rand, mean time.Duration) time.Duration {
	// 53 random bits + 1 keep U in (0, 1]: ln(0) never happens.
	u := (float64(rng.Uint64()>>11) + 1) / (1 << 53)
	t := -math.Log(u) * float64(mean)
	return time.Duration(min(t, thinkTimeTruncation*float64(mean)))
}

// warmUpHorizon is how far back the virtual past of a spec-wait terminal reaches (WarmStart):
// about 29 mean cycles, after which a terminal's phase no longer depends on its start.
const warmUpHorizon = 10 * time.Minute

// WarmStart places a spec-wait terminal at its start where one that had long been running would
// be at a random moment: it plays a virtual past of keying and think times (cards drawn in the
// deck's proportions) from warmUpHorizon ago to now and reports where now falls — in the keying
// of card with wait left (keying true), or in a think time with wait left.
//
// A terminal that starts at the beginning of a keying instead sends its first transaction after
// that keying alone, and New-Order's 18 s keying makes the terminals' first New-Orders arrive
// together: 80 terminals started over a 20 s ramp-up measure about 103.6 % efficiency in a 2 min
// interval and 108 % in 1 min, where the steady state gives the deck's 99.2 % (TestWarmStartIsSteady).
// A random moment is in a keying with probability E[keying]/E[keying + think], and then more
// often in New-Order's long one (83 % of the time, against the deck's 44.4 %). That card was
// dealt before the run: the terminal executes it without drawing from the deck, whose sequence
// is dealt at the keyings that start during the run. (Taking it out of the shared deck instead
// leaves the deck short of New-Orders for the rest of the pass: 10 000 terminals measured 83 %.)
// So over a run the deck's composition fixes the mix of the transactions dealt, and the first
// card of each terminal that starts inside a keying is drawn in the deck's proportions.
func WarmStart(rng *Rand) (card txType, keying bool, wait time.Duration) {
	t := -warmUpHorizon
	for {
		c := deckTemplate[rng.Intn(DeckSize)]
		if t += KeyingTime[c]; t > 0 {
			return c, true, t
		}
		if t += ThinkTime(rng, MeanThinkTime[c]); t > 0 {
			return c, false, t
		}
	}
}
