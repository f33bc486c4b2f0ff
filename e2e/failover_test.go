//go:build e2e

package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// testPostgresFailover: PostgreSQL with two synchronous standbys under remote_apply, one Fixed
// step, then the result step with KillPrimary 20 s into its measured interval. CloudNativePG
// promotes a standby, the clients reconnect through the -rw Service, the run completes; the step
// records the outage, the new primary and the recovery, and the ledger and the TPC-C consistency
// conditions pass. Without think times (wait None) the clients commit every second, so the outage
// is the failover's, not a lull of the workload.
func testPostgresFailover(t *testing.T) {
	longCase(t, 15, "the primary killed under load, the New-Order ledger checked")
	ns := newNamespace(t, "e2e-failover")
	run := smallSyncRun(ns, "failover")
	run.Spec.Workload.Wait = benchv1.WaitNone
	// 90 s steps, the fault 15 s in: the 75 s after it hold the failover, the standby's return
	// (with 2 synchronous standbys required, commits wait for it) and the recovery window.
	run.Spec.Workload.Duration = &metav1.Duration{Duration: 90 * time.Second}
	run.Spec.Faults = []benchv1.Fault{{Action: benchv1.FaultKillPrimary, At: metav1.Duration{Duration: 15 * time.Second}}}
	run.Spec.SLA.MaxUnavailability = &metav1.Duration{Duration: 2 * time.Minute}
	ctx := context.Background()
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(run)
	done := waitFor(t, key, runTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded || r.Status.Phase == benchv1.PhaseFailed
	})
	if done.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("phase %s, conditions %+v, steps %+v", done.Status.Phase, done.Status.Conditions, done.Status.Steps)
	}
	if len(done.Status.Steps) != 2 {
		t.Fatalf("%d steps, want the Fixed step and the fault step", len(done.Status.Steps))
	}
	step := done.Status.Steps[1]
	t.Logf("fault step: %d active warehouses, tpmC %.1f, compliant %v, reasons %q", step.ActiveWarehouses, step.TpmC, step.Compliant, step.Reasons)
	if step.Kind != benchv1.StepFault || step.Fault == nil || len(step.Fault.Injections) != 1 {
		t.Fatalf("step 1: kind %s, fault %+v", step.Kind, step.Fault)
	}
	f := step.Fault
	inj := f.Injections[0]
	t.Logf("injection: %+v", inj)
	if inj.State != benchv1.FaultInjected || inj.Pod == "" || inj.PrimaryBefore != inj.Pod {
		t.Errorf("injection %+v: want the primary's pod deleted", inj)
	}
	if inj.PrimaryAfter == "" || inj.PrimaryAfter == inj.PrimaryBefore || inj.PromotedTime == nil {
		t.Errorf("CloudNativePG promoted %q at %v, want another instance than %s", inj.PrimaryAfter, inj.PromotedTime, inj.PrimaryBefore)
	} else {
		t.Logf("promoted %s %s after the deletion", inj.PrimaryAfter, inj.PromotedTime.Sub(inj.Time.Time))
	}
	// With 2 synchronous standbys required of 3 instances, the new primary's commits wait for the
	// deleted instance to return as a standby; the run waits (up to 5 min) for the database to
	// be whole again before it ends.
	if inj.ReadyTime == nil {
		t.Logf("the deleted instance was not seen ready again within the run's wait")
	} else {
		t.Logf("every instance ready %s after the deletion", inj.ReadyTime.Sub(inj.Time.Time))
	}
	m := f.Measurement
	if m == nil {
		t.Fatal("no measurement of the fault")
	}
	t.Logf("measurement: unavailability %s from %v (to the step's end: %v), recovery %v, baseline %.1f New-Orders/s, errors %v, commits unknown %d",
		m.Unavailability.Duration, m.UnavailableFrom, m.UnavailableAtEnd, m.Recovery, m.BaselineNewOrdersPerSecond, m.Errors, m.CommitsUnknown)
	for tx, st := range m.LatencyAfter {
		t.Logf("  minute after: %-12s count %5d p50 %-8s p90 %-8s p99 %-8s max %s", tx, st.Count, st.P50.Duration, st.P90.Duration, st.P99.Duration, st.Max.Duration)
	}
	// The outage is measured from the acknowledged commits in the clients' clock, around the mark
	// every client pod recorded right before the deletion.
	if m.UnavailabilityMethod != "commits" || m.UnavailableFrom == nil || inj.ClientTime == nil {
		t.Errorf("outage measured by %q from %v (client time of the fault %v): want it from the clients' commits", m.UnavailabilityMethod, m.UnavailableFrom, inj.ClientTime)
	} else {
		t.Logf("last commit before the outage %s after the fault's mark", m.UnavailableFrom.Sub(inj.ClientTime.Time))
	}
	if m.Unavailability.Duration < time.Second || m.BaselineNewOrdersPerSecond <= 0 {
		t.Errorf("unavailability %s, baseline %.2f/s: a killed primary stops commits for a while", m.Unavailability.Duration, m.BaselineNewOrdersPerSecond)
	}
	if m.Recovery == nil && !m.UnavailableAtEnd {
		t.Errorf("commits came back but throughput never reached 90 %% of the minute before")
	}
	if l := f.Ledger; l == nil || !l.Pass || l.Acknowledged == 0 || l.Districts != 20 {
		t.Errorf("ledger %+v: want a pass over 20 districts", l)
	} else {
		t.Logf("ledger: %+v", *l)
	}
	if f.Consistency != "passed" {
		t.Errorf("consistency after the fault: %q", f.Consistency)
	}
	cluster := &cnpgv1.Cluster{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: done.Status.Database.Name}, cluster); err == nil {
		t.Logf("Cluster now: primary %s, ready %d of %d", cluster.Status.CurrentPrimary, cluster.Status.ReadyInstances, cluster.Status.Instances)
	}
	report := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: done.Status.Report.ConfigMapName}, report); err != nil {
		t.Fatal(err)
	}
	if md := report.Data["report.md"]; !strings.Contains(md, "## Faults in step 1") {
		t.Errorf("report.md has no fault section:\n%s", md)
	}
	logFaultSeries(t, report, inj.Time.Time)
}

// logFaultSeries logs the fault step's completions per second around the fault, from the report's
// series.json.gz: what the measurement was made of.
func logFaultSeries(t *testing.T, report *corev1.ConfigMap, fault time.Time) {
	var series struct {
		Steps []struct {
			Index  int32 `json:"index"`
			Series struct {
				Start         time.Time                     `json:"start"`
				LengthSeconds float64                       `json:"lengthSeconds"`
				Index         []int                         `json:"index"`
				Types         map[string]map[string][]int64 `json:"types"`
			} `json:"series"`
		} `json:"steps"`
	}
	zr, err := gzip.NewReader(bytes.NewReader(report.BinaryData["series.json.gz"]))
	if err != nil {
		t.Errorf("series.json.gz: %v", err)
		return
	}
	if err := json.NewDecoder(zr).Decode(&series); err != nil || len(series.Steps) < 2 {
		t.Errorf("series.json.gz: %v, %d steps", err, len(series.Steps))
		return
	}
	s := series.Steps[1].Series
	var line strings.Builder
	for j, idx := range s.Index {
		at := s.Start.Add(time.Duration(idx-s.Index[0]) * time.Duration(s.LengthSeconds*float64(time.Second)))
		if at.Before(fault.Add(-5*time.Second)) || at.After(fault.Add(70*time.Second)) {
			continue
		}
		var n int64
		for _, cols := range s.Types {
			n += cols["completed"][j]
		}
		fmt.Fprintf(&line, " %+.0fs:%d", at.Sub(fault).Seconds(), n)
	}
	t.Logf("completed transactions per second around the fault (offset from it):%s", line.String())
}
