package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// slaFlags are the SLA criteria a run or search is judged against.
type slaFlags struct {
	bounds        string
	p90           map[snapshot.Transaction]*time.Duration
	minEfficiency float64
	maxErrors     float64
}

// kebab spells a transaction as in flag names: NewOrder → new-order.
func kebab(t snapshot.Transaction) string {
	var b strings.Builder
	for i, r := range string(t) {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('-')
		}
		b.WriteRune(r | 0x20)
	}
	return b.String()
}

func (f *slaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.bounds, "sla", "", "latency bounds TYPE:PERCENTILE:MAX, comma-separated, replacing the TPC-C defaults, "+
		"e.g. 'NewOrder:90:5s,Payment:99:1s' (percentile in (0,100))")
	f.p90 = map[snapshot.Transaction]*time.Duration{}
	for _, t := range snapshot.Transactions {
		f.p90[t] = new(time.Duration)
		fs.DurationVar(f.p90[t], "sla-p90-"+kebab(t), 0, "90th-percentile bound of "+string(t)+" (overrides --sla and the default for it)")
	}
	fs.Float64Var(&f.minEfficiency, "min-efficiency", sla.DefaultMinEfficiencyPercent, "minimum efficiency, percent of 12.86 tpmC per active warehouse")
	fs.Float64Var(&f.maxErrors, "max-error-percent", sla.DefaultMaxErrorPercent, "maximum share of transactions failing after their retries, percent")
}

// criteria builds the SLA criteria from the flags, naming the flag of any problem.
func (f *slaFlags) criteria() (sla.Criteria, error) {
	c := sla.DefaultCriteria()
	c.MinEfficiencyPercent, c.MaxErrorPercent = f.minEfficiency, f.maxErrors
	if f.bounds != "" {
		bounds, err := parseLatencyBounds(f.bounds)
		if err != nil {
			return c, fmt.Errorf("--sla: %w", err)
		}
		c.Latency = bounds
	}
	for _, t := range snapshot.Transactions {
		if d := *f.p90[t]; d != 0 {
			if d < 0 {
				return c, fmt.Errorf("--sla-p90-%s: %v, must be > 0", kebab(t), d)
			}
			c.Latency = setBound(c.Latency, sla.LatencyBound{Transaction: t, Percentile: 90, Max: d})
		}
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

// setBound replaces the bound of the same transaction and percentile, or appends b.
func setBound(bounds []sla.LatencyBound, b sla.LatencyBound) []sla.LatencyBound {
	for i := range bounds {
		if bounds[i].Transaction == b.Transaction && bounds[i].Percentile == b.Percentile {
			bounds[i] = b
			return bounds
		}
	}
	return append(bounds, b)
}

// parseLatencyBounds reads "NewOrder:90:5s,Payment:99.9:1s".
func parseLatencyBounds(s string) ([]sla.LatencyBound, error) {
	var out []sla.LatencyBound
	for i, item := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(item), ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("bound %d %q: want TYPE:PERCENTILE:MAX, e.g. NewOrder:90:5s", i+1, item)
		}
		t := snapshot.Transaction(parts[0])
		if !t.Valid() {
			return nil, fmt.Errorf("bound %d: unknown transaction %q (want one of %v)", i+1, parts[0], snapshot.Transactions)
		}
		p, err := strconv.ParseFloat(strings.TrimPrefix(parts[1], "p"), 64)
		if err != nil || !(p > 0 && p < 100) {
			return nil, fmt.Errorf("bound %d: percentile %q must be a number in (0, 100)", i+1, parts[1])
		}
		d, err := time.ParseDuration(parts[2])
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("bound %d: max %q must be a positive duration such as 5s or 250ms", i+1, parts[2])
		}
		out = append(out, sla.LatencyBound{Transaction: t, Percentile: p, Max: d})
	}
	return out, nil
}
