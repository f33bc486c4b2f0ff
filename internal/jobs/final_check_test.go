package jobs

import (
	"slices"
	"testing"
)

func TestFinalCheckJob(t *testing.T) {
	job := FinalCheckJob(testRun(10), secretConn, Config{})
	c := job.Spec.Template.Spec.Containers[0]
	if job.Name != "r-check-final" || len(job.Spec.Template.Spec.InitContainers) != 0 {
		t.Errorf("job %s with %d init containers", job.Name, len(job.Spec.Template.Spec.InitContainers))
	}
	if slices.Contains(c.Args, "--load-time") || slices.Contains(c.Args, "--dataset-json") {
		t.Errorf("args %v: 3.3.2.11 holds only until the first Delivery; the summary carries the dataset", c.Args)
	}
	if got := arg(t, c.Args, "--summary-json"); got != TerminationMessagePath {
		t.Errorf("--summary-json %s, want the termination message", got)
	}
	if got := arg(t, c.Args, "--warehouses"); got != "10" {
		t.Errorf("--warehouses %s", got)
	}
	if c.TerminationMessagePath != "" && c.TerminationMessagePath != TerminationMessagePath {
		t.Errorf("terminationMessagePath %s", c.TerminationMessagePath)
	}
	assertURLFromSecret(t, c)
}
