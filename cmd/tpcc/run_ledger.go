package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/k6ext"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// ledgerReport is what --ledger-check read and decided.
type ledgerReport struct {
	Baseline []tpcc.DistrictCounts `json:"baseline"`
	After    []tpcc.DistrictCounts `json:"after"`
	Verdict  tpcc.LedgerVerdict    `json:"verdict"`
}

// ledgerAfterTimeout bounds how long the final reading waits for the database to accept
// connections again (a failover at the very end of the run).
const ledgerAfterTimeout = time.Minute

// checkLedger takes the final reading, once every terminal has returned, and judges the ledger
// against the baseline. An error means the reading could not be taken.
func checkLedger(ctx context.Context, cfg k6ext.Config, baseline []tpcc.DistrictCounts, ledger []snapshot.LedgerDistrict, stderr io.Writer) (*ledgerReport, error) {
	deadline := time.Now().Add(ledgerAfterTimeout)
	var after []tpcc.DistrictCounts
	for {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		var err error
		after, err = tpcc.ReadDistrictCounts(rctx, cfg.Engine, cfg.URL, cfg.From, cfg.To)
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return nil, fmt.Errorf("--ledger-check: final reading: %s", snapshot.RedactCredentials(err.Error()))
		}
		fmt.Fprintf(stderr, "tpcc run: --ledger-check: final reading failed, retrying: %s\n", snapshot.RedactCredentials(err.Error()))
		time.Sleep(time.Second)
	}
	return &ledgerReport{Baseline: baseline, After: after, Verdict: tpcc.CheckLedger(ledger, baseline, after)}, nil
}

// writeLedger prints the check's outcome in the human summary.
func writeLedger(w io.Writer, r *ledgerReport) {
	if r == nil {
		return
	}
	v := r.Verdict
	status := "PASS"
	if !v.Pass {
		status = "FAIL"
	}
	fmt.Fprintf(w, "\nledger check: %s — %d districts, New-Orders acknowledged %d, outcome unknown %d, d_next_o_id grew by %d\n",
		status, len(v.Districts), v.Acknowledged, v.Unknown, v.Growth)
	for _, f := range v.Failed {
		fmt.Fprintf(w, "  - %s\n", f.Reason)
	}
}

// publishedLedgerCheck is the check as the snapshot serves it to the operator: the totals and
// the first failing districts, or why no check was made.
func publishedLedgerCheck(r *ledgerReport, err error) *snapshot.LedgerCheck {
	if r == nil {
		msg := "no reading"
		if err != nil {
			msg = err.Error()
		}
		return &snapshot.LedgerCheck{Error: snapshot.RedactCredentials(msg)}
	}
	v := r.Verdict
	c := &snapshot.LedgerCheck{Pass: v.Pass, Districts: len(v.Districts), Acknowledged: v.Acknowledged, Unknown: v.Unknown, Growth: v.Growth}
	for i, f := range v.Failed {
		if i == 10 {
			c.Failures = append(c.Failures, fmt.Sprintf("and %d more districts", len(v.Failed)-10))
			break
		}
		c.Failures = append(c.Failures, f.Reason)
	}
	return c
}
