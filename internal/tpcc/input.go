package tpcc

import "fmt"

// The inputs of the five transactions, as a terminal keys them (Clauses 2.4.1–2.8.1). They are
// plain values: the executors read them and never change them.

// UnusedItemID is the item id New-Order uses for its 1 % rollbacks (Clause 2.4.1.5.1): one past
// the last item, so it can never exist.
const UnusedItemID = Items + 1

// CustomerSelector names a customer either by C_ID or by C_LAST (Clauses 2.5.1.2, 2.6.1.2).
type CustomerSelector struct {
	ByLastName bool
	ID         int    // when !ByLastName
	LastName   string // when ByLastName
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
