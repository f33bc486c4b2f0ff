package tpcc

import (
	"time"
	"unicode/utf8"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// SummarizeCheck is the summary of a check's results: the conditions checked (skipped ones are
// not) and passed, and the first that failed, its detail cut to snapshot.MaxCheckDetail bytes.
func SummarizeCheck(results []CheckResult, elapsed time.Duration) snapshot.CheckSummary {
	s := snapshot.CheckSummary{Elapsed: elapsed}
	for _, r := range results {
		if r.Skipped {
			continue
		}
		s.Conditions++
		if r.Pass {
			s.Passed++
			continue
		}
		if s.FirstFailure == nil {
			s.FirstFailure = &snapshot.CheckFailure{ID: r.Condition.ID, Name: r.Condition.Name, Detail: cut(r.Detail, snapshot.MaxCheckDetail)}
		}
	}
	return s
}

// cut shortens s to at most n bytes on a rune boundary, marking the cut with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	end := n - len(mark)
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + mark
}
