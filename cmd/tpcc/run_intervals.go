package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// writeIntervals prints the time series as a compact table: one row per interval, the measured
// New-Order and Payment counts and p90, errors, late starts and pool waits, and with telemetry
// the largest replay lag, WAL rate, checkpoints started and sessions waiting on SyncRep.
func writeIntervals(w io.Writer, res stepResult) {
	s := res.intervals
	if s == nil || len(s.Items) == 0 {
		return
	}
	merged, err := snapshot.MergeIntervals([]*snapshot.Intervals{s})
	if err != nil {
		fmt.Fprintf(w, "\ntime series: %v\n", err)
		return
	}
	telemetry := false
	for _, iv := range s.Items {
		telemetry = telemetry || iv.Telemetry != nil
	}
	fmt.Fprintf(w, "\ntime series: %d intervals of %gs from the start of ramp-up", len(s.Items), s.LengthSeconds)
	if s.Released > 0 || s.Dropped > 0 {
		fmt.Fprintf(w, " (%d collected by a reader, %d dropped uncollected)", s.Released, s.Dropped)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%5s %7s %6s %8s %6s %8s %6s %5s %6s", "i", "t", "NO", "NO p90", "Pay", "Pay p90", "errors", "late", "pool")
	if telemetry {
		fmt.Fprintf(w, " %-16s %9s %5s %7s", "max replay lag", "WAL MB/s", "ckpt", "SyncRep")
	}
	fmt.Fprintln(w)
	for i, m := range merged {
		iv := s.Items[i]
		no, pay := m.Transactions[snapshot.NewOrder], m.Transactions[snapshot.Payment]
		var errs int64
		for _, t := range snapshot.Transactions {
			errs += m.Transactions[t].Errors
		}
		tag := ""
		if no.Completed()+pay.Completed() == 0 && (m.Unmeasured[snapshot.NewOrder].Completed()+m.Unmeasured[snapshot.Payment].Completed()) > 0 {
			tag = "*" // outside the measured interval (ramp-up or after it)
		}
		fmt.Fprintf(w, "%5d %6.0fs %6d %8s %6d %8s %6d %5d %6d", m.Index, iv.Start.Sub(s.Origin).Seconds(), no.Completed(),
			ms(p90(no))+tag, pay.Completed(), ms(p90(pay)), errs, m.Client.LateStarts, m.Client.PoolWaits)
		if telemetry {
			writeTelemetryCells(w, m.Telemetry)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "(* no measured transaction: ramp-up or after the end; NO/Pay count measured completions by completion time")
	if telemetry {
		fmt.Fprintln(w, " ckpt: checkpoints started in the interval, + one running at its end)")
	} else {
		fmt.Fprintln(w, ")")
	}
	for _, l := range res.standbys {
		fmt.Fprintf(w, "standby %s: largest replay lag %s\n", l.Standby, l.ReplayLag.Round(1e6))
	}
}

func p90(t *snapshot.MergedTransaction) int64 {
	if t.Histogram == nil || t.Histogram.TotalCount() == 0 {
		return 0
	}
	return snapshot.ValueAtNearestRank(t.Histogram, 90)
}

func writeTelemetryCells(w io.Writer, t *snapshot.Telemetry) {
	if t == nil || t.Error != "" {
		msg := "-"
		if t != nil {
			msg = "error"
		}
		fmt.Fprintf(w, " %-16s", msg)
		return
	}
	lag := "-"
	if s, ok := t.MaxReplayLag(); ok {
		lag = fmt.Sprintf("%s %.2fs", s.Name, s.ReplayLagSeconds)
	}
	wal, ckpt, syncRep := "-", "-", "-"
	if t.WALBytesPerSecond != nil {
		wal = fmt.Sprintf("%.2f", *t.WALBytesPerSecond/1e6)
	}
	if c := t.Checkpoints; c != nil {
		ckpt = fmt.Sprint(c.Started)
		if c.InProgress {
			ckpt += "+"
		}
	}
	if t.Sessions != nil {
		syncRep = fmt.Sprint(t.Sessions.SyncRep)
	}
	fmt.Fprintf(w, " %-16s %9s %5s %7s", strings.TrimSpace(lag), wal, ckpt, syncRep)
}
