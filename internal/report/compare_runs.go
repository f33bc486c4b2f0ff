package report

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// CompareRuns compares existing runs as a suite compares its databases: each run is a "database"
// named after it, with one repeat. The workload, SLA and search shown are the first run's; where
// the others differ, a note says so beside the durability and resource notes. Each run's database
// is as its status describes it; a run without a description is an error.
func CompareRuns(runs []*benchv1.BenchmarkRun, generated time.Time) (Comparison, error) {
	if len(runs) == 0 {
		return Comparison{SchemaVersion: SchemaVersion, Generated: generated.UTC()}, nil
	}
	first := runs[0]
	in := Input{Namespace: first.Namespace, Generated: generated, Descriptions: map[string]benchv1.DatabaseDescription{},
		Spec: benchv1.BenchmarkSuiteSpec{Workload: first.Spec.Workload, SLA: first.Spec.SLA, Search: first.Spec.Search, Repeats: 1}}
	for _, run := range runs {
		in.Spec.Databases = append(in.Spec.Databases, benchv1.SuiteDatabase{Name: run.Name, Database: run.Spec.Database})
		if db := run.Status.Database; db != nil && db.Description != nil {
			in.Descriptions[run.Name] = *db.Description
		}
		rec := benchv1.SuiteRunRecord{Name: run.Name, Database: run.Name, Repeat: 1, Phase: run.Status.Phase}
		if run.Status.Phase == benchv1.PhaseSucceeded {
			rec.Result = RunResult(run)
		}
		if c := failedCondition(run); c != nil {
			rec.Reason, rec.Message = c.Reason, c.Message
		}
		if run.Status.Report != nil {
			rec.Report = run.Status.Report.ConfigMapName
		}
		rec.Placement = PlacementFlags(run)
		in.Runs = append(in.Runs, rec)
	}
	c, err := Compare(in)
	if err != nil {
		return Comparison{}, err
	}
	if first.Namespace != "" {
		for _, run := range runs[1:] {
			if run.Namespace != first.Namespace {
				c.Namespace = "(several namespaces)"
			}
		}
	}
	c.Notes = append(c.Notes, specNotes(runs)...)
	return c, nil
}

// specNotes say where the runs' workloads, SLAs or searches differ from the first run's.
func specNotes(runs []*benchv1.BenchmarkRun) []string {
	var notes []string
	first := runs[0]
	differ := func(what string, same func(r *benchv1.BenchmarkRun) bool, words func(r *benchv1.BenchmarkRun) string) {
		var parts []string
		for _, r := range runs[1:] {
			if !same(r) {
				parts = append(parts, fmt.Sprintf("%s: %s", r.Name, words(r)))
			}
		}
		if len(parts) > 0 {
			notes = append(notes, fmt.Sprintf("%s differs, so the figures are not measured on equal terms: %s: %s; %s", what, first.Name, words(first), strings.Join(parts, "; ")))
		}
	}
	differ("workload", func(r *benchv1.BenchmarkRun) bool { return reflect.DeepEqual(r.Spec.Workload, first.Spec.Workload) },
		func(r *benchv1.BenchmarkRun) string { return workloadWords(r.Spec.Workload) })
	differ("SLA", func(r *benchv1.BenchmarkRun) bool { return reflect.DeepEqual(r.Spec.SLA, first.Spec.SLA) },
		func(r *benchv1.BenchmarkRun) string { return slaWords(r.Spec.SLA) })
	differ("search", func(r *benchv1.BenchmarkRun) bool { return reflect.DeepEqual(r.Spec.Search, first.Spec.Search) },
		func(r *benchv1.BenchmarkRun) string { return searchWords(r.Spec.Search) })
	return notes
}

func failedCondition(run *benchv1.BenchmarkRun) *struct{ Reason, Message string } {
	if run.Status.Phase != benchv1.PhaseFailed {
		return nil
	}
	for _, c := range run.Status.Conditions {
		if c.Type == benchv1.ConditionFailed && c.Status == "True" {
			return &struct{ Reason, Message string }{c.Reason, c.Message}
		}
	}
	return nil
}
