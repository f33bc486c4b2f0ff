package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

func compareCommand(o *options) *cobra.Command {
	var format, file string
	var b baselineOptions
	cmd := &cobra.Command{
		Use:   "compare RUN RUN... | compare RUN --baseline RUN|KEY=VALUE [--tolerance 5%]",
		Short: "Compare existing runs as a suite compares its databases; or, with --baseline, a recorded run with earlier results, failing on a regression",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if b.baseline != "" {
				if len(args) != 1 {
					return withCode(exitUsage, "compare --baseline takes one RUN, got %d", len(args))
				}
				return compareBaseline(cmd.Context(), o, &b, args[0], format, file)
			}
			if len(args) < 2 {
				return withCode(exitUsage, "compare needs two runs or more, or one and --baseline")
			}
			if o.all {
				return withCode(exitUsage, "compare takes runs of one namespace (-n) or NAMESPACE/NAME, not -A")
			}
			k, err := connect(o.config, false)
			if err != nil {
				return err
			}
			var runs []*benchv1.BenchmarkRun
			var running []string
			for _, arg := range args {
				ns, name := k.namespace, arg
				if i := strings.IndexByte(arg, '/'); i >= 0 {
					ns, name = arg[:i], arg[i+1:]
				}
				run, err := k.run(cmd.Context(), ns, name)
				if err != nil {
					return err
				}
				runs = append(runs, registry.Default().Described(run))
				if !report.Final(run.Status.Phase) {
					running = append(running, fmt.Sprintf("%s is %s", run.Name, phaseOf(run.Status.Phase)))
				}
			}
			c, err := report.CompareRuns(runs, o.now())
			if err != nil {
				return err
			}
			var out []byte
			switch format {
			case formatJSON:
				body, err := report.JSON(c)
				if err != nil {
					return err
				}
				out = append(body, '\n')
			case formatMarkdown:
				out = []byte(report.Markdown(c))
			default:
				var curves []report.Curve
				for _, r := range runs {
					curves = append(curves, report.Curve{Run: r.Name, Database: r.Name, Steps: r.Status.Steps})
				}
				out = []byte(report.ComparisonHTML(c, curves))
			}
			if err := o.write(file, out); err != nil {
				return err
			}
			if len(running) > 0 {
				return withCode(exitIncomplete, "not every run has ended (%s): the comparison holds the results so far", strings.Join(running, ", "))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&format, "output", "o", formatMarkdown, "html, md or json (with --baseline: md or json)")
	cmd.Flags().StringVarP(&file, "filename", "f", "", "write the comparison to this file instead of stdout")
	cmd.Flags().StringVar(&b.baseline, "baseline", "", "compare RUN from the results database with this recorded run (NAME, NAMESPACE/NAME or UID), or with the runs carrying these labels (KEY=VALUE[,…]); exit code 8 on a regression")
	cmd.Flags().StringVar(&b.tolerance, "tolerance", "5%", "with --baseline: how much worse a figure may be, beyond its noise, before it is a regression")
	cmd.Flags().IntVar(&b.runs, "baseline-runs", 10, "with a label --baseline: the latest this many runs with a result (their mean; Student's t from 3)")
	b.results.register(cmd)
	return cmd
}
