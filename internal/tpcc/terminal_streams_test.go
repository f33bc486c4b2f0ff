package tpcc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// dealt is what one process's terminals drew: the deck's cards in the order dealt, and each
// terminal's inputs of each type in the order it drew them.
type dealt struct {
	cards  []txType
	inputs map[[2]int][]string // [terminal index, txType]
}

// deal plays the draws of one process's terminals without a database: n cards of the shared deck
// of (seed, home warehouses from..to), card k going to terminal pick(k), which draws that type's
// input. pick stands for however the terminals' draws interleave.
func deal(t *testing.T, seed uint64, from, to, active, n int, pick func(k, terminals int) int) dealt {
	t.Helper()
	deck := NewSharedDeck(seed, deckStream(from))
	var terms []*TerminalInputs
	for w := from; w <= to; w++ {
		for d := 1; d <= DistrictsPerWarehouse; d++ {
			in, err := NewTerminalInputs(seed, testConstants, TerminalConfig{HomeWarehouseID: w, HomeDistrictID: d, ActiveWarehouses: active})
			if err != nil {
				t.Fatal(err)
			}
			terms = append(terms, in)
		}
	}
	out := dealt{inputs: map[[2]int][]string{}}
	for k := range n {
		card := deck.Draw()
		out.cards = append(out.cards, card)
		i := pick(k, len(terms))
		gen := terms[i].For(card)
		var in any
		switch card {
		case txNewOrder:
			in = gen.NewOrder()
		case txPayment:
			in = gen.Payment()
		case txOrderStatus:
			in = gen.OrderStatus()
		case txDelivery:
			in = gen.Delivery()
		case txStockLevel:
			in = gen.StockLevel()
		}
		key := [2]int{i, int(card)}
		out.inputs[key] = append(out.inputs[key], fmt.Sprintf("%+v", in))
	}
	return out
}

func roundRobin(k, terminals int) int { return k % terminals }

// interleaved deals the cards to terminals at random (its own stream, not the run's seed), as
// terminals of varying response times draw.
func interleaved(stream uint64) func(k, terminals int) int {
	r := rand.New(rand.NewPCG(99, stream))
	return func(_, terminals int) int { return r.IntN(terminals) }
}

// One seed, one input sequence: the same seed deals the same cards, and each terminal's k-th
// transaction of each type has the same inputs however the deals interleave (which terminal
// takes which card is the one thing timing decides); another seed deals another deck and other
// inputs, and another process (other home warehouses) has streams of its own.
func TestSeedReproducesTheInputSequence(t *testing.T) {
	const n = 5000 // five passes of the deck over 20 terminals
	a := deal(t, 42, 3, 4, 8, n, roundRobin)
	if again := deal(t, 42, 3, 4, 8, n, roundRobin); !slices.Equal(again.cards, a.cards) || fmt.Sprint(again.inputs) != fmt.Sprint(a.inputs) {
		t.Fatal("the same seed and the same deals drew another sequence")
	}
	for _, stream := range []uint64{1, 2} {
		b := deal(t, 42, 3, 4, 8, n, interleaved(stream))
		if !slices.Equal(b.cards, a.cards) {
			t.Fatalf("interleaving %d: the deck dealt another sequence with the same seed", stream)
		}
		compared := 0
		for key, seq := range a.inputs {
			other := b.inputs[key]
			m := min(len(seq), len(other))
			if !slices.Equal(seq[:m], other[:m]) {
				t.Fatalf("interleaving %d: terminal %d's inputs of type %d differ with the same seed:\n%v\n%v", stream, key[0], key[1], seq[:m], other[:m])
			}
			compared += m
		}
		if compared < n/2 {
			t.Fatalf("interleaving %d: only %d of %d inputs compared", stream, compared, n)
		}
	}

	c := deal(t, 43, 3, 4, 8, n, roundRobin)
	if slices.Equal(c.cards, a.cards) {
		t.Error("seeds 42 and 43 dealt the same deck")
	}
	same := 0
	for key, seq := range a.inputs {
		if slices.Equal(seq, c.inputs[key]) {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 42 and 43: %d of %d terminal-and-type sequences are equal", same, len(a.inputs))
	}

	other := deal(t, 42, 5, 6, 8, n, roundRobin)
	if slices.Equal(other.cards, a.cards) {
		t.Error("two processes with the same seed dealt the same deck")
	}
}

// Every stream of a terminal is its own: no two terminals or purposes share one, and none is a
// deck's.
func TestTerminalStreamsAreDistinct(t *testing.T) {
	const warehouses = 50
	seen := map[uint64]string{}
	note := func(stream uint64, what string) {
		if prev, ok := seen[stream]; ok {
			t.Fatalf("stream %d serves both %s and %s", stream, prev, what)
		}
		seen[stream] = what
	}
	for w := 1; w <= warehouses; w++ {
		note(deckStream(w), fmt.Sprintf("the deck of a process from warehouse %d", w))
		for d := 1; d <= DistrictsPerWarehouse; d++ {
			for purpose := uint64(0); purpose <= uint64(txTypes); purpose++ {
				note(terminalStream(w, d, purpose), fmt.Sprintf("terminal (%d, %d) purpose %d", w, d, purpose))
			}
		}
	}
}
