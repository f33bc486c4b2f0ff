package plan

import (
	"fmt"
	"strings"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// unjudgedClause is what a result's message adds when the compliant step it rests on left checks
// unjudged (StepResult.Unjudged): the step is compliant on less evidence than the SLA's checks
// ask for, and the result says which and what judging them needs. "" when the step judged them
// all.
func unjudgedClause(s benchv1.StepResult) string {
	if len(s.Unjudged) == 0 {
		return ""
	}
	return fmt.Sprintf("; it rests on step %d, which left checks unjudged: %s", s.Index, strings.Join(s.Unjudged, "; "))
}
