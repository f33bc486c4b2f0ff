package tpcctest

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// BurstCounts are the counters a terminal keeps, summed over the burst's workers.
type BurstCounts struct {
	NewOrders, Rollbacks, OrderLines, RemoteLines int
	Payments, RemotePayments, PaymentsByName      int
	OrderStatuses, OrderStatusByName              int
	Deliveries, Delivered, Skipped                int
	StockLevels                                   int
	Retries                                       int
	Busy                                          [5]time.Duration // summed response time per type, in mix order
	Errors                                        []error
	Exhausted                                     int // transactions that ran out of serialization retries
}

// Total is the number of transactions run.
func (c *BurstCounts) Total() int {
	return c.NewOrders + c.Payments + c.OrderStatuses + c.Deliveries + c.StockLevels
}

func (c *BurstCounts) add(o *BurstCounts) {
	c.NewOrders += o.NewOrders
	c.Rollbacks += o.Rollbacks
	c.OrderLines += o.OrderLines
	c.RemoteLines += o.RemoteLines
	c.Payments += o.Payments
	c.RemotePayments += o.RemotePayments
	c.PaymentsByName += o.PaymentsByName
	c.OrderStatuses += o.OrderStatuses
	c.OrderStatusByName += o.OrderStatusByName
	c.Deliveries += o.Deliveries
	c.Delivered += o.Delivered
	c.Skipped += o.Skipped
	c.StockLevels += o.StockLevels
	c.Retries += o.Retries
	for i := range c.Busy {
		c.Busy[i] += o.Busy[i]
	}
	c.Errors = append(c.Errors, o.Errors...)
	c.Exhausted += o.Exhausted
}

// RunBurst drives workers goroutines, each a terminal with its own home warehouse and district,
// through the 45/43/4/4/4 mix without keying or think times until the duration ends (and at
// most maxPerWorker transactions each).
func RunBurst(t testing.TB, e tpcc.Executor, constants tpcc.Constants, warehouses, workers int, duration time.Duration) BurstCounts {
	t.Helper()
	const maxPerWorker = 1_000_000
	ctx, cancel := context.WithTimeout(context.Background(), duration+2*time.Minute)
	defer cancel()
	deadline := time.Now().Add(duration)
	results := make([]BurstCounts, workers)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		cfg := tpcc.TerminalConfig{HomeWarehouseID: i%warehouses + 1, HomeDistrictID: i/warehouses%tpcc.DistrictsPerWarehouse + 1, ActiveWarehouses: warehouses}
		gen, err := tpcc.NewInputGenerator(tpcc.NewRand(uint64(1000+i), 7), constants, cfg)
		if err != nil {
			t.Fatal(err)
		}
		mix := tpcc.NewRand(uint64(2000+i), 8)
		wg.Add(1)
		go func(c *BurstCounts) {
			defer wg.Done()
			for n := 0; n < maxPerWorker && time.Now().Before(deadline) && len(c.Errors) < 10; n++ {
				pick := mix.Intn(100)
				began := time.Now()
				err := c.runOne(ctx, e, gen, pick)
				c.Busy[MixIndex(pick)] += time.Since(began)
				var exhausted *tpcc.RetriesExhaustedError
				switch {
				case errors.As(err, &exhausted):
					c.Exhausted++ // rolled back whole; judged by the test per engine
				case err != nil:
					c.Errors = append(c.Errors, err)
				}
			}
		}(&results[i])
	}
	wg.Wait()
	var total BurstCounts
	for i := range results {
		total.add(&results[i])
	}
	return total
}

// runOne runs the transaction of a 0..99 draw and counts it.
func (c *BurstCounts) runOne(ctx context.Context, e tpcc.Executor, gen *tpcc.InputGenerator, pick int) error {
	switch MixIndex(pick) {
	case 0:
		in := gen.NewOrder()
		r, err := e.NewOrder(ctx, &in)
		c.NewOrders++
		c.Retries += r.Retries
		if r.RolledBack {
			c.Rollbacks++
		} else if err == nil {
			c.OrderLines += r.Lines
			c.RemoteLines += r.RemoteLines
		}
		return err
	case 1:
		in := gen.Payment()
		r, err := e.Payment(ctx, &in)
		c.Payments++
		c.Retries += r.Retries
		if r.RemoteCustomer {
			c.RemotePayments++
		}
		if r.ByLastName {
			c.PaymentsByName++
		}
		return err
	case 2:
		in := gen.OrderStatus()
		r, err := e.OrderStatus(ctx, &in)
		c.OrderStatuses++
		c.Retries += r.Retries
		if r.ByLastName {
			c.OrderStatusByName++
		}
		return err
	case 3:
		in := gen.Delivery()
		r, err := e.Delivery(ctx, &in)
		c.Deliveries++
		c.Retries += r.Retries
		c.Delivered += r.Delivered
		c.Skipped += r.Skipped
		return err
	}
	in := gen.StockLevel()
	r, err := e.StockLevel(ctx, &in)
	c.StockLevels++
	c.Retries += r.Retries
	return err
}

// MixIndex maps a 0..99 draw to New-Order, Payment, Order-Status, Delivery, Stock-Level (0..4).
func MixIndex(pick int) int {
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

// MeanMillis is the mean of n response times summing to busy, in milliseconds (0 for none).
func MeanMillis(busy time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(busy.Microseconds()) / 1000 / float64(n)
}

// CheckShare fails unless count/total is within five standard errors of p (a fraction), so a
// correct generator fails about once in 3.5 million runs and a wrong share is still caught.
func CheckShare(t testing.TB, what string, count, total int, p float64) {
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
