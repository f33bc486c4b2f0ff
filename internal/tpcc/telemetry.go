package tpcc

import (
	"context"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// TelemetrySampler reads the database's own signals once per interval (docs/telemetry.md). One
// client process per step samples (`tpcc run --telemetry`); the operator stays free of drivers.
// Each driver's queries and the conversion of their rows live in its subpackage.
type TelemetrySampler interface {
	// Sample reads the signals now. It never returns nil: a failed read is a Telemetry with Error
	// set (credentials redacted), so the interval says why it has no figures.
	Sample(ctx context.Context) *snapshot.Telemetry
	// Settings reads, once per run, the server settings that differ from the server's defaults
	// and the named ones whatever their value (the settings a run asked for: server parameters,
	// cluster settings). A setting that could not be read is named in
	// the error; the others are returned.
	Settings(ctx context.Context, names []string) (map[string]string, error)
	Close()
}

// NewTelemetrySampler connects a sampler of the engine at url; its errors name --url.
func NewTelemetrySampler(ctx context.Context, d Driver, url string) (TelemetrySampler, error) {
	return d.NewTelemetrySampler(ctx, url)
}

// FailedSample is the Telemetry of a sample of engine that could not be read.
func FailedSample(engine string, at time.Time, err error) *snapshot.Telemetry {
	return &snapshot.Telemetry{SampledAt: at, Engine: engine, Error: snapshot.RedactCredentials(err.Error())}
}

// PerSecond is the rate of a cumulative counter between two samples; nil when it cannot be
// computed (no previous sample, no time passed, or the counter went back: a reset or restart).
func PerSecond(prev, cur int64, dt time.Duration) *float64 {
	if dt <= 0 || cur < prev {
		return nil
	}
	v := float64(cur-prev) / dt.Seconds()
	return &v
}

// Delta is the growth of a cumulative counter, 0 after a reset.
func Delta(prev, cur int64) int64 { return max(cur-prev, 0) }

// PoolStats are the cumulative connection-pool counters of an executor.
type PoolStats struct {
	Acquires int64         // connections handed to transactions
	Waits    int64         // acquisitions that found no idle connection and waited
	Wait     time.Duration // summed time spent acquiring
}

// PoolStatser is implemented by executors whose pool reports its counters.
type PoolStatser interface{ PoolStats() PoolStats }

// PoolSignals is the client signals of the pool between two readings.
func PoolSignals(prev, cur PoolStats) snapshot.ClientSignals {
	return snapshot.ClientSignals{PoolAcquires: Delta(prev.Acquires, cur.Acquires), PoolWaits: Delta(prev.Waits, cur.Waits),
		PoolWaitSeconds: max(cur.Wait-prev.Wait, 0).Seconds()}
}
