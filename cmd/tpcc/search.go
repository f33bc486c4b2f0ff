package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/search"
)

var searchCommand = command{name: "search", summary: "find the largest compliant active-warehouse count, one measured run per step", run: runSearch}

// maxSearchSteps bounds a search; the line search over 1..N needs about 2·log2(N) steps.
const maxSearchSteps = 64

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("search", stderr)
	var f runFlags
	f.register(fs)
	start := fs.Int("start", 0, "first active-warehouse count to try (default the middle of 1..--warehouses)")
	precision := fs.Int("precision", 0, "stop when the bracket is this narrow (default max(1, warehouses/200))")
	ownArgs, k6Args := splitAtDoubleDash(args)
	if code, ok := parse(fs, ownArgs); !ok {
		return code
	}
	for _, name := range []string{"active-warehouses", "shard", "shards", "from", "to", "paused", "linger"} {
		if isSet(fs, name) {
			fmt.Fprintf(stderr, "tpcc search: --%s is chosen by the search (each step drives warehouses 1..active in this process)\n", name)
			return exitBadInput
		}
	}
	cfg, criteria, err := f.config(fs)
	if err == nil && *start < 0 {
		err = fmt.Errorf("--start must be >= 0, got %d", *start)
	}
	if err == nil && *precision < 0 {
		err = fmt.Errorf("--precision must be >= 0, got %d", *precision)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tpcc search: %v\n", err)
		return exitBadInput
	}
	params := search.Params{Mode: search.MaxCompliant, Warehouses: cfg.Warehouses, Start: *start, Precision: *precision}
	var steps []search.StepOutcome
	fmt.Fprintf(stdout, "%-5s %7s %10s %11s %-9s %s\n", "step", "active", "tpmC", "efficiency", "compliant", "reasons")
	for i := 1; ; i++ {
		d, err := search.Next(params, steps)
		if err != nil {
			fmt.Fprintf(stderr, "tpcc search: %v\n", err)
			return exitError
		}
		if d.Done {
			fmt.Fprintf(stdout, "\nresult: max compliant active warehouses %d (%s)\n", d.MaxCompliant, d.Reason)
			if d.MaxCompliant == 0 {
				return exitSLAFailed
			}
			return exitCompliant
		}
		if i > maxSearchSteps || ctx.Err() != nil {
			fmt.Fprintf(stderr, "tpcc search: stopped after %d steps (bracket %d..%d)\n", i-1, d.HighestCompliant, d.LowestNonCompliant)
			return exitError
		}
		step := cfg
		step.ActiveWarehouses, step.From, step.To, step.Connections = d.Run, 1, d.Run, f.connections
		res := runStep(ctx, stepOptions{cfg: step, criteria: criteria, listen: f.listen, k6Args: k6Args}, stderr)
		res.linger()
		// A failed step counts as non-compliant and the search goes on (DESIGN.md §2 step 5).
		compliant := res.err == nil && res.verdict.Compliant
		reasons := strings.Join(res.verdict.Reasons, "; ")
		if res.err != nil {
			reasons = "run failed: " + res.err.Error()
		}
		fmt.Fprintf(stdout, "%-5d %7d %10.1f %10.2f%% %-9v %s\n", i, d.Run, res.summary.TpmC, res.summary.EfficiencyPercent, compliant, reasons)
		steps = append(steps, search.StepOutcome{ActiveWarehouses: d.Run, Compliant: compliant})
	}
}
