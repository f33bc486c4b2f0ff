package tpcc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// TerminalsConfig describes the terminals of one process: 10 per home warehouse From..To.
type TerminalsConfig struct {
	Executor         Executor
	Constants        Constants
	ActiveWarehouses int // remote warehouses are drawn from 1..ActiveWarehouses
	From, To         int // home warehouses of this process, inclusive
	Wait             WaitMode
	RampUp           time.Duration // terminals start spread evenly over it; nothing is measured
	Duration         time.Duration // the measured interval
	Seed             uint64        // the streams' seed (terminal_streams.go): equal seeds replay equal decks and inputs
	Recorder         *Recorder
	// Ledger, when set, counts every New-Order's commit per district (acknowledged or unknown),
	// ramp-up and stopping included. It must cover From..To.
	Ledger *Ledger
	// Commits, when set, records when the database acknowledged writing transactions' commits,
	// for outages measured from the commits themselves (CommitGaps).
	Commits *CommitGaps
	// Drain bounds how long the transactions in flight when the run ends (at the end of the
	// interval, or on Stop) may take to finish before they are cancelled; 0 means DefaultDrain.
	// A cancelled New-Order's commit is unknown, which weakens the ledger check, so the
	// terminals stop starting transactions and let the ones running finish.
	Drain time.Duration
}

// DefaultDrain is TerminalsConfig.Drain when unset: the New-Order response-time limit of
// Clause 5.2.5.4 (5 s), so any transaction the SLA could accept finishes.
const DefaultDrain = 5 * time.Second

// Validate names the first field out of range.
func (c *TerminalsConfig) Validate() error {
	switch {
	case c.Executor == nil:
		return errors.New("terminals: no executor")
	case c.Recorder == nil:
		return errors.New("terminals: no recorder")
	case c.Ledger != nil && (c.Ledger.from != c.From || c.Ledger.to != c.To):
		return fmt.Errorf("terminals: ledger covers warehouses %d-%d, not %d-%d", c.Ledger.from, c.Ledger.to, c.From, c.To)
	case c.ActiveWarehouses < 1:
		return fmt.Errorf("--active-warehouses must be >= 1, got %d", c.ActiveWarehouses)
	case c.From < 1 || c.To < c.From || c.To > c.ActiveWarehouses:
		return fmt.Errorf("warehouse range %d-%d is not inside the active warehouses 1-%d", c.From, c.To, c.ActiveWarehouses)
	case c.Wait != snapshot.WaitSpec && c.Wait != snapshot.WaitNone:
		return fmt.Errorf("--wait %q: want spec or none", c.Wait)
	case c.RampUp < 0:
		return fmt.Errorf("--ramp-up must be >= 0, got %v", c.RampUp)
	case c.Duration <= 0:
		return fmt.Errorf("--duration must be > 0, got %v", c.Duration)
	case c.Drain < 0:
		return fmt.Errorf("terminals: drain must be >= 0, got %v", c.Drain)
	}
	return c.Constants.Validate()
}

// TerminalCount is the number of terminals of the range: 10 per warehouse (Clause 4.1).
func (c *TerminalsConfig) TerminalCount() int { return DistrictsPerWarehouse * (c.To - c.From + 1) }

// Terminals runs the emulated terminals of one process as goroutines: each has a fixed home
// warehouse and, for Stock-Level, a fixed district; it draws its transactions from the process's
// shared shuffled deck, and with spec waits keys, transacts and thinks in a loop (Clause 5.2.5).
type Terminals struct {
	cfg   TerminalsConfig
	phase atomic.Value // snapshot.Phase
	stop  chan struct{}
	once  sync.Once
	deck  *SharedDeck

	errorCount atomic.Int64
	lastError  atomic.Value // string
}

// NewTerminals validates cfg and returns terminals ready to Run.
func NewTerminals(cfg TerminalsConfig) (*Terminals, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := &Terminals{cfg: cfg, stop: make(chan struct{}), deck: NewSharedDeck(cfg.Seed, deckStream(cfg.From))}
	t.phase.Store(snapshot.PhasePaused)
	return t, nil
}

// Phase is where the run is: paused before Run, then rampup, measuring, stopping, done.
func (t *Terminals) Phase() snapshot.Phase { return t.phase.Load().(snapshot.Phase) }

// Stop ends the run early: the measured interval closes now. It is idempotent.
func (t *Terminals) Stop() { t.once.Do(func() { close(t.stop) }) }

// LastError returns the most recent transaction error (credentials redacted) and the count of
// errors so far, measured or not.
func (t *Terminals) LastError() (string, int64) {
	s, _ := t.lastError.Load().(string)
	return s, t.errorCount.Load()
}

// Run starts the terminals evenly over the ramp-up, measures Duration, then stops them and
// waits for every one to return. It returns when the run is over: at the end of the interval
// or on Stop, once the transactions in flight finished (or were cancelled after Drain); when
// ctx is cancelled, at once (which also closes the interval).
func (t *Terminals) Run(ctx context.Context) {
	cfg := &t.cfg
	// ctx carries the transactions; stopping ends the terminals' loops and waits, not a
	// transaction in flight.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopping, stopTerminals := context.WithCancel(ctx)
	defer stopTerminals()
	n := cfg.TerminalCount()
	begin := time.Now()
	cfg.Commits.Start(begin)
	t.phase.Store(snapshot.PhaseRampUp)

	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		delay := time.Duration(0)
		if n > 1 {
			delay = time.Duration(int64(cfg.RampUp) * int64(i) / int64(n))
		}
		go func() {
			defer wg.Done()
			term := terminal{index: i, owner: t, warehouse: cfg.From + i/DistrictsPerWarehouse, district: i%DistrictsPerWarehouse + 1}
			term.run(stopping, ctx, delay)
		}()
	}

	measureAt := time.NewTimer(time.Until(begin.Add(cfg.RampUp)))
	defer measureAt.Stop()
	select {
	case <-measureAt.C:
		cfg.Recorder.BeginMeasurement(time.Now())
		t.phase.Store(snapshot.PhaseMeasuring)
		endAt := time.NewTimer(cfg.Duration)
		select {
		case <-endAt.C:
		case <-t.stop:
		case <-ctx.Done():
		}
		endAt.Stop()
	case <-t.stop:
	case <-ctx.Done():
	}
	ended := time.Now()
	cfg.Recorder.EndMeasurement(ended)
	// From here no transaction starts: a stretch without commits after it is the run's end, not
	// an outage (those in flight may still commit while they drain).
	cfg.Commits.End(ended)
	t.phase.Store(snapshot.PhaseStopping)
	stopTerminals()
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	drain := cfg.Drain
	if drain == 0 {
		drain = DefaultDrain
	}
	timeout := time.NewTimer(drain)
	select {
	case <-drained:
	case <-timeout.C:
		cancel()
		<-drained
	}
	timeout.Stop()
	t.phase.Store(snapshot.PhaseDone)
}

// errorPause keeps a no-wait terminal from spinning on a database that fails every request at
// once (e.g. while it is down): the errors are counted either way.
const errorPause = 10 * time.Millisecond

// terminal is one emulated terminal. Everything it needs beyond these few words (its random
// stream, input generator and timer) is allocated when it starts, not before.
type terminal struct {
	index     int // within the process: the recorder stripe
	owner     *Terminals
	warehouse int
	district  int
}

// run loops until stopping ends; ctx, which outlives stopping by the drain, carries each
// transaction, so one in flight when the run ends is not cut off.
func (term *terminal) run(stopping, ctx context.Context, delay time.Duration) {
	timer := time.NewTimer(delay)
	defer timer.Stop()
	if !sleepOn(stopping, timer, -1) {
		return
	}
	cfg := &term.owner.cfg
	// Streams of the terminal of the whole step (warehouse, district), so pods never share one:
	// its waits', and one per transaction type (terminal_streams.go).
	inputs, err := NewTerminalInputs(cfg.Seed, cfg.Constants, TerminalConfig{
		HomeWarehouseID: term.warehouse, HomeDistrictID: term.district, ActiveWarehouses: cfg.ActiveWarehouses,
	})
	if err != nil { // validated with the config: cannot happen
		term.owner.noteError(err)
		return
	}
	rng := inputs.Waits()
	spec := cfg.Wait == snapshot.WaitSpec
	// With spec waits the terminal starts in the steady state (WarmStart): inside a think time, or
	// inside the keying of its first card with that much of it left.
	var first txType
	var firstKeying time.Duration
	if spec {
		card, keying, wait := WarmStart(rng)
		switch {
		case keying:
			first, firstKeying = card, wait
		case !sleepOn(stopping, timer, wait):
			return
		}
	}
	// schedule is when the next keying should begin: the end of the previous think time as drawn.
	// A transaction starting later than schedule + keying started late (a starved client).
	schedule := time.Now()
	for stopping.Err() == nil {
		var card txType
		var keying time.Duration
		if firstKeying > 0 {
			// Dealt before the run (WarmStart): not from the deck.
			card, keying, firstKeying = first, firstKeying, 0
		} else {
			card = term.owner.deck.Draw()
			keying = KeyingTime[card]
		}
		if spec && !sleepOn(stopping, timer, keying) {
			return
		}
		o := term.execute(ctx, inputs.For(card), card)
		if spec {
			o.Late = o.Start.Sub(schedule.Add(keying))
		}
		cfg.Recorder.Record(term.index, &o)
		switch {
		case spec:
			// The think time follows every transaction, failed or rolled back alike (Clause 5.2.5.4).
			think := ThinkTime(rng, MeanThinkTime[card])
			schedule = o.End.Add(think)
			if !sleepOn(stopping, timer, think) {
				return
			}
		case o.Failed:
			if !sleepOn(stopping, timer, errorPause) {
				return
			}
		}
	}
}

// sleepOn waits d on timer (d < 0: the timer is already armed) and reports false if ctx ended first.
func sleepOn(ctx context.Context, timer *time.Timer, d time.Duration) bool {
	if d >= 0 {
		timer.Reset(d)
	}
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// execute runs one transaction; its response time runs from the end of keying (now) to the
// executor's return, which includes any wait for a pooled connection (Clause 5.3).
func (term *terminal) execute(ctx context.Context, gen *InputGenerator, card txType) Outcome {
	ex := term.owner.cfg.Executor
	o := Outcome{Type: card, Start: time.Now()}
	var err error
	switch card {
	case txNewOrder:
		in := gen.NewOrder()
		var res NewOrderResult
		res, err = ex.NewOrder(ctx, &in)
		o.Lines, o.RemoteLines, o.RolledBack, o.Retries = len(in.Lines), in.RemoteLines(), res.RolledBack, res.Retries
		switch {
		case err == nil && !res.RolledBack:
			term.owner.cfg.Ledger.Record(term.index, in.DistrictID, NewOrderAcknowledged)
		case err != nil && res.CommitUnknown:
			term.owner.cfg.Ledger.Record(term.index, in.DistrictID, NewOrderCommitUnknown)
		}
	case txPayment:
		in := gen.Payment()
		var res PaymentResult
		res, err = ex.Payment(ctx, &in)
		o.RemotePayment, o.ByLastName, o.Retries = in.RemoteCustomer(), in.Customer.ByLastName, res.Retries
	case txOrderStatus:
		in := gen.OrderStatus()
		var res OrderStatusResult
		res, err = ex.OrderStatus(ctx, &in)
		o.ByLastName, o.Retries = in.Customer.ByLastName, res.Retries
	case txDelivery:
		in := gen.Delivery()
		var res DeliveryResult
		res, err = ex.Delivery(ctx, &in)
		o.Delivered, o.Skipped, o.Retries = res.Delivered, res.Skipped, res.Retries
	case txStockLevel:
		in := gen.StockLevel()
		var res StockLevelResult
		res, err = ex.StockLevel(ctx, &in)
		o.Retries = res.Retries
	}
	o.End = time.Now()
	if err != nil {
		o.Failed = true
		if ctx.Err() == nil {
			term.owner.noteError(fmt.Errorf("%s: %w", card.Transaction(), err))
		}
	} else if card != txOrderStatus && card != txStockLevel && !o.RolledBack {
		term.owner.cfg.Commits.Commit(o.End) // a writing transaction's commit, acknowledged
	}
	return o
}

func (t *Terminals) noteError(err error) {
	t.errorCount.Add(1)
	t.lastError.Store(snapshot.RedactCredentials(err.Error()))
}
