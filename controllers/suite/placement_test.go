package suite

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
)

// A suite's run takes, role by role, its database's placement or the suite's; its record keeps the
// run's placement flags once the run has ended.
func TestSuiteRunPlacement(t *testing.T) {
	own := &benchv1.PodPlacement{NodeSelector: map[string]string{"pool": "pg"}}
	shared := &benchv1.PodPlacement{NodeSelector: map[string]string{"pool": "clients"}}
	suite := &benchv1.BenchmarkSuite{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "s"}, Spec: benchv1.BenchmarkSuiteSpec{
		Databases: []benchv1.SuiteDatabase{
			{Name: "pg", Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}, Placement: &benchv1.Placement{Database: own}},
			{Name: "ext", Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, External: &benchv1.ExternalSpec{}}},
		},
		Placement: &benchv1.Placement{Database: shared, Clients: shared},
	}}
	plan := suitePlan(suite)
	pg, ext := suiteRun(registry.Default(), suite, plan[0], "", "").Spec.Placement, suiteRun(registry.Default(), suite, plan[1], "", "").Spec.Placement
	if pg.Database.NodeSelector["pool"] != "pg" || pg.Clients.NodeSelector["pool"] != "clients" || pg.Loader != nil {
		t.Errorf("pg's placement %+v", pg)
	}
	if ext.Database != nil || ext.Clients.NodeSelector["pool"] != "clients" {
		t.Errorf("the external database's placement %+v", ext)
	}

	run := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseRunning,
		Steps: []benchv1.StepResult{{Index: 0, Placement: &benchv1.StepPlacement{SharedDatabaseNodes: []string{"n1"}}}}}}
	rec := benchv1.SuiteRunRecord{Name: "s-pg-1"}
	observeRun(&rec, run)
	if len(rec.Placement) != 0 {
		t.Errorf("a running run's record carries placement flags %q", rec.Placement)
	}
	run.Status.Phase = benchv1.PhaseFailed
	observeRun(&rec, run)
	if len(rec.Placement) != 1 || !strings.Contains(rec.Placement[0], "does not survive the loss of a machine") {
		t.Errorf("the ended run's record: placement %q", rec.Placement)
	}
}
