package report

import (
	"strings"
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// boundSuite is a suite of 300 loaded warehouses whose databases ended with these results, one
// run each (a nil bound: a result recorded before bounds existed).
func boundSuite(results map[string]*benchv1.SuiteRunResult) Comparison {
	spec := benchv1.BenchmarkSuiteSpec{Repeats: 1, Workload: benchv1.WorkloadSpec{Warehouses: 300}}
	var runs []benchv1.SuiteRunRecord
	for _, name := range []string{"pg-sync", "pg-async", "crdb"} {
		r, ok := results[name]
		if !ok {
			continue
		}
		db := pg(3, 2, "remote_apply")
		if name == "crdb" {
			db = benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB}
		}
		spec.Databases = append(spec.Databases, benchv1.SuiteDatabase{Name: name, Database: db})
		runs = append(runs, benchv1.SuiteRunRecord{Name: "s-" + name + "-1", Database: name, Repeat: 1, Phase: benchv1.PhaseSucceeded, Result: r})
	}
	return mustCompare(Input{Suite: "s", Namespace: "bench", Spec: spec, Runs: runs, Generated: t0})
}

// Two databases both compliant at every loaded warehouse are not a tie, nor is the one with the
// higher tpmC at that count the leader: both results are floors, printed "≥ N", never ranked.
func TestFloorsAreNeitherRankedNorTied(t *testing.T) {
	c := boundSuite(map[string]*benchv1.SuiteRunResult{
		"pg-sync":  {MaxCompliantWarehouses: 300, Bound: benchv1.BoundAllLoadedCompliant, TpmC: 3790, Efficiency: 98.2},
		"pg-async": {MaxCompliantWarehouses: 300, Bound: benchv1.BoundAllLoadedCompliant, TpmC: 3801, Efficiency: 98.5},
	})
	if c.Leader != "" {
		t.Errorf("leader %q: two floors name none", c.Leader)
	}
	for _, r := range c.Results {
		if r.Bound != benchv1.BoundAllLoadedCompliant || r.Leader || r.RatioToLeader != 0 || !strings.HasPrefix(r.Versus, "not ranked: a floor (≥ 300 warehouses") {
			t.Errorf("%s: bound %s, leader %v, ratio %v, versus %q: want an unranked floor", r.Database, r.Bound, r.Leader, r.RatioToLeader, r.Versus)
		}
	}
	md := Markdown(c)
	if err := contains(md, "No leader: pg-sync (≥ 300 warehouses, AllLoadedCompliant), pg-async (≥ 300 warehouses, AllLoadedCompliant) are a floor",
		"| ≥ 300 | ≥ 3790.0 |", "| ≥ 300 | ≥ 3801.0 |", "pg-sync: the result is a floor (≥ 300 warehouses, AllLoadedCompliant), not a capacity: it is neither ranked nor tied",
		"load more warehouses"); err != nil {
		t.Error(err)
	}
	if strings.Contains(md, "Leader: **") || strings.Contains(md, "× this") {
		t.Errorf("the comparison of two floors ranks them:\n%s", md)
	}
	page := ComparisonHTML(c, nil)
	if err := contains(page, "No leader: pg-sync", "≥ 3790", "≥ 300"); err != nil {
		t.Error(err)
	}
	if strings.Contains(page, "pg-async ★") {
		t.Error("the HTML page stars a floor as the leader")
	}
}

// A bracketed result is ranked against the other bracketed ones only; a floor beside them (here
// one stopped by search.maxSteps, and one recorded before bounds existed that reached the loaded
// count) names no leader, since its capacity may be above theirs.
func TestAFloorBesideBracketedResults(t *testing.T) {
	c := boundSuite(map[string]*benchv1.SuiteRunResult{
		"pg-sync":  {MaxCompliantWarehouses: 131, Bound: benchv1.BoundBracketed, TpmC: 1650},
		"pg-async": {MaxCompliantWarehouses: 150, Bound: benchv1.BoundStepsExhausted, TpmC: 1890},
		"crdb":     {MaxCompliantWarehouses: 120, Bound: benchv1.BoundBracketed, TpmC: 1500},
	})
	byName := map[string]benchv1.SuiteDatabaseResult{}
	for _, r := range c.Results {
		byName[r.Database] = r
	}
	if c.Leader != "" || byName["pg-sync"].Leader {
		t.Errorf("leader %q beside a floor", c.Leader)
	}
	if v := byName["pg-sync"].Versus; v != "1.10× crdb" {
		t.Errorf("pg-sync versus %q, want it over the other bracketed database", v)
	}
	if v := byName["crdb"].Versus; v != "pg-sync is 1.10× this" {
		t.Errorf("crdb versus %q", v)
	}
	if r := byName["pg-async"]; r.Bound != benchv1.BoundStepsExhausted || !strings.HasPrefix(r.Versus, "not ranked: a floor (≥ 150 warehouses, StepsExhausted)") {
		t.Errorf("pg-async: %s %q", r.Bound, r.Versus)
	}
	if err := contains(strings.Join(c.Notes, "\n"), "pg-async: the result is a floor", "raise search.maxSteps"); err != nil {
		t.Error(err)
	}

	// Recorded before bounds: a result at the loaded count reads as a floor, one below it as
	// unknown (ranked as before).
	old := boundSuite(map[string]*benchv1.SuiteRunResult{
		"pg-sync": {MaxCompliantWarehouses: 300, TpmC: 3790},
		"crdb":    {MaxCompliantWarehouses: 120, TpmC: 1500},
	})
	if old.Leader != "" || old.Results[0].Bound != benchv1.BoundAllLoadedCompliant || old.Results[1].Bound != "" {
		t.Errorf("leader %q, bounds %q %q: want no leader, a derived floor and an unknown bound", old.Leader, old.Results[0].Bound, old.Results[1].Bound)
	}
	bracketed := boundSuite(map[string]*benchv1.SuiteRunResult{
		"pg-sync": {MaxCompliantWarehouses: 131, Bound: benchv1.BoundBracketed, TpmC: 1650},
		"crdb":    {MaxCompliantWarehouses: 120, TpmC: 1500},
	})
	if bracketed.Leader != "pg-sync" {
		t.Errorf("leader %q: bracketed and unknown bounds rank as before", bracketed.Leader)
	}
}
