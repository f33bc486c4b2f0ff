package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The Grafana dashboard the chart ships (grafana.dashboard.enabled).
const dashboardPath = "../../charts/tpcc-operator/files/dashboard.json"

type dashboardPanel struct {
	ID         int    `json:"id"`
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource *struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	} `json:"datasource"`
	Targets []struct {
		Expr  string `json:"expr"`
		RefID string `json:"refId"`
	} `json:"targets"`
	Panels []dashboardPanel `json:"panels"` // a collapsed row's
}

type dashboard struct {
	UID        string           `json:"uid"`
	Panels     []dashboardPanel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query any    `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

// grafanaVariables stands for the dashboard's variables in queries: Grafana replaces them before
// the query reaches Prometheus, so the parser sees what Prometheus would.
var grafanaVariables = strings.NewReplacer(
	"$__rate_interval", "1m", "${__rate_interval}", "1m", "$__interval", "1m", "$__range", "1h",
	"${namespace}", "ns", "$namespace", "ns", "${run}", "run", "$run", "run",
)

// metricNames parses a query and returns the metric names it selects; it fails on a selector without one.
func metricNames(t *testing.T, expr string) []string {
	t.Helper()
	ast, err := parser.NewParser(parser.Options{}).ParseExpr(grafanaVariables.Replace(expr))
	if err != nil {
		t.Errorf("query %q does not parse: %v", expr, err)
		return nil
	}
	var names []string
	parser.Inspect(ast, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok {
			if vs.Name == "" {
				t.Errorf("query %q selects no metric by name", expr)
			}
			names = append(names, vs.Name)
		}
		return nil
	})
	return names
}

var labelValues = regexp.MustCompile(`^label_values\(\s*(.*?)\s*,\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)$`)

// TestDashboardQueriesParseAndNameOurMetrics: every panel's query parses as PromQL and selects only
// metrics the manager registers (gathered from its registry after a run's metrics are recorded),
// and so do the variables' label_values queries.
func TestDashboardQueriesParseAndNameOurMetrics(t *testing.T) {
	const ns, name = "metrics-dashboard", "pg"
	t.Cleanup(func() { Forget(ns, name) })
	recordSampleRun(ns, name)
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, f := range families {
		exported[f.GetName()] = true
	}

	data, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	if d.UID == "" {
		t.Error("the dashboard has no uid (Grafana would make a new one on every import)")
	}

	variables := map[string]string{}
	for _, v := range d.Templating.List {
		variables[v.Name] = v.Type
		if v.Type != "query" {
			continue
		}
		query, _ := v.Query.(string)
		if m, ok := v.Query.(map[string]any); ok {
			query, _ = m["query"].(string)
		}
		match := labelValues.FindStringSubmatch(query)
		if match == nil {
			t.Errorf("variable %s: query %q is not label_values(selector, label)", v.Name, query)
			continue
		}
		for _, metric := range metricNames(t, match[1]) {
			if !exported[metric] {
				t.Errorf("variable %s: %s is not a metric the manager exports", v.Name, metric)
			}
		}
	}
	for name, typ := range map[string]string{"datasource": "datasource", "namespace": "query", "run": "query"} {
		if variables[name] != typ {
			t.Errorf("variable %s: type %q, want %q", name, variables[name], typ)
		}
	}

	used := map[string]bool{}
	var check func(panels []dashboardPanel)
	check = func(panels []dashboardPanel) {
		for _, p := range panels {
			if p.Type == "row" {
				check(p.Panels)
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("panel %q has no query", p.Title)
			}
			if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
				t.Errorf("panel %q does not use the datasource variable", p.Title)
			}
			for _, target := range p.Targets {
				for _, metric := range metricNames(t, target.Expr) {
					used[metric] = true
					if !exported[metric] {
						t.Errorf("panel %q: %s is not a metric the manager exports", p.Title, metric)
					}
				}
			}
		}
	}
	check(d.Panels)
	// Every tpcc_ metric has a panel.
	for metric := range exported {
		if strings.HasPrefix(metric, "tpcc_") && !used[metric] {
			t.Errorf("no panel shows %s", metric)
		}
	}
}
