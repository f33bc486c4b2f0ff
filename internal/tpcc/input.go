package tpcc

import "fmt"

// The inputs of the five transactions, as a terminal keys them (Clauses 2.4.1–2.8.1). They are
// plain values: the executors read them and never change them.

// UnusedItemID is the item id New-Order uses for its 1 % rollbacks (Clause 2.4.1.5.1): one past
// the last item, so it can never exist.
const UnusedItemID = Items + 1

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

// CustomerSelector names a customer either by C_ID or by C_LAST (Clauses 2.5.1.2, 2.6.1.2).
type CustomerSelector struct {
	ByLastName bool
	ID         int    // when !ByLastName
	LastName   string // when ByLastName
}

// PaymentInput is the input of one Payment (Clause 2.5.1). The customer may belong to another
// warehouse and district than the one the payment is entered at.
type PaymentInput struct {
	WarehouseID         int
	DistrictID          int
	CustomerWarehouseID int
	CustomerDistrictID  int
	Customer            CustomerSelector
	AmountCents         int64 // H_AMOUNT in cents: exact, 100..500000
}

// RemoteCustomer reports whether the customer belongs to another warehouse.
func (in *PaymentInput) RemoteCustomer() bool { return in.CustomerWarehouseID != in.WarehouseID }

// OrderStatusInput is the input of one Order-Status (Clause 2.6.1).
type OrderStatusInput struct {
	WarehouseID int
	DistrictID  int
	Customer    CustomerSelector
}

// DeliveryInput is the input of one Delivery (Clause 2.7.1): all ten districts of the warehouse.
type DeliveryInput struct {
	WarehouseID int
	CarrierID   int
}

// StockLevelInput is the input of one Stock-Level (Clause 2.8.1).
type StockLevelInput struct {
	WarehouseID int
	DistrictID  int
	Threshold   int
}

func (in *NewOrderInput) validate() error {
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

func (in *PaymentInput) validate() error {
	if err := validateHome("payment", "", in.WarehouseID, in.DistrictID); err != nil {
		return err
	}
	if err := validateHome("payment", "Customer", in.CustomerWarehouseID, in.CustomerDistrictID); err != nil {
		return err
	}
	if in.AmountCents < MinPaymentAmountCents || in.AmountCents > MaxPaymentAmountCents {
		return fmt.Errorf("payment: AmountCents %d outside [%d, %d]", in.AmountCents, MinPaymentAmountCents, MaxPaymentAmountCents)
	}
	return in.Customer.validate("payment")
}

func (in *OrderStatusInput) validate() error {
	if err := validateHome("order-status", "", in.WarehouseID, in.DistrictID); err != nil {
		return err
	}
	return in.Customer.validate("order-status")
}

func (in *DeliveryInput) validate() error {
	if in.WarehouseID < 1 {
		return fmt.Errorf("delivery: WarehouseID %d must be >= 1", in.WarehouseID)
	}
	if in.CarrierID < MinCarrierID || in.CarrierID > MaxCarrierID {
		return fmt.Errorf("delivery: CarrierID %d outside [%d, %d]", in.CarrierID, MinCarrierID, MaxCarrierID)
	}
	return nil
}

func (in *StockLevelInput) validate() error {
	if err := validateHome("stock-level", "", in.WarehouseID, in.DistrictID); err != nil {
		return err
	}
	if in.Threshold < MinStockLevelThreshold || in.Threshold > MaxStockLevelThreshold {
		return fmt.Errorf("stock-level: Threshold %d outside [%d, %d]", in.Threshold, MinStockLevelThreshold, MaxStockLevelThreshold)
	}
	return nil
}

func (s CustomerSelector) validate(tx string) error {
	if s.ByLastName {
		if s.LastName == "" {
			return fmt.Errorf("%s: Customer.LastName is empty", tx)
		}
		return nil
	}
	if s.ID < 1 || s.ID > CustomersPerDistrict {
		return fmt.Errorf("%s: Customer.ID %d outside [1, %d]", tx, s.ID, CustomersPerDistrict)
	}
	return nil
}

// validateHome checks a (warehouse, district) pair; prefix names the fields ("" or "Customer").
func validateHome(tx, prefix string, w, d int) error {
	if w < 1 {
		return fmt.Errorf("%s: %sWarehouseID %d must be >= 1", tx, prefix, w)
	}
	if d < 1 || d > DistrictsPerWarehouse {
		return fmt.Errorf("%s: %sDistrictID %d outside [1, %d]", tx, prefix, d, DistrictsPerWarehouse)
	}
	return nil
}
