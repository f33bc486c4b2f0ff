package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/chunked"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/results"
)

func reportCommand(o *options) *cobra.Command {
	var format, file string
	var rf resultsFlags
	var fromResults bool
	cmd := &cobra.Command{
		Use:   "report NAME",
		Short: "A run's or a suite's report as HTML (self-contained), Markdown or JSON; a deleted run's from the results database",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if fromResults {
				return reportFromResults(cmd.Context(), o, &rf, args[0], format, file)
			}
			k, err := connect(o.config, o.all)
			if err != nil {
				return err
			}
			t, err := k.find(cmd.Context(), args[0])
			if codeOf(err) == exitNotFound && rf.named() {
				// Deleted since (or never here): its rows in the results database still are.
				return reportFromResults(cmd.Context(), o, &rf, args[0], format, file)
			}
			if err != nil {
				return err
			}
			var out []byte
			var incomplete string
			if t.run != nil {
				out, incomplete, err = runReport(cmd.Context(), k, t.run, format, o.now())
			} else {
				out, incomplete, err = suiteReport(cmd.Context(), k, t.suite, format, o.now())
			}
			if err != nil {
				return err
			}
			if err := o.write(file, out); err != nil {
				return err
			}
			if incomplete != "" {
				return withCode(exitIncomplete, "%s", incomplete)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&format, "output", "o", formatMarkdown, "html, md or json")
	cmd.Flags().StringVarP(&file, "filename", "f", "", "write the report to this file instead of stdout")
	cmd.Flags().BoolVar(&fromResults, "from-results", false, "render the run from the results database even while it exists in the cluster")
	rf.register(cmd)
	return cmd
}

// dbReport is -o json of a run rendered from the results database: its spec and status as last
// written there.
type dbReport struct {
	SchemaVersion       int                        `json:"schemaVersion"`
	FromResultsDatabase bool                       `json:"fromResultsDatabase"`
	Run                 string                     `json:"run"`
	Namespace           string                     `json:"namespace"`
	UID                 string                     `json:"uid"`
	Phase               benchv1.Phase              `json:"phase"`
	Spec                benchv1.BenchmarkRunSpec   `json:"spec"`
	Result              benchv1.Result             `json:"result"`
	Status              benchv1.BenchmarkRunStatus `json:"status"`
	Generated           time.Time                  `json:"generated"`
}

// reportFromResults renders a run's report from the results database alone — the same renderer,
// the run's spec and status and its steps' series as recorded — so a deleted run's report is the
// page it had (docs/results.md).
func reportFromResults(ctx context.Context, o *options, rf *resultsFlags, name, format, file string) error {
	conn, uid, err := o.findRecordedRun(ctx, rf, name)
	if err != nil {
		return err
	}
	defer conn.Close()
	run, series, err := results.LoadRun(ctx, conn.Conn, uid)
	if err != nil {
		return resultsError(err)
	}
	now := o.now()
	run = registry.Default().Described(run) // recorded before descriptions were: its spec describes it
	result := report.PartialResult(run)
	var out []byte
	switch format {
	case formatJSON:
		body, err := json.MarshalIndent(dbReport{SchemaVersion: 2, FromResultsDatabase: true, Run: run.Name, Namespace: run.Namespace, UID: uid,
			Phase: run.Status.Phase, Spec: run.Spec, Result: result, Status: run.Status, Generated: now.UTC()}, "", "  ")
		if err != nil {
			return err
		}
		out = append(body, '\n')
	case formatMarkdown:
		out = []byte(report.RunMarkdown(run, result))
	default:
		out = []byte(report.RunHTML(report.RunInput{Run: run, Result: result, Series: series, Generated: now}))
	}
	fmt.Fprintf(o.stderr, "from the results database: BenchmarkRun %s/%s (uid %s)\n", run.Namespace, run.Name, uid)
	if err := o.write(file, out); err != nil {
		return err
	}
	if !report.Final(run.Status.Phase) {
		return withCode(exitIncomplete, "BenchmarkRun %s/%s was %s when last recorded: the report holds what was recorded", run.Namespace, run.Name, phaseOf(run.Status.Phase))
	}
	return nil
}

// partialReport is -o json of a run without a report ConfigMap yet: its status so far.
type partialReport struct {
	SchemaVersion int                        `json:"schemaVersion"`
	Partial       bool                       `json:"partial"`
	Run           string                     `json:"run"`
	Namespace     string                     `json:"namespace"`
	Phase         benchv1.Phase              `json:"phase"`
	Spec          benchv1.BenchmarkRunSpec   `json:"spec"`
	Result        benchv1.Result             `json:"result"`
	Status        benchv1.BenchmarkRunStatus `json:"status"`
	Generated     time.Time                  `json:"generated"`
}

// runReport renders a run's report from its status and series (the report ConfigMap's
// series.json.gz, else the steps' series ConfigMaps); -o json is report.json as the operator wrote it.
func runReport(ctx context.Context, k *cluster, run *benchv1.BenchmarkRun, format string, now time.Time) ([]byte, string, error) {
	run = registry.Default().Described(run) // not deployed yet, or by an operator before descriptions: its spec describes it
	incomplete := ""
	if !report.Final(run.Status.Phase) {
		incomplete = fmt.Sprintf("BenchmarkRun %s/%s is %s: the report holds what is recorded so far", run.Namespace, run.Name, phaseOf(run.Status.Phase))
	}
	name := run.Name + "-report"
	if run.Status.Report != nil {
		name = run.Status.Report.ConfigMapName
	}
	cm, err := k.configMap(ctx, run.Namespace, name)
	if err != nil {
		return nil, "", err
	}
	if format != formatJSON {
		if run, err = k.withStepDetail(ctx, run, true); err != nil {
			return nil, "", err
		}
	}
	result := report.PartialResult(run)
	switch format {
	case formatJSON:
		if cm != nil && cm.Data["report.json"] != "" {
			return []byte(cm.Data["report.json"]), incomplete, nil
		}
		body, err := json.MarshalIndent(partialReport{SchemaVersion: 2, Partial: true, Run: run.Name, Namespace: run.Namespace, Phase: run.Status.Phase,
			Spec: run.Spec, Result: result, Status: run.Status, Generated: now.UTC()}, "", "  ")
		return append(body, '\n'), incomplete, err
	case formatMarkdown:
		return []byte(report.RunMarkdown(run, result)), incomplete, nil
	}
	in := report.RunInput{Run: run, Result: result, Generated: now}
	if cm != nil && len(cm.BinaryData["series.json.gz"]) > 0 {
		if in.Series, err = measure.DecodeSeriesReport(cm.BinaryData["series.json.gz"]); err != nil {
			return nil, "", fmt.Errorf("ConfigMap %s: %w", name, err)
		}
	} else if in.Series, err = stepSeries(ctx, k, run); err != nil {
		return nil, "", err
	}
	return []byte(report.RunHTML(in)), incomplete, nil
}

// stepSeries gathers the steps' series ConfigMaps (<run>-step-N-series), the current step's too.
func stepSeries(ctx context.Context, k *cluster, run *benchv1.BenchmarkRun) (*measure.SeriesReport, error) {
	indexes := []int32{}
	for _, s := range run.Status.Steps {
		indexes = append(indexes, s.Index)
	}
	if c := run.Status.Current; c != nil {
		indexes = append(indexes, c.Index)
	}
	out := &measure.SeriesReport{SchemaVersion: 1}
	for _, i := range indexes {
		name := fmt.Sprintf("%s-step-%d-series", run.Name, i)
		cm, err := k.configMap(ctx, run.Namespace, name)
		if err != nil {
			return nil, err
		}
		if cm == nil || len(cm.BinaryData["series.json.gz"]) == 0 {
			continue
		}
		// A long step's series spans several ConfigMaps (internal/chunked).
		body, err := chunked.Join(cm, "series.json.gz", func(part string) (*corev1.ConfigMap, error) { return k.configMap(ctx, run.Namespace, part) })
		if err != nil {
			return nil, err
		}
		s, err := measure.DecodeStepSeries(body, i)
		if err != nil {
			return nil, fmt.Errorf("ConfigMap %s: %w", name, err)
		}
		out.Steps = append(out.Steps, *s)
	}
	if len(out.Steps) == 0 {
		return nil, nil
	}
	return out, nil
}

// suiteReport renders a suite's comparison: comparison.json from <suite>-comparison (computed
// from the suite's status while that does not exist yet), the runs' steps for the curves.
func suiteReport(ctx context.Context, k *cluster, suite *benchv1.BenchmarkSuite, format string, now time.Time) ([]byte, string, error) {
	name := suite.Name + "-comparison"
	if suite.Status.Report != nil {
		name = suite.Status.Report.ConfigMapName
	}
	cm, err := k.configMap(ctx, suite.Namespace, name)
	if err != nil {
		return nil, "", err
	}
	var c report.Comparison
	if cm != nil && cm.Data["comparison.json"] != "" {
		if err := json.Unmarshal([]byte(cm.Data["comparison.json"]), &c); err != nil {
			return nil, "", fmt.Errorf("ConfigMap %s comparison.json: %w", name, err)
		}
	} else {
		c, err = report.Compare(report.Input{Suite: suite.Name, Namespace: suite.Namespace, Spec: suite.Spec, Runs: suite.Status.Runs, Generated: now,
			Descriptions: registry.Default().Descriptions(suite.Spec.Databases)})
		if err != nil {
			return nil, "", err
		}
	}
	incomplete := ""
	if !c.Complete {
		incomplete = fmt.Sprintf("BenchmarkSuite %s/%s has %d of %d runs ended: the comparison holds those so far", suite.Namespace, suite.Name, c.RunsDone, c.RunsPlanned)
	}
	switch format {
	case formatJSON:
		body, err := report.JSON(c)
		return append(body, '\n'), incomplete, err
	case formatMarkdown:
		return []byte(report.Markdown(c)), incomplete, nil
	}
	var curves []report.Curve
	for _, r := range c.Runs {
		run, err := k.run(ctx, suite.Namespace, r.Name)
		if codeOf(err) == exitNotFound {
			continue // deleted since, or not started: no curve
		}
		if err != nil {
			return nil, "", err
		}
		curves = append(curves, report.Curve{Run: r.Name, Database: r.Database, Steps: run.Status.Steps})
	}
	return []byte(report.ComparisonHTML(c, curves)), incomplete, nil
}
