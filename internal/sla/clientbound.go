package sla

import "fmt"

// ClientLoad is what a step's clients show of themselves being the bottleneck, summed over the
// step's intervals and pods.
type ClientLoad struct {
	// Completed transactions of the step (measured or not: lateness is counted on all of them).
	Completed int64
	// LateStarts counts transactions whose keying began more than snapshot.LateThreshold after
	// the terminal's schedule (spec waits only).
	LateStarts int64
	// PoolAcquires, PoolWaits and PoolWaitSeconds are the connection pool's figures.
	PoolAcquires, PoolWaits int64
	PoolWaitSeconds         float64
	// Pods are the client pods' peak CPU against their limits (from the cluster's metrics).
	Pods []PodCPU
}

// PodCPU is one client pod's peak CPU use and its limit, in cores (limit 0: none).
type PodCPU struct {
	Name             string
	PeakCores, Limit float64
}

// Thresholds of the client-bound signs. Each is far above what a client that keeps up shows:
// timers and scheduling put well under 0.1 % of starts past 100 ms, and a pool sized to the
// terminals (one connection each, the default) rarely makes anyone wait.
const (
	ClientBoundLateShare     = 0.01  // of transactions started late
	ClientBoundPoolWaitShare = 0.05  // of acquisitions that waited
	ClientBoundPoolWaitMean  = 0.002 // seconds, mean wait of those that waited
	ClientBoundCPUShare      = 0.9   // of a client pod's CPU limit
)

// ClientBound names each sign that a step's clients, not the database, limited it; none means the
// clients kept up. It is pure: the operator and `tpcc run` flag a step with the same rules.
func ClientBound(c ClientLoad) []string {
	var out []string
	if c.Completed > 0 && float64(c.LateStarts) > ClientBoundLateShare*float64(c.Completed) {
		out = append(out, fmt.Sprintf("client-bound: %d of %d transactions (%.1f%%) started more than 100ms behind their keying and think-time schedule",
			c.LateStarts, c.Completed, 100*float64(c.LateStarts)/float64(c.Completed)))
	}
	if c.PoolAcquires > 0 && c.PoolWaits > 0 && float64(c.PoolWaits) > ClientBoundPoolWaitShare*float64(c.PoolAcquires) &&
		c.PoolWaitSeconds/float64(c.PoolWaits) > ClientBoundPoolWaitMean {
		out = append(out, fmt.Sprintf("client-bound: %d of %d connection acquisitions (%.1f%%) waited for a pooled connection, %.1fms on average",
			c.PoolWaits, c.PoolAcquires, 100*float64(c.PoolWaits)/float64(c.PoolAcquires), 1000*c.PoolWaitSeconds/float64(c.PoolWaits)))
	}
	for _, p := range c.Pods {
		if p.Limit > 0 && p.PeakCores >= ClientBoundCPUShare*p.Limit {
			out = append(out, fmt.Sprintf("client-bound: client pod %s peaked at %.2f of its %.2f CPU limit", p.Name, p.PeakCores, p.Limit))
		}
	}
	return out
}
