package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/k6ext"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// restsOn names the steps (1-based, as printed) a finished search's answer rests on.
func restsOn(d search.Decision) string {
	var parts []string
	for _, i := range []int{d.CompliantStep, d.NonCompliantStep} {
		if i >= 0 {
			parts = append(parts, fmt.Sprint(i+1))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " and ")
}

var searchCommand = command{name: "search", summary: "find the largest compliant active-warehouse count (guided search with short probes, or line search), one measured run per step", run: runSearch}

// maxSearchSteps bounds a search; the line search over 1..N needs about 2·log2(N) steps.
const maxSearchSteps = 64

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	sp, code, ok := parseSearch(args, stderr)
	if !ok {
		return code
	}
	return sp.run(ctx, stdout, stderr)
}

// searchSetup is a search as its flags set it up.
type searchSetup struct {
	f             runFlags
	cfg           k6ext.Config
	criteria      sla.Criteria
	params        search.Params
	probeDuration time.Duration
	retries       int
	k6Args        []string
}

// parseSearch reads and checks the search's flags; on a problem it reports it and returns the
// exit code with ok false.
func parseSearch(args []string, stderr io.Writer) (sp *searchSetup, code int, ok bool) {
	sp = &searchSetup{}
	fs := newFlagSet("search", stderr)
	sp.f.register(fs)
	start := fs.Int("start", 0, "first active-warehouse count to try (default the middle of 1..--warehouses)")
	precision := fs.Int("precision", 0, "stop when the bracket is this narrow (default max(1, warehouses/200))")
	strategy := fs.String("strategy", "guided", "guided: estimate the boundary from each step's figures, narrow it with short probe steps, confirm with full-length steps | line: tpccbench's line search, every step full-length")
	probe := fs.Duration("probe-duration", 0, "measured interval of the guided search's probe steps (default a fifth of --duration; with --wait spec at least 30s, one New-Order cycle)")
	retries := fs.Int("retries", 2, "run an inconclusive step (it failed to run, or data a criterion needs is missing) again at the same count up to this many times in a row, then stop")
	ownArgs, k6Args := splitAtDoubleDash(args)
	if code, ok := parse(fs, ownArgs); !ok {
		return nil, code, false
	}
	for _, name := range []string{"active-warehouses", "shard", "shards", "from", "to", "paused", "linger"} {
		if isSet(fs, name) {
			fmt.Fprintf(stderr, "tpcc search: --%s is chosen by the search (each step drives warehouses 1..active in this process)\n", name)
			return nil, exitBadInput, false
		}
	}
	cfg, criteria, err := sp.f.config(fs)
	if err == nil && *start < 0 {
		err = fmt.Errorf("--start must be >= 0, got %d", *start)
	}
	if err == nil && *precision < 0 {
		err = fmt.Errorf("--precision must be >= 0, got %d", *precision)
	}
	if err == nil && (*retries < 0 || *retries > 10) {
		err = fmt.Errorf("--retries must be between 0 and 10, got %d", *retries)
	}
	var strat search.Strategy
	switch *strategy {
	case "guided":
		strat = search.Guided
	case "line":
		strat = search.LineSearch
	default:
		if err == nil {
			err = fmt.Errorf("--strategy must be guided or line, got %q", *strategy)
		}
	}
	// As the operator's: with spec waits a probe holds at least one New-Order cycle.
	floor := time.Second
	if cfg.Wait == snapshot.WaitSpec {
		floor = tpcc.MinSpecProbe
	}
	probeDuration := *probe
	if probeDuration == 0 {
		probeDuration = min(max(cfg.Duration/5, floor), cfg.Duration)
	}
	switch {
	case err != nil:
	case isSet(fs, "probe-duration") && strat != search.Guided:
		err = fmt.Errorf("--probe-duration applies only to --strategy guided")
	case probeDuration < time.Second || probeDuration > cfg.Duration:
		err = fmt.Errorf("--probe-duration must be between 1s and --duration (%v), got %v", cfg.Duration, probeDuration)
	case probeDuration < floor:
		err = fmt.Errorf("--probe-duration %v is below %v with --wait spec: one New-Order cycle (18s keying + 12s mean think time) must fit in a probe", probeDuration, floor)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tpcc search: %v\n", err)
		return nil, exitBadInput, false
	}
	sp.cfg, sp.criteria, sp.probeDuration, sp.retries, sp.k6Args = cfg, criteria, probeDuration, *retries, k6Args
	sp.params = search.Params{Mode: search.MaxCompliant, Strategy: strat, Warehouses: cfg.Warehouses, Start: *start, Precision: *precision,
		Probes: probeDuration < cfg.Duration, MinEfficiencyPercent: criteria.MinEfficiencyPercent, MaxErrorPercent: criteria.MaxErrorPercent}
	return sp, 0, true
}

// run runs the search's steps one after the other, each a measured run in this process, until
// the search is done; it prints one line per step and the result.
func (sp *searchSetup) run(ctx context.Context, stdout, stderr io.Writer) int {
	var steps []search.StepOutcome
	var searched time.Duration
	inconclusive := 0
	fmt.Fprintf(stdout, "%-5s %-5s %9s %7s %10s %11s %9s %-9s %s\n", "step", "kind", "measured", "active", "tpmC", "efficiency", "p/bound", "compliant", "reasons")
	for i := 1; ; i++ {
		d, err := search.Next(sp.params, steps)
		if err != nil {
			fmt.Fprintf(stderr, "tpcc search: %v\n", err)
			return exitError
		}
		if d.Done {
			fmt.Fprintf(stdout, "\nresult: max compliant active warehouses %d (%s)\n", d.MaxCompliant, d.Reason)
			fmt.Fprintf(stdout, "rests on full-length steps %s; the search took %v of steps (ramp-ups included)\n", restsOn(d), searched)
			if d.MaxCompliant == 0 {
				return exitSLAFailed
			}
			return exitCompliant
		}
		if i > maxSearchSteps || ctx.Err() != nil {
			fmt.Fprintf(stderr, "tpcc search: stopped after %d steps (bracket %d..%d)\n", i-1, d.HighestCompliant, d.LowestNonCompliant)
			return exitError
		}
		step := sp.cfg
		step.ActiveWarehouses, step.From, step.To, step.Connections = d.Run, 1, d.Run, sp.f.connections
		if d.Kind == search.Probe {
			step.Duration = sp.probeDuration
		}
		searched += step.RampUp + step.Duration
		stepCriteria := sp.criteria
		stepCriteria.UnmeasuredBoundsSkipped = d.Kind == search.Probe
		res := runStep(ctx, stepOptions{cfg: step, criteria: stepCriteria, listen: sp.f.listen, controlToken: sp.f.controlToken, k6Args: sp.k6Args}, stderr)
		res.linger()
		compliant := res.err == nil && res.verdict.Compliant
		reasons := strings.Join(res.verdict.Reasons, "; ")
		if res.err != nil {
			reasons = "run failed: " + res.err.Error()
		}
		// A step that failed to run or lacks data is inconclusive, as in the operator: no
		// evidence, run again at the same count, up to --retries times in a row.
		if res.err != nil || res.verdict.Inconclusive {
			fmt.Fprintf(stdout, "%-5d %-5s %9v %7d %10.1f %10.2f%% %9s %-9s %s\n", i, d.Kind, step.Duration, d.Run, res.summary.TpmC, res.summary.EfficiencyPercent, "-", "inconclusive", reasons)
			if inconclusive++; inconclusive > sp.retries {
				fmt.Fprintf(stderr, "tpcc search: the step at %d active warehouses was inconclusive %d times in a row (--retries %d): no capacity from it\n", d.Run, inconclusive, sp.retries)
				return exitError
			}
			continue
		}
		inconclusive = 0
		outcome := search.StepOutcome{ActiveWarehouses: d.Run, Compliant: compliant, Kind: d.Kind}
		if res.err == nil && res.final != nil && res.summary.TotalCompleted > 0 {
			if merged, err := snapshot.Merge([]*snapshot.Snapshot{res.final}); err == nil {
				outcome.Measured = true
				outcome.EfficiencyPercent, outcome.ErrorPercent = res.summary.EfficiencyPercent, res.summary.ErrorPercent
				outcome.LatencyRatio = sla.LatencyRatio(merged, sp.criteria)
			}
		}
		fmt.Fprintf(stdout, "%-5d %-5s %9v %7d %10.1f %10.2f%% %9.3f %-9v %s\n", i, d.Kind, step.Duration, d.Run, res.summary.TpmC, res.summary.EfficiencyPercent, outcome.LatencyRatio, compliant, reasons)
		steps = append(steps, outcome)
	}
}
