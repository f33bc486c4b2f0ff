package tpcc

import (
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
