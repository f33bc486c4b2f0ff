package report

import (
	"fmt"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// ConsistencySentence says what the consistency check after the run's last step found: the
// conditions checked and held, its time, and the New-Order ledger; for a finished run without
// one, that none is recorded; "" while the run is under way.
func ConsistencySentence(phase benchv1.Phase, c *benchv1.ConsistencyCheck) string {
	switch {
	case c == nil && Final(phase):
		return "No consistency check after the last step is recorded for this run."
	case c == nil:
		return ""
	case c.Error != "":
		return "The consistency check after the last step gave no verdict: " + c.Error + "."
	}
	verdict := "passed"
	if !c.Passed {
		verdict = "failed"
	}
	s := fmt.Sprintf("The consistency check after the last step: %s — %d of %d conditions held (TPC-C 3.3.2.1–12 over every warehouse, 3.3.2.11 excepted)",
		verdict, c.ConditionsPassed, c.Conditions)
	if c.Duration != nil {
		s += fmt.Sprintf(" in %s", c.Duration.Duration)
	}
	if c.FirstFailure != "" {
		s += "; the first that did not: " + c.FirstFailure
	}
	if l := c.Ledger; l != nil {
		s += "; New-Order ledger: " + l.Detail
	}
	return s + "."
}
