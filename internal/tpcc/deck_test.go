package tpcc

import (
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
