package run

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
)

// runReadyConditions derives a run's Ready and Ended conditions (api/v1alpha1/conditions_ready.go)
// from its phase, on every status write: Ready's reason is the phase under way and its message what
// the run is doing; once the run ends both carry Succeeded or the Failed condition's reason.
func runReadyConditions(s *benchv1.BenchmarkRunStatus, generation int64) {
	message := ""
	switch s.Phase {
	case benchv1.PhaseSucceeded:
		if s.Result != nil {
			message = s.Result.Message
		}
	case benchv1.PhaseDeploying:
		message = "waiting for the database"
		if c := meta.FindStatusCondition(s.Conditions, benchv1.ConditionDatabaseReady); c != nil && c.Message != "" {
			message += ": " + c.Message
		}
	case benchv1.PhaseLoading:
		message = "loading"
		if s.Load != nil {
			message = fmt.Sprintf("loading %d warehouses", s.Load.Warehouses)
		}
		// Loaded under postgres.loadResources: the phase stays Loading until the database runs
		// with its measured resources.
		if switching := s.ResourceSwitchMessage(); switching != "" {
			message = fmt.Sprintf("%d warehouses loaded; %s", s.Load.WarehousesLoaded, switching)
		}
		// Loaded with spec.database.snapshot: kept as VolumeSnapshots before the first step.
		if snap := s.Load; snap != nil && snap.Snapshot != nil && snap.Snapshot.ReadyTime == nil {
			message = fmt.Sprintf("%d warehouses loaded; snapshotting them (%s)", snap.WarehousesLoaded, snap.Snapshot.Backup)
			if snap.Snapshot.Instance != "" {
				message = fmt.Sprintf("%d warehouses loaded; snapshotting them (%s, on %s, fenced meanwhile)", snap.WarehousesLoaded, snap.Snapshot.Backup, snap.Snapshot.Instance)
			}
		}
	case benchv1.PhaseRunning:
		message = fmt.Sprintf("%d step(s) recorded", len(s.Steps))
		if c := s.Current; c != nil {
			message = fmt.Sprintf("step %d at %d active warehouses; %s", c.Index, c.ActiveWarehouses, message)
		}
		// Between steps, waiting for the database to be ready again (step_gate.go).
		if waiting := s.DatabaseWaitMessage(); waiting != "" {
			message = fmt.Sprintf("%s; %s", waiting, message)
		}
		// After the last step, back onto postgres.loadResources for the check (resource_restore.go).
		if restoring := s.ResourceRestoreMessage(); restoring != "" {
			message = fmt.Sprintf("%s; %s", message, restoring)
		}
	default:
		message = "not started"
	}
	kube.EndConditions(&s.Conditions, generation, s.Phase, message)
}
