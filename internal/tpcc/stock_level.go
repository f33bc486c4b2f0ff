package tpcc

import "fmt"

// Stock-Level (Clause 2.8): its input, its output and the window of orders it examines.

// StockLevelInput is the input of one Stock-Level (Clause 2.8.1).
type StockLevelInput struct {
	WarehouseID int
	DistrictID  int
	Threshold   int
}

// Validate checks the input against the ranges of Clause 2.8.1, naming the field.
func (in *StockLevelInput) Validate() error {
	if err := validateHome("stock-level", "", in.WarehouseID, in.DistrictID); err != nil {
		return err
	}
	if in.Threshold < MinStockLevelThreshold || in.Threshold > MaxStockLevelThreshold {
		return fmt.Errorf("stock-level: Threshold %d outside [%d, %d]", in.Threshold, MinStockLevelThreshold, MaxStockLevelThreshold)
	}
	return nil
}

// StockLevelResult is what a Stock-Level reports.
type StockLevelResult struct {
	LowStock int // distinct items of the last 20 orders below the threshold
	Retries  int
}

// StockLevelOrders is how many of a district's latest orders Stock-Level examines (Clause 2.8.2.2).
const StockLevelOrders = 20

// StockLevelWindow is the O_IDs Stock-Level examines, from ≤ O_ID < to, given D_NEXT_O_ID.
func StockLevelWindow(nextOrderID int) (from, to int) {
	return nextOrderID - StockLevelOrders, nextOrderID
}
