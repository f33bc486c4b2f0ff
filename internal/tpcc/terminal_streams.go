package tpcc

import "fmt"

// The random streams of a run are all drawn from its one seed (`tpcc run --seed`; the operator
// passes every pod of a step the step's seed and records it). Each stream is keyed by what it
// serves, never by the process, so a process reproduces its draws from the seed and its home
// warehouses alone:
//
//   - the shared deck of a process whose home warehouses begin at From: deckStream(From);
//   - terminal (w, d) — home warehouse w, district d, numbered (w-1)·10+d over the whole step —
//     has a stream for its waits (the warm start and its think times) and one per transaction
//     type for that type's inputs: terminalStream(w, d, purpose).
//
// The deck deals one sequence of cards per process, but which terminal takes which card depends on
// how the terminals' draws interleave; a stream per transaction type makes a terminal's k-th
// New-Order (Payment, …) the same whatever it was dealt before. So equal seeds replay equal decks
// and equal inputs for every terminal's k-th transaction of each type.

// Purposes of a terminal's streams: its waits, then one per transaction type (txType + 1), in the
// low streamPurposeBits bits below the terminal's number.
const (
	waitStream        = 0
	streamPurposeBits = 3
)

// Every purpose fits in streamPurposeBits: were there more, this constant would overflow and the
// package would not compile.
const _ uint64 = 1<<streamPurposeBits - (1 + uint64(txTypes))

// deckStreamBase offsets the shared decks' streams from the terminals': a terminal's stream is
// below 8·10·W, far below it for any warehouse count.
const deckStreamBase = 1 << 48

// deckStream is the stream of the shared deck of the process whose home warehouses begin at from:
// distinct per process, whose warehouse ranges do not overlap.
func deckStream(from int) uint64 { return deckStreamBase + uint64(from) }

// terminalStream is the stream of terminal (warehouse, district) for purpose (waitStream, or a
// transaction type's txType + 1).
func terminalStream(warehouse, district int, purpose uint64) uint64 {
	terminal := uint64((warehouse-1)*DistrictsPerWarehouse + district)
	return terminal<<streamPurposeBits | purpose
}

// TerminalInputs are one terminal's input generators, one per transaction type, each drawing
// from its own stream of the seed, and the stream its waits draw from.
type TerminalInputs struct {
	waits Rand
	rngs  [txTypes]Rand
	gens  [txTypes]InputGenerator
}

// NewTerminalInputs returns the generators of terminal cfg (its home warehouse and district) for
// seed, with the run's NURand constants.
func NewTerminalInputs(seed uint64, constants Constants, cfg TerminalConfig) (*TerminalInputs, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := constants.Validate(); err != nil {
		return nil, fmt.Errorf("terminal: NURand constants: %w", err)
	}
	in := &TerminalInputs{}
	in.waits.pcg.Seed(seed, terminalStream(cfg.HomeWarehouseID, cfg.HomeDistrictID, waitStream))
	for t := range txTypes {
		in.rngs[t].pcg.Seed(seed, terminalStream(cfg.HomeWarehouseID, cfg.HomeDistrictID, 1+uint64(t)))
		in.gens[t] = InputGenerator{rng: &in.rngs[t], constants: constants, cfg: cfg}
	}
	return in, nil
}

// Waits is the stream of the terminal's warm start and think times.
func (in *TerminalInputs) Waits() *Rand { return &in.waits }

// For is the generator of the card's transaction type.
func (in *TerminalInputs) For(card txType) *InputGenerator { return &in.gens[card] }
