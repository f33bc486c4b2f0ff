// Package report is the comparison of a BenchmarkSuite's databases: statistics over repeated runs
// (mean, min, max, Student's t 95 % confidence interval), what each database's commits wait for,
// the notes on where the databases are not measured on equal terms, and the renderers of
// comparison.json (a versioned schema: docs/comparison-schema.md) and comparison.md. It is pure:
// the suite controller feeds it the suite's spec and run records, and any other front end (HTML,
// a kubectl plugin) renders the same Comparison.
package report

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// SchemaVersion is comparison.json's schema version.
const SchemaVersion = 1

// Comparison is a suite's databases compared: comparison.json is this, encoded.
type Comparison struct {
	SchemaVersion int       `json:"schemaVersion"`
	Suite         string    `json:"suite"`
	Namespace     string    `json:"namespace"`
	Generated     time.Time `json:"generated"`
	// Complete is true once every planned run has ended.
	Complete bool `json:"complete"`
	// RunsDone and RunsPlanned count the suite's runs.
	RunsDone    int `json:"runsDone"`
	RunsPlanned int `json:"runsPlanned"`

	// Workload, SLA, Search and Repeats are shared by every database.
	Workload benchv1.WorkloadSpec `json:"workload"`
	SLA      benchv1.SLASpec      `json:"sla"`
	Search   benchv1.SearchSpec   `json:"search"`
	Repeats  int32                `json:"repeats"`

	// Databases describe each database as configured, in spec order.
	Databases []Database `json:"databases"`
	// Leader is the database with the highest mean tpmC; empty before any result.
	Leader string `json:"leader,omitempty"`
	// Results are one row per database, in spec order.
	Results []benchv1.SuiteDatabaseResult `json:"results"`
	// Notes say where the databases are not measured on equal terms.
	Notes []string `json:"notes,omitempty"`
	// Runs are every run of the suite in the order they run; each links its own report.
	Runs []Run `json:"runs"`
}

// Database is one database as configured.
type Database struct {
	Name       string         `json:"name"`
	Engine     benchv1.Engine `json:"engine"`
	Durability Durability     `json:"durability"`
	Resources  Resources      `json:"resources"`
	// Deployment summarises the topology: "PostgreSQL, 3 instances, 2 synchronous (remote_apply)".
	Deployment string `json:"deployment"`
	// Pooler is the connection pooler the steps' clients went through; empty when they connected
	// directly.
	Pooler string `json:"pooler,omitempty"`
}

// Run is one run of the suite. Its report ConfigMap holds every step and the merged histograms.
type Run struct {
	Name     string                  `json:"name"`
	Database string                  `json:"database"`
	Repeat   int32                   `json:"repeat"`
	Phase    benchv1.Phase           `json:"phase,omitempty"`
	Start    *metav1.Time            `json:"start,omitempty"`
	End      *metav1.Time            `json:"end,omitempty"`
	Reason   string                  `json:"reason,omitempty"`
	Message  string                  `json:"message,omitempty"`
	Result   *benchv1.SuiteRunResult `json:"result,omitempty"`
	// Report is the run's report ConfigMap (keys report.json and report.md).
	Report string `json:"report,omitempty"`
}

// Input is what a comparison is computed from.
type Input struct {
	Suite, Namespace string
	Spec             benchv1.BenchmarkSuiteSpec
	// Runs are the suite's run records, planned ones included.
	Runs      []benchv1.SuiteRunRecord
	Generated time.Time
	// Descriptions are the suite's databases as their engines describe them, by database name
	// (internal/engines/registry: Descriptions).
	Descriptions map[string]benchv1.DatabaseDescription
}

// Final says whether a run phase is an end.
func Final(p benchv1.Phase) bool { return p == benchv1.PhaseSucceeded || p == benchv1.PhaseFailed }

// Compare computes the comparison. A database without a description is an error: the report
// knows no engine of its own to guess from.
func Compare(in Input) (Comparison, error) {
	c := Comparison{SchemaVersion: SchemaVersion, Suite: in.Suite, Namespace: in.Namespace, Generated: in.Generated.UTC(),
		Workload: in.Spec.Workload, SLA: in.Spec.SLA, Search: in.Spec.Search, Repeats: max(1, in.Spec.Repeats),
		RunsPlanned: len(in.Spec.Databases) * int(max(1, in.Spec.Repeats))}
	for _, r := range in.Runs {
		if Final(r.Phase) {
			c.RunsDone++
		}
		c.Runs = append(c.Runs, Run{Name: r.Name, Database: r.Database, Repeat: r.Repeat, Phase: r.Phase, Start: r.StartTime,
			End: r.CompletionTime, Reason: r.Reason, Message: r.Message, Result: r.Result, Report: r.Report})
	}
	c.Complete = c.RunsDone == c.RunsPlanned
	descriptions := make([]benchv1.DatabaseDescription, len(in.Spec.Databases))
	for i, d := range in.Spec.Databases {
		desc, ok := in.Descriptions[d.Name]
		if !ok {
			return Comparison{}, fmt.Errorf("database %s (engine %s) has no description: the report knows no engine of its own", d.Name, d.Database.Engine)
		}
		descriptions[i] = desc
		c.Databases = append(c.Databases, Database{Name: d.Name, Engine: d.Database.Engine, Durability: DurabilityOf(desc),
			Resources: ResourcesOf(desc), Deployment: desc.Deployment, Pooler: desc.Pooler})
		r := row(d, desc, c.Repeats, in.Spec.Workload.Warehouses, in.Runs)
		addEqualTerms(&r, d, desc, in.Spec.Workload, in.Runs)
		addPricePerformance(&r, d.Name, in.Runs)
		c.Results = append(c.Results, r)
	}
	rank(&c)
	rankPrices(&c)
	c.Notes = append(Notes(c, in.Runs), floorNotes(c)...)
	c.Notes = append(c.Notes, priceNotes(c)...)
	if n := tuningNote(in.Spec.Databases, descriptions); n != "" {
		c.Notes = append(c.Notes, n)
	}
	return c, nil
}

// RunBound is a suite run's result bound: as recorded, or, for a result recorded before bounds
// existed, AllLoadedCompliant when it reached loaded (the suite's warehouses), else unknown ("").
func RunBound(r *benchv1.SuiteRunResult, loaded int32) benchv1.ResultBound {
	switch {
	case r == nil:
		return ""
	case r.Bound != "":
		return r.Bound
	case loaded > 0 && r.MaxCompliantWarehouses >= loaded:
		return benchv1.BoundAllLoadedCompliant
	}
	return ""
}

// rowBound is the bound of a database's figures over its succeeded runs' bounds: a floor when
// any run's is one (the first such), unknown when any is unknown, NoneCompliant when every run's
// is, else Bracketed (a run without a compliant step is known exactly too).
func rowBound(bounds []benchv1.ResultBound) benchv1.ResultBound {
	if len(bounds) == 0 {
		return ""
	}
	for _, b := range bounds {
		if b.Floor() {
			return b
		}
	}
	none := true
	for _, b := range bounds {
		if b == "" {
			return ""
		}
		none = none && b == benchv1.BoundNoneCompliant
	}
	if none {
		return benchv1.BoundNoneCompliant
	}
	return benchv1.BoundBracketed
}

// row is one database's results over its runs (loaded: the warehouses the runs loaded).
func row(d benchv1.SuiteDatabase, desc benchv1.DatabaseDescription, repeats, loaded int32, runs []benchv1.SuiteRunRecord) benchv1.SuiteDatabaseResult {
	r := benchv1.SuiteDatabaseResult{Database: d.Name, Engine: d.Database.Engine, Runs: repeats, Durability: desc.Durability.Words}
	var warehouses, tpmC, efficiency []float64
	var bounds []benchv1.ResultBound
	latency := map[benchv1.Transaction][3][]time.Duration{}
	for _, run := range runs {
		if run.Database != d.Name || !Final(run.Phase) {
			continue
		}
		r.RunsDone++
		if run.Phase != benchv1.PhaseSucceeded || run.Result == nil {
			continue
		}
		r.RunsSucceeded++
		warehouses = append(warehouses, float64(run.Result.MaxCompliantWarehouses))
		bounds = append(bounds, RunBound(run.Result, loaded))
		tpmC = append(tpmC, run.Result.TpmC)
		efficiency = append(efficiency, run.Result.Efficiency)
		for t, l := range run.Result.Latency {
			v := latency[t]
			v[0], v[1], v[2] = append(v[0], l.P50.Duration), append(v[1], l.P95.Duration), append(v[2], l.P99.Duration)
			latency[t] = v
		}
	}
	r.MaxCompliantWarehouses, r.TpmC, r.Efficiency = Summarize(warehouses), Summarize(tpmC), Summarize(efficiency)
	r.Bound = rowBound(bounds)
	if len(latency) > 0 {
		r.Latency = map[benchv1.Transaction]benchv1.LatencyPercentiles{}
		for t, v := range latency {
			r.Latency[t] = benchv1.LatencyPercentiles{P50: meanDuration(v[0]), P95: meanDuration(v[1]), P99: meanDuration(v[2])}
		}
	}
	return r
}

func meanDuration(ds []time.Duration) metav1.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	// Rounded to the microsecond, the histograms' unit.
	return metav1.Duration{Duration: (sum / time.Duration(max(1, len(ds)))).Round(time.Microsecond)}
}

// rank finds the leader (highest mean tpmC; the first in spec order on a tie) and each database's
// ratio to it. A database whose result is a floor is never ranked: its capacity may be above any
// other's, so while one is in the comparison no leader is named, and the databases with a
// bracketed result are compared with each other alone ("PostgreSQL is 1.05× this").
func rank(c *Comparison) {
	leader, runnerUp := -1, -1
	floors := false
	for i, r := range c.Results {
		if r.TpmC == nil {
			continue
		}
		if r.Bound.Floor() {
			floors = true
			c.Results[i].Versus = fmt.Sprintf("not ranked: a floor (%s), not a capacity", floorWords(r))
			continue
		}
		switch {
		case leader < 0 || r.TpmC.Mean > c.Results[leader].TpmC.Mean:
			leader, runnerUp = i, leader
		case runnerUp < 0 || r.TpmC.Mean > c.Results[runnerUp].TpmC.Mean:
			runnerUp = i
		}
	}
	if leader < 0 {
		return
	}
	lead := &c.Results[leader]
	if !floors {
		c.Leader = lead.Database
		lead.Leader, lead.RatioToLeader = true, 1
	}
	if runnerUp >= 0 && c.Results[runnerUp].TpmC.Mean > 0 {
		lead.Versus = fmt.Sprintf("%.2f× %s", lead.TpmC.Mean/c.Results[runnerUp].TpmC.Mean, c.Results[runnerUp].Database)
	}
	for i := range c.Results {
		r := &c.Results[i]
		if i == leader || r.TpmC == nil || r.Bound.Floor() || lead.TpmC.Mean <= 0 {
			continue
		}
		if !floors {
			r.RatioToLeader = float64(int64(r.TpmC.Mean/lead.TpmC.Mean*10000+0.5)) / 10000
		}
		if r.TpmC.Mean > 0 {
			r.Versus = fmt.Sprintf("%s is %.2f× this", lead.Database, lead.TpmC.Mean/r.TpmC.Mean)
		} else {
			r.Versus = "no compliant step"
		}
	}
}

// floorWords says a floor row's figures: "≥ 200 warehouses, AllLoadedCompliant".
func floorWords(r benchv1.SuiteDatabaseResult) string {
	w := "≥ ? warehouses"
	if r.MaxCompliantWarehouses != nil {
		w = fmt.Sprintf("≥ %.0f warehouses", r.MaxCompliantWarehouses.Min)
	}
	return fmt.Sprintf("%s, %s", w, r.Bound)
}

// floorNotes say which databases' results are floors, that they are neither ranked nor tied
// with another, and what finds their capacity.
func floorNotes(c Comparison) []string {
	var notes []string
	for _, r := range c.Results {
		if r.TpmC == nil || !r.Bound.Floor() {
			continue
		}
		advice := "load more warehouses (workload.warehouses) to find its capacity"
		if r.Bound == benchv1.BoundStepsExhausted {
			advice = "raise search.maxSteps to close the bracket"
		}
		notes = append(notes, fmt.Sprintf("%s: the result is a floor (%s), not a capacity: it is neither ranked nor tied with another database, and no leader is named while it is in the comparison; %s",
			r.Database, floorWords(r), advice))
	}
	return notes
}
