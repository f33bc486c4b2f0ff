package run

import (
	"encoding/json"
	"fmt"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

// reportFit is how much of a run's detail its report ConfigMap holds.
type reportFit int

const (
	fitWhole     reportFit = iota // report.json with every step's detail, the series beside it
	fitNoSeries                   // the series stay in the steps' series ConfigMaps
	fitNoPods                     // and the steps' per-pod telemetry, placement and histograms in their step ConfigMaps
	fitStepsOnly                  // and each step's summary and verdict: report.json keeps the step records, unindented
)

// fittedReport is the report ConfigMap's content: report.json, report.md and the series when they fit.
type fittedReport struct {
	Fit    reportFit
	Data   map[string]string
	Binary map[string][]byte
}

// layoutReport is the report ConfigMap's content: report.json and report.md laid out by
// fitReport, and report.html when it fits what they leave. detailed is the run with its steps'
// per-pod lists (stepdetail.Restore), summaries the run as its status keeps it: the layouts
// that leave the per-pod lists to the steps' ConfigMaps render summaries.
func layoutReport(detailed, summaries *benchv1.BenchmarkRun, result benchv1.Result, rep reportDoc, series []byte, seriesBytes, budget int) (fittedReport, error) {
	md, mdSummaries := report.RunMarkdown(detailed, result), ""
	if summaries == detailed {
		mdSummaries = md
	} else {
		mdSummaries = report.RunMarkdown(summaries, result)
	}
	fitted, err := fitReport(detailed, rep, md, mdSummaries, series, seriesBytes, budget)
	if err != nil {
		return fittedReport{}, err
	}
	page := detailed
	if fitted.Fit >= fitNoPods {
		page = summaries
	}
	used := len(fitted.Data["report.json"]) + len(fitted.Data["report.md"]) + len(fitted.Binary[seriesKey])
	if html := reportHTML(page, result, fitted.Binary[seriesKey], budget-used); html != "" {
		fitted.Data["report.html"] = html
	}
	return fitted, nil
}

// fitReport lays out the report ConfigMap within budget bytes, shedding detail in steps
// (reportFit) until it fits: the whole detail of every step stays in the step's own ConfigMaps,
// which rep names. Past the last step it returns an error, and the run fails saying so instead of
// retrying an apply that cannot succeed.
//
// md is report.md rendered with every step's per-pod lists, mdSummaries without them (from the
// steps' summaries, as status keeps them): the layouts from fitNoPods on take mdSummaries.
// series is nil when readSeries found the steps' series too large to gather; seriesBytes is their
// compressed size either way.
func fitReport(run *benchv1.BenchmarkRun, rep reportDoc, md, mdSummaries string, series []byte, seriesBytes, budget int) (fittedReport, error) {
	var last int
	first := fitWhole
	if series == nil {
		first = fitNoSeries
	}
	for fit := first; fit <= fitStepsOnly; fit++ {
		doc := shed(run, rep, fit, seriesBytes)
		md := md
		if fit >= fitNoPods {
			md = mdSummaries
		}
		body, err := json.MarshalIndent(doc, "", "  ")
		if fit == fitStepsOnly {
			body, err = json.Marshal(doc) // unindented: a third smaller
		}
		if err != nil {
			return fittedReport{}, err
		}
		size := len(body) + len(md)
		var binary map[string][]byte
		if fit == fitWhole {
			size += len(series)
			binary = map[string][]byte{seriesKey: series}
		}
		if last = size; size <= budget {
			return fittedReport{Fit: fit, Data: map[string]string{"report.json": string(body), "report.md": md}, Binary: binary}, nil
		}
	}
	return fittedReport{}, fmt.Errorf("the report of %d steps takes %d bytes even without the steps' detail, over the %d a ConfigMap may hold",
		len(rep.Steps), last, budget)
}

// shed is rep without the detail fit leaves to the steps' own ConfigMaps.
func shed(run *benchv1.BenchmarkRun, rep reportDoc, fit reportFit, seriesBytes int) reportDoc {
	rep.Series = seriesKey
	if fit >= fitNoSeries {
		rep.Series = fmt.Sprintf("too large for the report ConfigMap (%d bytes gzipped): in the steps' ConfigMaps %s-step-N-series", seriesBytes, run.Name)
	}
	if fit < fitNoPods {
		return rep
	}
	rep.StepDetail = fmt.Sprintf("each step's per-pod telemetry and placement and its histograms: in the steps' ConfigMaps %s-step-N (step.json)", run.Name)
	if fit >= fitStepsOnly {
		rep.StepDetail = fmt.Sprintf("each step's summary, verdict, per-pod telemetry and placement and its histograms: in the steps' ConfigMaps %s-step-N (step.json)", run.Name)
	}
	steps := make([]stepData, len(rep.Steps))
	for i, s := range rep.Steps {
		s.Step = withoutPods(s.Step)
		s.Histograms = nil
		if fit >= fitStepsOnly {
			s = stepData{Step: s.Step}
		}
		steps[i] = s
	}
	rep.Steps = steps
	return rep
}

// withoutPods is a step record without its per-pod lists (telemetry, placement), whose
// step-wide figures it keeps. The placement's list is left empty, not absent: the CRD requires it,
// and the API server refuses a status whose shed steps lack it.
func withoutPods(s benchv1.StepResult) benchv1.StepResult {
	if s.Telemetry != nil {
		t := *s.Telemetry
		t.Pods = nil
		s.Telemetry = &t
	}
	if s.Placement != nil {
		p := *s.Placement
		p.Pods = []benchv1.PodPlacementRecord{}
		s.Placement = &p
	}
	return s
}
