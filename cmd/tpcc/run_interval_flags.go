package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/drivers"
)

// checkIntervalFlags validates the time-series flags, naming the flag, and fills the retention
// default: bounded with --listen (a reader collects), everything without (the summary prints it).
func (f *runFlags) checkIntervalFlags(fs *flag.FlagSet, d tpcc.Driver) error {
	if isSet(fs, "telemetry-shard") {
		switch {
		case f.telemetry:
			return errors.New("--telemetry and --telemetry-shard both set: give one")
		case !isSet(fs, "shard"):
			return errors.New("--telemetry-shard needs --shard/--shards (it names the shard that samples)")
		case f.telemetryShard < 0 || f.telemetryShard >= f.shards:
			return fmt.Errorf("--telemetry-shard %d outside 0..%d (--shards %d)", f.telemetryShard, f.shards-1, f.shards)
		}
		f.telemetry = f.shardIndex == f.telemetryShard
		if f.maxReplicationLag > 0 {
			return errors.New("--max-replication-lag with --telemetry-shard: only the sampling shard sees the lag; judge it on the merged step (the operator does) or run one process with --telemetry")
		}
	}
	switch {
	case f.interval <= 0:
		return fmt.Errorf("--interval must be > 0, got %v", f.interval)
	case f.interval < 100*time.Millisecond:
		return fmt.Errorf("--interval %v is below 100ms", f.interval)
	case f.intervalRetention < 0:
		return fmt.Errorf("--interval-retention must be >= 0 (0 = keep all), got %d", f.intervalRetention)
	case f.maxReplicationLag < 0:
		return fmt.Errorf("--max-replication-lag must be > 0 (0 = no bound), got %v", f.maxReplicationLag)
	case f.maxReplicationLag > 0 && !d.Capabilities().ReplicationLag:
		return fmt.Errorf("--max-replication-lag: engine %s has no standbys to bound (%s only)", d.Name(), lagEngines())
	case f.maxReplicationLag > 0 && !f.telemetry:
		return errors.New("--max-replication-lag needs --telemetry (the lag is read from pg_stat_replication)")
	}
	if !isSet(fs, "interval-retention") && f.listen != "" {
		f.intervalRetention = tpcc.DefaultIntervalRetention
	}
	return nil
}

func hasReplicationLag(c tpcc.Capabilities) bool { return c.ReplicationLag }

// lagEngines names the engines whose standbys' lag the telemetry reads: "PostgreSQL".
func lagEngines() string {
	return tpcc.JoinNames(drivers.TitlesOf(drivers.With(hasReplicationLag)), "and")
}
