package suite

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
	comparison "github.com/tpcc-operator/tpcc-operator/internal/report"
)

// The suite's plan is pure: which runs, in which order, named how, with which spec. The controller
// derives everything else from the plan and the runs the API server has.

// maxRecordedMessage bounds a failed run's message in the suite's status.
const maxRecordedMessage = 512

// plannedRun is one run of a suite's plan.
type plannedRun struct {
	Name     string
	Database benchv1.SuiteDatabase
	Repeat   int32
}

// SuiteRunName names a suite's run: <suite>-<database>-<repeat>.
func SuiteRunName(suite *benchv1.BenchmarkSuite, database string, repeat int32) string {
	return fmt.Sprintf("%s-%s-%d", suite.Name, database, repeat)
}

// ComparisonConfigMapName names the suite's comparison ConfigMap.
func ComparisonConfigMapName(suite *benchv1.BenchmarkSuite) string { return suite.Name + "-comparison" }

// suitePlan is the suite's runs in the order they run. Reloading every run (dataReuse None) or
// restoring it from a snapshot (Snapshot): every database once per repeat, in spec order (A1 B1 C1
// A2 B2 C2), so drift over time hits every database alike. Reusing the data (dataReuse Repeats, the default): each database's repeats one
// after the other (A1 A2 A3 B1 …), each on the data the one before kept.
func suitePlan(suite *benchv1.BenchmarkSuite) []plannedRun {
	repeats := max(1, suite.Spec.Repeats)
	plan := make([]plannedRun, 0, int(repeats)*len(suite.Spec.Databases))
	if reusesData(suite) {
		for _, db := range suite.Spec.Databases {
			for repeat := int32(1); repeat <= repeats; repeat++ {
				plan = append(plan, plannedRun{Name: SuiteRunName(suite, db.Name, repeat), Database: db, Repeat: repeat})
			}
		}
		return plan
	}
	for repeat := int32(1); repeat <= repeats; repeat++ {
		for _, db := range suite.Spec.Databases {
			plan = append(plan, plannedRun{Name: SuiteRunName(suite, db.Name, repeat), Database: db, Repeat: repeat})
		}
	}
	return plan
}

// reusesData says whether the suite's repeats reuse the data of the repeat before (dataReuse
// Repeats, the default).
func reusesData(suite *benchv1.BenchmarkSuite) bool {
	return suite.Spec.DataReuse != benchv1.DataReuseNone && suite.Spec.DataReuse != benchv1.DataReuseSnapshot && suite.Spec.Repeats > 1
}

// snapshotsData says whether the suite's repeats restore the snapshot of a first repeat's freshly
// loaded data (dataReuse Snapshot).
func snapshotsData(suite *benchv1.BenchmarkSuite) bool {
	return suite.Spec.DataReuse == benchv1.DataReuseSnapshot && suite.Spec.Repeats > 1
}

// restoreSource is the run whose snapshot planned run i restores (dataReuse Snapshot): the first
// earlier repeat of the same database that took its snapshot (snapshotted says which runs did);
// "" to load afresh and take the snapshot itself — the first repeat, or a later one when no
// earlier repeat got as far as its snapshot. It is pure.
func restoreSource(suite *benchv1.BenchmarkSuite, plan []plannedRun, i int, snapshotted func(run string) bool) string {
	if !snapshotsData(suite) || plan[i].Repeat == 1 {
		return ""
	}
	for j := 0; j < i; j++ {
		if plan[j].Database.Name == plan[i].Database.Name && snapshotted(plan[j].Name) {
			return plan[j].Name
		}
	}
	return ""
}

// reuseSource is the run whose data planned run i starts from: the same database's repeat before,
// when the suite reuses data and that repeat succeeded (a failed one may have kept no loaded
// data); "" to load afresh. It is pure.
func reuseSource(suite *benchv1.BenchmarkSuite, plan []plannedRun, records []benchv1.SuiteRunRecord, i int) string {
	if !reusesData(suite) || plan[i].Repeat == 1 || plan[i].Database.Database.External != nil {
		return ""
	}
	if prev := i - 1; records[prev].Phase == benchv1.PhaseSucceeded {
		return plan[prev].Name
	}
	return ""
}

// suiteRun is the BenchmarkRun of a planned run: the suite's workload, SLA and search, the
// database's spec — reusing reuseFrom's data when set, and kept (Retain) for the next repeat when
// the suite reuses data, torn down (Delete) otherwise — labelled with the suite. The caller sets the
// suite as its controller; reg finds the database's engine.
func suiteRun(reg *registry.Registry, suite *benchv1.BenchmarkSuite, p plannedRun, reuseFrom, restoreFrom string) *benchv1.BenchmarkRun {
	database := *p.Database.Database.DeepCopy()
	database.Teardown = benchv1.TeardownDelete
	if reusesData(suite) && p.Repeat < suite.Spec.Repeats && database.External == nil {
		database.Teardown = benchv1.TeardownRetain // the next repeat takes it over
	}
	switch {
	case reuseFrom != "":
		database.Reuse = &benchv1.ReuseSpec{Run: reuseFrom}
	case restoreFrom != "":
		database.Restore = &benchv1.RestoreSpec{Run: restoreFrom}
	case snapshotsData(suite) && p.Repeat < suite.Spec.Repeats:
		// Loads, and keeps the loaded data for the repeats after it.
		database.Snapshot = &benchv1.SnapshotSpec{}
		if suite.Spec.Snapshot != nil {
			database.Snapshot = suite.Spec.Snapshot.DeepCopy()
		}
	}
	if reuseFrom != "" || restoreFrom != "" {
		// Nothing is loaded: what applies only while loading goes.
		reg.Engine(database).WithoutLoad(&database)
	}
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: suite.Namespace, Name: p.Name, Labels: map[string]string{
			"app.kubernetes.io/managed-by": "tpcc-operator",
			benchv1.SuiteLabel:             suite.Name,
			benchv1.SuiteDatabaseLabel:     p.Database.Name,
		}},
		Spec: benchv1.BenchmarkRunSpec{
			Database:  database,
			Workload:  *suite.Spec.Workload.DeepCopy(),
			SLA:       *suite.Spec.SLA.DeepCopy(),
			Search:    *suite.Spec.Search.DeepCopy(),
			Sustain:   suite.Spec.Sustain.DeepCopy(),
			Adversity: suite.Spec.Adversity.DeepCopy(),
			// Role by role, the database's own placement or the suite's.
			Placement: benchv1.MergePlacement(p.Database.Placement, suite.Spec.Placement, database.External != nil),
			// Its rows go where the suite's go, and its report outlives it as the suite's does.
			Results:       suite.Spec.Results.DeepCopy(),
			RetainReports: suite.Spec.RetainReports,
			// The database's own prices, else the suite's.
			Pricing: pricingOf(p.Database, suite),
		},
	}
}

// observeRun brings a run's record up to date with the run: its phase, and once it has ended, its
// result or why it failed. It never changes a record that has already ended.
func observeRun(rec *benchv1.SuiteRunRecord, run *benchv1.BenchmarkRun) {
	if rec.Phase == benchv1.PhaseSucceeded || rec.Phase == benchv1.PhaseFailed {
		return
	}
	start := run.CreationTimestamp
	rec.StartTime = &start
	rec.Phase = run.Status.Phase
	if rec.Phase == "" {
		rec.Phase = benchv1.PhasePending
	}
	if run.Status.Report != nil {
		rec.Report = run.Status.Report.ConfigMapName
	}
	if l := run.Status.Load; l != nil && (l.ReusedFrom != "" || l.RestoredFrom != "") {
		rec.ReusedFrom, rec.RestoredFrom = l.ReusedFrom, l.RestoredFrom
		if l.Dataset != nil {
			rec.DataGrowth = l.Dataset.Growth
		}
	}
	if comparison.Final(rec.Phase) {
		rec.Placement = comparison.PlacementFlags(run)
	}
	switch rec.Phase {
	case benchv1.PhaseSucceeded:
		rec.Result = comparison.RunResult(run)
		rec.CompletionTime = conditionTime(run, benchv1.ConditionComplete)
	case benchv1.PhaseFailed:
		rec.Reason, rec.Message = "Failed", ""
		if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionFailed); c != nil {
			rec.Reason, rec.Message = c.Reason, c.Message
		}
		if len(rec.Message) > maxRecordedMessage {
			rec.Message = strings.ToValidUTF8(rec.Message[:maxRecordedMessage], "") + "…" // never half a character
		}
		rec.CompletionTime = conditionTime(run, benchv1.ConditionFailed)
	}
}

func conditionTime(run *benchv1.BenchmarkRun, conditionType string) *metav1.Time {
	if c := meta.FindStatusCondition(run.Status.Conditions, conditionType); c != nil {
		t := c.LastTransitionTime
		return &t
	}
	now := metav1.Now()
	return &now
}

// pricingOf is a suite database's spec.pricing: its own, else the suite's; nil without either.
func pricingOf(d benchv1.SuiteDatabase, suite *benchv1.BenchmarkSuite) *benchv1.PricingSpec {
	if d.Pricing != nil {
		return d.Pricing.DeepCopy()
	}
	return suite.Spec.Pricing.DeepCopy()
}
