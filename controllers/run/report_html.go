package run

import (
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

// reportHTML is the run's report.html for the report ConfigMap, within budget bytes: with the
// time-series charts when series (series.json.gz, nil when it was left out) is there and they
// fit, else without them and saying so. Empty when even that would not fit: kubectl tpcc report
// renders the page from the run's status and its series then.
func reportHTML(run *benchv1.BenchmarkRun, result benchv1.Result, series []byte, budget int) string {
	in := report.RunInput{Run: run, Result: result, Generated: time.Now().UTC(), MaxBytes: budget}
	if series == nil {
		in.SeriesNote = "series.json.gz is too large for the report ConfigMap: kubectl tpcc report " + run.Name + " -o html draws the time series from the steps' series ConfigMaps."
	} else if s, err := measure.DecodeSeriesReport(series); err != nil {
		in.SeriesNote = "series.json.gz could not be read: " + err.Error()
	} else {
		in.Series = s
	}
	page := report.RunHTML(in)
	if len(page) > budget {
		return ""
	}
	return page
}
