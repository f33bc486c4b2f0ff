package suite

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/results"
)

// Suites record their row, their runs link to it, and a suite naming a baseline is judged against
// the latest earlier suite with its labels: the first has none to compare with, the second holds
// the first's capacity, the third — whose database stops being compliant at 10 active warehouses
// instead of 16 — has regressed, naming the figures. The third retains its reports.
func TestSuiteBaselineVerdict(t *testing.T) {
	ns := ct.NewNamespace(t, "suite-baseline")
	server := pgtest.NewServer(t)
	ct.ResultsSecret(t, ns, "results-db", server.URL())
	pods := ct.NewClientPods()
	cfg := resultsConfig(pods)
	cfg.Results.Secret = &benchv1.SecretKeyRef{Name: "results-db", Key: "uri"} // the operator-wide default
	startSuiteManager(t, ns, cfg)
	ct.StartWriterKubelet(t, ns)

	runSuite := func(name string, boundaryWarehouses int, retain bool) *benchv1.BenchmarkSuite {
		t.Helper()
		start := int32(10)
		suite := &benchv1.BenchmarkSuite{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"pipeline": "nightly"}},
			Spec: benchv1.BenchmarkSuiteSpec{
				Repeats:   1,
				Databases: []benchv1.SuiteDatabase{suiteDatabase("pg", 2, "remote_apply")},
				Workload: benchv1.WorkloadSpec{Warehouses: 20, Duration: &metav1.Duration{Duration: time.Minute},
					RampUp: &metav1.Duration{}, Loader: benchv1.LoaderSpec{Pods: 4}},
				Search:        benchv1.SearchSpec{StartWarehouses: &start},
				Baseline:      &benchv1.SuiteBaseline{MatchLabels: map[string]string{"pipeline": "nightly"}, TolerancePercent: "5"},
				RetainReports: retain,
			},
		}
		if err := k8s.Create(context.Background(), suite); err != nil {
			t.Fatal(err)
		}
		run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-pg-1"}}
		ct.Eventually(t, 30*time.Second, func() error { return k8s.Get(context.Background(), client.ObjectKeyFromObject(run), run) })
		if run.Spec.Results != nil || run.Spec.RetainReports != retain {
			t.Errorf("run %s: results %+v retainReports %v, want the suite's", run.Name, run.Spec.Results, run.Spec.RetainReports)
		}
		ct.DeployAndLoad(t, run, nil)
		if got := ct.DriveSteps(t, run, pods, ct.Boundary(boundaryWarehouses), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil); got.Status.Phase != benchv1.PhaseSucceeded {
			t.Fatalf("%s: %s", run.Name, got.Status.Phase)
		}
		var got *benchv1.BenchmarkSuite
		ct.Eventually(t, 60*time.Second, func() error {
			got = getSuite(t, suite)
			c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionBaselineHeld)
			if got.Status.Phase != benchv1.PhaseSucceeded || !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.ConditionResultsRecorded) ||
				c == nil || c.Reason == benchv1.ReasonBaselinePending {
				return fmt.Errorf("suite %s: phase %s, conditions %+v", name, got.Status.Phase, got.Status.Conditions)
			}
			return nil
		})
		return got
	}

	first := runSuite("nightly-a", 16, false)
	if c := meta.FindStatusCondition(first.Status.Conditions, benchv1.ConditionBaselineHeld); c.Status != metav1.ConditionUnknown || c.Reason != benchv1.ReasonBaselineNotFound ||
		!strings.Contains(c.Message, "no suite of namespace suite-baseline with labels pipeline=nightly ended before this one") {
		t.Errorf("the first suite: BaselineHeld %+v", c)
	}
	second := runSuite("nightly-b", 16, false)
	if c := meta.FindStatusCondition(second.Status.Conditions, benchv1.ConditionBaselineHeld); c.Status != metav1.ConditionTrue || c.Reason != benchv1.ReasonBaselineHeld {
		t.Errorf("the same capacity again: BaselineHeld %+v", c)
	}
	if r := second.Status.Regression; r == nil || r.Regressed || !strings.HasPrefix(r.Baseline, ns+"/nightly-a (uid "+string(first.UID)) || len(r.Figures) != 2 {
		t.Errorf("the second suite's regression status %+v", r)
	}
	third := runSuite("nightly-c", 10, true)
	c := meta.FindStatusCondition(third.Status.Conditions, benchv1.ConditionBaselineHeld)
	if c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonBaselineRegressed ||
		!strings.Contains(c.Message, "regressed against "+ns+"/nightly-b: pg tpmC is 3") || !strings.Contains(c.Message, "pg maxCompliantWarehouses is 3") {
		t.Errorf("a regression built on purpose (16 → 10 warehouses): BaselineHeld %+v", c)
	}
	if r := third.Status.Regression; r == nil || !r.Regressed || r.Figures[0].Verdict != "Regressed" || r.Figures[0].Figure != "pg tpmC" {
		t.Errorf("the third suite's regression status %+v", r)
	}
	ct.AssertEvents(t, ns, "nightly-c", benchv1.ReasonBaselineRegressed)

	// The rows: each suite, and its run linked to it.
	conn, err := results.Connect(context.Background(), server.URL(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var suites, linked int
	ct.Row(t, conn, `SELECT count(*) FROM tpcc.suites WHERE ended_at IS NOT NULL AND comparison IS NOT NULL`, nil, &suites)
	ct.Row(t, conn, `SELECT count(*) FROM tpcc.runs r JOIN tpcc.suites s USING (suite_uid) JOIN tpcc.results x USING (run_uid)
	              WHERE r.suite = s.name AND r.suite_database = 'pg' AND r.suite_repeat = 1`, nil, &linked)
	if suites != 3 || linked != 3 {
		t.Errorf("%d suites with their end and comparison, %d runs linked to their suite with a result; want 3 and 3", suites, linked)
	}

	// Retained reports: annotated with their owner, not owned (deleting the suite and its runs
	// leaves them); the others owned.
	for name, owner := range map[string]types.UID{"nightly-c-comparison": third.UID, "nightly-c-pg-1-report": ct.GetRun(t, &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly-c-pg-1"}}).UID} {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			t.Fatal(err)
		}
		if len(cm.OwnerReferences) != 0 || cm.Annotations[kube.OwnerUIDAnnotation] != string(owner) {
			t.Errorf("retained %s: owners %+v, annotation %q", name, cm.OwnerReferences, cm.Annotations[kube.OwnerUIDAnnotation])
		}
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "nightly-b-pg-1-report"}, cm); err != nil || metav1.GetControllerOf(cm) == nil {
		t.Errorf("a report not retained is owned by its run: %v %+v", err, cm.OwnerReferences)
	}
	// spec.retainReports set on a run after it ended takes its report out of its ownership.
	run := ct.GetRun(t, &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly-b-pg-1"}})
	run.Spec.RetainReports = true
	if err := k8s.Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	ct.Eventually(t, 20*time.Second, func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "nightly-b-pg-1-report"}, cm); err != nil {
			return err
		}
		if len(cm.OwnerReferences) != 0 || cm.Annotations[kube.OwnerUIDAnnotation] != string(run.UID) {
			return fmt.Errorf("owners %+v", cm.OwnerReferences)
		}
		return nil
	})
}
