package pgwire

import "github.com/tpcc-operator/tpcc-operator/internal/tpcc"

// PoolStats reads pgxpool's cumulative counters: acquisitions, those that had to wait for a
// connection (EmptyAcquireCount), and the summed acquisition time.
func (e *pgwireExecutor) PoolStats() tpcc.PoolStats {
	s := e.pool.Stat()
	return tpcc.PoolStats{Acquires: s.AcquireCount(), Waits: s.EmptyAcquireCount(), Wait: s.AcquireDuration()}
}
