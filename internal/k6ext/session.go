// Package k6ext is the k6 extension k6/x/tpcc and the session behind it: one process's TPC-C
// terminals, their recorder, and the snapshot HTTP contract (internal/snapshot) around them.
// `tpcc run` prepares a session and runs k6 in-process with the embedded default script, whose
// single VU iteration calls tpcc.run(); custom scripts under `tpcc k6 run` call the same function
// with their own options.
package k6ext

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/drivers"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// ClientVersion is the version written into snapshots.
var ClientVersion = "v0.1.0"

// K6Version is the k6 module version embedded in the binary, the one k6link.go was checked
// against (k6link_test.go fails when go.mod pins another).
const K6Version = "v1.8.1"

// Config is one process's part of a step.
type Config struct {
	Engine           tpcc.Driver
	URL              string // never logged: it may hold a password
	Warehouses       int    // loaded warehouses the run declares
	ActiveWarehouses int    // of the whole step
	From, To         int    // this process's home warehouses
	Wait             tpcc.WaitMode
	RampUp, Duration time.Duration
	Connections      int // 0: 2 per warehouse with spec waits, one per terminal without
	Seed             uint64
	Paused           bool // wait for Start before ramping up
	Pod, Instance    string
	// Interval is the length of one interval of the time series (0: snapshot.DefaultInterval);
	// IntervalRetention bounds the retained uncollected intervals (0: unbounded).
	Interval          time.Duration
	IntervalRetention int
	// Telemetry makes this process sample the database's own signals every interval (one
	// process per step).
	Telemetry bool
	// ShowSettings names server settings the telemetry process reads back whatever their value:
	// those the run asked for (CockroachDB cluster settings, PostgreSQL parameters).
	ShowSettings []string
	// Isolation of every transaction ("" the engine's default); the executor reads it back.
	Isolation isolation.Level
	// Pooler is the mode of the connection pooler URL goes through (tpcc.PoolerURL), "" none.
	Pooler tpcc.PoolerMode
	// NoTimeSeries keeps no per-interval series (and samples no telemetry): the totals only.
	// The operator never sets it; it measures what the per-interval collection costs
	// (hack/bench-collection.sh).
	NoTimeSeries bool
}

// DefaultConnections is the pool size for a range: snapshot.Connections, Little's law on the
// terminals' rate with spec waits, one per terminal without.
func DefaultConnections(wait tpcc.WaitMode, warehouses int) int {
	return snapshot.Connections(wait, warehouses)
}

// Validate names the flag of the first problem.
func (c *Config) Validate() error {
	switch {
	case c.URL == "":
		return errors.New("--url (or env TPCC_URL) is required")
	case c.Warehouses < 1:
		return fmt.Errorf("--warehouses must be >= 1, got %d", c.Warehouses)
	case c.ActiveWarehouses < 1 || c.ActiveWarehouses > c.Warehouses:
		return fmt.Errorf("--active-warehouses %d outside 1..%d (--warehouses)", c.ActiveWarehouses, c.Warehouses)
	case c.From < 1 || c.To < c.From || c.To > c.ActiveWarehouses:
		return fmt.Errorf("warehouse range %d-%d (--from/--to or --shard) outside the active warehouses 1-%d", c.From, c.To, c.ActiveWarehouses)
	case c.Connections < 0:
		return fmt.Errorf("--connections must be >= 0 (0 = automatic), got %d", c.Connections)
	case c.Pod == "":
		return errors.New("pod name is empty (env HOSTNAME)")
	case c.Interval < 0:
		return fmt.Errorf("--interval must be > 0, got %v", c.Interval)
	case c.Interval > 0 && c.Interval < 100*time.Millisecond:
		return fmt.Errorf("--interval %v is below the 100ms the sealing grace needs", c.Interval)
	case c.IntervalRetention < 0:
		return fmt.Errorf("--interval-retention must be >= 0 (0 = unbounded), got %d", c.IntervalRetention)
	}
	if c.Engine == nil {
		_, err := drivers.Lookup("")
		return fmt.Errorf("--engine: %w", err)
	}
	if _, err := tpcc.ParseWaitMode(string(c.Wait)); err != nil {
		return err
	}
	if c.RampUp < 0 {
		return fmt.Errorf("--ramp-up must be >= 0, got %v", c.RampUp)
	}
	if c.Duration <= 0 {
		return fmt.Errorf("--duration must be > 0, got %v", c.Duration)
	}
	if c.Isolation != "" {
		if _, err := isolation.Parse(string(c.Isolation)); err != nil {
			return fmt.Errorf("--isolation: %w", err)
		}
		if why := c.Engine.Capabilities().SupportsIsolation(c.Isolation); why != "" {
			return fmt.Errorf("--isolation %s: %s", c.Isolation.Flag(), why)
		}
	}
	return nil
}

// Session is one process's run: connect, wait for start, run the terminals, serve snapshots
// throughout, and linger with the final one.
type Session struct {
	cfg      Config
	recorder *tpcc.Recorder
	ledger   *tpcc.Ledger     // New-Order commits per district, whole run
	commits  *tpcc.CommitGaps // acknowledged write commits around fault marks
	// ledgerCheck is the --ledger-check verdict once made (guarded by mu).
	ledgerCheck *snapshot.LedgerCheck

	mu            sync.Mutex
	failed        string // non-empty: phase failed, with this message
	terms         *tpcc.Terminals
	executor      tpcc.Executor
	constants     tpcc.Constants
	serverVersion string
	telemetry     tpcc.TelemetrySampler // nil unless cfg.Telemetry
	server        *snapshot.ServerInfo  // read by the telemetry process once
	intervalsDone bool                  // the time series is sealed to its end
	telemetryLog  []*snapshot.Telemetry // every sample, for the replication verdict (one small struct per interval)
	// pendingAnnotate is a boundary's sample the loop took but could not seal before the run
	// ended (interval loop, then finishIntervals: never at once).
	pendingAnnotate func(*snapshot.Interval)
	lastPool        tpcc.PoolStats // the pool's counters at the last sealed interval (interval loop only)

	startOnce, stopOnce sync.Once
	started, stopped    chan struct{}
	ran                 chan struct{} // closed when Run returns
}

// NewSession validates cfg; nothing is connected yet.
func NewSession(cfg Config) (*Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Seed == 0 {
		cfg.Seed = rand.Uint64()
	}
	if cfg.Connections == 0 {
		cfg.Connections = DefaultConnections(cfg.Wait, cfg.To-cfg.From+1)
	}
	if cfg.Interval == 0 {
		cfg.Interval = snapshot.DefaultInterval
	}
	if cfg.Isolation == "" {
		cfg.Isolation = cfg.Engine.Capabilities().DefaultIsolation
	}
	return &Session{cfg: cfg, recorder: tpcc.NewRecorder(), ledger: tpcc.NewLedger(cfg.From, cfg.To), commits: tpcc.NewCommitGaps(), started: make(chan struct{}), stopped: make(chan struct{}),
		ran: make(chan struct{})}, nil
}

// Config returns the session's configuration with its defaults filled in.
func (s *Session) Config() Config { return s.cfg }

// Connect opens the executor's pool, reads the load's constants and checks that the database
// holds the warehouses the run drives. An error also puts the session in phase failed.
func (s *Session) Connect(ctx context.Context) error {
	err := s.connect(ctx)
	if err != nil {
		s.Fail(err)
	}
	return err
}

func (s *Session) connect(ctx context.Context) error {
	ld, err := s.cfg.Engine.ReadLoaded(ctx, s.cfg.URL)
	if err != nil {
		return err
	}
	if err := checkLoaded(ld, s.cfg.Warehouses, s.cfg.ActiveWarehouses); err != nil {
		return err
	}
	var sampler tpcc.TelemetrySampler
	if s.cfg.Telemetry {
		if sampler, err = tpcc.NewTelemetrySampler(ctx, s.cfg.Engine, s.cfg.URL); err != nil {
			return errors.New(snapshot.RedactCredentials(err.Error()))
		}
	}
	ex, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: s.cfg.Engine, URL: s.cfg.URL, MaxConns: s.cfg.Connections, Isolation: s.cfg.Isolation,
		Pooler: s.cfg.Pooler})
	if err != nil {
		if sampler != nil {
			sampler.Close()
		}
		return errors.New(snapshot.RedactCredentials(err.Error()))
	}
	terms, err := tpcc.NewTerminals(tpcc.TerminalsConfig{Executor: ex, Constants: ld.Meta.Constants,
		ActiveWarehouses: s.cfg.ActiveWarehouses, From: s.cfg.From, To: s.cfg.To, Wait: s.cfg.Wait,
		RampUp: s.cfg.RampUp, Duration: s.cfg.Duration, Seed: s.cfg.Seed, Recorder: s.recorder, Ledger: s.ledger, Commits: s.commits})
	if err != nil {
		ex.Close()
		if sampler != nil {
			sampler.Close()
		}
		return err
	}
	var server *snapshot.ServerInfo
	if sampler != nil {
		server = &snapshot.ServerInfo{}
		if server.Settings, err = sampler.Settings(ctx, s.cfg.ShowSettings); err != nil {
			server.SettingsError = snapshot.RedactCredentials(err.Error())
		}
	}
	s.mu.Lock()
	s.executor, s.terms, s.constants, s.serverVersion, s.telemetry, s.server = ex, terms, ld.Meta.Constants, ld.ServerVersion, sampler, server
	s.mu.Unlock()
	return nil
}

// UseExecutor prepares the session with an executor and constants given directly instead of
// Connect (benchmarks and tests without a database).
func (s *Session) UseExecutor(ex tpcc.Executor, constants tpcc.Constants) error {
	terms, err := tpcc.NewTerminals(tpcc.TerminalsConfig{Executor: ex, Constants: constants,
		ActiveWarehouses: s.cfg.ActiveWarehouses, From: s.cfg.From, To: s.cfg.To, Wait: s.cfg.Wait,
		RampUp: s.cfg.RampUp, Duration: s.cfg.Duration, Seed: s.cfg.Seed, Recorder: s.recorder, Ledger: s.ledger, Commits: s.commits})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.executor, s.terms, s.constants = ex, terms, constants
	s.mu.Unlock()
	return nil
}

// Fail puts the session in phase failed with err's message (credentials redacted).
func (s *Session) Fail(err error) {
	s.mu.Lock()
	if s.failed == "" {
		s.failed = snapshot.RedactCredentials(err.Error())
	}
	s.mu.Unlock()
}

// Failure returns the failure message, "" when the session has not failed.
func (s *Session) Failure() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// Start releases a paused session; idempotent.
func (s *Session) Start(context.Context) error {
	if msg := s.Failure(); msg != "" {
		return fmt.Errorf("the run failed: %s", msg)
	}
	s.startOnce.Do(func() { close(s.started) })
	return nil
}

// Stop ends the run early; once the run is over (done or failed) it ends the linger instead.
// Idempotent. A paused run that was never started cannot be stopped (there is no interval to
// close): start it first.
func (s *Session) Stop(context.Context) error {
	switch s.Phase() {
	case snapshot.PhaseDone, snapshot.PhaseFailed:
		s.stopOnce.Do(func() { close(s.stopped) })
		return nil
	}
	if s.cfg.Paused && !isClosed(s.started) {
		return errors.New("the run is paused and was never started")
	}
	s.mu.Lock()
	terms := s.terms
	s.mu.Unlock()
	if terms != nil {
		terms.Stop()
	}
	return nil
}

// Stopped is closed by the first Stop after the run is over: the end of the linger.
func (s *Session) Stopped() <-chan struct{} { return s.stopped }

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Run waits for Start when paused, then runs the terminals until the interval ends, Stop, or
// ctx ends. It is called once, from the k6 iteration.
func (s *Session) Run(ctx context.Context) error {
	defer close(s.ran)
	s.mu.Lock()
	terms := s.terms
	s.mu.Unlock()
	if terms == nil {
		return errors.New("tpcc session is not connected")
	}
	if s.cfg.Paused {
		select {
		case <-s.started:
		case <-s.stopped:
			return errors.New("stopped before start")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if s.cfg.NoTimeSeries {
		terms.Run(ctx)
		s.mu.Lock()
		s.intervalsDone = true
		s.mu.Unlock()
		return nil
	}
	if err := s.recorder.StartIntervals(time.Now(), s.cfg.Interval, s.cfg.IntervalRetention); err != nil {
		return err
	}
	loopDone := make(chan struct{})
	var loop sync.WaitGroup
	loop.Go(func() { s.intervalLoop(ctx, loopDone) })
	terms.Run(ctx)
	close(loopDone)
	loop.Wait()
	s.finishIntervals(context.WithoutCancel(ctx))
	s.mu.Lock()
	s.intervalsDone = true
	s.mu.Unlock()
	return nil
}

// Close releases the executor's connections.
func (s *Session) Close() {
	s.mu.Lock()
	ex := s.executor
	s.executor = nil
	sampler := s.telemetry
	s.telemetry = nil
	s.mu.Unlock()
	if ex != nil {
		ex.Close()
	}
	if sampler != nil {
		sampler.Close()
	}
}

// isolation is the level the executor reports its transactions run at (read back from the server
// by the PostgreSQL-protocol executors), or the configured one before it connects.
func (s *Session) isolation() string {
	s.mu.Lock()
	ex := s.executor
	s.mu.Unlock()
	if r, ok := ex.(tpcc.IsolationReporter); ok {
		return string(r.Isolation())
	}
	return string(s.cfg.Isolation)
}

// Measured returns the recorder's merged state now.
func (s *Session) Measured() *tpcc.Measured { return s.recorder.Collect(time.Now()) }

// LastError returns the last transaction error and the error count.
func (s *Session) LastError() (string, int64) {
	s.mu.Lock()
	terms := s.terms
	s.mu.Unlock()
	if terms == nil {
		return "", 0
	}
	return terms.LastError()
}

// Phase is where the session is.
func (s *Session) Phase() snapshot.Phase {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.failed != "":
		return snapshot.PhaseFailed
	case s.terms == nil:
		return snapshot.PhasePaused
	}
	p := s.terms.Phase()
	if p == snapshot.PhaseDone && !s.intervalsDone {
		return snapshot.PhaseStopping // the last intervals are being sealed
	}
	return p
}

// Snapshot is the document GET /v1/snapshot serves: the time series' bookkeeping, no items.
func (s *Session) Snapshot() (*snapshot.Snapshot, error) {
	return s.snapshot(math.MaxInt, false)
}

// SnapshotAfter is the incremental read: the intervals of index > after, releasing those up to after.
func (s *Session) SnapshotAfter(after int) (*snapshot.Snapshot, error) {
	return s.snapshot(after, true)
}

func (s *Session) snapshot(after int, release bool) (*snapshot.Snapshot, error) {
	phase := s.Phase()
	now := time.Now()
	m := s.recorder.Collect(now)
	txs, err := m.Transactions()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	c, server, msg, info := s.constants, s.serverVersion, s.failed, s.server
	s.mu.Unlock()
	return &snapshot.Snapshot{
		Version: snapshot.Version,
		Identity: snapshot.Identity{Pod: s.cfg.Pod, Instance: s.cfg.Instance, Engine: s.cfg.Engine.Name(),
			Warehouses: s.cfg.Warehouses, WarehouseFrom: s.cfg.From, WarehouseTo: s.cfg.To,
			ActiveWarehouses: s.cfg.ActiveWarehouses, Terminals: tpcc.DistrictsPerWarehouse * (s.cfg.To - s.cfg.From + 1),
			Wait: s.cfg.Wait, Isolation: s.isolation(), Seed: s.cfg.Seed},
		Phase:        phase,
		Message:      msg,
		Times:        snapshot.Times{MeasurementStart: m.Start, Updated: now, MeasuredSeconds: m.MeasuredDuration().Seconds()},
		Transactions: txs,
		Audit:        m.Audit,
		Constants:    snapshot.Constants{CLastLoad: c.CLoad, CLastRun: c.CRun, CCustomerID: c.CID, CItemID: c.OLIID},
		Versions:     snapshot.Versions{Client: ClientVersion, K6: K6Version, EngineServer: server},
		Intervals:    s.recorder.Intervals(after, release),
		Server:       info,
		Ledger:       s.ledger.Districts(),
		LedgerCheck:  s.LedgerCheck(),
		Commits:      s.commits.Record(),
	}, nil
}

// Mark records the moment under label in this process's clock (POST /v1/mark): the commit
// record keeps every stretch without a commit from then on. Marking a label again returns the
// first moment.
func (s *Session) Mark(_ context.Context, label string) (time.Time, error) {
	return s.commits.Mark(label, time.Now()), nil
}

// SetLedgerCheck publishes the ledger check's verdict in the snapshots served from now on.
func (s *Session) SetLedgerCheck(c *snapshot.LedgerCheck) {
	s.mu.Lock()
	s.ledgerCheck = c
	s.mu.Unlock()
}

// LedgerCheck is the published ledger check, nil before it was made.
func (s *Session) LedgerCheck() *snapshot.LedgerCheck {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ledgerCheck
}

// Ledger returns the New-Order ledger per district now: every New-Order of the process's
// terminals so far, ramp-up included.
func (s *Session) Ledger() []snapshot.LedgerDistrict { return s.ledger.Districts() }

// Control is the session as the snapshot handler drives it.
func (s *Session) Control() snapshot.Control {
	return snapshot.Control{Snapshot: s.Snapshot, SnapshotAfter: s.SnapshotAfter, Start: s.Start, Stop: s.Stop, Mark: s.Mark}
}
