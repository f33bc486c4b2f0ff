package tpcc

import (
	"math"
	"sync"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestDeckPassHoldsExactComposition(t *testing.T) {
	rng := NewRand(1, 1)
	var d Deck
	for pass := range 3 {
		var got [txTypes]int
		for range DeckSize {
			got[d.Draw(rng)]++
		}
		for _, c := range DeckCards {
			if n := got[txTypeOf(c.Transaction)]; n != c.Cards {
				t.Errorf("pass %d: %s %d cards, want %d", pass, c.Transaction, n, c.Cards)
			}
		}
	}
}

func TestDeckPassesAreShuffledDifferently(t *testing.T) {
	rng := NewRand(7, 3)
	var d Deck
	first := make([]txType, DeckSize)
	for i := range first {
		first[i] = d.Draw(rng)
	}
	same := 0
	for i := range DeckSize {
		if d.Draw(rng) == first[i] {
			same++
		}
	}
	// Two independent shuffles agree on about Σ p² ≈ 38 % of positions; identical passes on 100 %.
	if same > 500 {
		t.Fatalf("second pass matches the first at %d of %d positions: not reshuffled", same, DeckSize)
	}
	if first[0] == first[1] && first[1] == first[2] && first[2] == first[3] && first[3] == first[4] && first[0] != txNewOrder {
		t.Fatalf("deck looks unshuffled: %v", first[:5])
	}
}

func TestDeckMarginsAboveMixMinimums(t *testing.T) {
	minimum := map[snapshot.Transaction]int{snapshot.Payment: 430, snapshot.OrderStatus: 40, snapshot.Delivery: 40, snapshot.StockLevel: 40}
	total := 0
	for _, c := range DeckCards {
		total += c.Cards
		if m, ok := minimum[c.Transaction]; ok && c.Cards <= m {
			t.Errorf("%s: %d cards per %d, not above the minimum %d", c.Transaction, c.Cards, DeckSize, m)
		}
	}
	if total != DeckSize {
		t.Fatalf("deck has %d cards, want %d", total, DeckSize)
	}
}

// Many terminals that each draw a few cards — a spec-wait step — still deal whole passes of one
// deck between them: every type's count is within one pass of the composition. Decks per
// terminal fail this (1000 terminals drawing 14 cards each sample nearly independently).
func TestSharedDeckBoundsTheMixOfManyTerminals(t *testing.T) {
	const terminals, draws = 1000, 14
	deck := NewSharedDeck(5, deckStreamBase+1)
	counts := make([][txTypes]int, terminals)
	var wg sync.WaitGroup
	for i := range terminals {
		wg.Go(func() {
			for range draws {
				counts[i][deck.Draw()]++
			}
		})
	}
	wg.Wait()
	var total [txTypes]int
	for _, c := range counts {
		for tx, n := range c {
			total[tx] += n
		}
	}
	n := terminals * draws
	full := n / DeckSize
	for _, c := range DeckCards {
		got := total[txTypeOf(c.Transaction)]
		low, high := full*c.Cards, full*c.Cards+c.Cards
		if got < low || got > high {
			t.Errorf("%s: %d of %d draws, want %d..%d (whole passes plus one partial)", c.Transaction, got, n, low, high)
		}
	}
	// Against the same draws from a deck per terminal, the shares spread like independent draws.
	var apart [txTypes]int
	for i := range terminals {
		var d Deck
		rng := NewRand(5, uint64(i+1))
		for range draws {
			apart[d.Draw(rng)]++
		}
	}
	t.Logf("payments of %d draws: shared deck %d (%.2f%%), decks per terminal %d (%.2f%%), composition 43.30%%",
		n, total[txPayment], 100*float64(total[txPayment])/float64(n), apart[txPayment], 100*float64(apart[txPayment])/float64(n))
}

// The shared deck's lock against a deck per terminal: a draw per transaction, so the difference
// is the cost per transaction (tens of nanoseconds against the ~100 µs of client CPU a
// transaction takes, hack/bench-client.sh).
func BenchmarkDeckDraw(b *testing.B) {
	b.Run("per-terminal", func(b *testing.B) {
		rng := NewRand(1, 1)
		var d Deck
		for b.Loop() {
			d.Draw(rng)
		}
	})
	b.Run("shared-parallel", func(b *testing.B) {
		deck := NewSharedDeck(1, deckStreamBase)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				deck.Draw()
			}
		})
	})
}

// The verdict's sampling bound (snapshot.DeckSamplingSD) holds for the real deck: windows of
// pods' decks, each pod starting at a random point of a pass, spread a transaction's share by no
// more than the bound (its in-flight term left out: there are no terminals here), and a share
// below the Payment minimum lies within four of its deviations of the deck's share.
func TestDeckSamplingWithinTheVerdictsBound(t *testing.T) {
	for _, tc := range []struct {
		pods      int
		completed int
	}{{1, 10_000}, {4, 10_000}, {10, 20_000}} {
		const trials = 2000
		rng := NewRand(11, uint64(tc.pods))
		var sum, sumSq float64
		below, beyond := 0, 0
		sd := snapshot.DeckSamplingSD(snapshot.Payment, int64(tc.completed), tc.pods, 0)
		for range trials {
			payments := 0
			for range tc.pods {
				var d Deck
				for range rng.Intn(DeckSize) { // the window opens somewhere in a pass
					d.Draw(rng)
				}
				for range tc.completed / tc.pods {
					if d.Draw(rng) == txPayment {
						payments++
					}
				}
			}
			share := 100 * float64(payments) / float64(tc.completed)
			sum += share
			sumSq += share * share
			if share < 43 {
				below++
				if share < snapshot.DeckShare(snapshot.Payment)-4*sd {
					beyond++
				}
			}
		}
		mean := sum / trials
		empirical := math.Sqrt(sumSq/trials - mean*mean)
		t.Logf("%d pods, %d transactions: Payment share %.3f%% ± %.3f (bound %.3f); below 43%% in %d of %d windows, beyond 4 deviations in %d",
			tc.pods, tc.completed, mean, empirical, sd, below, trials, beyond)
		if empirical > sd {
			t.Errorf("%d pods: empirical deviation %.3f points above the verdict's bound %.3f", tc.pods, empirical, sd)
		}
		if empirical < sd/3 {
			t.Errorf("%d pods: empirical deviation %.3f points, the bound %.3f is too loose to judge anything", tc.pods, empirical, sd)
		}
		if beyond > 0 {
			t.Errorf("%d pods: %d windows of a faithful deck would fail the mix check", tc.pods, beyond)
		}
	}
}
