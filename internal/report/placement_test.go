package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func placedRun() *benchv1.BenchmarkRun {
	good := &benchv1.StepPlacement{Primary: "demo-db-1", PrimaryNode: "n1", Pods: []benchv1.PodPlacementRecord{
		{Name: "demo-db-1", Role: benchv1.RoleDatabase, Node: "n1"}, {Name: "demo-db-2", Role: benchv1.RoleDatabase, Node: "n2"},
		{Name: "demo-db-3", Role: benchv1.RoleDatabase, Node: "n3"}, {Name: "demo-step-0-0-x", Role: benchv1.RoleClient, Node: "n4"}}}
	bad := &benchv1.StepPlacement{Primary: "demo-db-1", PrimaryNode: "n1", Pods: []benchv1.PodPlacementRecord{
		{Name: "demo-db-1", Role: benchv1.RoleDatabase, Node: "n1"}, {Name: "demo-db-2", Role: benchv1.RoleDatabase, Node: "n1"},
		{Name: "demo-db-3", Role: benchv1.RoleDatabase, Node: "n3"}, {Name: "demo-step-1-0-y", Role: benchv1.RoleClient, Node: "n3"}},
		ClientsOnDatabaseNodes: []string{"n3"}, SharedDatabaseNodes: []string{"n1"},
		Findings: []string{"client pod demo-step-1-0-y shares node n3 with database pod demo-db-3: the clients take CPU and memory from the database they measure",
			"database pods demo-db-1 and demo-db-2 share node n1: the loss of that machine takes them together, so the database does not survive the loss of a machine"}}
	return &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{
		Load:  &benchv1.LoadStatus{Placement: []benchv1.PodPlacementRecord{{Name: "demo-load-0-a", Role: benchv1.RoleLoader, Node: "n4"}, {Name: "demo-check-b", Role: benchv1.RoleCheck, Node: "n4"}}},
		Steps: []benchv1.StepResult{{Index: 0, Placement: good}, {Index: 1, Placement: bad}, {Index: 2}},
	}}
}

func TestPlacementFlags(t *testing.T) {
	run := placedRun()
	want := []string{
		"does not survive the loss of a machine: database instances shared a node (n1) in step 1",
		"clients shared a node with a database pod (n3) in step 1: they took CPU and memory from the database they measured",
	}
	if got := PlacementFlags(run); !slices.Equal(got, want) {
		t.Errorf("flags:\n%q\nwant\n%q", got, want)
	}
	run.Status.Steps = run.Status.Steps[:1]
	if got := PlacementFlags(run); len(got) != 0 {
		t.Errorf("flags of a well-placed run: %q", got)
	}
	if got := PlacementFlags(&benchv1.BenchmarkRun{}); len(got) != 0 {
		t.Errorf("flags of a run without placement records: %q", got)
	}
}

// Both reports show the placement of every step, the load's pods, the flags and the findings; a
// run without placement records has no section.
func TestPlacementSections(t *testing.T) {
	run := placedRun()
	run.Namespace, run.Name = "ns", "demo"
	md := RunMarkdown(described(run), benchv1.Result{Message: "m"})
	for _, want := range []string{
		"## Placement",
		"**Does not survive the loss of a machine: database instances shared a node (n1) in step 1.**",
		"| 0 | demo-db-1 n1, demo-db-2 n2, demo-db-3 n3 | demo-db-1 n1 | demo-step-0-0-x n4 |",
		"| 1 | demo-db-1 n1, demo-db-2 n1, demo-db-3 n3 | demo-db-1 n1 | demo-step-1-0-y n3 |",
		"Load: loader pods demo-load-0-a n4; check pods demo-check-b n4.",
		"- step 1: client pod demo-step-1-0-y shares node n3",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	page := RunHTML(RunInput{Run: described(run), Result: benchv1.Result{Message: "m"}, Generated: time.Unix(0, 0)})
	wellFormed(t, page)
	for _, want := range []string{"<h2>Placement</h2>", "Does not survive the loss of a machine", "demo-step-1-0-y n3", "Load: loader pods"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if md := RunMarkdown(&benchv1.BenchmarkRun{}, benchv1.Result{}); strings.Contains(md, "Placement") {
		t.Errorf("a run without placement records has a placement section:\n%s", md)
	}
}

// The suite's fairness notes repeat each run's placement flags.
func TestPlacementNote(t *testing.T) {
	spec := study()
	run := succeeded("s-pg-1", "pg", 1, 100, 97)
	run.Placement = PlacementFlags(placedRun())
	c := mustCompare(Input{Suite: "s", Spec: spec, Runs: []benchv1.SuiteRunRecord{run}})
	want := []string{
		"placement: s-pg-1 (pg) does not survive the loss of a machine: database instances shared a node (n1) in step 1",
		"placement: s-pg-1 (pg) clients shared a node with a database pod (n3) in step 1: they took CPU and memory from the database they measured",
	}
	for _, w := range want {
		if !slices.Contains(c.Notes, w) {
			t.Errorf("notes %q lack %q", c.Notes, w)
		}
	}
	if !strings.Contains(Markdown(c), want[0]) {
		t.Error("comparison.md lacks the placement note")
	}
}
