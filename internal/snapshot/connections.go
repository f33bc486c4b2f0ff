package snapshot

import (
	"math"
	"time"
)

// The default connection pool of a client process is sized by Little's law: the connections in
// use are the transactions in flight, the rate at which its terminals start transactions times
// the time each holds a connection. Terminal counts do not enter it: with spec waits a terminal
// spends over 99 % of its time keying or thinking.
const (
	// ConnectionHold is the mean time a transaction holds its connection (begin to commit, retries
	// included) that the default pool serves at the terminals' full rate. Compliant steps hold a
	// connection for milliseconds to tens of milliseconds; a database whose transactions hold one
	// for a second on average is far into its response-time limits' tail, and the pool waits it
	// causes are recorded with every interval (poolWaits).
	ConnectionHold = time.Second
	// ConnectionSafety is the square-root staffing margin over the mean concurrency L: the pool
	// holds L + ConnectionSafety·√L, three standard deviations of Poisson arrivals in flight.
	ConnectionSafety = 3
)

// MeanCycle is a spec-wait terminal's mean time from one transaction to the next without the
// response times: keying plus mean think time, weighted by the deck.
func MeanCycle() time.Duration {
	var sum time.Duration
	for _, c := range DeckCards {
		sum += time.Duration(c.Cards) * (c.Keying + c.MeanThink)
	}
	return sum / DeckSize
}

// TransactionRate is the most transactions per second the terminals of warehouses start: spec-wait
// terminals one per MeanCycle each; without waits the rate depends on the database alone, and the
// function returns +Inf.
func TransactionRate(wait WaitMode, warehouses int) float64 {
	if wait == WaitNone {
		return math.Inf(1)
	}
	return float64(warehouses*TerminalsPerWarehouse) / MeanCycle().Seconds()
}

// Connections is the default pool of a client process driving warehouses: without waits one
// connection per terminal (each always has a transaction in flight); with spec waits the mean
// concurrency L = TransactionRate × ConnectionHold with square-root staffing, at least one and at
// most one per terminal.
func Connections(wait WaitMode, warehouses int) int {
	terminals := warehouses * TerminalsPerWarehouse
	if wait == WaitNone || terminals == 0 {
		return terminals
	}
	l := TransactionRate(wait, warehouses) * ConnectionHold.Seconds()
	return min(max(int(math.Ceil(l+ConnectionSafety*math.Sqrt(l))), 1), terminals)
}
