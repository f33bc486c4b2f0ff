package tpcc

import (
	"context"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// stubExecutor answers every transaction after a fixed latency without a database; it counts
// calls so a test can compare them with what the recorder measured.
type stubExecutor struct {
	latency   time.Duration
	calls     atomic.Int64
	cancelled atomic.Int64 // transactions whose context ended while they ran
}

func (s *stubExecutor) wait(ctx context.Context) error {
	s.calls.Add(1)
	if s.latency == 0 {
		return ctx.Err()
	}
	select {
	case <-time.After(s.latency):
		return nil
	case <-ctx.Done():
		s.cancelled.Add(1)
		return ctx.Err()
	}
}

func (s *stubExecutor) NewOrder(ctx context.Context, in *NewOrderInput) (NewOrderResult, error) {
	rolledBack := in.Lines[len(in.Lines)-1].ItemID == UnusedItemID
	return NewOrderResult{Lines: len(in.Lines), RolledBack: rolledBack}, s.wait(ctx)
}
func (s *stubExecutor) Payment(ctx context.Context, _ *PaymentInput) (PaymentResult, error) {
	return PaymentResult{}, s.wait(ctx)
}
func (s *stubExecutor) OrderStatus(ctx context.Context, _ *OrderStatusInput) (OrderStatusResult, error) {
	return OrderStatusResult{}, s.wait(ctx)
}
func (s *stubExecutor) Delivery(ctx context.Context, _ *DeliveryInput) (DeliveryResult, error) {
	return DeliveryResult{Delivered: 10}, s.wait(ctx)
}
func (s *stubExecutor) StockLevel(ctx context.Context, _ *StockLevelInput) (StockLevelResult, error) {
	return StockLevelResult{}, s.wait(ctx)
}
func (s *stubExecutor) Close() {}

var terminalTestConstants = Constants{CLoad: 157, CRun: 223, CID: 259, OLIID: 7911}

func TestTerminalsNoWaitMeasuresOnlyTheInterval(t *testing.T) {
	ex := &stubExecutor{latency: 200 * time.Microsecond}
	rec := NewRecorder()
	terms, err := NewTerminals(TerminalsConfig{Executor: ex, Constants: terminalTestConstants, ActiveWarehouses: 4, From: 2, To: 3,
		Wait: snapshot.WaitNone, RampUp: 300 * time.Millisecond, Duration: time.Second, Seed: 1, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	terms.Run(context.Background())
	elapsed := time.Since(start)
	if terms.Phase() != snapshot.PhaseDone {
		t.Fatalf("phase %s after Run, want done", terms.Phase())
	}
	if elapsed < 1300*time.Millisecond || elapsed > 3*time.Second {
		t.Fatalf("run took %v, want ramp-up + duration = 1.3s", elapsed)
	}
	m := rec.Collect(time.Now())
	if d := m.MeasuredDuration(); math.Abs(d.Seconds()-1) > 0.05 {
		t.Errorf("measured %v, want 1s", d)
	}
	var completed int64
	for tt := range txTypes {
		completed += m.Counts[tt].Commits + m.Counts[tt].Rollbacks
		if m.Counts[tt].Errors != 0 {
			t.Errorf("%s: %d errors from a stub that never fails", tt.Transaction(), m.Counts[tt].Errors)
		}
	}
	if calls := ex.calls.Load(); completed == 0 || completed >= calls {
		t.Fatalf("measured %d of %d calls: want some, and fewer than all (ramp-up is not measured)", completed, calls)
	}
	if share := float64(m.Completed(snapshot.Payment)) / float64(completed); share < 0.40 || share > 0.47 {
		t.Errorf("payment share %.3f, want about 0.433", share)
	}
}

func TestTerminalsStopEndsEarly(t *testing.T) {
	ex := &stubExecutor{latency: time.Millisecond}
	rec := NewRecorder()
	terms, err := NewTerminals(TerminalsConfig{Executor: ex, Constants: terminalTestConstants, ActiveWarehouses: 1, From: 1, To: 1,
		Wait: snapshot.WaitNone, Duration: time.Hour, Seed: 1, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, terms.Stop)
	start := time.Now()
	terms.Run(context.Background())
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Stop took %v to end the run", d)
	}
	if m := rec.Collect(time.Now()); m.MeasuredDuration() > time.Second || m.Completed(snapshot.NewOrder) == 0 {
		t.Fatalf("measured %v with %d new-orders, want ~0.3s and some", m.MeasuredDuration(), m.Completed(snapshot.NewOrder))
	}
}

func TestTerminalsConfigValidation(t *testing.T) {
	good := TerminalsConfig{Executor: &stubExecutor{}, Recorder: NewRecorder(), Constants: terminalTestConstants,
		ActiveWarehouses: 10, From: 1, To: 10, Wait: snapshot.WaitSpec, Duration: time.Minute}
	for _, tc := range []struct {
		name, want string
		mutate     func(*TerminalsConfig)
	}{
		{"range above active", "not inside the active warehouses", func(c *TerminalsConfig) { c.To = 11 }},
		{"empty range", "not inside", func(c *TerminalsConfig) { c.From = 5; c.To = 4 }},
		{"zero duration", "--duration", func(c *TerminalsConfig) { c.Duration = 0 }},
		{"negative ramp-up", "--ramp-up", func(c *TerminalsConfig) { c.RampUp = -time.Second }},
		{"unknown wait", "--wait", func(c *TerminalsConfig) { c.Wait = "fast" }},
		{"bad constants", "C-Delta", func(c *TerminalsConfig) { c.Constants.CRun = c.Constants.CLoad }},
	} {
		cfg := good
		tc.mutate(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if err := good.Validate(); err != nil {
		t.Fatalf("valid config rejected: %v", err)
	}
}

// TestIdleTerminalMemory runs 100 000 spec-wait terminals (10 000 warehouses) against a stub and
// reports the resident memory per terminal; the budget is 1 GiB for the process.
// TPCC_MEMORY_TERMINALS overrides the count.
func TestIdleTerminalMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	warehouses := 10_000
	if s := os.Getenv("TPCC_MEMORY_TERMINALS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 {
			t.Fatalf("TPCC_MEMORY_TERMINALS=%q: want a count >= 10", s)
		}
		warehouses = n / 10
	}
	runtime.GC()
	base := residentBytes(t)
	ex := &stubExecutor{latency: 5 * time.Millisecond}
	rec := NewRecorder()
	// As a session runs them: with the time series on (10 s intervals).
	if err := rec.StartIntervals(time.Now(), snapshot.DefaultInterval, 0); err != nil {
		t.Fatal(err)
	}
	terms, err := NewTerminals(TerminalsConfig{Executor: ex, Constants: terminalTestConstants, ActiveWarehouses: warehouses,
		From: 1, To: warehouses, Wait: snapshot.WaitSpec, Duration: time.Hour, Seed: 1, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { terms.Run(context.Background()); close(done) }()
	// Keying times are 2–18 s: at 4 s every terminal has started and most are still keying.
	time.Sleep(4 * time.Second)
	peak := residentBytes(t)
	terms.Stop()
	<-done
	n := warehouses * 10
	perTerminal := float64(peak-base) / float64(n)
	t.Logf("%d idle spec-wait terminals: RSS %.0f MiB (baseline %.0f MiB), %.2f KiB per terminal, %d transactions ran",
		n, float64(peak)/(1<<20), float64(base)/(1<<20), perTerminal/1024, ex.calls.Load())
	if warehouses == 10_000 && peak > 1<<30 {
		t.Fatalf("RSS %d MiB with 100 000 terminals, budget 1024 MiB", peak>>20)
	}
}

func residentBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("VmRSS not found in /proc/self/status")
	return 0
}

// TestTerminalsDrainTransactionsInFlight: when the interval ends, the transactions running finish
// (none is cancelled, so no New-Order's commit becomes unknown); a transaction that outlasts
// Drain is cancelled; cancelling Run's context cancels at once.
func TestTerminalsDrainTransactionsInFlight(t *testing.T) {
	run := func(latency, drain time.Duration, ctx context.Context) (*stubExecutor, time.Duration) {
		ex := &stubExecutor{latency: latency}
		terms, err := NewTerminals(TerminalsConfig{Executor: ex, Constants: terminalTestConstants, ActiveWarehouses: 1, From: 1, To: 1,
			Wait: snapshot.WaitNone, Duration: 100 * time.Millisecond, Seed: 1, Recorder: NewRecorder(), Drain: drain})
		if err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		terms.Run(ctx)
		if p := terms.Phase(); p != snapshot.PhaseDone {
			t.Errorf("phase %s after Run", p)
		}
		return ex, time.Since(begin)
	}
	// 400 ms transactions, a 100 ms interval: all 10 terminals are mid-transaction at its end.
	ex, took := run(400*time.Millisecond, 0, context.Background())
	if ex.cancelled.Load() != 0 || ex.calls.Load() != 10 || took < 400*time.Millisecond {
		t.Errorf("default drain: %d of %d transactions cancelled, Run took %v", ex.cancelled.Load(), ex.calls.Load(), took)
	}
	ex, took = run(time.Minute, 200*time.Millisecond, context.Background())
	if ex.cancelled.Load() != 10 || took > 10*time.Second {
		t.Errorf("200 ms drain of 1 min transactions: %d of 10 cancelled, Run took %v", ex.cancelled.Load(), took)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	ex, took = run(time.Minute, 0, ctx)
	if ex.cancelled.Load() != 10 || took > 10*time.Second {
		t.Errorf("cancelled context: %d of 10 cancelled, Run took %v", ex.cancelled.Load(), took)
	}
	if _, err := NewTerminals(TerminalsConfig{Executor: ex, Constants: terminalTestConstants, ActiveWarehouses: 1, From: 1, To: 1,
		Wait: snapshot.WaitNone, Duration: time.Second, Recorder: NewRecorder(), Drain: -time.Second}); err == nil || !strings.Contains(err.Error(), "drain") {
		t.Errorf("negative drain: %v", err)
	}
}

// TestTerminalsSpecWaitMeasureTheSteadyState: 10 000 spec-wait terminals (1000 warehouses, stub
// transactions of 1 ms) over a 10 s ramp-up and a 30 s interval measure the steady state's
// efficiency (the deck's 99.2 %), as TestWarmStartIsSteady simulates. ~6400 New-Orders: sd 1.25 %,
// so the band is ±3.5 %; started at the beginning of a keying they measured ~106 %.
func TestTerminalsSpecWaitMeasureTheSteadyState(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: a 40 s run")
	}
	ex := &stubExecutor{latency: time.Millisecond}
	rec := NewRecorder()
	const warehouses = 1000
	terms, err := NewTerminals(TerminalsConfig{Executor: ex, Constants: terminalTestConstants, ActiveWarehouses: warehouses, From: 1, To: warehouses,
		Wait: snapshot.WaitSpec, RampUp: 10 * time.Second, Duration: 30 * time.Second, Seed: 11, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	terms.Run(context.Background())
	m := rec.Collect(time.Now())
	tpmC := snapshot.PerMinute(m.Completed(snapshot.NewOrder), m.MeasuredDuration())
	efficiency := snapshot.EfficiencyPercent(tpmC, warehouses)
	want := steadyEfficiency()
	t.Logf("%d New-Orders in %v: %.1f tpmC, efficiency %.2f %% (steady state %.2f %%)", m.Completed(snapshot.NewOrder), m.MeasuredDuration(), tpmC, efficiency, want)
	if math.Abs(efficiency-want) > 3.5 {
		t.Errorf("efficiency %.2f %%, want the steady state's %.2f %% ± 3.5", efficiency, want)
	}
}
