package tpcc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Ledger counts, per district of a process's home warehouses, the New-Order commits the
// database acknowledged and those whose outcome is unknown (the connection broke, or the run's
// context ended, while COMMIT was in flight). It covers every New-Order of the process's
// terminals from the first to the last, ramp-up and stopping included, so it can be compared
// with the database read before the terminals start and after they all returned.
//
// The hot path is one uncontended atomic add: terminal i owns row i (only it writes there), and
// rows are padded so that neighbouring terminals do not share a cache line. A reader sums the
// ten rows of each warehouse.
type Ledger struct {
	from, to int
	rows     []ledgerRow
}

type ledgerRow struct {
	acked   [DistrictsPerWarehouse]atomic.Int64
	unknown [DistrictsPerWarehouse]atomic.Int64
	_       [64]byte
}

// NewLedger returns an empty ledger for the terminals of home warehouses from..to (10 per
// warehouse, terminal i's home warehouse is from + i/10).
func NewLedger(from, to int) *Ledger {
	return &Ledger{from: from, to: to, rows: make([]ledgerRow, DistrictsPerWarehouse*max(to-from+1, 0))}
}

// NewOrderOutcome is what a New-Order's end means for the ledger.
type NewOrderOutcome uint8

const (
	NewOrderNotCommitted  NewOrderOutcome = iota // rolled back or failed before COMMIT: the database holds nothing of it
	NewOrderAcknowledged                         // COMMIT succeeded
	NewOrderCommitUnknown                        // the connection or context ended during COMMIT: it may have committed
)

// Record adds one New-Order of terminal's district (1..10) to the ledger. Only the terminal's own
// goroutine calls it for its row.
func (l *Ledger) Record(terminal, district int, o NewOrderOutcome) {
	if l == nil || district < 1 || district > DistrictsPerWarehouse || terminal < 0 || terminal >= len(l.rows) {
		return
	}
	r := &l.rows[terminal]
	switch o {
	case NewOrderAcknowledged:
		r.acked[district-1].Add(1)
	case NewOrderCommitUnknown:
		r.unknown[district-1].Add(1)
	}
}

// Districts returns the ledger per district, ordered by warehouse then district; every district
// of the range is present, with zeros where nothing happened.
func (l *Ledger) Districts() []snapshot.LedgerDistrict {
	if l == nil {
		return nil
	}
	out := make([]snapshot.LedgerDistrict, 0, DistrictsPerWarehouse*(l.to-l.from+1))
	for w := l.from; w <= l.to; w++ {
		base := (w - l.from) * DistrictsPerWarehouse
		for d := 1; d <= DistrictsPerWarehouse; d++ {
			e := snapshot.LedgerDistrict{WarehouseID: w, DistrictID: d}
			for t := base; t < base+DistrictsPerWarehouse; t++ {
				e.Acknowledged += l.rows[t].acked[d-1].Load()
				e.Unknown += l.rows[t].unknown[d-1].Load()
			}
			out = append(out, e)
		}
	}
	return out
}

// DistrictCounts is the database's side of the ledger for one district: D_NEXT_O_ID and the
// number of ORDER rows.
type DistrictCounts struct {
	WarehouseID int   `json:"warehouseID"`
	DistrictID  int   `json:"districtID"`
	NextOrderID int64 `json:"nextOrderID"`
	Orders      int64 `json:"orders"`
}

// LedgerDistrictResult is the check of one district.
type LedgerDistrictResult struct {
	WarehouseID  int   `json:"warehouseID"`
	DistrictID   int   `json:"districtID"`
	Acknowledged int64 `json:"acknowledged"`
	Unknown      int64 `json:"unknown"`
	// NextOrderIDGrowth and OrdersGrowth are after − before.
	NextOrderIDGrowth int64  `json:"nextOrderIDGrowth"`
	OrdersGrowth      int64  `json:"ordersGrowth"`
	Pass              bool   `json:"pass"`
	Reason            string `json:"reason,omitempty"`
}

// LedgerVerdict is the outcome of the ledger check over a process's districts.
type LedgerVerdict struct {
	Pass bool `json:"pass"`
	// Districts is every district checked; Failed the failing ones, in order.
	Districts []LedgerDistrictResult `json:"districts"`
	Failed    []LedgerDistrictResult `json:"failed,omitempty"`
	// Totals over all districts.
	Acknowledged int64 `json:"acknowledged"`
	Unknown      int64 `json:"unknown"`
	Growth       int64 `json:"growth"` // Σ growth of d_next_o_id
}

// Error names the first failing district and its counts, nil when the check passed.
func (v *LedgerVerdict) Error() error {
	if v.Pass {
		return nil
	}
	msgs := make([]string, 0, min(len(v.Failed), 3))
	for i, f := range v.Failed {
		if i == 3 {
			msgs = append(msgs, fmt.Sprintf("and %d more districts", len(v.Failed)-3))
			break
		}
		msgs = append(msgs, f.Reason)
	}
	return fmt.Errorf("ledger check failed in %d of %d districts: %s", len(v.Failed), len(v.Districts), strings.Join(msgs, "; "))
}

// CheckLedger compares the ledger with the database read before and after: for every district,
// the growth of D_NEXT_O_ID and the growth of the orders present must both lie in
// [acknowledged, acknowledged + unknown] — an acknowledged commit that is missing fails, as does
// a commit nobody asked for — and must equal each other (every order number given out belongs to
// an order that is present). A district of the ledger missing from either reading fails.
func CheckLedger(ledger []snapshot.LedgerDistrict, before, after []DistrictCounts) LedgerVerdict {
	type key struct{ w, d int }
	index := func(cs []DistrictCounts) map[key]DistrictCounts {
		m := make(map[key]DistrictCounts, len(cs))
		for _, c := range cs {
			m[key{c.WarehouseID, c.DistrictID}] = c
		}
		return m
	}
	b, a := index(before), index(after)
	sorted := append([]snapshot.LedgerDistrict(nil), ledger...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].WarehouseID != sorted[j].WarehouseID {
			return sorted[i].WarehouseID < sorted[j].WarehouseID
		}
		return sorted[i].DistrictID < sorted[j].DistrictID
	})
	v := LedgerVerdict{Pass: true, Districts: make([]LedgerDistrictResult, 0, len(sorted))}
	for _, l := range sorted {
		r := LedgerDistrictResult{WarehouseID: l.WarehouseID, DistrictID: l.DistrictID, Acknowledged: l.Acknowledged, Unknown: l.Unknown, Pass: true}
		name := fmt.Sprintf("district w_id=%d d_id=%d", l.WarehouseID, l.DistrictID)
		k := key{l.WarehouseID, l.DistrictID}
		bc, okB := b[k]
		ac, okA := a[k]
		switch {
		case !okB || !okA:
			r.Pass = false
			r.Reason = fmt.Sprintf("%s: not in the database reading (before %t, after %t)", name, okB, okA)
		default:
			r.NextOrderIDGrowth = ac.NextOrderID - bc.NextOrderID
			r.OrdersGrowth = ac.Orders - bc.Orders
			r.Pass, r.Reason = judgeDistrict(name, r)
		}
		v.Acknowledged += r.Acknowledged
		v.Unknown += r.Unknown
		v.Growth += r.NextOrderIDGrowth
		v.Districts = append(v.Districts, r)
		if !r.Pass {
			v.Pass = false
			v.Failed = append(v.Failed, r)
		}
	}
	return v
}

// judgeDistrict is the verdict on one district's counts; reason names the district and counts.
func judgeDistrict(name string, r LedgerDistrictResult) (bool, string) {
	lo, hi := r.Acknowledged, r.Acknowledged+r.Unknown
	counts := fmt.Sprintf("acknowledged %d, unknown %d, d_next_o_id grew by %d, orders grew by %d",
		r.Acknowledged, r.Unknown, r.NextOrderIDGrowth, r.OrdersGrowth)
	switch {
	case r.NextOrderIDGrowth < lo || r.OrdersGrowth < lo:
		return false, fmt.Sprintf("%s lost acknowledged commits: %s", name, counts)
	case r.NextOrderIDGrowth > hi || r.OrdersGrowth > hi:
		return false, fmt.Sprintf("%s has more new orders than acknowledged + unknown commits: %s", name, counts)
	case r.NextOrderIDGrowth != r.OrdersGrowth:
		return false, fmt.Sprintf("%s: d_next_o_id and the orders present grew differently: %s", name, counts)
	}
	return true, ""
}

// ReadDistrictCounts reads D_NEXT_O_ID and the ORDER rows of every district of warehouses
// from..to in one read-only snapshot, through a driver whose Capabilities().Ledger is set.
func ReadDistrictCounts(ctx context.Context, d Driver, url string, from, to int) ([]DistrictCounts, error) {
	if !LedgerSupported(d) {
		return nil, fmt.Errorf("the ledger check is not implemented for engine %s", d.Name())
	}
	if from < 1 || to < from {
		return nil, errors.New("ledger: empty warehouse range")
	}
	return d.ReadDistrictCounts(ctx, url, from, to)
}

// LedgerSupported reports whether ReadDistrictCounts works for d.
func LedgerSupported(d Driver) bool { return d.Capabilities().Ledger }
