package report

import (
	"fmt"
	"sort"
	"strings"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Equal terms in a comparison: each database's isolation level, its tpmC per vCPU and per GiB
// over its runs, the resource that bounded its runs, and the notes when the databases differ in
// isolation or in the tuning their specs ask for.

// addEqualTerms fills a database's row with its isolation, per-resource statistics and
// bottlenecks, from its runs that succeeded.
func addEqualTerms(r *benchv1.SuiteDatabaseResult, d benchv1.SuiteDatabase, desc benchv1.DatabaseDescription, workload benchv1.WorkloadSpec, runs []benchv1.SuiteRunRecord) {
	r.Isolation = effectiveIsolation(workload, desc)
	perVCPU, perGiB := map[benchv1.ResourceBasis][]float64{}, map[benchv1.ResourceBasis][]float64{}
	bottlenecks := map[benchv1.BottleneckResource]int{}
	succeeded := 0
	for _, run := range runs {
		if run.Database != d.Name || run.Phase != benchv1.PhaseSucceeded || run.Result == nil {
			continue
		}
		succeeded++
		for _, p := range run.Result.PerResource {
			if p.TpmCPerVCPU != nil {
				perVCPU[p.Basis] = append(perVCPU[p.Basis], *p.TpmCPerVCPU)
			}
			if p.TpmCPerGiB != nil {
				perGiB[p.Basis] = append(perGiB[p.Basis], *p.TpmCPerGiB)
			}
		}
		if b := run.Result.Bottleneck; b != nil {
			bottlenecks[b.Resource]++
		}
	}
	for _, basis := range []benchv1.ResourceBasis{benchv1.BasisRequests, benchv1.BasisLimits, benchv1.BasisPeak} {
		s := benchv1.PerResourceStatistic{Basis: basis, TpmCPerVCPU: Summarize(perVCPU[basis]), TpmCPerGiB: Summarize(perGiB[basis])}
		if s.TpmCPerVCPU != nil || s.TpmCPerGiB != nil {
			r.PerResource = append(r.PerResource, s)
		}
	}
	names := make([]string, 0, len(bottlenecks))
	for b := range bottlenecks {
		names = append(names, string(b))
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := bottlenecks[benchv1.BottleneckResource(names[i])], bottlenecks[benchv1.BottleneckResource(names[j])]
		return a > b || (a == b && names[i] < names[j])
	})
	for _, b := range names {
		r.Bottlenecks = append(r.Bottlenecks, fmt.Sprintf("%s (%d of %d %s)", b, bottlenecks[benchv1.BottleneckResource(b)], succeeded, pluralWord(succeeded, "run", "runs")))
	}
}

// isolationNote says when the databases' transactions run at different isolation levels.
func isolationNote(c Comparison) string {
	levels := map[benchv1.Isolation][]string{}
	for _, r := range c.Results {
		if r.Isolation != "" {
			levels[r.Isolation] = append(levels[r.Isolation], r.Database)
		}
	}
	if len(levels) < 2 {
		return ""
	}
	var parts []string
	for _, l := range []benchv1.Isolation{benchv1.IsolationReadCommitted, benchv1.IsolationRepeatableRead, benchv1.IsolationSerializable} {
		if dbs := levels[l]; len(dbs) > 0 {
			parts = append(parts, fmt.Sprintf("%s at %s", strings.Join(dbs, ", "), l))
		}
	}
	return "isolation not at parity: " + strings.Join(parts, "; ") + ". A weaker level lets concurrent transactions proceed where a stricter one " +
		"aborts and retries them (the retries are counted in each run's report); set workload.isolation to compare at one level"
}

// tuningNote says when the databases' specs ask their engines for different settings.
// The operator sizes every engine's memory alike (docs/sizing.md); a note appears when some
// deployed database's spec asks for more than that.
func tuningNote(dbs []benchv1.SuiteDatabase, descriptions []benchv1.DatabaseDescription) string {
	var parts []string
	asked := false
	for i, d := range dbs {
		t := descriptions[i].Tuning
		asked = asked || t.Settings > 0
		parts = append(parts, d.Name+" "+t.Words)
	}
	if !asked || len(dbs) < 2 {
		return ""
	}
	return "tuning: " + strings.Join(parts, "; ") + " (each run's report lists every setting beside the value the database reports)"
}

// effectiveIsolation is workload.isolation, or the engine's default as its description says.
func effectiveIsolation(w benchv1.WorkloadSpec, desc benchv1.DatabaseDescription) benchv1.Isolation {
	if w.Isolation != "" {
		return w.Isolation
	}
	return desc.DefaultIsolation
}

// equalTermsRows are the comparison's terms table: database, isolation, tpmC per vCPU and per GiB
// on the pods' requests and measured peak, and the bottlenecks.
func equalTermsRows(c Comparison) (header []string, rows [][]string) {
	header = []string{"<database", "<isolation", "tpmC/vCPU (requests)", "tpmC/GiB (requests)", "tpmC/vCPU (peak)", "tpmC/GiB (peak)", "<bottleneck at the result's bound"}
	for _, r := range c.Results {
		stat := func(basis benchv1.ResourceBasis, gib bool) string {
			for _, p := range r.PerResource {
				if p.Basis == basis {
					if gib {
						return statCell(p.TpmCPerGiB, "%.1f")
					}
					return statCell(p.TpmCPerVCPU, "%.1f")
				}
			}
			return "-"
		}
		rows = append(rows, []string{r.Database, orDash(string(r.Isolation)), stat(benchv1.BasisRequests, false), stat(benchv1.BasisRequests, true),
			stat(benchv1.BasisPeak, false), stat(benchv1.BasisPeak, true), orDash(strings.Join(r.Bottlenecks, ", "))})
	}
	return header, rows
}
