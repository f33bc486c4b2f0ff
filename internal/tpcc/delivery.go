package tpcc

import "fmt"

// Delivery (Clause 2.7): its input, its output and how its outcome counts the districts.

// DeliveryInput is the input of one Delivery (Clause 2.7.1): all ten districts of the warehouse.
type DeliveryInput struct {
	WarehouseID int
	CarrierID   int
}

// Validate checks the input against the ranges of Clause 2.7.1, naming the field.
func (in *DeliveryInput) Validate() error {
	if in.WarehouseID < 1 {
		return fmt.Errorf("delivery: WarehouseID %d must be >= 1", in.WarehouseID)
	}
	if in.CarrierID < MinCarrierID || in.CarrierID > MaxCarrierID {
		return fmt.Errorf("delivery: CarrierID %d outside [%d, %d]", in.CarrierID, MinCarrierID, MaxCarrierID)
	}
	return nil
}

// DeliveryResult is what a Delivery reports: each of the ten districts is either delivered or
// skipped (no undelivered order, Clause 2.7.4.2).
type DeliveryResult struct {
	Delivered int
	Skipped   int
	Retries   int
}

// DeliveryOutcome is a Delivery's result from the number of districts that had a new order to
// deliver: the others are skipped (Clause 2.7.4.2).
func DeliveryOutcome(delivered int) DeliveryResult {
	return DeliveryResult{Delivered: delivered, Skipped: DistrictsPerWarehouse - delivered}
}
