package controllers

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
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
	default:
		message = "not started"
	}
	endConditions(&s.Conditions, generation, s.Phase, message)
}

// endConditions sets Ready and Ended from the phase: under way, both False with the phase as
// reason; Succeeded, both with reason Succeeded; Failed, both with the Failed condition's reason
// and message.
func endConditions(conditions *[]metav1.Condition, generation int64, phase benchv1.Phase, message string) {
	ready, ended := metav1.ConditionFalse, metav1.ConditionFalse
	reason := string(phase)
	if reason == "" {
		reason = string(benchv1.PhasePending)
	}
	switch phase {
	case benchv1.PhaseSucceeded:
		ready, ended, reason = metav1.ConditionTrue, metav1.ConditionTrue, benchv1.ReasonSucceeded
	case benchv1.PhaseFailed:
		ended, reason = metav1.ConditionTrue, string(benchv1.PhaseFailed)
		if c := meta.FindStatusCondition(*conditions, benchv1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
			reason, message = c.Reason, c.Message
		}
	}
	if message == "" {
		message = string(phase)
	}
	setConditionIn(conditions, generation, benchv1.ConditionReady, ready, reason, message)
	setConditionIn(conditions, generation, benchv1.ConditionEnded, ended, reason, message)
}
