package k6ext

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/ydb"
)

// validConfig is a configuration Validate accepts: warehouses 3-4 of 4.
func validConfig() Config {
	return Config{Engine: pgwire.PostgresDriver(), URL: "postgres://bench@db/tpcc", Warehouses: 4, ActiveWarehouses: 4,
		From: 3, To: 4, Wait: snapshot.WaitSpec, RampUp: time.Second, Duration: time.Minute, Pod: "tpcc-0"}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Config)
		want   string // substring of the error; "" valid
	}{
		{name: "valid", change: func(*Config) {}},
		{name: "no ramp-up, the shortest interval, serializable", change: func(c *Config) {
			c.RampUp, c.Interval, c.Isolation = 0, 100*time.Millisecond, isolation.Serializable
		}},
		{name: "no URL", change: func(c *Config) { c.URL = "" }, want: "--url (or env TPCC_URL) is required"},
		{name: "no warehouses", change: func(c *Config) { c.Warehouses = 0 }, want: "--warehouses must be >= 1, got 0"},
		{name: "no active warehouses", change: func(c *Config) { c.ActiveWarehouses = 0 }, want: "--active-warehouses 0 outside 1..4"},
		{name: "more active than loaded", change: func(c *Config) { c.ActiveWarehouses = 5 }, want: "--active-warehouses 5 outside 1..4"},
		{name: "range from 0", change: func(c *Config) { c.From = 0 }, want: "warehouse range 0-4"},
		{name: "range backwards", change: func(c *Config) { c.From, c.To = 4, 3 }, want: "warehouse range 4-3"},
		{name: "range past the active", change: func(c *Config) { c.ActiveWarehouses = 3 }, want: "warehouse range 3-4 (--from/--to or --shard) outside the active warehouses 1-3"},
		{name: "negative connections", change: func(c *Config) { c.Connections = -1 }, want: "--connections must be >= 0"},
		{name: "no pod", change: func(c *Config) { c.Pod = "" }, want: "pod name is empty"},
		{name: "negative interval", change: func(c *Config) { c.Interval = -time.Second }, want: "--interval must be > 0"},
		{name: "interval below the grace", change: func(c *Config) { c.Interval = 99 * time.Millisecond }, want: "--interval 99ms is below the 100ms"},
		{name: "negative retention", change: func(c *Config) { c.IntervalRetention = -1 }, want: "--interval-retention must be >= 0"},
		{name: "no engine", change: func(c *Config) { c.Engine = nil }, want: "--engine: unknown engine"},
		{name: "unknown wait", change: func(c *Config) { c.Wait = "sometimes" }, want: `--wait "sometimes"`},
		{name: "negative ramp-up", change: func(c *Config) { c.RampUp = -time.Second }, want: "--ramp-up must be >= 0"},
		{name: "no duration", change: func(c *Config) { c.Duration = 0 }, want: "--duration must be > 0"},
		{name: "unknown isolation", change: func(c *Config) { c.Isolation = "snapshot" }, want: "--isolation: unknown isolation level"},
		{name: "isolation the engine refuses", change: func(c *Config) { c.Engine, c.Isolation = ydb.Driver, isolation.ReadCommitted },
			want: "--isolation read-committed: YDB offers no READ COMMITTED"},
	}
	for _, c := range cases {
		cfg := validConfig()
		c.change(&cfg)
		err := cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want valid", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if _, serr := NewSession(cfg); (serr == nil) != (err == nil) {
			t.Errorf("%s: NewSession error %v, Validate error %v: want the same verdict", c.name, serr, err)
		}
	}
}

func TestDefaultConnections(t *testing.T) {
	cases := []struct {
		wait       tpcc.WaitMode
		warehouses int
		want       int
	}{
		{snapshot.WaitSpec, 1, 3},   // L = 0.48 connections in use at a 1 s hold: ⌈L + 3√L⌉
		{snapshot.WaitSpec, 50, 39}, // L = 23.9
		{snapshot.WaitNone, 1, 10},
		{snapshot.WaitNone, 3, 30},
	}
	for _, c := range cases {
		if got := DefaultConnections(c.wait, c.warehouses); got != c.want {
			t.Errorf("DefaultConnections(%s, %d) = %d, want %d", c.wait, c.warehouses, got, c.want)
		}
	}
}

func TestNewSessionDefaults(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Config)
		check  func(Config) string // what is wrong, "" when nothing
	}{
		{name: "connections for spec waits: 2 per warehouse of the range", change: func(*Config) {}, check: func(c Config) string {
			return expect(c.Connections == 4, "connections %d, want 4", c.Connections)
		}},
		{name: "connections without waits: one per terminal", change: func(c *Config) { c.Wait = snapshot.WaitNone }, check: func(c Config) string {
			return expect(c.Connections == 20, "connections %d, want 20", c.Connections)
		}},
		{name: "connections given", change: func(c *Config) { c.Connections = 3 }, check: func(c Config) string {
			return expect(c.Connections == 3, "connections %d, want 3", c.Connections)
		}},
		{name: "the default interval", change: func(*Config) {}, check: func(c Config) string {
			return expect(c.Interval == snapshot.DefaultInterval, "interval %v, want %v", c.Interval, snapshot.DefaultInterval)
		}},
		{name: "an interval given", change: func(c *Config) { c.Interval = time.Second }, check: func(c Config) string {
			return expect(c.Interval == time.Second, "interval %v, want 1s", c.Interval)
		}},
		{name: "the engine's default isolation", change: func(*Config) {}, check: func(c Config) string {
			return expect(c.Isolation == isolation.ReadCommitted, "isolation %s, want %s", c.Isolation, isolation.ReadCommitted)
		}},
		{name: "another engine's default isolation", change: func(c *Config) { c.Engine = ydb.Driver }, check: func(c Config) string {
			return expect(c.Isolation == isolation.Serializable, "isolation %s, want %s", c.Isolation, isolation.Serializable)
		}},
		{name: "an isolation given", change: func(c *Config) { c.Isolation = isolation.RepeatableRead }, check: func(c Config) string {
			return expect(c.Isolation == isolation.RepeatableRead, "isolation %s, want %s", c.Isolation, isolation.RepeatableRead)
		}},
		{name: "a random seed", change: func(*Config) {}, check: func(c Config) string { return expect(c.Seed != 0, "seed 0, want a random one") }},
		{name: "a seed given", change: func(c *Config) { c.Seed = 42 }, check: func(c Config) string {
			return expect(c.Seed == 42, "seed %d, want 42", c.Seed)
		}},
	}
	for _, c := range cases {
		cfg := validConfig()
		c.change(&cfg)
		s, err := NewSession(cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if msg := c.check(s.Config()); msg != "" {
			t.Errorf("%s: %s", c.name, msg)
		}
	}
}

// expect returns the formatted message when ok is false, else "".
func expect(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// TestSessionBeforeConnect drives a session that never connected: its snapshot, failure,
// start, stop, marks and ledger check.
func TestSessionBeforeConnect(t *testing.T) {
	cfg := validConfig()
	cfg.Instance = "run-1"
	s, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if p := s.Phase(); p != snapshot.PhasePaused {
		t.Errorf("phase %s before connecting, want %s", p, snapshot.PhasePaused)
	}
	if err := s.Run(ctx); err == nil || !strings.Contains(err.Error(), "not connected") {
		t.Errorf("Run before connecting: %v, want not connected", err)
	}
	if msg, n := s.LastError(); msg != "" || n != 0 {
		t.Errorf("LastError before connecting: %q, %d", msg, n)
	}
	snap, err := s.Control().Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	id := snap.Identity
	if id.Pod != "tpcc-0" || id.Instance != "run-1" || id.Engine != cfg.Engine.Name() || id.Warehouses != 4 || id.ActiveWarehouses != 4 ||
		id.WarehouseFrom != 3 || id.WarehouseTo != 4 || id.Terminals != 20 || id.Wait != snapshot.WaitSpec || id.Isolation != string(isolation.ReadCommitted) {
		t.Errorf("identity %+v", id)
	}
	if snap.Version != snapshot.Version || snap.Versions.Client != ClientVersion || snap.Versions.K6 != K6Version || snap.Phase != snapshot.PhasePaused {
		t.Errorf("version %d, versions %+v, phase %s", snap.Version, snap.Versions, snap.Phase)
	}
	if got := s.Ledger(); len(got) != 20 || got[0].WarehouseID != 3 || got[19].WarehouseID != 4 || got[19].DistrictID != 10 {
		t.Errorf("ledger of warehouses 3-4: %+v, want 20 districts from 3/1 to 4/10", got)
	}

	first, _ := s.Mark(ctx, "kill")
	again, _ := s.Mark(ctx, "kill")
	if !again.Equal(first) {
		t.Errorf("marking kill again returned %v, want the first moment %v", again, first)
	}
	if s.LedgerCheck() != nil {
		t.Error("a ledger check before one was made")
	}
	check := &snapshot.LedgerCheck{}
	s.SetLedgerCheck(check)
	if snap, _ := s.Snapshot(); snap.LedgerCheck != check {
		t.Error("the snapshot does not carry the published ledger check")
	}

	s.Fail(errors.New("connect postgres://bench:hunter2@db/tpcc: refused"))
	s.Fail(errors.New("a later failure"))
	if msg := s.Failure(); strings.Contains(msg, "hunter2") || !strings.Contains(msg, "refused") {
		t.Errorf("failure %q: want the first failure, password redacted", msg)
	}
	if p := s.Phase(); p != snapshot.PhaseFailed {
		t.Errorf("phase %s after Fail, want failed", p)
	}
	if err := s.Start(ctx); err == nil || !strings.Contains(err.Error(), "the run failed") {
		t.Errorf("Start after Fail: %v, want the failure", err)
	}
	select {
	case <-s.Stopped():
		t.Fatal("Stopped is closed before Stop")
	default:
	}
	for range 2 {
		if err := s.Stop(ctx); err != nil {
			t.Fatalf("Stop of a failed session: %v", err)
		}
	}
	select {
	case <-s.Stopped():
	default:
		t.Fatal("Stop of a failed session did not end the linger")
	}
	s.Close()
	s.Close()
}
