package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// writeSummary prints the human summary of a finished run.
func writeSummary(w io.Writer, res stepResult) {
	s, v, snap := res.summary, res.verdict, res.final
	if snap == nil {
		return
	}
	id := snap.Identity
	fmt.Fprintf(w, "\nTPC-C run: %s, warehouses %d-%d of %d active (%d loaded), %d terminals, wait %s, measured %.1fs, phase %s\n",
		id.Engine, id.WarehouseFrom, id.WarehouseTo, id.ActiveWarehouses, id.Warehouses, id.Terminals, id.Wait, s.MeasuredSeconds, snap.Phase)
	if snap.Message != "" {
		fmt.Fprintf(w, "message: %s\n", snap.Message)
	}
	if id.WarehouseFrom != 1 || id.WarehouseTo != id.ActiveWarehouses {
		fmt.Fprintf(w, "shard: figures and verdict below cover this process's %d warehouses only; the step's verdict is the merge of all shards\n",
			id.WarehouseTo-id.WarehouseFrom+1)
	}
	fmt.Fprintf(w, "tpmC %.1f (committed only %.1f), efficiency %.2f%% (committed only %.2f%%) of 12.86 tpmC x %d warehouses\n",
		s.TpmC, s.TpmCCommitted, s.EfficiencyPercent, s.EfficiencyCommittedPercent, s.ActiveWarehouses)
	fmt.Fprintf(w, "\n%-12s %9s %6s %9s %7s %7s %9s %9s %9s %9s %9s\n",
		"transaction", "completed", "mix%", "rollbacks", "errors", "retries", "p50", "p90", "p95", "p99", "max")
	for _, t := range snapshot.Transactions {
		ts := s.Transactions[t]
		fmt.Fprintf(w, "%-12s %9d %6.2f %9d %7d %7d %9s %9s %9s %9s %9s\n", t, ts.Completed, s.MixPercent[t], ts.Rollbacks,
			ts.Errors, ts.Retries, ms(ts.P50Micros), ms(ts.P90Micros), ms(ts.P95Micros), ms(ts.P99Micros), ms(ts.MaxMicros))
	}
	a := s.Audit
	fmt.Fprintf(w, "\naudit: rollbacks %.2f%% of new-orders, remote lines %.2f%%, lines/order %.2f, remote payments %.2f%%, "+
		"payments by name %.2f%%, order-status by name %.2f%%, skipped deliveries %.2f%%; errors %.3f%%\n",
		a.NewOrderRollbackPercent, a.RemoteOrderLinePercent, a.MeanOrderLines, a.RemotePaymentPercent,
		a.PaymentByLastNamePercent, a.OrderStatusByLastNamePercent, a.SkippedDeliveryPercent, s.ErrorPercent)
	c := snap.Constants
	fmt.Fprintf(w, "constants: C-Load %d, C-Run %d (delta %d), C_ID %d, OL_I_ID %d; versions: client %s, k6 %s, server %s\n",
		c.CLastLoad, c.CLastRun, abs(c.CLastRun-c.CLastLoad), c.CCustomerID, c.CItemID,
		snap.Versions.Client, snap.Versions.K6, firstLine(snap.Versions.EngineServer))
	writeIntervals(w, res)
	writeLedger(w, res.ledger)
	verdict := "COMPLIANT"
	switch {
	case v.Inconclusive:
		verdict = "INCONCLUSIVE (nothing failed, but missing data leaves a criterion unjudged)"
	case !v.Compliant:
		verdict = "NOT COMPLIANT"
	}
	fmt.Fprintf(w, "\nSLA verdict: %s\n", verdict)
	for _, r := range v.Reasons {
		fmt.Fprintf(w, "  - %s\n", r)
	}
	for _, n := range v.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	for _, u := range v.Unjudged {
		fmt.Fprintf(w, "  unjudged: %s\n", u)
	}
}

func ms(micros int64) string {
	if micros == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fms", float64(micros)/1000)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, " on ")
	return s
}
