package sla

import (
	"fmt"
	"math"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// AuditSigmas sets when an audit window is judged. The inputs behind the
// audits are random draws (1 % rollbacks, 15 % remote payments, …), so a
// faithful driver's measured ratio scatters around the nominal rate; on a
// small sample it leaves the window by chance (0.9–1.1 % rollbacks on 4 500
// New-Orders is ±0.7 σ: a faithful driver fails half the time). A window is
// therefore judged only when the distance from the nominal rate to the
// window's nearest edge is at least AuditSigmas standard deviations of the
// sample, so a faithful driver fails an audit with probability below 1e-4,
// and only once the step has MinAuditTransactions completed transactions
// (CockroachDB's rule). Below either the check is skipped, naming the count it
// has and the count it needs (tooFew, gated).
const AuditSigmas = 4.0

// auditWindow is one Clause 9.2 window on a ratio of two counters.
type auditWindow struct {
	name     string
	clause   string
	nominal  float64 // the rate the inputs are drawn at, as a fraction
	low      float64 // window, as a fraction; low 0 means "at most high"
	high     float64
	unit     string // what the denominator counts, for "too few …"
	variance float64
}

// minSample is the denominator at which the window's nearest edge is
// AuditSigmas standard deviations from the nominal rate.
func (w auditWindow) minSample() int64 {
	halfWidth := w.high - w.nominal
	if w.low > 0 {
		halfWidth = math.Min(halfWidth, w.nominal-w.low)
	}
	variance := w.variance
	if variance == 0 {
		variance = w.nominal * (1 - w.nominal) // a Bernoulli draw per counted item
	}
	return int64(math.Ceil(AuditSigmas * AuditSigmas * variance / (halfWidth * halfWidth)))
}

var (
	rollbackWindow   = auditWindow{name: "New-Order rollbacks", clause: "9.2.2.5.1", nominal: 0.01, low: 0.009, high: 0.011, unit: "New-Orders"}
	remoteLineWindow = auditWindow{name: "remote order lines", clause: "9.2.2.5.3", nominal: 0.01, low: 0.0095, high: 0.0105, unit: "order lines"}
	remotePayWindow  = auditWindow{name: "remote payments", clause: "9.2.2.5.4", nominal: 0.15, low: 0.14, high: 0.16, unit: "Payments"}
	payByNameWindow  = auditWindow{name: "Payments by last name", clause: "9.2.2.5.5", nominal: 0.60, low: 0.57, high: 0.63, unit: "Payments"}
	osByNameWindow   = auditWindow{name: "Order-Status by last name", clause: "9.2.2.5.6", nominal: 0.60, low: 0.57, high: 0.63, unit: "Order-Statuses"}
	// Order-line counts are uniform on 5..15: mean 10, variance (11²−1)/12 = 10.
	meanLinesWindow = auditWindow{name: "mean order lines", clause: "9.2.2.5.2", nominal: 10, low: 9.5, high: 10.5, unit: "New-Orders", variance: 10}
)

// The skipped-delivery bound depends on the data (districts with nothing to
// deliver), not on a draw of the driver; it is judged from the
// MinAuditTransactions floor alone.
const maxSkippedDeliveryPercent = 1.0

func auditChecks(sum snapshot.Summary, minTransactions int64) []Check {
	a := sum.Audit
	enough := sum.TotalCompleted >= minTransactions
	checks := []Check{
		ratioCheck(rollbackWindow, a.NewOrderRollbacks, a.NewOrders, enough, sum.TotalCompleted, minTransactions),
		ratioCheck(remoteLineWindow, a.RemoteOrderLines, a.OrderLines, enough, sum.TotalCompleted, minTransactions),
		meanLinesCheck(a, enough, sum.TotalCompleted, minTransactions),
		ratioCheck(remotePayWindow, a.RemotePayments, a.Payments, enough, sum.TotalCompleted, minTransactions),
		ratioCheck(payByNameWindow, a.PaymentsByLastName, a.Payments, enough, sum.TotalCompleted, minTransactions),
		ratioCheck(osByNameWindow, a.OrderStatusByLastName, a.OrderStatuses, enough, sum.TotalCompleted, minTransactions),
	}
	name := "audit skipped deliveries (9.2.1.7)"
	switch {
	case !enough:
		checks = append(checks, gated(name, sum.TotalCompleted, minTransactions))
	case a.DeliveryDistricts == 0:
		checks = append(checks, Check{Name: name, Status: Fail, Detail: name + ": no delivery district processed"})
	case a.SkippedDeliveryPercent <= maxSkippedDeliveryPercent:
		checks = append(checks, Check{Name: name, Status: Pass, Detail: fmt.Sprintf("%s %.3f%% ≤ %g%%", name, a.SkippedDeliveryPercent, maxSkippedDeliveryPercent)})
	default:
		checks = append(checks, Check{Name: name, Status: Fail, Detail: fmt.Sprintf("%s %.3f%% > %g%%", name, a.SkippedDeliveryPercent, maxSkippedDeliveryPercent)})
	}
	return checks
}

func ratioCheck(w auditWindow, part, whole int64, enough bool, total, minTransactions int64) Check {
	name := fmt.Sprintf("audit %s (%s)", w.name, w.clause)
	if !enough {
		return gated(name, total, minTransactions)
	}
	if need := w.minSample(); whole < need {
		return tooFew(name, whole, need, w.unit)
	}
	ratio := float64(part) / float64(whole)
	detail := fmt.Sprintf("%s %.3f%% (%d of %d %s)", name, 100*ratio, part, whole, w.unit)
	if ratio >= w.low && ratio <= w.high {
		return Check{Name: name, Status: Pass, Detail: fmt.Sprintf("%s in %.4g–%.4g%%", detail, 100*w.low, 100*w.high)}
	}
	return Check{Name: name, Status: Fail, Detail: fmt.Sprintf("%s outside %.4g–%.4g%%", detail, 100*w.low, 100*w.high)}
}

func meanLinesCheck(a snapshot.AuditRatios, enough bool, total, minTransactions int64) Check {
	w := meanLinesWindow
	name := fmt.Sprintf("audit %s (%s)", w.name, w.clause)
	if !enough {
		return gated(name, total, minTransactions)
	}
	if need := w.minSample(); a.OrdersWithLineCount < need {
		return tooFew(name, a.OrdersWithLineCount, need, w.unit)
	}
	detail := fmt.Sprintf("%s %.3f over %d %s", name, a.MeanOrderLines, a.OrdersWithLineCount, w.unit)
	if a.MeanOrderLines >= w.low && a.MeanOrderLines <= w.high {
		return Check{Name: name, Status: Pass, Detail: fmt.Sprintf("%s in %g–%g", detail, w.low, w.high)}
	}
	return Check{Name: name, Status: Fail, Detail: fmt.Sprintf("%s outside %g–%g", detail, w.low, w.high)}
}

// tooFew is a check skipped because its own sample is too small: have of the need units it
// takes to judge it.
func tooFew(name string, have, need int64, unit string) Check {
	return Check{Name: name, Status: Skipped,
		Detail:   fmt.Sprintf("%s: skipped: too few %s (%d, %d needed)", name, unit, have, need),
		unjudged: fmt.Sprintf("%s not checked (%d %s, %d needed)", name, have, unit, need)}
}

// gated is a mix or audit check skipped because the step completed fewer than
// Criteria.MinAuditTransactions transactions: every such check shares one Unjudged line.
func gated(name string, completed, minTransactions int64) Check {
	return Check{Name: name, Status: Skipped,
		Detail:   fmt.Sprintf("%s: skipped: too few transactions (%d, %d needed)", name, completed, minTransactions),
		unjudged: fmt.Sprintf("mix minimums and audit windows not checked (%d transactions, %d needed)", completed, minTransactions)}
}
