package tpcc

// Condition is one consistency condition of Clause 3.3.2. A driver evaluates it over a range of
// warehouses and reports the first offending row: its place (warehouse, then district/customer/
// order ids) and the values that disagree, by name.
type Condition struct {
	ID       string // "3.3.2.1" …, or "cardinality"
	Name     string
	LoadOnly bool // valid only before the first Delivery (3.3.2.11)
}

// Conditions lists every check, in clause order after the cardinalities.
var Conditions = []Condition{
	{ID: "cardinality", Name: "fixed table sizes per warehouse (district 10, customer 30000, stock 100000; orders, history >= 30000)"},
	{ID: "3.3.2.1", Name: "W_YTD = sum(D_YTD)"},
	{ID: "3.3.2.2", Name: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)"},
	{ID: "3.3.2.3", Name: "max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER) per district"},
	{ID: "3.3.2.4", Name: "sum(O_OL_CNT) = count(ORDER-LINE) per district"},
	{ID: "3.3.2.5", Name: "O_CARRIER_ID is null iff a NEW-ORDER row exists"},
	{ID: "3.3.2.6", Name: "O_OL_CNT = count(ORDER-LINE) per order"},
	{ID: "3.3.2.7", Name: "OL_DELIVERY_D is null iff O_CARRIER_ID is null"},
	{ID: "3.3.2.8", Name: "W_YTD = sum(H_AMOUNT) per warehouse"},
	{ID: "3.3.2.9", Name: "D_YTD = sum(H_AMOUNT) per district"},
	{ID: "3.3.2.10", Name: "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) per customer"},
	{ID: "3.3.2.11", Name: "count(ORDER) - count(NEW-ORDER) = 2100 per district", LoadOnly: true},
	{ID: "3.3.2.12", Name: "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) per customer"},
}
