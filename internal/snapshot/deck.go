package snapshot

import (
	"math"
	"time"
)

// DeckSize and DeckCards are the composition of the transaction deck each client process deals
// its terminals from (Clause 5.2.4.2; internal/tpcc/deck.go says why 444/433/41/41/41). They live
// here, beside the figures both sides read, because the verdict needs them too: a measured share
// differs from the deck's by the deck's own sampling, and only a larger difference says the
// database (or the driver) skewed the mix.
const DeckSize = 1000

// DeckCard is one transaction's place in the deck and its waits.
type DeckCard struct {
	Transaction Transaction
	Cards       int
	Keying      time.Duration
	MeanThink   time.Duration
}

// DeckCards lists each transaction's cards in one pass of DeckSize, with the constant keying time
// before it (Clause 5.2.5.2) and the mean of the think time after it (Clause 5.2.5.4), the
// minimums both: the client's terminals wait them, the verdict bounds what spec-wait terminals
// can still complete by them, and the connection pool is sized from them (Connections).
var DeckCards = [...]DeckCard{
	{NewOrder, 444, 18 * time.Second, 12 * time.Second},
	{Payment, 433, 3 * time.Second, 12 * time.Second},
	{OrderStatus, 41, 2 * time.Second, 10 * time.Second},
	{Delivery, 41, 2 * time.Second, 5 * time.Second},
	{StockLevel, 41, 2 * time.Second, 5 * time.Second},
}

// DeckShare is a transaction's share of the deck, in per cent.
func DeckShare(t Transaction) float64 {
	for _, c := range DeckCards {
		if c.Transaction == t {
			return 100 * float64(c.Cards) / DeckSize
		}
	}
	return 0
}

// DeckSamplingSD is one standard deviation, in percentage points, of a transaction's measured
// share around its deck share over completed transactions dealt by pods processes running
// terminals in all. Each pod's counted draws are whole passes but for a partial pass at each end
// of its window (hypergeometric; largest at half a pass), and the transactions in flight at the
// window's two ends differ (at most one per terminal; Bernoulli). Both bounds are the largest the
// window can give, so the deviation is an upper bound.
func DeckSamplingSD(t Transaction, completed int64, pods, terminals int) float64 {
	if completed <= 0 {
		return math.Inf(1)
	}
	p := DeckShare(t) / 100
	half := DeckSize / 2.0
	partialPass := half * p * (1 - p) * (DeckSize - half) / (DeckSize - 1)
	inFlight := float64(terminals) * p * (1 - p)
	return 100 * math.Sqrt(2*float64(max(pods, 1))*partialPass+2*inFlight) / float64(completed)
}
