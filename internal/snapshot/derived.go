package snapshot

import "time"

// SpecTpmCPerWarehouse is the TPC-C ceiling of New-Orders per minute per
// warehouse with 10 terminals, spec keying and think times and zero response
// time (Clause 4.1; research/tpcc-rules.md §1.4). Efficiency is measured
// against it, as CockroachDB, go-tpc and YDB print it.
const SpecTpmCPerWarehouse = 12.86

// TerminalsPerWarehouse is the TPC-C terminal count of a warehouse (Clause 4.1).
const TerminalsPerWarehouse = 10

// Summary holds the figures derived from a merge.
//
// TpmC, the primary figure, counts every completed New-Order: committed ones
// and the 1 % that roll back by design. The rolled-back ones are completed
// business transactions — the terminal receives "Item number is not valid"
// (Clause 2.4.2.3) — and CockroachDB's and go-tpc's tpmC count them, so the
// primary figure is comparable with theirs. TpmCCommitted excludes them, as
// YDB's CLI and benchbase do; it is reported alongside for comparison with
// those tools (research/tpcc-rules.md §1.7). EfficiencyPercent uses TpmC.
type Summary struct {
	MeasuredSeconds            float64 `json:"measuredSeconds"`
	ActiveWarehouses           int     `json:"activeWarehouses"`
	TpmC                       float64 `json:"tpmC"`
	TpmCCommitted              float64 `json:"tpmCCommitted"`
	EfficiencyPercent          float64 `json:"efficiencyPercent"`
	EfficiencyCommittedPercent float64 `json:"efficiencyCommittedPercent"`

	Transactions map[Transaction]TransactionSummary `json:"transactions"`
	// MixPercent is each type's share of all completed transactions.
	MixPercent     map[Transaction]float64 `json:"mixPercent"`
	TotalCompleted int64                   `json:"totalCompleted"`
	TotalErrors    int64                   `json:"totalErrors"`
	// ErrorPercent is errors over attempted transactions (completed + errors).
	ErrorPercent float64     `json:"errorPercent"`
	Audit        AuditRatios `json:"audit"`
}

// TransactionSummary is one type's counts and response-time percentiles. A
// percentile is the sample at its nearest rank (NearestRank) over the completed
// transactions, read as the highest value of the HDR bucket holding it: at
// most 1/128 (0.8 %) above the recorded value (HistogramMaxRelativeError).
type TransactionSummary struct {
	Completed int64 `json:"completed"`
	Commits   int64 `json:"commits"`
	Rollbacks int64 `json:"rollbacks"`
	Errors    int64 `json:"errors"`
	Retries   int64 `json:"retries"`
	P50Micros int64 `json:"p50Micros"`
	P90Micros int64 `json:"p90Micros"`
	P95Micros int64 `json:"p95Micros"`
	P99Micros int64 `json:"p99Micros"`
	MaxMicros int64 `json:"maxMicros"`
}

// AuditRatios are the Clause 9.2 audit figures with their denominators; a
// ratio whose denominator is zero is reported as 0.
type AuditRatios struct {
	NewOrders                    int64                       `json:"newOrders"` // completed, including rollbacks
	NewOrderRollbacks            int64                       `json:"newOrderRollbacks"`
	NewOrderRollbackPercent      float64                     `json:"newOrderRollbackPercent"`
	OrderLines                   int64                       `json:"orderLines"`
	RemoteOrderLines             int64                       `json:"remoteOrderLines"`
	RemoteOrderLinePercent       float64                     `json:"remoteOrderLinePercent"`
	OrdersWithLineCount          int64                       `json:"ordersWithLineCount"` // Σ audit.orderLineCounts
	MeanOrderLines               float64                     `json:"meanOrderLines"`
	OrderLineCountPercent        [OrderLineCountsLen]float64 `json:"orderLineCountPercent"`
	Payments                     int64                       `json:"payments"`
	RemotePayments               int64                       `json:"remotePayments"`
	RemotePaymentPercent         float64                     `json:"remotePaymentPercent"`
	PaymentsByLastName           int64                       `json:"paymentsByLastName"`
	PaymentByLastNamePercent     float64                     `json:"paymentByLastNamePercent"`
	OrderStatuses                int64                       `json:"orderStatuses"`
	OrderStatusByLastName        int64                       `json:"orderStatusByLastName"`
	OrderStatusByLastNamePercent float64                     `json:"orderStatusByLastNamePercent"`
	DeliveryDistricts            int64                       `json:"deliveryDistricts"` // delivered + skipped
	SkippedDeliveryDistricts     int64                       `json:"skippedDeliveryDistricts"`
	SkippedDeliveryPercent       float64                     `json:"skippedDeliveryPercent"`
}

// Summarize derives the figures of m.
func (m *Merged) Summarize() Summary {
	s := Summary{
		MeasuredSeconds:  m.Measured.Seconds(),
		ActiveWarehouses: m.ActiveWarehouses,
		Transactions:     make(map[Transaction]TransactionSummary, len(Transactions)),
		MixPercent:       make(map[Transaction]float64, len(Transactions)),
	}
	newOrder := m.Transactions[NewOrder]
	s.TpmC = PerMinute(newOrder.Completed(), m.Measured)
	s.TpmCCommitted = PerMinute(newOrder.Commits, m.Measured)
	s.EfficiencyPercent = EfficiencyPercent(s.TpmC, m.ActiveWarehouses)
	s.EfficiencyCommittedPercent = EfficiencyPercent(s.TpmCCommitted, m.ActiveWarehouses)

	for _, t := range Transactions {
		mt := m.Transactions[t]
		h := mt.Histogram
		s.Transactions[t] = TransactionSummary{
			Completed: mt.Completed(), Commits: mt.Commits, Rollbacks: mt.Rollbacks,
			Errors: mt.Errors, Retries: mt.Retries,
			P50Micros: ValueAtNearestRank(h, 50), P90Micros: ValueAtNearestRank(h, 90), P95Micros: ValueAtNearestRank(h, 95),
			P99Micros: ValueAtNearestRank(h, 99), MaxMicros: ValueAtNearestRank(h, 100),
		}
		s.TotalCompleted += mt.Completed()
		s.TotalErrors += mt.Errors
	}
	for _, t := range Transactions {
		s.MixPercent[t] = Percent(m.Transactions[t].Completed(), s.TotalCompleted)
	}
	s.ErrorPercent = Percent(s.TotalErrors, s.TotalCompleted+s.TotalErrors)
	s.Audit = m.auditRatios()
	return s
}

func (m *Merged) auditRatios() AuditRatios {
	a := m.Audit
	r := AuditRatios{
		NewOrders:                m.Transactions[NewOrder].Completed(),
		NewOrderRollbacks:        m.Transactions[NewOrder].Rollbacks,
		RemoteOrderLines:         a.RemoteOrderLines,
		Payments:                 m.Transactions[Payment].Completed(),
		RemotePayments:           a.RemotePayments,
		PaymentsByLastName:       a.PaymentsByLastName,
		OrderStatuses:            m.Transactions[OrderStatus].Completed(),
		OrderStatusByLastName:    a.OrderStatusByLastName,
		SkippedDeliveryDistricts: a.SkippedDeliveryDistricts,
	}
	r.NewOrderRollbackPercent = Percent(m.Transactions[NewOrder].Rollbacks, r.NewOrders)
	for i, n := range a.OrderLineCounts {
		r.OrdersWithLineCount += n
		r.OrderLines += int64(MinOrderLines+i) * n
	}
	for i, n := range a.OrderLineCounts {
		r.OrderLineCountPercent[i] = Percent(n, r.OrdersWithLineCount)
	}
	if r.OrdersWithLineCount > 0 {
		r.MeanOrderLines = float64(r.OrderLines) / float64(r.OrdersWithLineCount)
	}
	r.RemoteOrderLinePercent = Percent(a.RemoteOrderLines, r.OrderLines)
	r.RemotePaymentPercent = Percent(a.RemotePayments, r.Payments)
	r.PaymentByLastNamePercent = Percent(a.PaymentsByLastName, r.Payments)
	r.OrderStatusByLastNamePercent = Percent(a.OrderStatusByLastName, r.OrderStatuses)
	r.DeliveryDistricts = a.DeliveredDistricts + a.SkippedDeliveryDistricts
	r.SkippedDeliveryPercent = Percent(a.SkippedDeliveryDistricts, r.DeliveryDistricts)
	return r
}

// PerMinute returns count per minute of interval, 0 for an empty interval.
func PerMinute(count int64, interval time.Duration) float64 {
	if interval <= 0 {
		return 0
	}
	return float64(count) / interval.Minutes()
}

// EfficiencyPercent is 100·tpmC / (12.86·active warehouses), 0 without warehouses.
func EfficiencyPercent(tpmC float64, activeWarehouses int) float64 {
	if activeWarehouses <= 0 {
		return 0
	}
	return 100 * tpmC / (SpecTpmCPerWarehouse * float64(activeWarehouses))
}

// Percent returns 100·part/whole, 0 when whole is 0.
func Percent(part, whole int64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}
