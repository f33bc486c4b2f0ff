package tpcc

import (
	"fmt"
	"sync"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// DeckCards is the composition of the transaction deck the terminals of one client process draw
// from (Clause 5.2.4.2; defined in internal/snapshot, which the verdict reads too): each pass
// through the deck is a fresh uniform shuffle, and the deck's content fixes the mix. 1000 cards
// 444/433/41/41/41 put each minimum share (Payment 43 %, the others 4 %) a margin above the line — 43.3 % and 4.1 % — at the price of a ceiling of 12.76
// tpmC per warehouse (99.2 % of 12.86; research/tpcc-rules.md §1.4). CockroachDB's 10/10/1/1/1
// deck has a wider margin but a 98.0 % ceiling; a 45/43/4/4/4 deck has none and fails the
// minimums about half the time a run stops mid-deck.
//
// The margin holds only if the measured draws are whole passes but for a fraction of one. A
// deck per terminal breaks that: in a 60 s no-wait step each of 40 terminals draws ~600 of its
// 1000 cards, and with spec waits a terminal draws ~350 in two hours, so the interval samples
// partial passes almost like independent draws and Payment lands below 43 % in a few per cent
// of steps. SharedDeck deals one sequence of passes to all
// the terminals of a process, so whatever the terminal count the measured mix is off the
// composition by at most one partial pass at each end of the interval per client pod. With
// several pods those partial passes add up: at 10 000 transactions the Payment share of four
// pods' decks lands below 43 % in 4.7 % of steps, of ten pods in 14 % (simulated), which is why
// the verdict judges a share below a minimum against this sampling (snapshot.DeckSamplingSD).
var DeckCards = snapshot.DeckCards

// DeckSize is the number of cards in one pass.
const DeckSize = snapshot.DeckSize

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

// SharedDeck is one Deck dealt to all the terminals of a process: their draws, in whatever order
// they interleave, form a single sequence of uniformly shuffled passes. It is safe for
// concurrent use; the lock is held for one draw (a shuffle once per DeckSize draws).
type SharedDeck struct {
	mu   sync.Mutex
	rng  *Rand
	deck Deck
}

// NewSharedDeck returns a deck shuffled from the stream (seed, stream).
func NewSharedDeck(seed, stream uint64) *SharedDeck {
	return &SharedDeck{rng: NewRand(seed, stream)}
}

// Draw returns the next card of the shared sequence.
func (s *SharedDeck) Draw() txType {
	s.mu.Lock()
	c := s.deck.Draw(s.rng)
	s.mu.Unlock()
	return c
}
