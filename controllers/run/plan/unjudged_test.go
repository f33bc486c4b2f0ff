package plan

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/search"
)

// TestResultSaysItRestsOnUnjudgedChecks: a result whose compliant step skipped checks says which
// and what judging them needs; the non-compliant step above it adds nothing (it failed on what it
// judged).
func TestResultSaysItRestsOnUnjudgedChecks(t *testing.T) {
	thin := []string{"mix minimums and audit windows not checked (4120 transactions, 10000 needed)"}
	for _, tc := range []struct {
		name            string
		below, above    []string
		want, wantNoted string
	}{
		{name: "every check judged", want: "20 active warehouses compliant: 240.0 tpmC, 93.31% efficiency (compliant at 20, non-compliant at 21: within precision 1)"},
		{name: "the compliant step's mix unjudged", below: thin,
			wantNoted: "; it rests on step 0, which left checks unjudged: mix minimums and audit windows not checked (4120 transactions, 10000 needed)"},
		{name: "only the non-compliant step's mix unjudged", above: thin,
			want: "20 active warehouses compliant: 240.0 tpmC, 93.31% efficiency (compliant at 20, non-compliant at 21: within precision 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := newRun(100, guided)
			run.Status.Steps = []benchv1.StepResult{
				{Index: 0, ActiveWarehouses: 20, Kind: benchv1.StepFull, Duration: &metav1.Duration{Duration: 10 * time.Minute}, Verdict: pass, Compliant: true,
					TpmC: 240, Efficiency: 93.31, Unjudged: tc.below},
				{Index: 1, ActiveWarehouses: 21, Kind: benchv1.StepFull, Duration: &metav1.Duration{Duration: 10 * time.Minute}, Verdict: fail,
					TpmC: 252, Efficiency: 93.31, Reasons: []string{"NewOrder p90 6s > 5s"}, Unjudged: tc.above},
			}
			e := SearchEvidence(run.Status.Steps)
			d := search.Decision{Done: true, MaxCompliant: 20, CompliantStep: 0, NonCompliantStep: 1, HighestCompliant: 20, LowestNonCompliant: 21,
				Reason: "compliant at 20, non-compliant at 21: within precision 1"}
			got := Result(run, d, e).Message
			if tc.want != "" && got != tc.want {
				t.Errorf("message %q, want %q", got, tc.want)
			}
			if tc.wantNoted != "" && !strings.HasSuffix(got, tc.wantNoted) {
				t.Errorf("message %q, want it to end %q", got, tc.wantNoted)
			}
		})
	}
}
