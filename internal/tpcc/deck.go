package tpcc

import (
	"fmt"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// DeckCards is the composition of the transaction deck every terminal draws from (Clause
// 5.2.4.2): each pass through the deck is a fresh uniform shuffle, and the deck's content fixes
// the mix. 1000 cards 444/433/41/41/41 put each minimum share (Payment 43 %, the others 4 %) a
// margin above the line — 43.3 % and 4.1 % — so the measured mix meets the minimums even when a
// short interval ends part-way through a deck, at the price of a ceiling of 12.76 tpmC per
// warehouse (99.2 % of 12.86; research/tpcc-rules.md §1.4). CockroachDB's 10/10/1/1/1 deck has
// a wider margin but a 98.0 % ceiling; a 45/43/4/4/4 deck has none and fails the minimums about
// half the time a run stops mid-deck.
var DeckCards = [...]struct {
	Transaction snapshot.Transaction
	Cards       int
}{
	{snapshot.NewOrder, 444},
	{snapshot.Payment, 433},
	{snapshot.OrderStatus, 41},
	{snapshot.Delivery, 41},
	{snapshot.StockLevel, 41},
}

// DeckSize is the number of cards in one pass.
const DeckSize = 1000

// deckTemplate is the unshuffled deck, shared read-only by all terminals.
var deckTemplate = func() [DeckSize]txType {
	var d [DeckSize]txType
	i := 0
	for _, c := range DeckCards {
		for range c.Cards {
			d[i] = txTypeOf(c.Transaction)
			i++
		}
	}
	if i != DeckSize {
		panic(fmt.Sprintf("deck: %d cards, want %d", i, DeckSize))
	}
	return d
}()

// txType indexes the five transactions compactly (one byte per card).
type txType uint8

const (
	txNewOrder txType = iota
	txPayment
	txOrderStatus
	txDelivery
	txStockLevel
	txTypes
)

var txNames = [txTypes]snapshot.Transaction{snapshot.NewOrder, snapshot.Payment, snapshot.OrderStatus, snapshot.Delivery, snapshot.StockLevel}

func (t txType) Transaction() snapshot.Transaction { return txNames[t] }

func txTypeOf(t snapshot.Transaction) txType {
	for i, n := range txNames {
		if n == t {
			return txType(i)
		}
	}
	panic("unknown transaction " + string(t))
}

// Deck deals transactions from a shuffled deck, reshuffling at each pass. Its 1 KB of cards is
// allocated on the first draw, so an idle terminal that has not started costs nothing here.
type Deck struct {
	cards *[DeckSize]txType
	next  int
}

// Draw returns the next card, shuffling a new pass with rng when the deck is exhausted.
func (d *Deck) Draw(rng *Rand) txType {
	if d.cards == nil {
		d.cards = new([DeckSize]txType)
		d.next = DeckSize
	}
	if d.next == DeckSize {
		*d.cards = deckTemplate
		// Fisher–Yates: every order of the pass is equally likely.
		for i := DeckSize - 1; i > 0; i-- {
			j := rng.Intn(i + 1)
			d.cards[i], d.cards[j] = d.cards[j], d.cards[i]
		}
		d.next = 0
	}
	c := d.cards[d.next]
	d.next++
	return c
}
