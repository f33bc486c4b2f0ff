package report

import (
	"html"
	"strings"
	"testing"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
)

// The report knows no engine: the tests describe databases as the operator does, through the
// registry of engines.

// described is a run as the operator records it: its database described by its engine.
func described(run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
	return registry.Default().Described(run)
}

// describe is a database spec as its engine describes it.
func describe(db benchv1.DatabaseSpec) benchv1.DatabaseDescription {
	return registry.Default().Describe(db)
}

// mustCompare is Compare with the suite's databases described by their engines.
func mustCompare(in Input) Comparison {
	in.Descriptions = registry.Default().Descriptions(in.Spec.Databases)
	c, err := Compare(in)
	if err != nil {
		panic(err)
	}
	return c
}

func mustCompareRuns(runs []*benchv1.BenchmarkRun, generated time.Time) Comparison {
	c, err := CompareRuns(runs, generated)
	if err != nil {
		panic(err)
	}
	return c
}

// A run whose status does not describe its database is never reported as some engine: the report
// says the description is missing. A comparison of a database without a description is an error
// naming it.
func TestUndescribedDatabasesAreNotGuessed(t *testing.T) {
	run := run20()
	run.Spec.Database = benchv1.DatabaseSpec{Engine: "YugabyteDB"}
	md := RunMarkdown(run, *run.Status.Result)
	if !strings.Contains(md, "Durability: "+NotDescribed+".") || strings.Contains(md, "Durability: a commit waits for") {
		t.Errorf("an undescribed run's durability: %s", md[:min(len(md), 800)])
	}
	page := RunHTML(RunInput{Run: run, Result: *run.Status.Result, Generated: t0})
	if !strings.Contains(page, html.EscapeString(NotDescribed)) {
		t.Error("the HTML report of an undescribed run does not say its database is not described")
	}
	spec := benchv1.BenchmarkSuiteSpec{Databases: []benchv1.SuiteDatabase{{Name: "yb", Database: benchv1.DatabaseSpec{Engine: "YugabyteDB"}}}}
	_, err := Compare(Input{Suite: "s", Spec: spec})
	if err == nil || err.Error() != "database yb (engine YugabyteDB) has no description: the report knows no engine of its own" {
		t.Errorf("Compare without descriptions: %v", err)
	}
	if _, err := CompareRuns([]*benchv1.BenchmarkRun{run}, t0); err == nil {
		t.Error("CompareRuns of an undescribed run: no error")
	}
}
