package report

import (
	"fmt"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// adversityProfiles are the databases' resilience profiles side by side: one row per state, one
// column per database with a profile — its tpmC against its own Baseline, the longest time
// without a commit and the time to recover, each the mean over its runs with a profile. No
// profile anywhere: no table.
func adversityProfiles(c Comparison) (header []string, rows [][]string) {
	type acc struct {
		change, without, recovered []float64
		runs                       int
	}
	var order []benchv1.AdversityState
	seen := map[benchv1.AdversityState]bool{}
	per := map[string]map[benchv1.AdversityState]*acc{}
	runs := map[string]int{}
	for _, r := range c.Runs {
		if r.Result == nil || r.Result.Adversity == nil {
			continue
		}
		runs[r.Database]++
		if per[r.Database] == nil {
			per[r.Database] = map[benchv1.AdversityState]*acc{}
		}
		base := 0.0
		for _, s := range r.Result.Adversity.States {
			if s.State == benchv1.AdversityBaseline {
				base = s.TpmC
			}
		}
		for _, s := range r.Result.Adversity.States {
			if !seen[s.State] {
				seen[s.State] = true
				order = append(order, s.State)
			}
			a := per[r.Database][s.State]
			if a == nil {
				a = &acc{}
				per[r.Database][s.State] = a
			}
			a.runs++
			if base > 0 {
				a.change = append(a.change, (s.TpmC/base-1)*100)
			}
			if s.Unavailability != nil {
				a.without = append(a.without, s.Unavailability.Duration.Seconds())
			}
			if s.Recovery != nil {
				a.recovered = append(a.recovered, s.Recovery.Duration.Seconds())
			}
		}
	}
	var dbs []string
	for _, r := range c.Results {
		if runs[r.Database] > 0 {
			dbs = append(dbs, r.Database)
		}
	}
	if len(dbs) == 0 {
		return nil, nil
	}
	header = []string{"<state"}
	for _, d := range dbs {
		header = append(header, fmt.Sprintf("<%s (%d %s)", d, runs[d], pluralWord(runs[d], "run", "runs")))
	}
	for _, st := range order {
		row := []string{string(st)}
		for _, d := range dbs {
			a := per[d][st]
			if a == nil {
				row = append(row, "—")
				continue
			}
			var parts []string
			if st != benchv1.AdversityBaseline && len(a.change) > 0 {
				parts = append(parts, fmt.Sprintf("tpmC %+.0f %%", mean(a.change)))
			}
			if len(a.without) > 0 {
				parts = append(parts, "no commit "+secondsWords(mean(a.without)))
			}
			if len(a.recovered) > 0 {
				parts = append(parts, "recovered in "+secondsWords(mean(a.recovered)))
			} else if st != benchv1.AdversityBaseline && len(a.change) > 0 {
				parts = append(parts, "not recovered within the state")
			}
			if len(parts) == 0 {
				parts = append(parts, "baseline")
			}
			row = append(row, strings.Join(parts, "; "))
		}
		rows = append(rows, row)
	}
	return header, rows
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func secondsWords(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(100 * time.Millisecond).String()
}

const adversityComparisonNote = "Each database's states against its own Baseline, over each state and the recovery after it; the mean over its runs with a profile (docs/adversity.md). " +
	"No commit: the longest stretch without a writing commit in any client; recovered in: from the disruption's end to New-Orders back at 90 % of the Baseline's rate."

// comparisonAdversity is the comparison's "Resilience profiles" section, when a run has one.
func comparisonAdversity(p *page, c Comparison) {
	header, rows := adversityProfiles(c)
	if len(rows) == 0 {
		return
	}
	p.h(2, "Resilience profiles")
	p.table(header, rows, nil)
	p.para(adversityComparisonNote)
}

// adversityComparisonMarkdown is the same section in Markdown.
func adversityComparisonMarkdown(c Comparison) string {
	header, rows := adversityProfiles(c)
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	for i := range header {
		header[i] = strings.TrimPrefix(header[i], "<")
	}
	fmt.Fprintf(&b, "\n## Resilience profiles\n\n| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
	}
	b.WriteString("\n" + adversityComparisonNote + "\n")
	return b.String()
}
