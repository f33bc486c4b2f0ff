package jobs

import (
	"slices"
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
)

func TestMeasureFaults(t *testing.T) {
	for _, tc := range []struct {
		engine benchv1.Engine
		ledger bool
	}{{benchv1.EnginePostgreSQL, true}, {benchv1.EngineCockroachDB, true}, {benchv1.EngineYDB, false}} {
		e, _ := registry.Default().Lookup(tc.engine)
		conn := secretConn
		conn.Engine, conn.Ledger = e.Dialect(), e.Capabilities().Ledger
		job := StepJob(testRun(10), 3, 10, 0, conn, Config{})
		MeasureFaults(job, conn)
		args := job.Spec.Template.Spec.Containers[0].Args
		if got := arg(t, args, "--interval"); got != "1s" {
			t.Errorf("%s: --interval %s, want 1s: the outage is read from per-second counts", tc.engine, got)
		}
		if slices.Contains(args, "--ledger-check") != tc.ledger {
			t.Errorf("%s: --ledger-check in %v, want %v", tc.engine, args, tc.ledger)
		}
	}
}

func TestFaultCheckJob(t *testing.T) {
	job := FaultCheckJob(testRun(10), 7, secretConn, Config{})
	c := job.Spec.Template.Spec.Containers[0]
	if job.Name != "r-check-step-7" || len(job.Spec.Template.Spec.InitContainers) != 0 {
		t.Errorf("job %s with %d init containers", job.Name, len(job.Spec.Template.Spec.InitContainers))
	}
	if slices.Contains(c.Args, "--load-time") {
		t.Errorf("args %v: 3.3.2.11 holds only until the first Delivery", c.Args)
	}
	if got := arg(t, c.Args, "--warehouses"); got != "10" {
		t.Errorf("--warehouses %s", got)
	}
	assertURLFromSecret(t, c)
}
