package measure

import (
	"strings"
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestStepLedgerOf(t *testing.T) {
	done := func(ack, unknown int64) *snapshot.Snapshot {
		return &snapshot.Snapshot{Phase: snapshot.PhaseDone, LedgerTotals: &snapshot.LedgerTotals{Acknowledged: ack, Unknown: unknown}}
	}
	measuring := &snapshot.Snapshot{Phase: snapshot.PhaseMeasuring, Ledger: []snapshot.LedgerDistrict{{Acknowledged: 4, Unknown: 1}, {Acknowledged: 6}}}
	for _, tc := range []struct {
		name      string
		snapshots []*snapshot.Snapshot
		want      int32
		expect    *benchv1.StepLedger
	}{
		{"every pod done", []*snapshot.Snapshot{done(100, 1), done(50, 0)}, 2, &benchv1.StepLedger{Acknowledged: 150, Unknown: 1, Complete: true}},
		{"a pod still measuring: a lower bound", []*snapshot.Snapshot{done(100, 0), measuring}, 2, &benchv1.StepLedger{Acknowledged: 110, Unknown: 1}},
		{"a pod missing: a lower bound", []*snapshot.Snapshot{done(100, 0), nil}, 2, &benchv1.StepLedger{Acknowledged: 100}},
		{"fewer pods answered than the step ran", []*snapshot.Snapshot{done(100, 0)}, 2, &benchv1.StepLedger{Acknowledged: 100}},
		{"no pod answered", nil, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := StepLedgerOf(tc.snapshots, tc.want)
			if (got == nil) != (tc.expect == nil) || (got != nil && *got != *tc.expect) {
				t.Errorf("got %+v, want %+v", got, tc.expect)
			}
		})
	}
}

func TestRunLedgerOf(t *testing.T) {
	start := &benchv1.DatasetStatus{Growth: map[string]int64{"orders": 1000}}
	end := func(growth int64) *snapshot.Dataset {
		return &snapshot.Dataset{Rows: map[string]int64{"orders": 60000 + growth}, Loaded: map[string]int64{"orders": 60000}}
	}
	steps := func(ls ...*benchv1.StepLedger) []benchv1.StepResult {
		var out []benchv1.StepResult
		for _, l := range ls {
			out = append(out, benchv1.StepResult{NewOrders: l})
		}
		return out
	}
	complete := func(ack, unknown int64) *benchv1.StepLedger {
		return &benchv1.StepLedger{Acknowledged: ack, Unknown: unknown, Complete: true}
	}
	for _, tc := range []struct {
		name                 string
		start                *benchv1.DatasetStatus
		end                  *snapshot.Dataset
		steps                []benchv1.StepResult
		checked, pass, exact bool
		detail               string
	}{
		{"every acknowledged order present", start, end(1000 + 500), steps(complete(300, 0), complete(200, 0)), true, true, true, "gained 500 orders"},
		{"unknown outcomes may have committed", start, end(1000 + 503), steps(complete(300, 2), complete(200, 3)), true, true, true, "3 of the 5"},
		{"an acknowledged order lost", start, end(1000 + 499), steps(complete(300, 0), complete(200, 0)), true, false, true, "1 acknowledged commits are missing"},
		{"an order nobody acknowledged", start, end(1000 + 506), steps(complete(300, 2), complete(200, 3)), true, false, true, "more than the 500"},
		{"an incomplete step leaves the lower bound", start, end(1000 + 600), steps(complete(300, 0), &benchv1.StepLedger{Acknowledged: 200}), true, true, false, "a lower bound"},
		{"a step without counts leaves the lower bound", start, end(1000 + 600), steps(complete(300, 0), nil), true, true, false, "at least the 300"},
		{"lost even as a lower bound", start, end(1000 + 250), steps(complete(300, 0), nil), true, false, false, "50 acknowledged commits are missing"},
		{"no starting dataset", nil, end(10), steps(complete(1, 0)), false, false, false, "status.load.dataset"},
		{"no final dataset", start, nil, steps(complete(1, 0)), false, false, false, "did not read the dataset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RunLedgerOf(tc.start, tc.end, tc.steps)
			if got.Checked != tc.checked || got.Pass != tc.pass || (tc.checked && got.Exact != tc.exact) || !strings.Contains(got.Detail, tc.detail) {
				t.Errorf("got %+v, want checked %v pass %v exact %v, detail with %q", got, tc.checked, tc.pass, tc.exact, tc.detail)
			}
		})
	}
}
