package run

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// TestLoadProgressFromRunningPods: while no loader pod has finished, status.load counts the
// warehouses and rows the running pods serve (GET /v1/load, with the run's token), rising as they
// do; a pod that stops answering leaves the figures where they were; finished indexes then count
// whole; the check pod's finish serves its statements into status.load.finish and the condition.
func TestLoadProgressFromRunningPods(t *testing.T) {
	ns := ct.NewNamespace(t, "load-progress")
	loaders := ct.NewLoaderPods()
	cfg := testConfig(ct.NewClientPods())
	cfg.SnapshotURL = loaders.URL
	startManager(t, ns, cfg)
	run := ct.NewRun(ns, "lp", 40, 10) // 4 loader pods of 10 warehouses
	if err := k8s.Create(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	ct.SetClusterReady(t, ns, "lp-db", 3)
	loader := ct.GetJob(t, ns, jobs.LoaderJobName(run))
	fakes := ct.RunLoaderPods(t, loaders, loader)
	if len(fakes) != 4 {
		t.Fatalf("%d loader pods", len(fakes))
	}
	expected := tpcc.LoadRows(40)
	waitLoad := func(what string, check func(l *benchv1.LoadStatus, message string) error) {
		t.Helper()
		ct.Eventually(t, 20*time.Second, func() error {
			got := ct.GetRun(t, run)
			c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionDataLoaded)
			if got.Status.Load == nil || c == nil {
				return fmt.Errorf("%s: no load status yet", what)
			}
			if err := check(got.Status.Load, c.Message); err != nil {
				return fmt.Errorf("%s: %w (load %+v, message %q)", what, err, *got.Status.Load, c.Message)
			}
			return nil
		})
	}

	fakes[0].Set(snapshot.LoadProgress{Phase: "warehouses", WarehouseFrom: 1, WarehouseTo: 10, WarehousesDone: 2, Rows: 1_100_000})
	fakes[2].Set(snapshot.LoadProgress{Phase: "warehouses", WarehouseFrom: 21, WarehouseTo: 30, WarehousesDone: 1, Rows: 600_000})
	waitLoad("two pods reporting", func(l *benchv1.LoadStatus, msg string) error {
		if l.WarehousesLoaded != 3 || l.RowsLoaded != 1_700_000 || l.RowsExpected != expected || l.ProgressTime == nil {
			return fmt.Errorf("want 3 warehouses, 1.7 M of %d rows", expected)
		}
		return ct.ContainsAll(msg, "3/40 warehouses loaded (8.5 %, 1.7 M of 20.1 M rows) by 4 pods")
	})

	fakes[0].Set(snapshot.LoadProgress{Phase: "warehouses", WarehouseFrom: 1, WarehouseTo: 10, WarehousesDone: 6, Rows: 3_100_000})
	waitLoad("rising", func(l *benchv1.LoadStatus, msg string) error {
		if l.WarehousesLoaded != 7 || l.RowsLoaded != 3_700_000 {
			return fmt.Errorf("want 7 warehouses, 3.7 M rows")
		}
		return nil
	})

	// Index 1 finished (its pod gone), index 2 stops answering: 10 + 6 + the 1 already counted.
	loaders.Close(fakes[2])
	ct.SetJobProgress(t, loader, "1", 1, false)
	waitLoad("a finished index and a silent pod", func(l *benchv1.LoadStatus, msg string) error {
		if l.WarehousesLoaded != 16 || l.RowsLoaded != 10*tpcc.RowsPerWarehouse+3_100_000 {
			return fmt.Errorf("want 16 warehouses, %d rows", 10*tpcc.RowsPerWarehouse+3_100_000)
		}
		return nil
	})

	ct.SetJobProgress(t, loader, "0-3", 4, true)
	check := ct.GetJob(t, ns, jobs.CheckJobName(run))
	finish, pod := ct.RunFinishPod(t, loaders, check)
	finish.Set(snapshot.LoadProgress{Phase: "finish", Finish: &snapshot.FinishProgress{Done: 4, Total: 21,
		Running: []string{"ALTER TABLE order_line ADD CONSTRAINT order_line_pkey PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)", "ANALYZE stock"}}})
	waitLoad("the finish running", func(l *benchv1.LoadStatus, msg string) error {
		if l.WarehousesLoaded != 40 || l.RowsLoaded != expected || l.Finish == nil || l.Finish.Done != 4 || l.Finish.Total != 21 ||
			!slices.Contains(l.Finish.Running, "ANALYZE stock") {
			return fmt.Errorf("want all warehouses, the finish at 4/21 running ANALYZE stock")
		}
		return ct.ContainsAll(msg, "finishing the load: 4/21 statements done, running ALTER TABLE order_line", "; ANALYZE stock")
	})
	ct.EndFinish(t, finish, pod)
	waitLoad("the check running", func(l *benchv1.LoadStatus, msg string) error {
		if l.Finish == nil || l.Finish.Done != 21 || len(l.Finish.Running) != 0 {
			return fmt.Errorf("want the finish at 21/21")
		}
		return ct.ContainsAll(msg, "ran its 21 statements; checking consistency")
	})
	ct.CheckPod(t, check, ct.LoadedDataset(40))
	ct.SetJobProgress(t, check, "", 1, true)
	waitLoad("loaded", func(l *benchv1.LoadStatus, msg string) error {
		if l.CompletionTime == nil || l.RowsLoaded != expected {
			return fmt.Errorf("not complete")
		}
		return ct.ContainsAll(msg, "40 warehouses loaded and consistent")
	})
}
