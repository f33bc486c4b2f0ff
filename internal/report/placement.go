package report

import (
	"fmt"
	"sort"
	"strings"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Placement flags: a comparison assumes every database instance has a machine of its own (the
// study's bar: the database survives the loss of one machine under load) and that the clients do
// not take the database's CPU. The steps' placement records (status.steps[].placement) say where
// that did not hold; these words go into the run's report, `kubectl tpcc status` and the suite's
// notes.

// PlacementFlags says in a sentence each what the run's placement undermined: steps whose client
// pods shared a node with a database pod, and steps in which two database instances of one kind
// shared a node. Empty when no recorded step shows either (or none recorded its placement).
func PlacementFlags(run *benchv1.BenchmarkRun) []string {
	var clientSteps, sharedSteps []string
	clientNodes, sharedNodes := map[string]bool{}, map[string]bool{}
	for _, s := range run.Status.Steps {
		p := s.Placement
		if p == nil {
			continue
		}
		if len(p.ClientsOnDatabaseNodes) > 0 {
			clientSteps = append(clientSteps, fmt.Sprint(s.Index))
			for _, n := range p.ClientsOnDatabaseNodes {
				clientNodes[n] = true
			}
		}
		if len(p.SharedDatabaseNodes) > 0 {
			sharedSteps = append(sharedSteps, fmt.Sprint(s.Index))
			for _, n := range p.SharedDatabaseNodes {
				sharedNodes[n] = true
			}
		}
	}
	var flags []string
	if len(sharedSteps) > 0 {
		flags = append(flags, fmt.Sprintf("does not survive the loss of a machine: database instances shared a node (%s) in %s %s",
			strings.Join(keys(sharedNodes), ", "), pluralWord(len(sharedSteps), "step", "steps"), strings.Join(sharedSteps, ", ")))
	}
	if len(clientSteps) > 0 {
		flags = append(flags, fmt.Sprintf("clients shared a node with a database pod (%s) in %s %s: they took CPU and memory from the database they measured",
			strings.Join(keys(clientNodes), ", "), pluralWord(len(clientSteps), "step", "steps"), strings.Join(clientSteps, ", ")))
	}
	return flags
}

// placementView is the placement section in the words and cells both reports use.
type placementView struct {
	Flags  []string
	Header []string
	Rows   [][]string
	Load   string
	// Findings are each step's findings, prefixed with the step.
	Findings []string
}

// placementOf is a run's placement section; ok is false when nothing was recorded.
func placementOf(run *benchv1.BenchmarkRun) (placementView, bool) {
	v := placementView{Flags: PlacementFlags(run), Header: []string{"step", "<database pods (node)", "<primary", "<client pods (node)"}}
	for _, s := range run.Status.Steps {
		p := s.Placement
		if p == nil {
			continue
		}
		var db, clients []string
		for _, pod := range p.Pods {
			cell := pod.Name + " " + orDash(pod.Node)
			if pod.Group != "" {
				cell = pod.Group + " " + cell
			}
			if pod.Role == benchv1.RoleClient {
				clients = append(clients, cell)
			} else {
				db = append(db, cell)
			}
		}
		primary := "—"
		if p.Primary != "" {
			primary = p.Primary + " " + orDash(p.PrimaryNode)
		}
		v.Rows = append(v.Rows, []string{fmt.Sprint(s.Index), orDash(strings.Join(db, ", ")), primary, orDash(strings.Join(clients, ", "))})
		for _, f := range p.Findings {
			v.Findings = append(v.Findings, fmt.Sprintf("step %d: %s", s.Index, f))
		}
	}
	if load := run.Status.Load; load != nil && len(load.Placement) > 0 {
		byRole := map[string][]string{}
		for _, pod := range load.Placement {
			byRole[pod.Role] = append(byRole[pod.Role], pod.Name+" "+orDash(pod.Node))
		}
		var parts []string
		for _, role := range []string{benchv1.RoleLoader, benchv1.RoleCheck} {
			if pods := byRole[role]; len(pods) > 0 {
				parts = append(parts, fmt.Sprintf("%s pods %s", strings.ToLower(role), strings.Join(pods, ", ")))
			}
		}
		v.Load = "Load: " + strings.Join(parts, "; ") + "."
	}
	return v, len(v.Rows) > 0 || v.Load != ""
}

// placementMarkdown is report.md's placement section.
func placementMarkdown(run *benchv1.BenchmarkRun) string {
	v, ok := placementOf(run)
	if !ok {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Placement\n\n")
	for _, f := range v.Flags {
		fmt.Fprintf(&b, "**%s.**\n\n", capitalize(f))
	}
	if len(v.Rows) > 0 {
		header := make([]string, len(v.Header))
		for i, h := range v.Header {
			header[i] = strings.TrimPrefix(h, "<")
		}
		fmt.Fprintf(&b, "| %s |\n|---:|---|---|---|\n", strings.Join(header, " | "))
		for _, row := range v.Rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
		}
		b.WriteString("\n")
	}
	if v.Load != "" {
		fmt.Fprintf(&b, "%s\n\n", v.Load)
	}
	for _, f := range v.Findings {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// placementHTML adds the placement section to a report page.
func placementHTML(p *page, run *benchv1.BenchmarkRun) {
	v, ok := placementOf(run)
	if !ok {
		return
	}
	p.h(2, "Placement")
	for _, f := range v.Flags {
		p.notice(capitalize(f) + ".")
	}
	if len(v.Rows) > 0 {
		p.table(v.Header, v.Rows, nil)
	}
	if v.Load != "" {
		p.para(v.Load)
	}
	p.list(v.Findings)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
