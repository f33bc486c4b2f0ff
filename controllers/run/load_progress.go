package run

import (
	"fmt"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/shard"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// The load's progress in status: the loader Job's finished pods (its completed indexes) count
// their whole warehouse ranges; its running pods, read over HTTP (load_progress_read.go), count
// the warehouses and rows they report. Then the finish, read from the check pod.

// loadFigures is what status.load says of a load under way.
type loadFigures struct {
	warehousesLoaded int32
	rowsLoaded       int64
	rowsExpected     int64
}

// sumLoadProgress adds the warehouses of the completed loader indexes to what the running pods
// report (running by completion index; an index also among the completed counts once, as
// completed). Rows are estimated: a finished pod's warehouses at tpcc.RowsPerWarehouse, a running
// pod's warehouses found already loaded too, and the rows it wrote as it reports them; at most
// the expected rows, and all of them once every warehouse is loaded.
func sumLoadProgress(warehouses, pods int32, completed []int, running map[int]snapshot.LoadProgress) (loadFigures, error) {
	f := loadFigures{rowsExpected: tpcc.LoadRows(int(warehouses))}
	done := map[int]bool{}
	for _, i := range completed {
		r, err := shard.Of(int(warehouses), i, int(pods))
		if err != nil {
			return loadFigures{}, fmt.Errorf("loader Job index %d: %w", i, err)
		}
		if !done[i] {
			f.warehousesLoaded += int32(r.Len())
			f.rowsLoaded += int64(r.Len()) * tpcc.RowsPerWarehouse
		}
		done[i] = true
	}
	for i, p := range running {
		r, err := shard.Of(int(warehouses), i, int(pods))
		if err != nil || done[i] {
			continue // an index the Job does not have, or counted as finished
		}
		f.warehousesLoaded += int32(min(max(p.WarehousesDone, 0), r.Len()))
		f.rowsLoaded += max(p.Rows, 0) + int64(min(max(p.WarehousesSkipped, 0), r.Len()))*tpcc.RowsPerWarehouse
	}
	f.warehousesLoaded = min(f.warehousesLoaded, warehouses)
	f.rowsLoaded = min(f.rowsLoaded, f.rowsExpected)
	if f.warehousesLoaded == warehouses {
		f.rowsLoaded = f.rowsExpected
	}
	return f, nil
}

// atLeast keeps the figures from going back below the status's: a running pod that does not
// answer in a pass is left out of it, and what it loaded stays loaded.
func (f loadFigures) atLeast(s *benchv1.LoadStatus) loadFigures {
	if s != nil {
		f.warehousesLoaded = max(f.warehousesLoaded, s.WarehousesLoaded)
		f.rowsLoaded = max(f.rowsLoaded, min(s.RowsLoaded, f.rowsExpected))
	}
	return f
}

// loadMessage is the DataLoaded condition's message while the loader runs: "1234/18000 warehouses
// loaded (13.7 %, 1.2 G of 9.0 G rows) by 36 pods".
func loadMessage(f loadFigures, warehouses, pods int32) string {
	percent := 0.0
	if f.rowsExpected > 0 {
		percent = 100 * float64(f.rowsLoaded) / float64(f.rowsExpected)
	}
	return fmt.Sprintf("%d/%d warehouses loaded (%.1f %%, %s of %s rows) by %d pods",
		f.warehousesLoaded, warehouses, percent, formatCount(f.rowsLoaded), formatCount(f.rowsExpected), pods)
}

// finishMessage is the DataLoaded condition's message while the check Job runs: the finish's
// statements done and running, or that the consistency check runs.
func finishMessage(warehouses int32, f *benchv1.LoadFinishStatus) string {
	switch {
	case f == nil:
		return fmt.Sprintf("%d/%d warehouses loaded; finishing the load (keys, indexes, statistics)", warehouses, warehouses)
	case f.Total > 0 && f.Done >= f.Total && len(f.Running) == 0:
		return fmt.Sprintf("%d/%d warehouses loaded; the load's finish ran its %d statements; checking consistency (TPC-C 3.3.2.1-12)",
			warehouses, warehouses, f.Total)
	}
	msg := fmt.Sprintf("%d/%d warehouses loaded; finishing the load: %d/%d statements done", warehouses, warehouses, f.Done, f.Total)
	if len(f.Running) > 0 {
		msg += ", running " + strings.Join(f.Running, "; ")
	}
	return msg
}

// finishStatus is status.load.finish of a finish's progress; maxRunning bounds the statements
// listed, each cut to maxStatement characters.
func finishStatus(p *snapshot.FinishProgress) *benchv1.LoadFinishStatus {
	if p == nil {
		return nil
	}
	const maxRunning, maxStatement = 8, 80
	out := &benchv1.LoadFinishStatus{Done: int32(p.Done), Total: int32(p.Total)}
	for i, s := range p.Running {
		if i == maxRunning {
			out.Running = append(out.Running, fmt.Sprintf("… %d more", len(p.Running)-maxRunning))
			break
		}
		s = strings.Join(strings.Fields(s), " ")
		if len(s) > maxStatement {
			s = s[:maxStatement-1] + "…"
		}
		out.Running = append(out.Running, s)
	}
	return out
}

// progressDue says whether the running pods' progress is read in this pass: at most once a poll
// interval since the figures last changed in status.
func progressDue(s *benchv1.LoadStatus, now time.Time, interval time.Duration) bool {
	return s == nil || s.ProgressTime == nil || now.Sub(s.ProgressTime.Time) >= interval
}

// formatCount renders a count of rows in a few characters: 999, 12.3 k, 1.2 M, 9.0 G.
func formatCount(n int64) string {
	switch {
	case n < 1_000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f k", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.1f M", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f G", float64(n)/1e9)
}
