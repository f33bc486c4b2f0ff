// Package sla judges a step of a benchmark: from the merged snapshots of its
// client pods it says whether the step met the SLA (latency bounds,
// efficiency, TPC-C mix and audit windows, errors), and, while the step is
// still running, whether that verdict can no longer change. It is pure: no
// I/O, no clock, no Kubernetes.
package sla

import (
	"fmt"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// LatencyBound requires the Percentile-th response time of Transaction to be
// at most Max.
type LatencyBound struct {
	Transaction snapshot.Transaction
	Percentile  float64 // in (0, 100)
	Max         time.Duration
}

// Criteria is what a step is judged against. The controller maps the
// BenchmarkRun's spec.sla onto it.
type Criteria struct {
	Latency              []LatencyBound
	MinEfficiencyPercent float64 // 0..100
	// MaxErrorPercent bounds failed transactions over attempted ones
	// (completed + failed); 0 tolerates no error at all.
	MaxErrorPercent float64
	// MinAuditTransactions is the completed-transaction count below which the
	// mix minimums and the audit windows are not judged (each audit also needs
	// its own sample size, see audit.go).
	MinAuditTransactions int64
	// UnmeasuredBoundsSkipped: a latency bound whose type completed no transaction is skipped
	// instead of inconclusive. For steps that only narrow a search (probes), never for a step a
	// result may rest on.
	UnmeasuredBoundsSkipped bool
}

// DefaultCriteria is the TPC-C latency limits, CockroachDB's 85 % passing
// efficiency, 1 % errors and audits from 10 000 transactions.
func DefaultCriteria() Criteria {
	return Criteria{
		Latency:              TPCCLatencyBounds(),
		MinEfficiencyPercent: DefaultMinEfficiencyPercent,
		MaxErrorPercent:      DefaultMaxErrorPercent,
		MinAuditTransactions: DefaultMinAuditTransactions,
	}
}

// DefaultMaxErrorPercent tolerates 1 % of transactions failing for good
// (after their retries): enough for the aborted connections of a failover
// test, far below anything that would hide a broken run.
const DefaultMaxErrorPercent = 1.0

// DefaultMinAuditTransactions follows CockroachDB's audit, which skips its
// Clause 9.2 checks below 10 000 transactions.
const DefaultMinAuditTransactions = 10_000

// DefaultMinEfficiencyPercent is CockroachDB tpccbench's passing efficiency.
const DefaultMinEfficiencyPercent = 85.0

// TPCCLatencyBounds returns the five TPC-C 90th-percentile response-time
// limits (Clause 5.2.5.7): 5 s, and 20 s for Stock-Level.
func TPCCLatencyBounds() []LatencyBound {
	return []LatencyBound{
		{Transaction: snapshot.NewOrder, Percentile: 90, Max: 5 * time.Second},
		{Transaction: snapshot.Payment, Percentile: 90, Max: 5 * time.Second},
		{Transaction: snapshot.OrderStatus, Percentile: 90, Max: 5 * time.Second},
		{Transaction: snapshot.Delivery, Percentile: 90, Max: 5 * time.Second},
		{Transaction: snapshot.StockLevel, Percentile: 90, Max: 20 * time.Second},
	}
}

// Validate names the first field that cannot be judged against.
func (c Criteria) Validate() error {
	for i, b := range c.Latency {
		if !b.Transaction.Valid() {
			return fmt.Errorf("latency[%d].transaction: unknown transaction %q (want one of %v)", i, b.Transaction, snapshot.Transactions)
		}
		if !(b.Percentile > 0 && b.Percentile < 100) {
			return fmt.Errorf("latency[%d].percentile: %g is outside (0, 100)", i, b.Percentile)
		}
		if b.Max <= 0 {
			return fmt.Errorf("latency[%d].max: %v, must be > 0", i, b.Max)
		}
	}
	if !(c.MinEfficiencyPercent >= 0 && c.MinEfficiencyPercent <= 100) {
		return fmt.Errorf("minEfficiencyPercent: %g is outside 0..100", c.MinEfficiencyPercent)
	}
	if !(c.MaxErrorPercent >= 0 && c.MaxErrorPercent <= 100) {
		return fmt.Errorf("maxErrorPercent: %g is outside 0..100", c.MaxErrorPercent)
	}
	if c.MinAuditTransactions < 0 {
		return fmt.Errorf("minAuditTransactions: %d, must be >= 0", c.MinAuditTransactions)
	}
	return nil
}
