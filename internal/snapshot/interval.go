package snapshot

import (
	"fmt"
	"time"
)

// DefaultInterval is the length of one interval of the time series when none is configured.
const DefaultInterval = 10 * time.Second

// Intervals is the time series of one client process: per-interval histograms and counters,
// the client's own signals and, in the pod that samples them, the database's signals.
//
// Interval i covers [Origin + i·Length, Origin + (i+1)·Length); Origin is the start of ramp-up.
// An outcome belongs to the interval in which it completed. Intervals are sealed once they end
// (after a short grace for transactions completing right at the boundary) and never change
// afterwards; Items holds sealed intervals only, in ascending index order, never two with one index.
//
// A reader that asks for intervalsAfter=N receives the items with index > N and hands the ones
// up to N over: the client drops them (Released). A client retains at most a bounded number of
// uncollected intervals; when a new one would exceed the bound, the oldest uncollected one is
// dropped and counted in Dropped, so a reader sees the gap and its size.
type Intervals struct {
	Origin        time.Time `json:"origin"`
	LengthSeconds float64   `json:"lengthSeconds"`
	// Sealed is the number of intervals sealed so far: indices 0..Sealed-1 are final.
	Sealed int `json:"sealed"`
	// Released is the number of leading intervals handed over to a reader (indices < Released
	// are no longer served).
	Released int `json:"released"`
	// Dropped counts sealed intervals dropped uncollected because the retention bound was reached.
	Dropped int64 `json:"dropped"`
	// Retention is the bound on retained uncollected intervals.
	Retention int        `json:"retention"`
	Items     []Interval `json:"items"`
}

// Interval is one interval of a client's time series.
type Interval struct {
	Index   int       `json:"index"`
	Start   time.Time `json:"start"`
	Seconds float64   `json:"seconds"` // the length, except for the run's last interval, which ends at the run's end
	// Transactions are the outcomes the step counts (inside the measured interval) that completed
	// in this interval: summed over all intervals they equal the snapshot's whole-step counters
	// exactly, histograms included. Same encoding as Snapshot.Transactions.
	Transactions map[Transaction]TransactionCounts `json:"transactions,omitempty"`
	// Unmeasured are outcomes that completed in this interval but are outside the measured
	// interval: ramp-up, or transactions in flight when it ended. Latency during ramp-up shows here.
	Unmeasured map[Transaction]TransactionCounts `json:"unmeasured,omitempty"`
	// Client is what the client can see of itself being the bottleneck.
	Client *ClientSignals `json:"client,omitempty"`
	// Telemetry is the database's own signals, sampled at the end of the interval by the one
	// client process of a step started with --telemetry; absent elsewhere.
	Telemetry *Telemetry `json:"telemetry,omitempty"`
}

// ClientSignals are client-bound indicators of one interval.
type ClientSignals struct {
	// LateStarts counts transactions whose keying began more than LateThreshold after the
	// terminal's schedule (end of the previous think time): the client could not keep up.
	LateStarts int64 `json:"lateStarts"`
	// LateSecondsTotal is the summed lateness of every transaction of the interval, seconds;
	// LateSecondsMax the largest.
	LateSecondsTotal float64 `json:"lateSecondsTotal"`
	LateSecondsMax   float64 `json:"lateSecondsMax"`
	// PoolAcquires counts connection acquisitions of the interval, PoolWaits those that had to
	// wait for a busy pool, PoolWaitSeconds their summed wait (absent where the driver does not tell).
	PoolAcquires    int64   `json:"poolAcquires,omitempty"`
	PoolWaits       int64   `json:"poolWaits,omitempty"`
	PoolWaitSeconds float64 `json:"poolWaitSeconds,omitempty"`
}

// LateThreshold is how far behind its schedule a terminal must start a transaction to count as
// late: timer and scheduling noise stays far below it, a starved client does not.
const LateThreshold = 100 * time.Millisecond

// Add adds another interval's client signals.
func (c *ClientSignals) Add(o ClientSignals) {
	c.LateStarts += o.LateStarts
	c.LateSecondsTotal += o.LateSecondsTotal
	c.LateSecondsMax = max(c.LateSecondsMax, o.LateSecondsMax)
	c.PoolAcquires += o.PoolAcquires
	c.PoolWaits += o.PoolWaits
	c.PoolWaitSeconds += o.PoolWaitSeconds
}

// Validate checks what a reader relies on: indices ascending and unique, above Released, below
// Sealed, and each interval's counters valid.
func (s *Intervals) Validate() error {
	if s.LengthSeconds <= 0 {
		return fmt.Errorf("intervals.lengthSeconds: %g, must be > 0", s.LengthSeconds)
	}
	if s.Released < 0 || s.Sealed < s.Released || s.Dropped < 0 || s.Retention < 0 {
		return fmt.Errorf("intervals: released %d, sealed %d, dropped %d, retention %d are inconsistent", s.Released, s.Sealed, s.Dropped, s.Retention)
	}
	prev := -1
	for i, iv := range s.Items {
		if iv.Index <= prev {
			return fmt.Errorf("intervals.items[%d]: index %d after %d, want ascending unique indices", i, iv.Index, prev)
		}
		if iv.Index >= s.Sealed {
			return fmt.Errorf("intervals.items[%d]: index %d is not sealed (sealed %d)", i, iv.Index, s.Sealed)
		}
		if iv.Seconds < 0 {
			return fmt.Errorf("intervals.items[%d].seconds: %g, must be >= 0", i, iv.Seconds)
		}
		for _, group := range []map[Transaction]TransactionCounts{iv.Transactions, iv.Unmeasured} {
			if err := validateCounts(group); err != nil {
				return fmt.Errorf("intervals.items[%d] (index %d): %w", i, iv.Index, err)
			}
		}
		prev = iv.Index
	}
	return nil
}

// validateCounts checks transaction names and counters (not histograms).
func validateCounts(txs map[Transaction]TransactionCounts) error {
	for t, c := range txs {
		if !t.Valid() {
			return fmt.Errorf("transactions: unknown transaction type %q", t)
		}
		if c.Commits < 0 || c.Rollbacks < 0 || c.Errors < 0 || c.Retries < 0 {
			return fmt.Errorf("transactions.%s: counters must be >= 0 (commits %d, rollbacks %d, errors %d, retries %d)",
				t, c.Commits, c.Rollbacks, c.Errors, c.Retries)
		}
		if t != NewOrder && c.Rollbacks != 0 {
			return fmt.Errorf("transactions.%s.rollbacks: %d, only NewOrder has business rollbacks", t, c.Rollbacks)
		}
	}
	return nil
}

// After returns a copy of s holding only the items with index > after.
func (s *Intervals) After(after int) *Intervals {
	c := *s
	c.Items = nil
	for _, iv := range s.Items {
		if iv.Index > after {
			c.Items = append(c.Items, iv)
		}
	}
	return &c
}

// Length is the interval length as a duration.
func (s *Intervals) Length() time.Duration {
	return time.Duration(s.LengthSeconds * float64(time.Second))
}
