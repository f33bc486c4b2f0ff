package tpcc

// Order-Status (Clause 2.6): its input and its output; the customer is selected as for Payment
// (MiddleCustomer).

// OrderStatusInput is the input of one Order-Status (Clause 2.6.1).
type OrderStatusInput struct {
	WarehouseID int
	DistrictID  int
	Customer    CustomerSelector
}

// Validate checks the input against the ranges of Clause 2.6.1, naming the field.
func (in *OrderStatusInput) Validate() error {
	if err := validateHome("order-status", "", in.WarehouseID, in.DistrictID); err != nil {
		return err
	}
	return in.Customer.validate("order-status")
}

// OrderStatusResult is what an Order-Status reports to its terminal.
type OrderStatusResult struct {
	CustomerID int
	OrderID    int // the customer's latest order; 0 when the customer has none
	Lines      int // order lines of that order
	ByLastName bool
	Retries    int
}
