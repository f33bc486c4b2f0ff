package tpcc

import (
	"fmt"
	"strings"
)

// New-Order (Clause 2.4): its input, its output and the rules of its profile that do not depend
// on how an engine reads and writes the rows. A driver reads and writes; these decide.

// NewOrderLine is one item of a New-Order.
type NewOrderLine struct {
	ItemID            int
	SupplyWarehouseID int
	Quantity          int
}

// NewOrderInput is the input of one New-Order (Clause 2.4.1).
type NewOrderInput struct {
	WarehouseID int
	DistrictID  int
	CustomerID  int
	Lines       []NewOrderLine
}

// AllLocal reports whether every line is supplied by the home warehouse (O_ALL_LOCAL).
func (in *NewOrderInput) AllLocal() bool { return in.RemoteLines() == 0 }

// RemoteLines counts the lines supplied by a warehouse other than the home warehouse.
func (in *NewOrderInput) RemoteLines() int {
	n := 0
	for _, l := range in.Lines {
		if l.SupplyWarehouseID != in.WarehouseID {
			n++
		}
	}
	return n
}

// Validate checks the input against the ranges of Clause 2.4.1, naming the field.
func (in *NewOrderInput) Validate() error {
	if err := validateHome("new-order", "", in.WarehouseID, in.DistrictID); err != nil {
		return err
	}
	if in.CustomerID < 1 || in.CustomerID > CustomersPerDistrict {
		return fmt.Errorf("new-order: CustomerID %d outside [1, %d]", in.CustomerID, CustomersPerDistrict)
	}
	if len(in.Lines) < MinOrderLines || len(in.Lines) > MaxOrderLines {
		return fmt.Errorf("new-order: %d Lines, want %d..%d", len(in.Lines), MinOrderLines, MaxOrderLines)
	}
	for i, l := range in.Lines {
		switch {
		case l.ItemID < 1 || l.ItemID > UnusedItemID:
			return fmt.Errorf("new-order: Lines[%d].ItemID %d outside [1, %d]", i, l.ItemID, UnusedItemID)
		case l.SupplyWarehouseID < 1:
			return fmt.Errorf("new-order: Lines[%d].SupplyWarehouseID %d must be >= 1", i, l.SupplyWarehouseID)
		case l.Quantity < MinOrderLineQuantity || l.Quantity > MaxOrderLineQuantity:
			return fmt.Errorf("new-order: Lines[%d].Quantity %d outside [%d, %d]", i, l.Quantity, MinOrderLineQuantity, MaxOrderLineQuantity)
		}
	}
	return nil
}

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

// Stock replenishment of Clause 2.4.2.2: a stock whose quantity would fall below StockFloor is
// refilled by StockRefill.
const (
	StockFloor  = 10
	StockRefill = 91
)

// StockQuantityAfter is S_QUANTITY after an order line of ordered units (Clause 2.4.2.2): reduced
// by ordered when at least StockFloor remain, else reduced by ordered and refilled by StockRefill.
func StockQuantityAfter(quantity, ordered int) int {
	if quantity-ordered >= StockFloor {
		return quantity - ordered
	}
	return quantity - ordered + StockRefill
}

// StockUpdate is the part of a stock row a New-Order line rewrites.
type StockUpdate struct {
	Quantity, YTD, OrderCount, RemoteCount int
}

// ApplyLine applies one order line of quantity units to the stock row (Clause 2.4.2.2):
// S_QUANTITY by StockQuantityAfter, S_YTD grows by the quantity, S_ORDER_CNT by one, and
// S_REMOTE_CNT by one when the line is supplied by another warehouse than the order's.
func (s *StockUpdate) ApplyLine(quantity int, remote bool) {
	s.Quantity = StockQuantityAfter(s.Quantity, quantity)
	s.YTD += quantity
	s.OrderCount++
	if remote {
		s.RemoteCount++
	}
}

// originalMark is what I_DATA and S_DATA of a brand-generic line both hold.
const originalMark = "ORIGINAL"

// IsBrandGeneric is the brand-generic rule of Clause 2.4.2.2: "B" when both I_DATA and S_DATA
// hold "ORIGINAL", else "G".
func IsBrandGeneric(itemData, stockData string) bool {
	return strings.Contains(itemData, originalMark) && strings.Contains(stockData, originalMark)
}

// LineAmountCents is OL_AMOUNT = OL_QUANTITY · I_PRICE, in cents (Clause 2.4.2.2).
func LineAmountCents(quantity int, priceCents int64) int64 { return int64(quantity) * priceCents }

// OrderTotal is the total amount of the New-Order output screen (Clause 2.4.3.3):
// Σ OL_AMOUNT · (1 − C_DISCOUNT) · (1 + W_TAX + D_TAX), from Σ OL_AMOUNT in cents.
func OrderTotal(linesCents int64, discount, warehouseTax, districtTax float64) float64 {
	return float64(linesCents) / 100 * (1 - discount) * (1 + warehouseTax + districtTax)
}

// AllLocalFlag is O_ALL_LOCAL: 1 when every line is supplied by the home warehouse, else 0.
func (in *NewOrderInput) AllLocalFlag() int {
	if in.AllLocal() {
		return 1
	}
	return 0
}
