package k6ext

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
)

// TestSessionOnPostgres drives sessions against the local PostgreSQL (TPCC_PG_URL): one
// warehouse is loaded once, and each subtest connects its own session to it.
func TestSessionOnPostgres(t *testing.T) {
	base := pgtest.URL(t)
	url := pgtest.Database(t, base, "tpcc_k6ext")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	engine := pgwire.PostgresDriver()
	if err := tpcc.Load(ctx, tpcc.LoadOptions{Driver: engine, URL: url, Warehouses: 1, Threads: 2, Seed: 20260101, SeedSet: true, Finish: true}); err != nil {
		t.Fatalf("load one warehouse: %v", err)
	}
	config := func(change func(*Config)) Config {
		cfg := Config{Engine: engine, URL: url, Warehouses: 1, ActiveWarehouses: 1, From: 1, To: 1, Wait: snapshot.WaitNone,
			RampUp: 200 * time.Millisecond, Duration: time.Second, Pod: "test"}
		change(&cfg)
		return cfg
	}
	connect := func(t *testing.T, cfg Config) *Session {
		t.Helper()
		s, err := NewSession(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Connect(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}

	t.Run("Connect refuses more warehouses than loaded", func(t *testing.T) {
		s, err := NewSession(config(func(c *Config) { c.Warehouses, c.ActiveWarehouses, c.To = 2, 2, 2 }))
		if err != nil {
			t.Fatal(err)
		}
		err = s.Connect(ctx)
		want := "--warehouses 2: the database holds 1 loaded warehouses"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(s.Failure(), want) || s.Phase() != snapshot.PhaseFailed {
			t.Fatalf("Connect: %v; failure %q, phase %s; want %q and phase failed", err, s.Failure(), s.Phase(), want)
		}
	})
	t.Run("Connect to an empty database", func(t *testing.T) {
		empty := pgtest.Database(t, base, "tpcc_k6ext_empty")
		s, err := NewSession(config(func(c *Config) { c.URL = empty }))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Connect(ctx); !errors.Is(err, tpcc.ErrNotLoaded) || s.Phase() != snapshot.PhaseFailed {
			t.Fatalf("Connect: %v, phase %s; want %v and phase failed", err, s.Phase(), tpcc.ErrNotLoaded)
		}
	})
	t.Run("the default script with telemetry", func(t *testing.T) {
		s := connect(t, config(func(c *Config) {
			c.Duration, c.Interval, c.Telemetry, c.ShowSettings = 2*time.Second, 250*time.Millisecond, true, []string{"synchronous_commit"}
		}))
		checkDefaultScriptRun(t, s)
	})
	t.Run("a script with options and thresholds on the metrics", func(t *testing.T) {
		checkScriptWithOptions(t, url)
	})
	t.Run("Stop ends a run early", func(t *testing.T) {
		s := connect(t, config(func(c *Config) { c.Duration = time.Minute }))
		ran := runInBackground(ctx, s)
		waitPhase(t, s, snapshot.PhaseMeasuring)
		if err := s.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if err := waitRun(t, ran); err != nil {
			t.Fatal(err)
		}
		snap, _ := s.Snapshot()
		if snap.Phase != snapshot.PhaseDone || snap.Times.MeasuredSeconds > 30 {
			t.Fatalf("after Stop: phase %s, measured %.1fs; want done well before the minute", snap.Phase, snap.Times.MeasuredSeconds)
		}
		if err := s.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		<-s.Stopped() // Stop after the run ends the linger
	})
	t.Run("a paused session waits for Start", func(t *testing.T) {
		s := connect(t, config(func(c *Config) { c.Paused = true }))
		ran := runInBackground(ctx, s)
		time.Sleep(300 * time.Millisecond)
		if p, n := s.Phase(), s.Measured().Completed(snapshot.NewOrder); p != snapshot.PhasePaused || n != 0 {
			t.Fatalf("before Start: phase %s, %d New-Orders; want paused and none", p, n)
		}
		if err := s.Stop(ctx); err == nil || !strings.Contains(err.Error(), "paused and was never started") {
			t.Fatalf("Stop before Start: %v, want refused", err)
		}
		if err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Start(ctx); err != nil {
			t.Fatalf("a second Start: %v", err)
		}
		if err := waitRun(t, ran); err != nil {
			t.Fatal(err)
		}
		if p, n := s.Phase(), s.Measured().Completed(snapshot.NewOrder); p != snapshot.PhaseDone || n == 0 {
			t.Fatalf("after Start: phase %s, %d New-Orders; want done and some", p, n)
		}
	})
	t.Run("a paused session that failed ends on Stop", func(t *testing.T) {
		s := connect(t, config(func(c *Config) { c.Paused = true }))
		ran := runInBackground(ctx, s)
		s.Fail(errors.New("the operator gave up"))
		if err := s.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if err := waitRun(t, ran); err == nil || err.Error() != "stopped before start" {
			t.Fatalf("Run: %v, want stopped before start", err)
		}
	})
	t.Run("a paused session ends with its context", func(t *testing.T) {
		s := connect(t, config(func(c *Config) { c.Paused = true }))
		rctx, rcancel := context.WithCancel(ctx)
		ran := runInBackground(rctx, s)
		rcancel()
		if err := waitRun(t, ran); !errors.Is(err, context.Canceled) {
			t.Fatalf("Run: %v, want %v", err, context.Canceled)
		}
	})
	t.Run("without a time series", func(t *testing.T) {
		s := connect(t, config(func(c *Config) { c.NoTimeSeries, c.Telemetry, c.Interval = true, true, 100*time.Millisecond }))
		if err := s.Run(ctx); err != nil {
			t.Fatal(err)
		}
		snap, _ := s.Snapshot()
		if snap.Phase != snapshot.PhaseDone || snap.Transactions[snapshot.NewOrder].Commits == 0 {
			t.Fatalf("phase %s, %d New-Order commits; want done and some", snap.Phase, snap.Transactions[snapshot.NewOrder].Commits)
		}
		if snap.Intervals != nil && len(snap.Intervals.Items) > 0 || len(s.TelemetrySamples()) > 0 {
			t.Fatalf("%d intervals, %d telemetry samples; want none of either", len(snap.Intervals.Items), len(s.TelemetrySamples()))
		}
	})
}

// runInBackground runs s and returns the channel its error arrives on.
func runInBackground(ctx context.Context, s *Session) <-chan error {
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	return ran
}

func waitRun(t *testing.T, ran <-chan error) error {
	t.Helper()
	select {
	case err := <-ran:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end within 30s")
		return nil
	}
}

func waitPhase(t *testing.T, s *Session, p snapshot.Phase) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); s.Phase() != p; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("phase %s after 30s, want %s", s.Phase(), p)
		}
	}
}

// checkDefaultScriptRun runs the default script over s as `tpcc run` does and checks the final
// snapshot: every transaction type ran, the server was read, and the time series covers the run
// to its end, each interval with its database sample and pool signals.
func checkDefaultScriptRun(t *testing.T, s *Session) {
	Install(s)
	defer Install(nil)
	code, _, stderr := runK6(context.Background(), K6Invocation{Args: []string{"run", "--quiet", "--address=", "--summary-mode=disabled", "-"},
		Env: OfflineEnv(map[string]string{"TPCC_MAX_DURATION": "2m"}), Stdin: strings.NewReader(string(DefaultScript))})
	if code != 0 {
		t.Fatalf("k6 exit code %d, want 0; stderr:\n%s", code, stderr)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if snap.Phase != snapshot.PhaseDone || snap.Message != "" {
		t.Fatalf("phase %s (%s), want done", snap.Phase, snap.Message)
	}
	for _, tx := range snapshot.Transactions {
		if snap.Transactions[tx].Commits == 0 {
			t.Errorf("no %s committed", tx)
		}
	}
	if snap.Versions.EngineServer == "" || snap.Identity.Isolation != string(isolation.ReadCommitted) {
		t.Errorf("server version %q, isolation %q read back; want both", snap.Versions.EngineServer, snap.Identity.Isolation)
	}
	if snap.Server == nil || snap.Server.Settings["synchronous_commit"] == "" {
		t.Errorf("server info %+v, want synchronous_commit among the settings", snap.Server)
	}
	var acknowledged int64
	for _, d := range snap.Ledger {
		acknowledged += d.Acknowledged
	}
	if acknowledged < snap.Transactions[snapshot.NewOrder].Commits {
		t.Errorf("ledger acknowledges %d New-Orders, fewer than the %d measured commits", acknowledged, snap.Transactions[snapshot.NewOrder].Commits)
	}
	all, err := s.SnapshotAfter(-1) // Snapshot serves the series' bookkeeping, not its items
	if err != nil {
		t.Fatal(err)
	}
	checkIntervals(t, s, all)
}

// checkIntervals checks the time series of a finished run: contiguous, sealed to the end, each
// interval with a database sample and pool signals, adding up to the run's counters.
func checkIntervals(t *testing.T, s *Session, snap *snapshot.Snapshot) {
	iv := snap.Intervals
	if iv == nil || len(iv.Items) < 2 || iv.Sealed != len(iv.Items) {
		t.Fatalf("intervals %+v, want at least 2, all sealed and served", iv)
	}
	sums := map[snapshot.Transaction]int64{}
	var acquires int64
	samples := s.TelemetrySamples()
	for i, item := range iv.Items {
		if item.Index != i {
			t.Fatalf("interval %d has index %d", i, item.Index)
		}
		if last := i == len(iv.Items)-1; item.Seconds > iv.LengthSeconds+1e-9 || !last && math.Abs(item.Seconds-iv.LengthSeconds) > 1e-9 {
			t.Errorf("interval %d lasts %.3fs of %.3fs", i, item.Seconds, iv.LengthSeconds)
		}
		if item.Telemetry == nil || item.Telemetry.Error != "" || item.Telemetry.DatabaseBytes == nil {
			t.Errorf("interval %d: telemetry %+v, want a sample with the database size", i, item.Telemetry)
		}
		if item.Client == nil {
			t.Errorf("interval %d has no client signals", i)
		} else {
			acquires += item.Client.PoolAcquires
		}
		for tx, c := range item.Transactions {
			sums[tx] += c.Commits + c.Rollbacks
		}
	}
	if acquires == 0 {
		t.Error("no interval counts a pool acquisition")
	}
	for _, tx := range snapshot.Transactions {
		if c := snap.Transactions[tx]; sums[tx] != c.Commits+c.Rollbacks {
			t.Errorf("%s: the intervals hold %d completions, the run %d", tx, sums[tx], c.Commits+c.Rollbacks)
		}
	}
	if len(samples) == 0 || len(samples) > len(iv.Items)+1 {
		t.Errorf("%d telemetry samples for %d intervals", len(samples), len(iv.Items))
	}
	end := iv.Origin.Add(time.Duration(float64(time.Second) * (float64(len(iv.Items)-1)*iv.LengthSeconds + iv.Items[len(iv.Items)-1].Seconds)))
	if lag := snap.Times.Updated.Sub(end); lag < 0 || lag > 5*time.Second {
		t.Errorf("the series ends at %v, %v before the final snapshot; want it sealed to the run's end", end, lag)
	}
}

// checkScriptWithOptions runs a script whose tpcc.run() connects by its options, with thresholds
// on the metrics the module pushes: k6's counts equal the run's summary, and a threshold the
// metrics cross fails the run.
func checkScriptWithOptions(t *testing.T, url string) {
	Install(nil)
	script := `import tpcc from 'k6/x/tpcc';
export const options = {
  iterations: 1,
  thresholds: JSON.parse(__ENV.THRESHOLDS),
};
export default function () {
  const s = tpcc.run({engine: __ENV.ENGINE, url: __ENV.URL, warehouses: 1, wait: 'none', rampUp: '200ms', duration: '1500ms', connections: 4});
  console.log('summary newOrders=' + s.newOrders + ' tpmC=' + s.tpmC + ' efficiency=' + s.efficiencyPercent + ' measured=' + s.measuredSeconds);
}
export function handleSummary(data) {
  const m = data.metrics;
  return {stdout: JSON.stringify({newOrders: m['tpcc_completed{txn:NewOrder}'].values.count, tpmC: m.tpcc_tpmc.values.value,
    efficiency: m.tpcc_efficiency_percent.values.value, p90: m['tpcc_p90_ms{txn:Payment}'].values.value})};
}`
	pass := `{"tpcc_completed": ["count>0"], "tpcc_completed{txn:NewOrder}": ["count>0"], "tpcc_tpmc": ["value>0"],
		"tpcc_efficiency_percent": ["value>0"], "tpcc_p90_ms{txn:Payment}": ["value>0"]}`
	cases := []struct {
		name       string
		thresholds string
		code       int
	}{
		{name: "thresholds the run meets", thresholds: pass, code: 0},
		{name: "a threshold the run crosses", thresholds: strings.Replace(pass, `"count>0"]`, `"count<1"]`, 1), code: 99},
	}
	summary := regexp.MustCompile(`summary newOrders=(\d+) tpmC=([\d.e+]+) efficiency=([\d.e+]+) measured=([\d.e+]+)`)
	for _, c := range cases {
		env := OfflineEnv(map[string]string{"ENGINE": pgwire.PostgresDriver().Name(), "URL": url, "THRESHOLDS": c.thresholds})
		code, stdout, stderr := runK6(context.Background(), K6Invocation{Args: []string{"run", "--quiet", "--address=", "-"}, Env: env,
			Stdin: strings.NewReader(script)})
		if code != c.code {
			t.Fatalf("%s: k6 exit code %d, want %d; stderr:\n%s", c.name, code, c.code, stderr)
		}
		m := summary.FindStringSubmatch(stderr)
		var k6 struct{ NewOrders, TpmC, Efficiency, P90 float64 }
		if err := json.Unmarshal([]byte(stdout), &k6); m == nil || err != nil {
			t.Fatalf("%s: no summary logged or summarised (%v); stdout:\n%s\nstderr:\n%s", c.name, err, stdout, stderr)
		}
		newOrders, _ := strconv.ParseFloat(m[1], 64)
		tpmC, _ := strconv.ParseFloat(m[2], 64)
		efficiency, _ := strconv.ParseFloat(m[3], 64)
		measured, _ := strconv.ParseFloat(m[4], 64)
		if newOrders == 0 || measured < 1.4 || math.Abs(tpmC-newOrders/measured*60) > 1e-6*tpmC {
			t.Errorf("%s: summary %s: want New-Orders over about 1.5s and tpmC their rate per minute", c.name, m[0])
		}
		if math.Abs(efficiency-snapshot.EfficiencyPercent(tpmC, 1)) > 1e-9*efficiency {
			t.Errorf("%s: efficiency %v%%, want %v%% of tpmC %v on one warehouse", c.name, efficiency, snapshot.EfficiencyPercent(tpmC, 1), tpmC)
		}
		if k6.NewOrders != newOrders || math.Abs(k6.TpmC-tpmC) > 1e-9*tpmC || math.Abs(k6.Efficiency-efficiency) > 1e-9*efficiency || k6.P90 <= 0 {
			t.Errorf("%s: k6's metrics %+v, want the summary's %s and a Payment p90", c.name, k6, m[0])
		}
	}
}
