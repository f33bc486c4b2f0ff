package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/results"
)

// baselineOptions are compare's flags against a baseline from the results database.
type baselineOptions struct {
	results   resultsFlags
	baseline  string
	tolerance string
	runs      int
}

// compareBaseline compares a recorded run with its baseline from the results database — a run,
// or the runs carrying labels (their mean, with Student's t from 3) — figure by figure with each
// figure's noise (internal/report/regression.go), and fails with exitRegression naming every
// figure worse than the tolerance beyond its noise: a CI pipeline gates on it.
func compareBaseline(ctx context.Context, o *options, b *baselineOptions, value, format, file string) error {
	tolerance, err := report.ParseTolerance(b.tolerance)
	if err != nil {
		return withCode(exitUsage, "--tolerance: %v", err)
	}
	if b.runs < 1 {
		return withCode(exitUsage, "--baseline-runs must be at least 1, got %d", b.runs)
	}
	var labels map[string]string
	if strings.Contains(b.baseline, "=") {
		if labels, err = results.ParseLabels(b.baseline); err != nil {
			return withCode(exitUsage, "--baseline: %v", err)
		}
	}
	conn, uid, err := o.findRecordedRun(ctx, &b.results, value)
	if err != nil {
		return err
	}
	defer conn.Close()
	namespace := o.resultsNamespace()
	figures, ok, err := recordedFigures(ctx, conn.Conn, uid)
	if err != nil {
		return resultsError(err)
	}
	if !ok {
		return withCode(exitRunFailed, "%s has no result to compare (it did not end Succeeded with a compliant step)", value)
	}
	var baseline []report.RunFigures
	if labels != nil {
		uids, err := results.Selected(ctx, conn.Conn, labels, namespace, uid, figures.Ended, b.runs)
		if err != nil {
			return resultsError(err)
		}
		for _, u := range uids {
			f, ok, err := recordedFigures(ctx, conn.Conn, u)
			if err != nil {
				return resultsError(err)
			}
			if ok {
				baseline = append(baseline, f)
			}
		}
		if len(baseline) == 0 {
			return withCode(exitNotFound, "no run labelled %s with a result ended before %s in the results database", results.LabelString(labels), value)
		}
	} else {
		buid, err := results.FindRun(ctx, conn.Conn, b.baseline, namespace)
		if err != nil {
			return resultsError(err)
		}
		if buid == uid {
			return withCode(exitUsage, "--baseline %s is the run compared", b.baseline)
		}
		f, ok, err := recordedFigures(ctx, conn.Conn, buid)
		if err != nil {
			return resultsError(err)
		}
		if !ok {
			return withCode(exitNotFound, "the baseline %s has no result", b.baseline)
		}
		baseline = append(baseline, f)
	}
	r := report.CompareRunFigures([]report.RunFigures{figures}, baseline, tolerance)
	var out []byte
	switch format {
	case formatJSON:
		body, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		out = append(body, '\n')
	case formatMarkdown:
		out = []byte(report.RegressionMarkdown(r))
	default:
		return withCode(exitUsage, "--output %q: compare --baseline writes md or json", format)
	}
	if err := o.write(file, out); err != nil {
		return err
	}
	if regressed := r.Regressed(); len(regressed) > 0 {
		var parts []string
		for _, f := range regressed {
			parts = append(parts, f.Sentence(tolerance))
		}
		return withCode(exitRegression, "regression: %s", strings.Join(parts, "; "))
	}
	fmt.Fprintf(o.stderr, "within tolerance: no figure of %s is more than %s %% worse than %s beyond its noise\n", r.Value, strings.TrimSuffix(strings.TrimSpace(b.tolerance), "%"), r.Baseline)
	return nil
}

// recordedFigures are a recorded run's figures at its result step (report.FiguresOf), its latency
// percentiles from the step's stored histograms, ended when its status says. ok is false for a
// run without a result.
func recordedFigures(ctx context.Context, conn *pgx.Conn, uid string) (report.RunFigures, bool, error) {
	run, histograms, err := results.ResultHistograms(ctx, conn, uid)
	if err != nil {
		return report.RunFigures{}, false, err
	}
	f, ok := report.FiguresOf(run, histograms)
	if ended := results.EndedAt(run); !ended.IsZero() {
		f.Ended = ended
	}
	return f, ok, nil
}
