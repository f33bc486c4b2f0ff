package measure

import (
	"fmt"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// StepLedgerOf sums the New-Order ledgers of a step's pods as last read (Snapshot.LedgerTotals,
// or the per-district list a reply carries instead). The sum is complete when want pods answered
// and each had ended (PhaseDone: its terminals returned), otherwise a lower bound; nil when no
// pod answered.
func StepLedgerOf(snapshots []*snapshot.Snapshot, want int32) *benchv1.StepLedger {
	var l benchv1.StepLedger
	answered, done := 0, 0
	for _, s := range snapshots {
		if s == nil {
			continue
		}
		answered++
		t := s.LedgerTotals
		if t == nil {
			sum := snapshot.SumLedger(s.Ledger)
			t = &sum
		}
		l.Acknowledged += t.Acknowledged
		l.Unknown += t.Unknown
		if s.Phase == snapshot.PhaseDone {
			done++
		}
	}
	if answered == 0 {
		return nil
	}
	l.Complete = int32(done) == want && answered == done
	return &l
}

// RunLedgerOf judges the run's New-Order ledger: the orders the database gained between the
// run's start (start: status.load.dataset) and the check after its last step (end: the dataset
// the check read) against the New-Orders every step's pods acknowledged. Each acknowledged
// New-Order added an order, so fewer orders than acknowledged New-Orders is a lost commit. When
// every step's counts are complete, more orders than acknowledged plus unknown New-Orders is
// work no client acknowledged (an order inserted twice, a rollback that kept its order). A step
// recorded without counts (its pods never answered) leaves only the lower bound.
func RunLedgerOf(start *benchv1.DatasetStatus, end *snapshot.Dataset, steps []benchv1.StepResult) *benchv1.RunLedger {
	switch {
	case start == nil || start.Growth == nil:
		return &benchv1.RunLedger{Detail: "not checked: the dataset at the run's start was not recorded (status.load.dataset)"}
	case end == nil:
		return &benchv1.RunLedger{Detail: "not checked: the check did not read the dataset after the run's last step"}
	}
	l := &benchv1.RunLedger{Checked: true, Growth: end.Growth()["orders"] - start.Growth["orders"], Exact: true}
	for _, s := range steps {
		n := s.NewOrders
		if n == nil {
			l.Exact = false
			continue
		}
		l.Acknowledged += n.Acknowledged
		l.Unknown += n.Unknown
		l.Exact = l.Exact && n.Complete
	}
	switch {
	case l.Growth < l.Acknowledged:
		l.Detail = fmt.Sprintf("the database gained %d orders over the run, fewer than the %d New-Orders its clients acknowledged: %d acknowledged commits are missing",
			l.Growth, l.Acknowledged, l.Acknowledged-l.Growth)
	case l.Exact && l.Growth > l.Acknowledged+l.Unknown:
		l.Detail = fmt.Sprintf("the database gained %d orders over the run, more than the %d New-Orders its clients acknowledged and the %d whose commit outcome was unknown",
			l.Growth, l.Acknowledged, l.Unknown)
	case l.Exact:
		l.Pass = true
		l.Detail = fmt.Sprintf("the database gained %d orders over the run: the %d New-Orders its clients acknowledged, and %d of the %d whose commit outcome was unknown",
			l.Growth, l.Acknowledged, l.Growth-l.Acknowledged, l.Unknown)
	default:
		l.Pass = true
		l.Detail = fmt.Sprintf("the database gained %d orders over the run, at least the %d New-Orders its clients acknowledged (a lower bound: some steps' counts were read before their terminals ended)",
			l.Growth, l.Acknowledged)
	}
	return l
}
