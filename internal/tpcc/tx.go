package tpcc

import (
	"context"
	"fmt"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// Executor runs the five TPC-C transactions against one database. One value is shared by all
// terminals of a process: implementations are safe for concurrent use and bound their own
// connection or session pool.
//
// Each method is one logical transaction: serialization failures are retried inside it (the
// count is in the result) and never surface as extra transactions. A returned error is a real
// failure after the retries are spent, or a cancelled context. The 1 % New-Order with an unused
// item is not an error: it reaches the database, rolls back, and sets NewOrderResult.RolledBack.
type Executor interface {
	NewOrder(ctx context.Context, in *NewOrderInput) (NewOrderResult, error)
	Payment(ctx context.Context, in *PaymentInput) (PaymentResult, error)
	OrderStatus(ctx context.Context, in *OrderStatusInput) (OrderStatusResult, error)
	Delivery(ctx context.Context, in *DeliveryInput) (DeliveryResult, error)
	StockLevel(ctx context.Context, in *StockLevelInput) (StockLevelResult, error)
	Close()
}

// ExecutorConfig configures an Executor.
type ExecutorConfig struct {
	Driver   Driver
	URL      string      // the driver's connection URL (Capabilities.URLForm)
	MaxConns int         // connections or sessions the executor may hold
	Retry    RetryPolicy // zero value: DefaultRetryPolicy
	// Isolation of every transaction; "" is the driver's default (Capabilities.DefaultIsolation).
	// A driver whose server reports the level reads it back when connecting and refuses to run
	// at another level than asked.
	Isolation isolation.Level
	// Pooler is the mode of the connection pooler URL goes through (PoolerURL); PoolerNone: URL
	// is the server's. Through a transaction-mode pooler no session state outlives a transaction.
	Pooler PoolerMode
}

func (c *ExecutorConfig) validate() error {
	if c.Driver == nil {
		return fmt.Errorf("executor: no Driver")
	}
	if c.URL == "" {
		return fmt.Errorf("executor: URL is empty")
	}
	if c.MaxConns < 1 {
		return fmt.Errorf("executor: MaxConns %d must be >= 1", c.MaxConns)
	}
	if c.Retry == (RetryPolicy{}) {
		c.Retry = DefaultRetryPolicy
	}
	if err := c.Retry.Validate(); err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	if c.Isolation == "" {
		c.Isolation = c.Driver.Capabilities().DefaultIsolation
	}
	if _, err := isolation.Parse(string(c.Isolation)); err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	if why := c.Driver.Capabilities().SupportsIsolation(c.Isolation); why != "" {
		return fmt.Errorf("executor: isolation %s: %s", c.Isolation, why)
	}
	if c.Pooler != PoolerNone {
		if _, err := ParsePoolerMode(string(c.Pooler)); err != nil {
			return fmt.Errorf("executor: %w", err)
		}
		if !c.Driver.Capabilities().Pooler {
			return fmt.Errorf("executor: engine %s does not run through a connection pooler", c.Driver.Name())
		}
	}
	return nil
}

// NewExecutor validates cfg and connects the executor of cfg.Driver.
func NewExecutor(ctx context.Context, cfg ExecutorConfig) (Executor, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return cfg.Driver.NewExecutor(ctx, cfg)
}

// IsolationReporter is an executor that tells the isolation level its transactions run at.
type IsolationReporter interface{ Isolation() isolation.Level }
