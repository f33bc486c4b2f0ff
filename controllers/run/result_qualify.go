package run

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
)

// qualifyResult makes the result's message (the report's first line) and SLACompliant agree with
// what voids or qualifies the search's answer: a run that fails (failReason) has no compliant
// result, whatever its steps measured, and so no cost per tpmC (its monthly cost stands); a sustained phase that broke leaves the answer standing
// but not compliant, since the load was not held for spec.sustain.duration.
func qualifyResult(run *benchv1.BenchmarkRun, result *benchv1.Result, failReason, failMessage string,
	value metav1.ConditionStatus, reason, message string) (metav1.ConditionStatus, string, string) {
	switch {
	case failReason != "":
		result.Message = fmt.Sprintf("No result: %s. The search alone found: %s", failMessage, result.Message)
		if pp := result.PricePerformance; pp != nil {
			pp.CostPerTpmCMonth, pp.CostPerTpmC3Years, pp.TpmCPerCurrency = nil, nil, nil
		}
		return metav1.ConditionFalse, failReason, result.Message
	case run.Spec.Sustain != nil && result.Sustained != nil && !result.Sustained.Held && value == metav1.ConditionTrue:
		_, _, broke := measure.SustainedCondition(result.Sustained)
		result.Message = fmt.Sprintf("%s; but not sustained: %s", result.Message, broke)
		return metav1.ConditionFalse, "NotSustained", result.Message
	}
	return value, reason, message
}
