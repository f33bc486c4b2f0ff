package pgwire

import (
	"context"
	"errors"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"math"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// burstCounts are the counters a terminal keeps, summed over the burst's workers.
type burstCounts struct {
	newOrders, rollbacks, orderLines, remoteLines int
	payments, remotePayments, paymentsByName      int
	orderStatuses, orderStatusByName              int
	deliveries, delivered, skipped                int
	stockLevels                                   int
	retries                                       int
	busy                                          [5]time.Duration // summed response time per type, in mix order
	errors                                        []error
	exhausted                                     int // transactions that ran out of serialization retries
}

func (c *burstCounts) add(o *burstCounts) {
	c.newOrders += o.newOrders
	c.rollbacks += o.rollbacks
	c.orderLines += o.orderLines
	c.remoteLines += o.remoteLines
	c.payments += o.payments
	c.remotePayments += o.remotePayments
	c.paymentsByName += o.paymentsByName
	c.orderStatuses += o.orderStatuses
	c.orderStatusByName += o.orderStatusByName
	c.deliveries += o.deliveries
	c.delivered += o.delivered
	c.skipped += o.skipped
	c.stockLevels += o.stockLevels
	c.retries += o.retries
	for i := range c.busy {
		c.busy[i] += o.busy[i]
	}
	c.errors = append(c.errors, o.errors...)
	c.exhausted += o.exhausted
}

// runBurst drives workers goroutines, each a terminal with its own home warehouse and district,
// through the 45/43/4/4/4 mix without keying or think times until the duration ends (and at
// most maxPerWorker transactions each).
func runBurst(t *testing.T, e tpcc.Executor, constants tpcc.Constants, warehouses, workers int, duration time.Duration) burstCounts {
	t.Helper()
	const maxPerWorker = 1_000_000
	ctx, cancel := context.WithTimeout(context.Background(), duration+2*time.Minute)
	defer cancel()
	deadline := time.Now().Add(duration)
	results := make([]burstCounts, workers)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		cfg := tpcc.TerminalConfig{HomeWarehouseID: i%warehouses + 1, HomeDistrictID: i/warehouses%tpcc.DistrictsPerWarehouse + 1, ActiveWarehouses: warehouses}
		gen, err := tpcc.NewInputGenerator(tpcc.NewRand(uint64(1000+i), 7), constants, cfg)
		if err != nil {
			t.Fatal(err)
		}
		mix := tpcc.NewRand(uint64(2000+i), 8)
		wg.Add(1)
		go func(c *burstCounts) {
			defer wg.Done()
			for n := 0; n < maxPerWorker && time.Now().Before(deadline) && len(c.errors) < 10; n++ {
				var err error
				pick := mix.Intn(100)
				began := time.Now()
				switch {
				case pick < 45:
					in := gen.NewOrder()
					var r tpcc.NewOrderResult
					r, err = e.NewOrder(ctx, &in)
					c.newOrders++
					c.retries += r.Retries
					if r.RolledBack {
						c.rollbacks++
					} else if err == nil {
						c.orderLines += r.Lines
						c.remoteLines += r.RemoteLines
					}
				case pick < 88:
					in := gen.Payment()
					var r tpcc.PaymentResult
					r, err = e.Payment(ctx, &in)
					c.payments++
					c.retries += r.Retries
					if r.RemoteCustomer {
						c.remotePayments++
					}
					if r.ByLastName {
						c.paymentsByName++
					}
				case pick < 92:
					in := gen.OrderStatus()
					var r tpcc.OrderStatusResult
					r, err = e.OrderStatus(ctx, &in)
					c.orderStatuses++
					c.retries += r.Retries
					if r.ByLastName {
						c.orderStatusByName++
					}
				case pick < 96:
					in := gen.Delivery()
					var r tpcc.DeliveryResult
					r, err = e.Delivery(ctx, &in)
					c.deliveries++
					c.retries += r.Retries
					c.delivered += r.Delivered
					c.skipped += r.Skipped
				default:
					in := gen.StockLevel()
					var r tpcc.StockLevelResult
					r, err = e.StockLevel(ctx, &in)
					c.stockLevels++
					c.retries += r.Retries
				}
				c.busy[mixIndex(pick)] += time.Since(began)
				var exhausted *tpcc.RetriesExhaustedError
				switch {
				case errors.As(err, &exhausted):
					c.exhausted++ // rolled back whole; judged by the test per dialect
				case err != nil:
					c.errors = append(c.errors, err)
				}
			}
		}(&results[i])
	}
	wg.Wait()
	var total burstCounts
	for i := range results {
		total.add(&results[i])
	}
	return total
}

// mixIndex maps a 0..99 draw to New-Order, Payment, Order-Status, Delivery, Stock-Level.
func mixIndex(pick int) int {
	switch {
	case pick < 45:
		return 0
	case pick < 88:
		return 1
	case pick < 92:
		return 2
	case pick < 96:
		return 3
	}
	return 4
}

func meanMillis(busy time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(busy.Microseconds()) / 1000 / float64(n)
}

// checkShare fails unless count/total is within five standard errors of p (a fraction), so a
// correct generator fails about once in 3.5 million runs and a wrong share is still caught.
func checkShare(t *testing.T, what string, count, total int, p float64) {
	t.Helper()
	if total == 0 {
		t.Errorf("%s: no transactions", what)
		return
	}
	share := float64(count) / float64(total)
	tolerance := 5 * math.Sqrt(p*(1-p)/float64(total))
	if math.Abs(share-p) > tolerance {
		t.Errorf("%s: %.2f%% (%d of %d), want %.2f%% ± %.2f", what, 100*share, count, total, 100*p, 100*tolerance)
	}
}

// TestPgwireBurstKeepsConsistency loads two warehouses, runs a no-wait burst of all five
// transactions with 16 concurrent workers for 30 s with the PostgreSQL executor at each isolation
// level (workload.isolation) and then with the CockroachDB-dialect executor, and after each runs
// the consistency check (Clause 3.3.2). TPCC_BURST_SECONDS overrides the duration.
func TestPgwireBurstKeepsConsistency(t *testing.T) {
	url, constants := txLoadedDatabase(t, 2)
	const warehouses, workers = 2, 16
	duration := 30 * time.Second
	if s := os.Getenv("TPCC_BURST_SECONDS"); s != "" {
		d, err := time.ParseDuration(s + "s")
		if err != nil {
			t.Fatalf("TPCC_BURST_SECONDS=%q: %v", s, err)
		}
		duration = d
	}
	for _, tc := range []struct {
		d *Flavour
		l isolation.Level
	}{{Postgres, isolation.ReadCommitted}, {Postgres, isolation.RepeatableRead}, {Postgres, isolation.Serializable}, {Cockroach, isolation.Serializable}} {
		d, level := tc.d, tc.l
		snapshot := level != isolation.ReadCommitted // a write to a row changed since the snapshot aborts
		t.Run(string(d)+"/"+string(level), func(t *testing.T) {
			retry := tpcc.DefaultRetryPolicy
			if snapshot {
				// The CockroachDB dialect runs SERIALIZABLE. On PostgreSQL a transaction that
				// updates a row changed since its snapshot aborts (first updater wins) where
				// CockroachDB would mostly queue on the lock; with 8 no-wait workers per
				// warehouse row (W_YTD) a streak of aborts is common, so allow a longer one.
				retry = tpcc.RetryPolicy{MaxAttempts: 100, BaseBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}
			}
			e := txNewExecutorAt(t, d, url, workers, retry, level)
			if got := e.(tpcc.IsolationReporter).Isolation(); got != level {
				t.Fatalf("executor runs at %s, want %s", got, level)
			}
			start := time.Now()
			c := runBurst(t, e, constants, warehouses, workers, duration)
			elapsed := time.Since(start)
			d := string(d) + " " + string(level) // for the logs
			total := c.newOrders + c.payments + c.orderStatuses + c.deliveries + c.stockLevels
			t.Logf("%s: %d transactions in %v (%.0f/s), %d retries; new-order %d (rolled back %d, lines %d, remote %d), payment %d (remote %d, by name %d), order-status %d (by name %d), delivery %d (districts delivered %d, skipped %d), stock-level %d",
				d, total, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), c.retries,
				c.newOrders, c.rollbacks, c.orderLines, c.remoteLines, c.payments, c.remotePayments, c.paymentsByName,
				c.orderStatuses, c.orderStatusByName, c.deliveries, c.delivered, c.skipped, c.stockLevels)
			t.Logf("%s: mean response ms: new-order %.2f, payment %.2f, order-status %.2f, delivery %.2f, stock-level %.2f", d,
				meanMillis(c.busy[0], c.newOrders), meanMillis(c.busy[1], c.payments), meanMillis(c.busy[2], c.orderStatuses),
				meanMillis(c.busy[3], c.deliveries), meanMillis(c.busy[4], c.stockLevels))
			for i, err := range c.errors {
				if i < 5 {
					t.Errorf("transaction error: %v", err)
				}
			}
			if len(c.errors) > 0 {
				t.Fatalf("%d transaction errors", len(c.errors))
			}
			// PostgreSQL's own executor locks rows and never needs to give up. The CockroachDB
			// dialect's SERIALIZABLE transactions on PostgreSQL abort where CockroachDB would queue,
			// and a few may exhaust their retries on the hottest row under no-wait load; each is
			// rolled back whole, which the consistency check below confirms. How many depends on
			// the machine's load: none of 5963 (198/s) in a make test of 2026-11-25, 26 of 2350
			// (1.1 %, at 78/s) in a CI run the same day; 3 % bounds "a few".
			limit := 0
			if snapshot {
				limit = total * 3 / 100
			}
			if c.exhausted > limit {
				t.Fatalf("%d transactions exhausted their retries, at most %d allowed for %s", c.exhausted, limit, d)
			}
			t.Logf("%s: %d transactions exhausted their retries", d, c.exhausted)
			checkShare(t, "new-order rollbacks", c.rollbacks, c.newOrders, 0.01)
			checkShare(t, "remote order lines", c.remoteLines, c.orderLines, 0.01)
			checkShare(t, "remote payments", c.remotePayments, c.payments, 0.15)
			checkShare(t, "payments by last name", c.paymentsByName, c.payments, 0.60)
			checkShare(t, "order-status by last name", c.orderStatusByName, c.orderStatuses, 0.60)
			if c.delivered+c.skipped != 10*c.deliveries {
				t.Errorf("deliveries: %d delivered + %d skipped districts, want 10 × %d", c.delivered, c.skipped, c.deliveries)
			}
			// Each district starts with 900 undelivered orders and gains more than it loses
			// (45 % New-Order vs 4 % Delivery), so no district may run dry.
			if c.skipped != 0 {
				t.Errorf("%d districts skipped with orders waiting", c.skipped)
			}
			// SERIALIZABLE on PostgreSQL aborts concurrent updates of W_YTD and D_NEXT_O_ID:
			// thousands of retries in a burst. None means retries are not being counted.
			if snapshot && c.retries == 0 {
				t.Errorf("no retries counted under %s contention", level)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			// Both the SQL conditions and the client-side evaluation YDB uses, on data that
			// deliveries and payments have moved away from the initial state.
			results := checkBothWays(t, ctx, tpcc.CheckOptions{Driver: Postgres, URL: url, Warehouses: warehouses, Threads: 2})
			passed := 0
			for _, r := range results {
				switch {
				case r.Skipped:
				case r.Pass:
					passed++
				default:
					t.Errorf("consistency %s (%s) fails: %s", r.Condition.ID, r.Condition.Name, r.Detail)
				}
			}
			t.Logf("consistency: %d of %d conditions checked and passed", passed, len(results))
		})
	}
}
