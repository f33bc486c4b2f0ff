package k6ext

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.k6.io/k6/js/modules"
	"go.k6.io/k6/lib"
	"go.k6.io/k6/metrics"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/drivers"
)

// ModuleName is the import path scripts use: import tpcc from 'k6/x/tpcc'.
const ModuleName = "k6/x/tpcc"

func init() { modules.Register(ModuleName, new(RootModule)) }

// installed is the session `tpcc run` prepared before starting k6; Go package state is shared by
// every VU runtime of the process, unlike JS globals.
var installed atomic.Pointer[Session]

// Install makes s the session tpcc.run() drives when called without options; nil uninstalls.
func Install(s *Session) { installed.Store(s) }

// RootModule is the k6 module; one ModuleInstance is made per VU.
type RootModule struct{}

// Metrics pushed to k6. Latencies stay in the extension's HDR histograms; k6 gets counters and
// one gauge per type and percentile, so its memory stays flat however long the run (a k6 Trend
// keeps every sample: research/k6.md §2).
type k6Metrics struct {
	completed, errors *metrics.Metric // Counter, tagged txn
	p90, p99          *metrics.Metric // Gauge (ms), tagged txn: cumulative over the measured interval
	tpmC, efficiency  *metrics.Metric // Gauge
}

// ModuleInstance is the module as one VU sees it.
type ModuleInstance struct {
	vu modules.VU
	m  k6Metrics
}

// NewModuleInstance registers the metrics (idempotent per name) for a VU.
func (*RootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	reg := vu.InitEnv().Registry
	return &ModuleInstance{vu: vu, m: k6Metrics{
		completed:  reg.MustNewMetric("tpcc_completed", metrics.Counter),
		errors:     reg.MustNewMetric("tpcc_errors", metrics.Counter),
		p90:        reg.MustNewMetric("tpcc_p90_ms", metrics.Gauge, metrics.Time),
		p99:        reg.MustNewMetric("tpcc_p99_ms", metrics.Gauge, metrics.Time),
		tpmC:       reg.MustNewMetric("tpcc_tpmc", metrics.Gauge),
		efficiency: reg.MustNewMetric("tpcc_efficiency_percent", metrics.Gauge),
	}}
}

// Exports are the functions scripts call.
func (mi *ModuleInstance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{
		"run":      mi.Run,
		"snapshot": mi.Snapshot,
	}}
}

// Run runs the TPC-C terminals of this process inside the calling iteration and returns the
// summary figures. Without options it drives the session `tpcc run` installed; with options
// ({engine, url, warehouses, activeWarehouses, from, to, wait, rampUp, duration, connections})
// it connects its own. Call it from one iteration of one VU: the terminals are goroutines.
func (mi *ModuleInstance) Run(options map[string]any) (map[string]any, error) {
	st := mi.vu.State()
	if st == nil {
		return nil, errors.New("tpcc.run() must be called from the default function, not the init context")
	}
	s := installed.Load()
	if len(options) > 0 {
		cfg, err := configFromOptions(options)
		if err != nil {
			return nil, fmt.Errorf("tpcc.run: %w", err)
		}
		if s, err = NewSession(cfg); err != nil {
			return nil, fmt.Errorf("tpcc.run: %w", err)
		}
		if err := s.Connect(mi.vu.Context()); err != nil {
			return nil, fmt.Errorf("tpcc.run: %w", err)
		}
		defer s.Close()
	}
	if s == nil {
		return nil, errors.New("tpcc.run: no options given and no session prepared (use `tpcc run`, or pass {engine, url, warehouses, …})")
	}
	ctx := mi.vu.Context()
	done := make(chan struct{})
	var pushed sync.WaitGroup
	pushed.Go(func() { mi.pushLoop(ctx, st, s, done) })
	err := s.Run(ctx)
	close(done)
	// No sample may be sent after the iteration returns: k6 closes the channel after the run.
	pushed.Wait()
	if err != nil {
		return nil, fmt.Errorf("tpcc.run: %w", err)
	}
	return summaryObject(s), nil
}

// Snapshot returns the installed session's current snapshot as a JSON-able object (e.g. for
// handleSummary).
func (mi *ModuleInstance) Snapshot() (*snapshot.Snapshot, error) {
	s := installed.Load()
	if s == nil {
		return nil, errors.New("tpcc.snapshot: no session prepared")
	}
	return s.Snapshot()
}

// pushInterval is how often k6 receives the counters and gauges.
const pushInterval = time.Second

func (mi *ModuleInstance) pushLoop(ctx context.Context, st *lib.State, s *Session, done <-chan struct{}) {
	var last [5]snapshot.TransactionCounts
	tick := time.NewTicker(pushInterval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			mi.push(ctx, st, s, &last)
		case <-done:
			mi.push(ctx, st, s, &last)
			return
		case <-ctx.Done():
			return
		}
	}
}

func (mi *ModuleInstance) push(ctx context.Context, st *lib.State, s *Session, last *[5]snapshot.TransactionCounts) {
	m := s.Measured()
	now := time.Now()
	base := st.Tags.GetCurrentValues().Tags
	var samples []metrics.Sample
	add := func(metric *metrics.Metric, tags *metrics.TagSet, v float64) {
		samples = append(samples, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: metric, Tags: tags}, Time: now, Value: v})
	}
	var newOrders int64
	for i, t := range snapshot.Transactions {
		tags := base.With("txn", string(t))
		completed := m.Completed(t)
		c := m.Counts[i]
		prev := last[i].Commits + last[i].Rollbacks
		// A reset at the start of the measured interval makes the delta negative: count afresh.
		if completed < prev || c.Errors < last[i].Errors {
			prev, last[i].Errors = 0, 0
		}
		add(mi.m.completed, tags, float64(completed-prev))
		add(mi.m.errors, tags, float64(c.Errors-last[i].Errors))
		if completed > 0 {
			add(mi.m.p90, tags, metrics.D(m.Percentile(t, 90)))
			add(mi.m.p99, tags, metrics.D(m.Percentile(t, 99)))
		}
		last[i] = c
		if t == snapshot.NewOrder {
			newOrders = completed
		}
	}
	if d := m.MeasuredDuration(); d > 0 {
		tpm := snapshot.PerMinute(newOrders, d)
		add(mi.m.tpmC, base, tpm)
		add(mi.m.efficiency, base, snapshot.EfficiencyPercent(tpm, s.cfg.ActiveWarehouses))
	}
	metrics.PushIfNotDone(ctx, st.Samples, metrics.ConnectedSamples{Samples: samples, Tags: base, Time: now})
}

func summaryObject(s *Session) map[string]any {
	m := s.Measured()
	d := m.MeasuredDuration()
	tpm := snapshot.PerMinute(m.Completed(snapshot.NewOrder), d)
	return map[string]any{
		"measuredSeconds":   d.Seconds(),
		"tpmC":              tpm,
		"efficiencyPercent": snapshot.EfficiencyPercent(tpm, s.cfg.ActiveWarehouses),
		"newOrders":         m.Completed(snapshot.NewOrder),
	}
}

// configFromOptions reads tpcc.run()'s options object.
func configFromOptions(o map[string]any) (Config, error) {
	str := func(k string) string { v, _ := o[k].(string); return v }
	num := func(k string) (int, error) {
		switch v := o[k].(type) {
		case nil:
			return 0, nil
		case int64:
			return int(v), nil
		case float64:
			if v != float64(int(v)) {
				return 0, fmt.Errorf("option %s: %v is not an integer", k, v)
			}
			return int(v), nil
		}
		return 0, fmt.Errorf("option %s: want a number, got %T", k, o[k])
	}
	dur := func(k string) (time.Duration, error) {
		s := str(k)
		if s == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("option %s: %w", k, err)
		}
		return d, nil
	}
	var cfg Config
	var err error
	d, err := drivers.Lookup(str("engine"))
	if err != nil {
		return cfg, fmt.Errorf("option engine: %w", err)
	}
	cfg.Engine, cfg.URL, cfg.Wait = d, str("url"), tpcc.WaitMode(str("wait"))
	if cfg.URL == "" {
		cfg.URL = os.Getenv("TPCC_URL")
	}
	if cfg.Wait == "" {
		cfg.Wait = snapshot.WaitSpec
	}
	for k, dst := range map[string]*int{"warehouses": &cfg.Warehouses, "activeWarehouses": &cfg.ActiveWarehouses,
		"from": &cfg.From, "to": &cfg.To, "connections": &cfg.Connections} {
		if *dst, err = num(k); err != nil {
			return cfg, err
		}
	}
	if cfg.ActiveWarehouses == 0 {
		cfg.ActiveWarehouses = cfg.Warehouses
	}
	if cfg.From == 0 {
		cfg.From = 1
	}
	if cfg.To == 0 {
		cfg.To = cfg.ActiveWarehouses
	}
	if cfg.RampUp, err = dur("rampUp"); err != nil {
		return cfg, err
	}
	if cfg.Duration, err = dur("duration"); err != nil {
		return cfg, err
	}
	cfg.Pod, _ = os.Hostname()
	return cfg, nil
}
