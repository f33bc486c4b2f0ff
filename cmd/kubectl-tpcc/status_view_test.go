package main

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestCurrentWords(t *testing.T) {
	at := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	started := &metav1.Time{Time: at.Add(-90 * time.Second)}
	for _, tc := range []struct {
		name string
		c    benchv1.StepProgress
		want string
	}{
		{"ramping up", benchv1.StepProgress{Index: 3, ActiveWarehouses: 40, Pods: 2}, "step 3 (Full, 40 active warehouses, 2 pods): starting (pods starting or ramping up)"},
		{"measuring", benchv1.StepProgress{Index: 3, ActiveWarehouses: 40, Kind: benchv1.StepProbe, Pods: 2, Duration: pd(2 * time.Minute), StartTime: started, TpmC: 501.25},
			"step 3 (Probe, 40 active warehouses, 2 pods): 1m30s of 2m0s elapsed, 30s remaining, tpmC 501.2"},
		{"overrun", benchv1.StepProgress{Index: 0, ActiveWarehouses: 1, Pods: 1, Duration: pd(time.Minute), StartTime: started},
			"step 0 (Full, 1 active warehouses, 1 pods): 1m30s of 1m0s elapsed, 0s remaining"},
		{"no planned length", benchv1.StepProgress{Index: 0, ActiveWarehouses: 1, Pods: 1, StartTime: started, Elapsed: pd(2 * time.Minute)},
			"step 0 (Full, 1 active warehouses, 1 pods): 2m0s elapsed"},
	} {
		if got := currentWords(&tc.c, at); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestRunLineAndKey(t *testing.T) {
	at := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	run := &benchv1.BenchmarkRun{Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseLoading, Load: &benchv1.LoadStatus{Warehouses: 10, WarehousesLoaded: 4}}}
	if got, want := runLine(run, at), "Loading — 4/10 warehouses loaded"; got != want {
		t.Errorf("runLine = %q, want %q", got, want)
	}
	before := runKey(run)
	run.Status.Load.WarehousesLoaded = 5
	if runKey(run) != before {
		t.Error("load progress alone changes the key (it is a live figure)")
	}
	run.Status.Phase = benchv1.PhaseRunning
	if runKey(run) == before {
		t.Error("a new phase keeps the key")
	}
	if got, want := runLine(&benchv1.BenchmarkRun{}, at), "Pending"; got != want {
		t.Errorf("runLine of a new run = %q, want %q", got, want)
	}
}
