package sla

import (
	"strconv"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// percentileName spells a percentile as users write it: p90, p99.9.
func percentileName(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

func formatMicros(v int64) string { return formatDuration(snapshot.Micros(v)) }

// formatDuration keeps three significant digits (the histograms resolve
// values to within 0.8 %): 6.23s, 105ms, 1.23ms.
func formatDuration(d time.Duration) string {
	for _, unit := range []time.Duration{time.Hour, time.Minute, time.Second, time.Millisecond, time.Microsecond} {
		if d >= 100*unit {
			return d.Round(unit).String()
		}
		if d >= 10*unit {
			return d.Round(unit / 10).String()
		}
		if d >= unit {
			return d.Round(unit / 100).String()
		}
	}
	return d.String()
}
