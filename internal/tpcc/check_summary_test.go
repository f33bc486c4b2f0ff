package tpcc

import (
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestSummarizeCheck(t *testing.T) {
	c := func(i int) Condition { return Conditions[i] }
	long := strings.Repeat("é", snapshot.MaxCheckDetail)
	for _, tc := range []struct {
		name    string
		results []CheckResult
		want    snapshot.CheckSummary
	}{
		{"all pass, one skipped", []CheckResult{{Condition: c(0), Pass: true}, {Condition: c(1), Pass: true}, {Condition: c(2), Skipped: true}},
			snapshot.CheckSummary{Conditions: 2, Passed: 2}},
		{"first failure in clause order", []CheckResult{{Condition: c(0), Pass: true}, {Condition: c(1), Detail: "w_id=1"}, {Condition: c(2), Detail: "d_id=3"}},
			snapshot.CheckSummary{Conditions: 3, Passed: 1, FirstFailure: &snapshot.CheckFailure{ID: c(1).ID, Name: c(1).Name, Detail: "w_id=1"}}},
		{"nothing checked", nil, snapshot.CheckSummary{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SummarizeCheck(tc.results, time.Second)
			tc.want.Elapsed = time.Second
			if got.Conditions != tc.want.Conditions || got.Passed != tc.want.Passed || got.Elapsed != tc.want.Elapsed ||
				(got.FirstFailure == nil) != (tc.want.FirstFailure == nil) || (got.FirstFailure != nil && *got.FirstFailure != *tc.want.FirstFailure) {
				t.Errorf("got %+v (first failure %+v), want %+v", got, got.FirstFailure, tc.want)
			}
			if got.Pass() != (tc.want.FirstFailure == nil && tc.want.Passed == tc.want.Conditions) {
				t.Errorf("Pass() = %v", got.Pass())
			}
		})
	}
	t.Run("a long detail is cut on a rune boundary", func(t *testing.T) {
		got := SummarizeCheck([]CheckResult{{Condition: c(1), Detail: long}}, 0).FirstFailure.Detail
		if len(got) > snapshot.MaxCheckDetail || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "éé") {
			t.Errorf("detail %d bytes %q…", len(got), got[:8])
		}
		for _, r := range got {
			if r == '\uFFFD' {
				t.Fatal("cut inside a rune")
			}
		}
	})
}
