package tpcc

import (
	"errors"
	"fmt"
)

// Payment (Clause 2.5): its input, its output and the rules of its profile that do not depend on
// how an engine reads and writes the rows; the selection of a customer by last name is shared
// with Order-Status.

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

// Validate checks the input against the ranges of Clause 2.5.1, naming the field.
func (in *PaymentInput) Validate() error {
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

// PaymentResult is what a Payment reports to its terminal.
type PaymentResult struct {
	CustomerID     int  // the customer paid for (resolved when selected by name)
	RemoteCustomer bool // the customer's warehouse is not the terminal's
	ByLastName     bool
	BadCredit      bool // C_CREDIT = "BC": C_DATA was updated
	Retries        int
}

// BadCredit is C_CREDIT of a customer with bad credit, whose C_DATA a Payment rewrites.
const BadCredit = "BC"

// CustomerDataMax is the length of C_DATA (Clause 1.3.1): the rewritten text is cut there.
const CustomerDataMax = 500

// BadCreditData is the new C_DATA of a bad-credit customer (Clause 2.5.2.2): C_ID, C_D_ID,
// C_W_ID, D_ID, W_ID and H_AMOUNT in front of the old C_DATA, cut to CustomerDataMax characters.
func BadCreditData(in *PaymentInput, customerID int, old string) string {
	s := fmt.Sprintf("%d %d %d %d %d %d.%02d | %s", customerID, in.CustomerDistrictID, in.CustomerWarehouseID,
		in.DistrictID, in.WarehouseID, in.AmountCents/100, in.AmountCents%100, old)
	if len(s) > CustomerDataMax {
		s = s[:CustomerDataMax]
	}
	return s
}

// HistoryData is H_DATA: W_NAME and D_NAME separated by four spaces (Clause 2.5.2.2).
func HistoryData(warehouseName, districtName string) string {
	return warehouseName + "    " + districtName
}

// MiddlePosition is the 1-based position of the customer a selection by last name picks among n
// customers sorted by C_FIRST: ⌈n/2⌉ (Clause 2.5.2.2, 2.6.2.2); 0 when n is 0.
func MiddlePosition(n int) int { return (n + 1) / 2 }

// MiddleCustomer picks the customer at MiddlePosition of ids, ordered by C_FIRST; false when ids
// is empty.
func MiddleCustomer(ids []int) (int, bool) {
	if len(ids) == 0 {
		return 0, false
	}
	return ids[MiddlePosition(len(ids))-1], true
}

// ErrCustomerNotFound is returned when a customer selector names no customer. With a loaded
// database it means the data or the input is wrong: every C_ID 1..3000 and every last name
// exists in every district.
var ErrCustomerNotFound = errors.New("customer not found")

// CustomerNotFound is ErrCustomerNotFound naming the selector.
func CustomerNotFound(w, d int, sel CustomerSelector) error {
	return fmt.Errorf("%w: %s", ErrCustomerNotFound, DescribeCustomer(w, d, sel))
}

// DescribeCustomer names a selected customer in errors.
func DescribeCustomer(w, d int, sel CustomerSelector) string {
	if sel.ByLastName {
		return fmt.Sprintf("customer W %d D %d C_LAST %q", w, d, sel.LastName)
	}
	return fmt.Sprintf("customer W %d D %d C_ID %d", w, d, sel.ID)
}
