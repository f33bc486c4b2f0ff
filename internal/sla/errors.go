package sla

import (
	"fmt"
	"math"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Each transaction type's errors are bounded by MaxErrorPercent of that type's own attempts
// (completed + failed), beside the bound on all types together: a 4 % type could otherwise fail
// a quarter of its attempts inside 1 % of all transactions.
//
// The bound is counted in whole transactions, and a single error is always tolerated when the
// bound is above zero: below 100/MaxErrorPercent attempts (100 at 1 %) the percentage allows
// less than one error, so one error cannot show that the type's error rate exceeds it — two can.
// A one-warehouse, ten-minute step attempts about a dozen Deliveries: one lost connection passes
// there, two fail.

// typeErrorsWithin says whether errors of attempts keep within maxPercent by the rule above.
func typeErrorsWithin(errors, attempts int64, maxPercent float64) bool {
	return errors <= 0 || (errors == 1 && maxPercent > 0) || snapshot.Percent(errors, attempts) <= maxPercent
}

// typeErrorChecks applies the per-type error bound to every transaction type.
func typeErrorChecks(sum snapshot.Summary, maxPercent float64) []Check {
	var checks []Check
	for _, t := range snapshot.Transactions {
		ts := sum.Transactions[t]
		checks = append(checks, typeErrorCheck(t, ts.Errors, ts.Completed+ts.Errors, maxPercent))
	}
	return checks
}

func typeErrorCheck(t snapshot.Transaction, errors, attempts int64, maxPercent float64) Check {
	name := fmt.Sprintf("errors %s", t)
	detail := fmt.Sprintf("%s %.3f%% (%d of %d attempts)", name, snapshot.Percent(errors, attempts), errors, attempts)
	switch {
	case !typeErrorsWithin(errors, attempts, maxPercent):
		return Check{Name: name, Status: Fail, Detail: fmt.Sprintf("%s > %g%%", detail, maxPercent)}
	case errors == 1 && snapshot.Percent(errors, attempts) > maxPercent:
		return Check{Name: name, Status: Pass, Detail: fmt.Sprintf("%s: a single error, tolerated below the %.0f attempts at which %g%% allows one",
			detail, math.Ceil(100/maxPercent), maxPercent)}
	}
	return Check{Name: name, Status: Pass, Detail: fmt.Sprintf("%s ≤ %g%%", detail, maxPercent)}
}
