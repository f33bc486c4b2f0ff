//go:build e2e

package e2e

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// TestSustainedPhaseBreaks: the sustained phase with the real client on CloudNativePG. A run of
// the reference configuration (two synchronous standbys, remote_apply) finds its result in one
// fixed step, then holds 100 % of it for 3 minutes judged minute by minute under a replication
// bound of 1 s; 70 s into the phase the test pauses WAL replay on one standby for 40 s
// (pg_wal_replay_pause). The phase must be recorded as broken in the window the pause began in
// (or the next, when the lag crossed its bound after the window's end), naming the standby's
// replay lag, with the windows before the pause held; the result keeps the search's figure beside
// "did not hold" and the Sustained condition is False.
func TestSustainedPhaseBreaks(t *testing.T) {
	longCase(t, 9, "a 3-minute sustained phase broken on purpose by pausing a standby's replay")
	t.Parallel()
	ns := newNamespace(t, "e2e-sustain")
	run := smallSyncRun(ns, "sustain")
	run.Spec.SLA.MaxReplicationLag = &metav1.Duration{Duration: time.Second}
	run.Spec.Sustain = &benchv1.SustainSpec{Percent: 100, Duration: metav1.Duration{Duration: 3 * time.Minute},
		Window: &metav1.Duration{Duration: time.Minute}}
	ctx := context.Background()
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(run)

	const pauseAt, pauseFor = 70 * time.Second, 40 * time.Second
	waitFor(t, key, runTimeout, "the sustained step 70 s into its measured interval", func(r *benchv1.BenchmarkRun) bool {
		c := r.Status.Current
		return r.Status.Phase == benchv1.PhaseFailed ||
			c != nil && c.Kind == benchv1.StepSustain && c.Elapsed != nil && c.Elapsed.Duration >= pauseAt
	})
	standby := replicaPod(t, ns, run.Name+"-db")
	paused := time.Now()
	psql(t, ns, standby, "SELECT pg_wal_replay_pause()")
	t.Logf("replay paused on %s", standby)
	time.Sleep(pauseFor)
	psql(t, ns, standby, "SELECT pg_wal_replay_resume()")
	t.Logf("replay resumed on %s after %s", standby, time.Since(paused).Round(time.Second))

	done := waitFor(t, key, runTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded || r.Status.Phase == benchv1.PhaseFailed
	})
	if done.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("%s: %s", done.Status.Phase, conditionMessages(done))
	}
	var sustained *benchv1.StepResult
	for i := range done.Status.Steps {
		if s := &done.Status.Steps[i]; s.Kind == benchv1.StepSustain {
			sustained = s
		}
		s := done.Status.Steps[i]
		t.Logf("step %d: %s %d warehouses, tpmC %.1f, compliant %v %s", s.Index, s.Kind, s.ActiveWarehouses, s.TpmC, s.Compliant, strings.Join(s.Reasons, "; "))
	}
	if sustained == nil || sustained.Sustain == nil || sustained.StartTime == nil {
		t.Fatalf("no sustained step with its record and start time: %+v", sustained)
	}
	rec := sustained.Sustain
	t.Logf("sustain: held %v, %d windows of %s, %d broken, first breach %+v, tpmC slope %.1f/h",
		rec.Held, rec.Windows, rec.Window.Duration, rec.BrokenWindows, rec.FirstBreach, rec.TpmCSlopePerHour)
	// Where the pause fell in the measured interval (the test's clock against the step's start).
	pausedAfter := paused.Sub(sustained.StartTime.Time)
	t.Logf("replay paused %s into the measured interval", pausedAfter.Round(time.Second))
	if rec.Held || rec.FirstBreach == nil || rec.BrokenWindows == 0 {
		t.Fatalf("the phase held through a 40 s replay pause under a 1 s lag bound")
	}
	window := rec.Window.Duration
	first := pausedAfter.Truncate(window)
	if after := rec.FirstBreach.After.Duration; after != first && after != first+window {
		t.Errorf("first breach %s into the phase, want the window the pause began in (%s) or the next", after, first)
	}
	if rec.FirstBreach.After.Duration == 0 {
		t.Errorf("the first window, before the pause, broke: %v", rec.FirstBreach.Reasons)
	}
	said := strings.Join(append(append([]string{}, rec.FirstBreach.Reasons...), rec.FirstBreach.Signals...), "; ")
	if !strings.Contains(said, "replay lag") || !strings.Contains(said, standby) {
		t.Errorf("the first breach names %q: want the replay lag of %s", said, standby)
	}
	res := done.Status.Result
	if res == nil || res.Sustained == nil || res.Sustained.Held || res.Sustained.BrokeAfter == nil || res.Sustained.Reason == "" {
		t.Errorf("status.result.sustained %+v: want not held, when and why", res)
	} else {
		t.Logf("result: %d warehouses, tpmC %.1f; sustained %d warehouses for %s: broke after %s: %s",
			res.MaxCompliantWarehouses, res.TpmC, res.Sustained.ActiveWarehouses, res.Sustained.Duration.Duration,
			res.Sustained.BrokeAfter.Duration, res.Sustained.Reason)
	}
	if c := meta.FindStatusCondition(done.Status.Conditions, benchv1.ConditionSustained); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("condition Sustained %+v, want False", c)
	}
}

// replicaPod names a standby instance of a CloudNativePG cluster.
func replicaPod(t *testing.T, namespace, cluster string) string {
	t.Helper()
	out, err := exec.Command(kubectl, "-n", namespace, "get", "pods", "-l", "cnpg.io/cluster="+cluster+",cnpg.io/instanceRole=replica",
		"-o", "jsonpath={.items[0].metadata.name}").CombinedOutput()
	if err != nil || len(out) == 0 {
		t.Fatalf("a replica of %s: %v: %s", cluster, err, out)
	}
	return strings.TrimSpace(string(out))
}
