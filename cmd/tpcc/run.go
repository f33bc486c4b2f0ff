package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/k6ext"
	"github.com/tpcc-operator/tpcc-operator/internal/shard"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/drivers"
)

var runCommand = command{name: "run", summary: "run the TPC-C terminals of a warehouse range in k6 and judge the SLA", run: runRun}

// Exit codes of run and search.
const (
	exitCompliant = 0 // compliant, or nothing judged
	exitError     = 1 // the run failed: cannot connect, data not loaded, k6 error
	exitBadInput  = 2 // bad flags; nothing was started
	exitSLAFailed = 3 // the run completed and the SLA verdict is non-compliant
	// exitLedgerFailed: the run completed and --ledger-check found a district whose orders do not
	// match the acknowledged commits (a lost commit, or orders nobody asked for).
	exitLedgerFailed = 4
	// exitInconclusive: the run completed, nothing failed, but a criterion could not be judged
	// for missing data (a bounded type with no sample, no telemetry sample for the lag bound).
	exitInconclusive = 5
)

const runExitCodes = `
Exit codes: 0 compliant; 1 the run failed (connection, missing data, k6 error); 2 bad input, nothing
started; 3 the run completed and its SLA verdict is non-compliant (reasons on stdout); 4 with
--ledger-check: the database does not hold exactly the acknowledged New-Orders (district and counts
on stderr); 5 the run completed, no criterion failed but one could not be judged for missing data
(reasons on stdout).

Extra k6 flags go after --, e.g. tpcc run … -- --out experimental-prometheus-rw
`

// runFlags are the flags of one run.
type runFlags struct {
	engine, url           string
	warehouses, active    int
	shardIndex, shards    int
	from, to              int
	duration, rampUp      time.Duration
	wait                  string
	listen                string
	controlTokenFile      string
	controlToken          string // read from controlTokenFile by checkControl
	paused                bool
	linger                time.Duration
	connections           int
	summaryJSON, instance string
	seed                  uint64
	sla                   slaFlags
	interval              time.Duration
	intervalRetention     int
	telemetry             bool
	telemetryShard        int
	maxReplicationLag     time.Duration
	ledgerCheck           bool
	isolation             string
	poolerEndpoint        string
	poolerMode            string
	showSettings          listFlag
	noTimeSeries          bool
	cpuProfile            string
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.engine, "engine", "", engineUsage())
	fs.StringVar(&f.url, "url", "", "connection URL (default: env TPCC_URL); never printed with its password")
	fs.IntVar(&f.warehouses, "warehouses", 0, "loaded warehouses (required, >= 1)")
	fs.IntVar(&f.active, "active-warehouses", 0, "active warehouses of the whole step (default --warehouses)")
	fs.IntVar(&f.shardIndex, "shard", -1, "this process's index among --shards (drives shard.Of(active, shard, shards))")
	fs.IntVar(&f.shards, "shards", 0, "number of processes sharing the active warehouses")
	fs.IntVar(&f.from, "from", 0, "first home warehouse of this process (instead of --shard; default 1)")
	fs.IntVar(&f.to, "to", 0, "last home warehouse of this process (instead of --shard; default --active-warehouses)")
	fs.DurationVar(&f.duration, "duration", 5*time.Minute, "measured interval")
	fs.DurationVar(&f.rampUp, "ramp-up", time.Minute, "ramp-up before the measured interval; terminals start spread over it")
	fs.StringVar(&f.wait, "wait", "spec", "spec: TPC-C keying and think times; none: no waits (saturation, not spec-compliant)")
	fs.StringVar(&f.listen, "listen", "", "serve GET /v1/snapshot, POST /v1/start, POST /v1/stop (and GET /healthz) on this address, e.g. 127.0.0.1:8080; any address but loopback needs --control-token-file")
	fs.StringVar(&f.controlTokenFile, "control-token-file", "", "file holding the token every request to --listen but GET /healthz must present as \"Authorization: Bearer TOKEN\" (at least 16 printable characters; the operator mounts one per run from a Secret)")
	fs.BoolVar(&f.paused, "paused", false, "connect, then wait for POST /v1/start (needs --listen)")
	fs.DurationVar(&f.linger, "linger", 0, "after the run, keep serving the final snapshot until POST /v1/stop or this long (needs --listen)")
	fs.IntVar(&f.connections, "connections", 0, "connection pool size (default: Little's law with --wait spec, the terminals' rate × a 1 s hold plus 3 standard deviations; 1 per terminal with none)")
	fs.StringVar(&f.summaryJSON, "summary-json", "", "write the summary, verdict and final snapshot as JSON to this file")
	fs.StringVar(&f.instance, "instance", "", "label written into the snapshot identity (e.g. the BenchmarkRun name)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the deck's and the terminals' input streams: the same seed and warehouse range replay the same deck and each terminal's inputs (default random, printed at the start; a step's is in status.steps[].seed)")
	f.sla.register(fs)
	fs.DurationVar(&f.interval, "interval", snapshot.DefaultInterval, "length of one interval of the time series (per-interval histograms, counters, telemetry), from the start of ramp-up")
	fs.IntVar(&f.intervalRetention, "interval-retention", 0, fmt.Sprintf("uncollected intervals kept for a reader of ?intervalsAfter=N; the oldest beyond it are dropped (default %d with --listen, all without)", tpcc.DefaultIntervalRetention))
	fs.BoolVar(&f.telemetry, "telemetry", false, "sample the database's own signals every interval (replication lag, WAL, checkpoints, wait events…); one process per step")
	fs.IntVar(&f.telemetryShard, "telemetry-shard", -1, "sample the database's signals (as --telemetry) in the process whose --shard is this index: one command line for every pod of a step")
	fs.BoolVar(&f.ledgerCheck, "ledger-check", false, "read every home district's d_next_o_id and order count before the terminals start and after they end, and fail (exit 4) unless each grew by the acknowledged New-Orders plus at most those whose COMMIT outcome is unknown ("+strings.Join(drivers.TitlesOf(drivers.With(hasLedger)), ", ")+")")
	fs.StringVar(&f.isolation, "isolation", "", "isolation level of every transaction: read-committed, repeatable-read or serializable "+
		"(default: the engine's own, "+drivers.DefaultIsolationHelp()+"); read back from the server before the terminals start")
	fs.StringVar(&f.poolerEndpoint, "pooler-endpoint", "", "HOST:PORT of a connection pooler in front of the server that the step connects to instead of --url's host, with --url's user, password, database and parameters ("+poolerEngines()+"; needs --pooler-mode)")
	fs.StringVar(&f.poolerMode, "pooler-mode", "", "pool mode of --pooler-endpoint: transaction (a server connection per transaction: the client keeps no session state, and the server's default isolation level must be the run's, --isolation) or session (as if connected directly)")
	fs.BoolVar(&f.noTimeSeries, "no-time-series", false, "keep no per-interval series and sample no telemetry, only the run's totals: to measure what the collection costs (hack/bench-collection.sh); the operator never sets it")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run (go tool pprof) to this file: the client's own cost, as hack/bench-client.sh measures it")
	fs.Var(&f.showSettings, "show-setting", "a server setting the telemetry process reads back and records whatever its value (repeatable): "+settingKinds()+" the run asked for")
	fs.DurationVar(&f.maxReplicationLag, "max-replication-lag", 0, "SLA: largest replay lag any standby may show during the run ("+lagEngines()+", needs --telemetry); 0 = no bound, the lag is recorded anyway")
}

// config validates the flags and returns the session configuration and the SLA criteria.
func (f *runFlags) config(fs *flag.FlagSet) (k6ext.Config, sla.Criteria, error) {
	var cfg k6ext.Config
	if f.engine == "" {
		return cfg, sla.Criteria{}, errEngineRequired()
	}
	d, err := drivers.Lookup(f.engine)
	if err != nil {
		return cfg, sla.Criteria{}, fmt.Errorf("--engine: %w", err)
	}
	if f.url == "" {
		f.url = os.Getenv("TPCC_URL")
	}
	if err := checkURL(d, f.url); err != nil {
		return cfg, sla.Criteria{}, err
	}
	if f.warehouses < 1 {
		return cfg, sla.Criteria{}, fmt.Errorf("--warehouses must be >= 1, got %d", f.warehouses)
	}
	active := f.active
	if active == 0 {
		active = f.warehouses
	}
	if active < 1 || active > f.warehouses {
		return cfg, sla.Criteria{}, fmt.Errorf("--active-warehouses %d outside 1..%d (--warehouses)", active, f.warehouses)
	}
	r, err := f.warehouseRange(fs, active)
	if err != nil {
		return cfg, sla.Criteria{}, err
	}
	wait, err := tpcc.ParseWaitMode(f.wait)
	if err != nil {
		return cfg, sla.Criteria{}, err
	}
	switch {
	case f.duration <= 0:
		return cfg, sla.Criteria{}, fmt.Errorf("--duration must be > 0, got %v", f.duration)
	case f.rampUp < 0:
		return cfg, sla.Criteria{}, fmt.Errorf("--ramp-up must be >= 0, got %v", f.rampUp)
	case f.linger < 0:
		return cfg, sla.Criteria{}, fmt.Errorf("--linger must be >= 0, got %v", f.linger)
	case f.paused && f.listen == "":
		return cfg, sla.Criteria{}, errors.New("--paused needs --listen (POST /v1/start releases the run)")
	case f.linger > 0 && f.listen == "":
		return cfg, sla.Criteria{}, errors.New("--linger needs --listen (it keeps serving the final snapshot)")
	case f.controlTokenFile != "" && f.listen == "":
		return cfg, sla.Criteria{}, errors.New("--control-token-file needs --listen (it guards the endpoints served there)")
	case f.connections < 0:
		return cfg, sla.Criteria{}, fmt.Errorf("--connections must be >= 0 (0 = automatic), got %d", f.connections)
	}
	if err := f.checkControl(); err != nil {
		return cfg, sla.Criteria{}, err
	}
	criteria, err := f.sla.criteria()
	if err != nil {
		return cfg, sla.Criteria{}, err
	}
	if err := f.checkIntervalFlags(fs, d); err != nil {
		return cfg, sla.Criteria{}, err
	}
	if f.noTimeSeries && (f.telemetry || f.telemetryShard >= 0 || f.listen != "") {
		return cfg, sla.Criteria{}, errors.New("--no-time-series keeps no series: it goes with neither --telemetry, --telemetry-shard nor --listen")
	}
	level, err := parseIsolation(d, f.isolation)
	if err != nil {
		return cfg, sla.Criteria{}, err
	}
	if f.ledgerCheck && !tpcc.LedgerSupported(d) {
		return cfg, sla.Criteria{}, fmt.Errorf("--ledger-check is not supported with --engine %s (%s only)", d.Name(),
			tpcc.JoinNames(drivers.NamesOf(drivers.With(hasLedger)), "and"))
	}
	url, pooler, err := f.poolerURL(d)
	if err != nil {
		return cfg, sla.Criteria{}, err
	}
	pod := os.Getenv("HOSTNAME")
	if pod == "" {
		pod, _ = os.Hostname()
	}
	cfg = k6ext.Config{Engine: d, URL: url, Pooler: pooler, Warehouses: f.warehouses, ActiveWarehouses: active, From: r.From, To: r.To,
		Wait: wait, RampUp: f.rampUp, Duration: f.duration, Connections: f.connections, Seed: f.seed, Paused: f.paused,
		Pod: pod, Instance: f.instance, Interval: f.interval, IntervalRetention: f.intervalRetention, Telemetry: f.telemetry,
		Isolation: level, ShowSettings: f.showSettings, NoTimeSeries: f.noTimeSeries}
	return cfg, criteria, cfg.Validate()
}

// warehouseRange resolves --shard/--shards or --from/--to into this process's home warehouses.
func (f *runFlags) warehouseRange(fs *flag.FlagSet, active int) (shard.Range, error) {
	sharded := isSet(fs, "shard") || isSet(fs, "shards")
	explicit := isSet(fs, "from") || isSet(fs, "to")
	switch {
	case sharded && explicit:
		return shard.Range{}, errors.New("--shard/--shards and --from/--to both set: give one way of choosing the range")
	case sharded:
		if !isSet(fs, "shard") || !isSet(fs, "shards") {
			return shard.Range{}, errors.New("--shard and --shards go together")
		}
		r, err := shard.Of(active, f.shardIndex, f.shards)
		if err != nil {
			return shard.Range{}, fmt.Errorf("--shard %d --shards %d: %w", f.shardIndex, f.shards, err)
		}
		return r, nil
	}
	r := shard.Range{From: f.from, To: f.to}
	if r.From == 0 {
		r.From = 1
	}
	if r.To == 0 {
		r.To = active
	}
	if r.From < 1 || r.To < r.From || r.To > active {
		return shard.Range{}, fmt.Errorf("--from %d --to %d: not a range inside the active warehouses 1..%d", r.From, r.To, active)
	}
	return r, nil
}

func hasLedger(c tpcc.Capabilities) bool { return c.Ledger }

// settingKinds names what a server setting is on each engine: "a PostgreSQL parameter or a
// CockroachDB cluster setting".
func settingKinds() string {
	var kinds []string
	for _, d := range drivers.All() {
		if k := d.Capabilities().SettingKind; k != "" {
			kinds = append(kinds, k)
		}
	}
	return tpcc.JoinNames(kinds, "or")
}

// checkURL rejects a URL the engine cannot use, without echoing its password.
func checkURL(d tpcc.Driver, raw string) error {
	if raw == "" {
		return errors.New("--url is required (or set env TPCC_URL)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("--url is not a valid URL: %s", snapshot.RedactCredentials(err.Error()))
	}
	want := d.Capabilities().URLSchemes
	for _, s := range want {
		if u.Scheme == s {
			if u.Host == "" {
				return fmt.Errorf("--url %s has no host", redactURL(u))
			}
			return nil
		}
	}
	return fmt.Errorf("--url scheme %q: engine %s needs %s://", u.Scheme, d.Name(), strings.Join(want, ":// or "))
}

func redactURL(u *url.URL) string {
	if u.User != nil {
		c := *u
		c.User = url.User("***")
		return c.String()
	}
	return u.String()
}

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", stderr)
	var f runFlags
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: tpcc run --engine E [--url URL] --warehouses N [flags] [-- k6 flags]")
		fs.PrintDefaults()
		fmt.Fprint(stderr, runExitCodes)
	}
	ownArgs, k6Args := splitAtDoubleDash(args)
	if code, ok := parse(fs, ownArgs); !ok {
		return code
	}
	cfg, criteria, err := f.config(fs)
	if err != nil {
		fmt.Fprintf(stderr, "tpcc run: %v\n", err)
		return exitBadInput
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "tpcc run: --cpuprofile: %v\n", err)
			return exitBadInput
		}
		defer stop()
	}
	res := runStep(ctx, stepOptions{cfg: cfg, criteria: criteria, listen: f.listen, controlToken: f.controlToken, linger: f.linger, k6Args: k6Args,
		maxReplicationLag: f.maxReplicationLag, ledgerCheck: f.ledgerCheck}, stderr)
	if res.err != nil && res.final == nil {
		fmt.Fprintf(stderr, "tpcc run: %v\n", res.err)
		return exitError
	}
	writeSummary(stdout, res)
	if f.summaryJSON != "" {
		if err := writeSummaryJSON(f.summaryJSON, res); err != nil {
			fmt.Fprintf(stderr, "tpcc run: --summary-json: %v\n", err)
			return exitError
		}
	}
	res.linger()
	switch {
	case res.err != nil:
		fmt.Fprintf(stderr, "tpcc run: %v\n", res.err)
		return exitError
	case res.ledger != nil && !res.ledger.Verdict.Pass:
		fmt.Fprintf(stderr, "tpcc run: --ledger-check: %v\n", res.ledger.Verdict.Error())
		return exitLedgerFailed
	case res.verdict.Inconclusive:
		return exitInconclusive
	case !res.verdict.Compliant:
		return exitSLAFailed
	}
	return exitCompliant
}

// startCPUProfile writes a CPU profile to path until the returned function is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

func splitAtDoubleDash(args []string) (own, rest []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// stepOptions is one run as run and search start it.
type stepOptions struct {
	cfg      k6ext.Config
	criteria sla.Criteria
	listen   string
	// controlToken, when set, is what every request to listen but GET /healthz must present.
	controlToken string
	linger       time.Duration
	k6Args       []string
	// maxReplicationLag > 0 adds the replication check to the verdict.
	maxReplicationLag time.Duration
	// ledgerCheck reads the districts before the terminals start and checks the ledger after.
	ledgerCheck bool
}

// stepResult is what a finished run reports.
type stepResult struct {
	cfg     k6ext.Config
	final   *snapshot.Snapshot
	summary snapshot.Summary
	verdict sla.Verdict
	k6Code  int
	// intervals are the time series the process still holds at the end (all of it unless a
	// reader of ?intervalsAfter=N collected some); standbys the largest replay lag of each.
	intervals *snapshot.Intervals
	standbys  []sla.StandbyLag
	err       error // the run failed (the verdict is then non-compliant)
	linger    func()
	// ledger is the --ledger-check's readings and verdict (nil without it, or when the run
	// failed before the check).
	ledger *ledgerReport
}

// runStep connects, serves the snapshot API, runs k6 with the default script over the session and
// judges the final snapshot. With a listener and a linger, the returned linger function keeps
// serving until POST /v1/stop or the linger passes.
func runStep(ctx context.Context, o stepOptions, stderr io.Writer) stepResult {
	res := stepResult{cfg: o.cfg, linger: func() {}}
	s, err := k6ext.NewSession(o.cfg)
	if err != nil {
		res.err = err
		return res
	}
	defer s.Close()
	if o.listen != "" {
		linger, err := serveSnapshotAPI(ctx, s, o)
		if err != nil {
			res.err = err
			return res
		}
		res.linger = linger
	}
	if err := s.Connect(ctx); err != nil {
		res.err = err
		res.final, _ = s.Snapshot()
		return res
	}
	cfg := s.Config()
	var baseline []tpcc.DistrictCounts
	if o.ledgerCheck {
		// Before the first terminal starts: the ledger counts every New-Order from here on.
		if baseline, err = tpcc.ReadDistrictCounts(ctx, cfg.Engine, cfg.URL, cfg.From, cfg.To); err != nil {
			res.err = fmt.Errorf("--ledger-check: baseline: %s", snapshot.RedactCredentials(err.Error()))
			s.Fail(res.err)
			res.final, _ = s.Snapshot()
			return res
		}
	}
	// The seed, random unless --seed gave it, is what replays this run's inputs (--seed).
	fmt.Fprintf(stderr, "tpcc run: %s, warehouses %d-%d of %d active (%d loaded), %d terminals, %d connections, wait %s, ramp-up %v, duration %v, seed %d\n",
		cfg.Engine, cfg.From, cfg.To, cfg.ActiveWarehouses, cfg.Warehouses, 10*(cfg.To-cfg.From+1), cfg.Connections, cfg.Wait, cfg.RampUp, cfg.Duration, cfg.Seed)
	k6ext.Install(s)
	defer k6ext.Install(nil)
	res.k6Code, res.err = runDefaultScript(ctx, s, cfg, o.k6Args)
	res.final, err = s.Snapshot()
	if err != nil {
		res.err = errors.Join(res.err, err)
		return res
	}
	if msg, n := s.LastError(); n > 0 {
		fmt.Fprintf(stderr, "tpcc run: %d transaction errors, the last: %s\n", n, msg)
	}
	res.finish(ctx, s, cfg, o, baseline, stderr)
	return res
}

// serveSnapshotAPI serves the session's snapshot API on o.listen (behind o.controlToken when
// set). The returned linger function stops serving: at once without o.linger, else once POST
// /v1/stop stops the session, the linger passes or ctx ends.
func serveSnapshotAPI(ctx context.Context, s *k6ext.Session, o stepOptions) (linger func(), err error) {
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", o.listen, err)
	}
	handler := snapshot.NewHandler(s.Control())
	if o.controlToken != "" {
		handler = snapshot.RequireToken(handler, o.controlToken)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // returns on Shutdown
	stopServing := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}
	return func() {
		defer stopServing()
		if o.linger <= 0 {
			return
		}
		t := time.NewTimer(o.linger)
		defer t.Stop()
		select {
		case <-s.Stopped():
		case <-t.C:
		case <-ctx.Done():
		}
	}, nil
}

// runDefaultScript runs k6 with the default script over the installed session and returns k6's
// exit code; a run that did not reach the end of the measured interval fails the session.
func runDefaultScript(ctx context.Context, s *k6ext.Session, cfg k6ext.Config, k6Args []string) (int, error) {
	maxDuration := cfg.RampUp + cfg.Duration + 10*time.Minute
	if cfg.Paused {
		maxDuration = 100 * 365 * 24 * time.Hour // released by POST /v1/start, whenever that comes
	}
	args := append([]string{"run", "--quiet", "--address=", "--summary-mode=disabled", "--no-usage-report"}, k6Args...)
	code := k6ext.RunK6(ctx, k6ext.K6Invocation{Args: append(args, "-"), Stdin: bytes.NewReader(k6ext.DefaultScript),
		Env: k6ext.OfflineEnv(map[string]string{"TPCC_MAX_DURATION": maxDuration.String()})})
	if code != 0 {
		s.Fail(fmt.Errorf("k6 exited with code %d", code))
		return code, fmt.Errorf("k6 exited with code %d", code)
	}
	if s.Phase() != snapshot.PhaseDone {
		s.Fail(errors.New("the terminals did not run to the end (interrupted)"))
		return code, errors.New("interrupted before the end of the measured interval")
	}
	return code, nil
}

// finish judges the final snapshot of a run that got that far: the criteria, the series the
// process holds, the --ledger-check against baseline, and the replication checks of the
// telemetry.
func (res *stepResult) finish(ctx context.Context, s *k6ext.Session, cfg k6ext.Config, o stepOptions, baseline []tpcc.DistrictCounts, stderr io.Writer) {
	var err error
	res.summary, res.verdict, err = judge(res.final, o.criteria)
	if err != nil {
		res.err = errors.Join(res.err, err)
	}
	if all, err := s.SnapshotAfter(-1); err == nil {
		res.intervals = all.Intervals
	}
	if o.ledgerCheck && res.err == nil {
		res.ledger, err = checkLedger(ctx, cfg, baseline, res.final.Ledger, stderr)
		if err != nil {
			res.err = err
		}
		s.SetLedgerCheck(publishedLedgerCheck(res.ledger, err))
	} else if o.ledgerCheck {
		s.SetLedgerCheck(&snapshot.LedgerCheck{Error: "not checked: the run failed"})
	}
	samples := s.TelemetrySamples()
	res.standbys = sla.MaxReplayLags(samples)
	evidence := sla.ReplicationEvidenceOf(samples, 0, syncConfigured(res.final))
	if o.maxReplicationLag > 0 {
		res.verdict = sla.AddCheck(res.verdict, sla.ReplicationCheck(evidence, o.maxReplicationLag))
	}
	if ch, ok := sla.SyncStandbysCheck(evidence); ok {
		res.verdict = sla.AddCheck(res.verdict, ch)
	}
}

// syncConfigured says whether the server the telemetry process read is configured with
// synchronous standbys (synchronous_standby_names set): then a sample with none streaming
// synchronously fails the step.
func syncConfigured(s *snapshot.Snapshot) bool {
	return s != nil && s.Server != nil && strings.TrimSpace(s.Server.Settings["synchronous_standby_names"]) != ""
}

// judge merges one process's snapshot (a merge of one) and applies the criteria. A process that
// drives a shard of the step is judged on its own warehouses, as if they were the whole step:
// efficiency against its own range, no "pods missing"; the step's verdict is the operator's,
// on the merge of every shard.
func judge(s *snapshot.Snapshot, c sla.Criteria) (snapshot.Summary, sla.Verdict, error) {
	own := *s
	if id := own.Identity; id.WarehouseFrom != 1 || id.WarehouseTo != id.ActiveWarehouses {
		n := id.WarehouseTo - id.WarehouseFrom + 1
		own.Identity.WarehouseFrom, own.Identity.WarehouseTo, own.Identity.ActiveWarehouses = 1, n, n
	}
	m, err := snapshot.Merge([]*snapshot.Snapshot{&own})
	if err != nil {
		return snapshot.Summary{}, sla.Verdict{}, err
	}
	v, err := sla.Judge(m, c)
	if err != nil {
		return snapshot.Summary{}, sla.Verdict{}, err
	}
	return m.Summarize(), v, nil
}

// summaryDocument is the --summary-json file.
type summaryDocument struct {
	Summary    snapshot.Summary   `json:"summary"`
	Verdict    sla.Verdict        `json:"verdict"`
	Snapshot   *snapshot.Snapshot `json:"snapshot"`
	K6ExitCode int                `json:"k6ExitCode"`
	Error      string             `json:"error,omitempty"`
	// Intervals is the time series (the snapshot's own intervals carry only its bookkeeping);
	// Standbys the largest replay lag of each standby (with --telemetry on PostgreSQL).
	Intervals *snapshot.Intervals `json:"intervals,omitempty"`
	Standbys  []sla.StandbyLag    `json:"standbys,omitempty"`
	// LedgerCheck is --ledger-check's baseline, final reading and verdict per district.
	LedgerCheck *ledgerReport `json:"ledgerCheck,omitempty"`
}

func writeSummaryJSON(path string, res stepResult) error {
	doc := summaryDocument{Summary: res.summary, Verdict: res.verdict, Snapshot: res.final, K6ExitCode: res.k6Code,
		Intervals: res.intervals, Standbys: res.standbys, LedgerCheck: res.ledger}
	if res.err != nil {
		doc.Error = snapshot.RedactCredentials(res.err.Error())
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
