package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SuiteLabel marks the BenchmarkRuns a suite creates with the suite's name.
const SuiteLabel = "bench.oltp.io/suite"

// SuiteDatabaseLabel marks a suite's run with the suite database it measures.
const SuiteDatabaseLabel = "bench.oltp.io/suite-database"

// BenchmarkSuiteStatus is the progress of a suite's runs and the comparison of its databases.
type BenchmarkSuiteStatus struct {
	// Phase is Pending, Running, Succeeded (every run ended, at least one with a result) or Failed
	// (every run ended, none with a result).
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Complete, Failed, ResultsRecorded, BaselineHeld.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Progress is "<runs ended>/<runs planned>".
	// +optional
	Progress string `json:"progress,omitempty"`

	// Leader is the database with the highest mean tpmC so far; empty while any database's result
	// is a floor (results[].bound), which may hide a higher capacity.
	// +optional
	Leader string `json:"leader,omitempty"`

	// Runs are the suite's runs in the order they run, recorded as they start and end. A recorded
	// end is kept even if the BenchmarkRun is deleted later.
	// +listType=atomic
	// +optional
	Runs []SuiteRunRecord `json:"runs,omitempty"`

	// Results are one row per database, in spec order.
	// +listType=atomic
	// +optional
	Results []SuiteDatabaseResult `json:"results,omitempty"`

	// Notes say where the databases are not measured on equal terms (durability, resources,
	// workload): a note, not a refusal.
	// +listType=atomic
	// +optional
	Notes []string `json:"notes,omitempty"`

	// Report names the ConfigMap holding the comparison (comparison.json, comparison.md).
	// +optional
	Report *ReportRef `json:"report,omitempty"`

	// ResultsDatabase is where the suite's row in the results database stands (docs/results.md).
	// +optional
	ResultsDatabase *ResultsRecording `json:"resultsDatabase,omitempty"`

	// Regression is the comparison with spec.baseline, once the suite ended and the baseline was
	// read from the results database.
	// +optional
	Regression *RegressionStatus `json:"regression,omitempty"`
}

// SuiteRunRecord is one BenchmarkRun of a suite.
type SuiteRunRecord struct {
	// Name of the BenchmarkRun: <suite>-<database>-<repeat>.
	Name string `json:"name"`
	// Database is the suite database's name.
	Database string `json:"database"`
	// Repeat is 1-based.
	Repeat int32 `json:"repeat"`
	// Phase is the run's phase as last seen; Succeeded and Failed are final.
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// StartTime is when the suite created the run.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// CompletionTime is when the suite saw the run end.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// Reason and Message say why a run failed.
	// +optional
	Reason string `json:"reason,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
	// Result is the run's result, when it succeeded.
	// +optional
	Result *SuiteRunResult `json:"result,omitempty"`
	// Report names the run's own report ConfigMap (every step and the merged histograms).
	// +optional
	Report string `json:"report,omitempty"`
	// ReusedFrom names the repeat whose data this run started from (dataReuse Repeats), and
	// DataGrowth how much the workload had grown it since the load (rows per grown table).
	// +optional
	ReusedFrom string `json:"reusedFrom,omitempty"`
	// +optional
	DataGrowth map[string]int64 `json:"dataGrowth,omitempty"`
	// RestoredFrom names the repeat whose snapshot of its freshly loaded data this run's database
	// was restored from (dataReuse Snapshot); its DataGrowth is then what the restored data had
	// grown since that load (none: every restore starts from the same data).
	// +optional
	RestoredFrom string `json:"restoredFrom,omitempty"`

	// Placement is what the run's placement undermined, once it ended: client pods beside a
	// database pod, database instances sharing a node (status.steps[].placement.findings).
	// +listType=atomic
	// +optional
	Placement []string `json:"placement,omitempty"`
}

// SuiteRunResult is a run's result as the suite compares it.
type SuiteRunResult struct {
	// MaxCompliantWarehouses is the run's largest compliant active warehouse count; 0 if none.
	MaxCompliantWarehouses int32 `json:"maxCompliantWarehouses"`
	// Bound is the run's status.result.bound: Bracketed, or a floor (AllLoadedCompliant,
	// StepsExhausted) the comparison never ranks; absent for results recorded before it existed.
	// +optional
	Bound ResultBound `json:"bound,omitempty"`
	// TpmC at that count.
	TpmC float64 `json:"tpmC"`
	// Efficiency at that count, in percent.
	Efficiency float64 `json:"efficiency"`
	// Latency is each transaction's p50/p95/p99 at the run's result step.
	// +optional
	Latency map[Transaction]LatencyPercentiles `json:"latency,omitempty"`
	// Sustained is whether the run held its result through its sustained phase (spec.sustain).
	// +optional
	Sustained *SustainedResult `json:"sustained,omitempty"`
	// PerResource is the run's tpmC per database vCPU and GiB (status.result.perResource).
	// +listType=atomic
	// +optional
	PerResource []PerResource `json:"perResource,omitempty"`
	// Bottleneck is the resource saturated at the run's result bound.
	// +optional
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
	// Isolation the run's steps ran at (read back by the clients).
	// +optional
	Isolation Isolation `json:"isolation,omitempty"`
	// PricePerformance is the run's status.result.pricePerformance (with spec.pricing).
	// +optional
	PricePerformance *PricePerformance `json:"pricePerformance,omitempty"`
	// Adversity is the run's resilience profile: its adversity step's states (spec.adversity).
	// +optional
	Adversity *AdversityRecord `json:"adversity,omitempty"`
}

// LatencyPercentiles are one transaction type's median, 95th and 99th percentile response times.
type LatencyPercentiles struct {
	P50 metav1.Duration `json:"p50"`
	P95 metav1.Duration `json:"p95"`
	P99 metav1.Duration `json:"p99"`
}

// Statistic summarises one figure over a database's runs that have a result.
type Statistic struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	// CI95 is the 95 % confidence interval of the mean (Student's t), with 3 or more runs.
	// +optional
	CI95 *Interval `json:"ci95,omitempty"`
}

// Interval is a closed interval [Low, High].
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// SuiteDatabaseResult is one database's row of the comparison.
type SuiteDatabaseResult struct {
	// Database is the suite database's name.
	Database string `json:"database"`
	// Engine of the database.
	Engine Engine `json:"engine"`
	// RunsDone are the database's runs that ended; RunsSucceeded those with a result.
	RunsDone      int32 `json:"runsDone"`
	RunsSucceeded int32 `json:"runsSucceeded"`
	// Runs planned for the database (spec.repeats).
	Runs int32 `json:"runs"`
	// MaxCompliantWarehouses, TpmC and Efficiency over the runs that succeeded.
	// +optional
	MaxCompliantWarehouses *Statistic `json:"maxCompliantWarehouses,omitempty"`
	// Bound is what the figures are: Bracketed when every succeeded run's result was bracketed;
	// the floor's bound (AllLoadedCompliant or StepsExhausted) when any run's was a floor — then
	// the figures are floors ("≥"), and the database is neither ranked nor tied with another;
	// absent when a run's bound is unknown (recorded before bounds existed) or none succeeded.
	// +optional
	Bound ResultBound `json:"bound,omitempty"`
	// +optional
	TpmC *Statistic `json:"tpmC,omitempty"`
	// +optional
	Efficiency *Statistic `json:"efficiency,omitempty"`
	// Latency is each transaction's p50/p95/p99 at the result step, the mean over the runs that
	// succeeded (each run's own figures are in status.runs[].result.latency).
	// +optional
	Latency map[Transaction]LatencyPercentiles `json:"latency,omitempty"`
	// Durability is what a commit waits for, in words.
	Durability string `json:"durability"`
	// Isolation is the level the database's transactions run at: workload.isolation, or the
	// engine's default.
	// +optional
	Isolation Isolation `json:"isolation,omitempty"`
	// PerResource is tpmC per database vCPU and per GiB of database memory over the runs that
	// succeeded, per basis (requests, limits, measured peak).
	// +listType=atomic
	// +optional
	PerResource []PerResourceStatistic `json:"perResource,omitempty"`
	// Bottlenecks name the resource saturated at each succeeded run's result bound, with how
	// many runs: "DatabaseCPU (3 of 3 runs)".
	// +listType=atomic
	// +optional
	Bottlenecks []string `json:"bottlenecks,omitempty"`
	// Leader is true for the database with the highest mean tpmC, named only when no database's
	// result is a floor (a floor may hide a higher capacity).
	// +optional
	Leader bool `json:"leader,omitempty"`
	// RatioToLeader is this database's mean tpmC over the leader's (1 for the leader).
	// +optional
	RatioToLeader float64 `json:"ratioToLeader,omitempty"`
	// PricePerformance is the database's price-performance over its runs that succeeded (with
	// spec.pricing).
	// +optional
	PricePerformance *PricePerformanceStatistic `json:"pricePerformance,omitempty"`
	// Versus says it in words: the leader "1.05× YDB" (over the runner-up), the others
	// "PostgreSQL is 1.05× this".
	// +optional
	Versus string `json:"versus,omitempty"`
}

// PricePerformanceStatistic is a database's price-performance over its runs. Its monthly cost is
// one figure per configuration, so the ratios carry the tpmC's confidence interval divided by it
// (the cost per tpmC the interval's reciprocal).
type PricePerformanceStatistic struct {
	// Currency of every amount.
	Currency string `json:"currency"`
	// NotPriced says why a run of the database was not priced; the figures are then absent.
	// +optional
	NotPriced string `json:"notPriced,omitempty"`
	// Rule is what its runs' database pods were priced at.
	// +optional
	Rule PricingRule `json:"rule,omitempty"`
	// MonthlyCost over the runs (their mean when their costs differ).
	// +optional
	MonthlyCost *float64 `json:"monthlyCost,omitempty"`
	// TpmCPerCurrency is tpmC per unit of currency a month.
	// +optional
	TpmCPerCurrency *Statistic `json:"tpmCPerCurrency,omitempty"`
	// CostPerTpmCMonth and CostPerTpmC3Years are the cost per tpmC a month and over 36 months.
	// +optional
	CostPerTpmCMonth *Statistic `json:"costPerTpmCMonth,omitempty"`
	// +optional
	CostPerTpmC3Years *Statistic `json:"costPerTpmC3Years,omitempty"`
	// TpmCRank and Rank order the databases whose result is no floor by mean tpmC and by mean
	// tpmC per currency (1 first); absent for a floor, and Rank absent when the databases are
	// priced in different currencies.
	// +optional
	TpmCRank int32 `json:"tpmCRank,omitempty"`
	// +optional
	Rank int32 `json:"rank,omitempty"`
}

// PerResourceStatistic is tpmC per vCPU and per GiB on one basis over a database's runs.
type PerResourceStatistic struct {
	Basis ResourceBasis `json:"basis"`
	// +optional
	TpmCPerVCPU *Statistic `json:"tpmCPerVCPU,omitempty"`
	// +optional
	TpmCPerGiB *Statistic `json:"tpmCPerGiB,omitempty"`
}
