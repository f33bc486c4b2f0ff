package tpcc

import (
	"fmt"
	"math"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// WaitMode says whether terminals apply keying and think times.
type WaitMode = snapshot.WaitMode

// ParseWaitMode turns a --wait value into a WaitMode.
func ParseWaitMode(s string) (WaitMode, error) {
	switch WaitMode(s) {
	case snapshot.WaitSpec, snapshot.WaitNone:
		return WaitMode(s), nil
	}
	return "", fmt.Errorf("--wait %q: want spec or none", s)
}

// KeyingTime is the constant keying time of each transaction (Clause 5.2.5.2, the minimums).
var KeyingTime = [txTypes]time.Duration{
	txNewOrder:    18 * time.Second,
	txPayment:     3 * time.Second,
	txOrderStatus: 2 * time.Second,
	txDelivery:    2 * time.Second,
	txStockLevel:  2 * time.Second,
}

// MeanThinkTime is the mean think time of each transaction (Clause 5.2.5.4, the minimums).
var MeanThinkTime = [txTypes]time.Duration{
	txNewOrder:    12 * time.Second,
	txPayment:     12 * time.Second,
	txOrderStatus: 10 * time.Second,
	txDelivery:    5 * time.Second,
	txStockLevel:  5 * time.Second,
}

// thinkTimeTruncation is how many means a think time may reach (Clause 5.2.5.4 allows
// truncating the distribution at 10 times its mean).
const thinkTimeTruncation = 10

// ThinkTime draws a negative-exponential think time with the given mean, −ln(U)·mean with U
// uniform in (0, 1], truncated at 10 × mean.
func ThinkTime(rng *Rand, mean time.Duration) time.Duration {
	// 53 random bits + 1 keep U in (0, 1]: ln(0) never happens.
	u := (float64(rng.Uint64()>>11) + 1) / (1 << 53)
	t := -math.Log(u) * float64(mean)
	return time.Duration(min(t, thinkTimeTruncation*float64(mean)))
}
