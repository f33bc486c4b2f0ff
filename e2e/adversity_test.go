//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/browser"
)

// testAdversity: PostgreSQL with two synchronous standbys under remote_apply, one Fixed step,
// then the adversity phase at the same 5 warehouses walking the default states — Baseline, a
// standby lost, a 20 ms network delay on the standbys, a partition of one standby, the primary
// lost — each held 30 s with 20 s of recovery, with the spec's think times. Each state is recorded: the
// delay raises the New-Order p90 by at least its round trip over the Baseline's, the lost primary
// is replaced by a promoted standby, every acknowledged New-Order is in the database and the TPC-C
// conditions hold after the step; the HTML report leads with the run's timeline, the states shaded
// on it, and shows the profile, in Chromium.
func testAdversity(t *testing.T) {
	longCase(t, 14, "the adversity phase: a standby, the network and the primary lost in one step")
	ctx := context.Background()
	installFaultInjector(t)
	ns := newNamespace(t, "e2e-adversity")
	run := smallSyncRun(ns, "adversity")
	run.Spec.Workload.Warehouses = 5 // with think times: the latency is the transactions' own (testNetworkFaults)
	five := int32(5)
	run.Spec.Adversity = &benchv1.AdversitySpec{Warehouses: &five, Hold: &metav1.Duration{Duration: 30 * time.Second},
		Recovery: &metav1.Duration{Duration: 20 * time.Second}}
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	done := waitFor(t, client.ObjectKeyFromObject(run), runTimeout, "phase Succeeded or Failed", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded || r.Status.Phase == benchv1.PhaseFailed
	})
	if done.Status.Phase != benchv1.PhaseSucceeded || len(done.Status.Steps) != 2 {
		t.Fatalf("phase %s, steps %+v, conditions %+v", done.Status.Phase, done.Status.Steps, done.Status.Conditions)
	}
	step := done.Status.Steps[1]
	if step.Kind != benchv1.StepAdversity || step.Adversity == nil || len(step.Adversity.States) != 5 || step.Fault == nil {
		t.Fatalf("step 1: kind %s, adversity %+v, fault %+v", step.Kind, step.Adversity, step.Fault)
	}
	for _, inj := range step.Fault.Injections {
		t.Logf("injection %d %s pod %q pods %v: %s, mechanism %q, primary %s→%s, healed %v, ready %v %s",
			inj.Fault, inj.Action, inj.Pod, inj.Pods, inj.State, inj.Mechanism, inj.PrimaryBefore, inj.PrimaryAfter, inj.HealedTime, inj.ReadyTime, inj.Message)
		if inj.State != benchv1.FaultInjected {
			t.Errorf("injection %d (%s) %s: %s", inj.Fault, inj.Action, inj.State, inj.Message)
		}
	}
	states := map[benchv1.AdversityState]benchv1.AdversityStateRecord{}
	for _, s := range step.Adversity.States {
		states[s.State] = s
		t.Logf("%-12s from %-6s tpmC %7.1f  New-Order p90 %-8s errors %v  without a commit %v  recovered after %v  %s",
			s.State, s.Start.Duration, s.TpmC, s.P90[benchv1.NewOrder].Duration, s.Errors, s.Unavailability, s.Recovery, s.NotMeasured)
	}
	base, delay, primary := states[benchv1.AdversityBaseline], states[benchv1.AdversityNetworkDelay], states[benchv1.AdversityPrimaryLost]
	if base.TpmC <= 0 || base.P90[benchv1.NewOrder].Duration <= 0 {
		t.Errorf("Baseline %+v: want figures", base)
	}
	if rise := delay.P90[benchv1.NewOrder].Duration - base.P90[benchv1.NewOrder].Duration; rise < 20*time.Millisecond {
		t.Errorf("under a 20ms delay the New-Order p90 rose %s over the Baseline's: want at least the round trip", rise)
	}
	if primary.Injection == nil || primary.Unavailability == nil || primary.Unavailability.Duration <= 0 {
		t.Errorf("PrimaryLost %+v: want its outage measured", primary)
	}
	if l := step.Fault.Ledger; l == nil || !l.Pass {
		t.Errorf("ledger %+v: want every acknowledged New-Order in the database", l)
	}
	if step.Fault.Consistency != "passed" {
		t.Errorf("consistency after the adversity step: %q", step.Fault.Consistency)
	}
	report := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: done.Status.Report.ConfigMapName}, report); err != nil {
		t.Fatal(err)
	}
	md := report.Data["report.md"]
	if !strings.Contains(md, "## Resilience profile (step 1, 5 active warehouses)") || !strings.Contains(md, "| PrimaryLost |") {
		t.Errorf("report.md lacks the profile:\n%s", md)
	}
	html := report.Data["report.html"]
	if html == "" {
		t.Fatalf("the report ConfigMap has no report.html (keys %v)", keys(report.Data))
	}
	file := filepath.Join(t.TempDir(), "adversity.html")
	if err := os.WriteFile(file, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	browser.Require(t)
	p, err := browser.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	if probs := p.Problems(); len(probs) > 0 {
		t.Errorf("the browser saw: %s", strings.Join(probs, "; "))
	}
	tl, ok := p.ChartTitled("Run timeline: New-Order throughput")
	if !ok {
		var titles []string
		for _, c := range p.Charts {
			titles = append(titles, c.Title)
		}
		t.Fatalf("no run timeline among %v", titles)
	}
	for _, prob := range tl.Problems() {
		t.Error(prob)
	}
	for _, state := range []string{"Baseline", "StandbyLost", "NetworkDelay", "Partition", "PrimaryLost"} {
		if !strings.Contains(html, ">"+state+"</text>") {
			t.Errorf("the timeline does not name the state %s", state)
		}
	}
	ink, err := browser.Measure(p.Screenshot)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("adversity report in Chromium: %d charts, timeline at %.0f px, screenshot %d×%d, %.2f %% in colour", len(p.Charts), tl.Top, ink.Width, ink.Height, 100*ink.Coloured)
	if ink.Coloured < 0.001 {
		t.Errorf("screenshot %+v: the charts' colours are missing", ink)
	}
	if dir := os.Getenv("TPCC_E2E_ARTIFACTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "adversity.png"), p.Screenshot, 0o644)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
