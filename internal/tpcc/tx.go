package tpcc

import (
	"context"
	"errors"

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

// IsolationReporter is an executor that tells the isolation level its transactions run at.
type IsolationReporter interface{ Isolation() isolation.Level }

// NewOrderResult is what a New-Order reports to its terminal.
type NewOrderResult struct {
	OrderID     int     // O_ID assigned; 0 when rolled back
	Lines       int     // O_OL_CNT
	RemoteLines int     // lines supplied by another warehouse
	RolledBack  bool    // the unused item was found and the transaction rolled back (Clause 2.4.2.3)
	BrandLines  int     // lines whose item and stock data both hold "ORIGINAL" (brand-generic "B")
	TotalAmount float64 // Σ OL_AMOUNT · (1 − C_DISCOUNT) · (1 + W_TAX + D_TAX), for the output screen
	Retries     int
	// CommitUnknown is set with an error when the connection broke (or the context ended) while
	// COMMIT was in flight: the order may or may not have committed.
	CommitUnknown bool
}

// PaymentResult is what a Payment reports to its terminal.
type PaymentResult struct {
	CustomerID     int  // the customer paid for (resolved when selected by name)
	RemoteCustomer bool // the customer's warehouse is not the terminal's
	ByLastName     bool
	BadCredit      bool // C_CREDIT = "BC": C_DATA was updated
	Retries        int
}

// OrderStatusResult is what an Order-Status reports to its terminal.
type OrderStatusResult struct {
	CustomerID int
	OrderID    int // the customer's latest order; 0 when the customer has none
	Lines      int // order lines of that order
	ByLastName bool
	Retries    int
}

// DeliveryResult is what a Delivery reports: each of the ten districts is either delivered or
// skipped (no undelivered order, Clause 2.7.4.2).
type DeliveryResult struct {
	Delivered int
	Skipped   int
	Retries   int
}

// StockLevelResult is what a Stock-Level reports.
type StockLevelResult struct {
	LowStock int // distinct items of the last 20 orders below the threshold
	Retries  int
}

// ErrCustomerNotFound is returned when a customer selector names no customer. With a loaded
// database it means the data or the input is wrong: every C_ID 1..3000 and every last name
// exists in every district.
var ErrCustomerNotFound = errors.New("customer not found")
