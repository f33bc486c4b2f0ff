//go:build e2e

package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// testNetworkFaults: PostgreSQL with two synchronous standbys under remote_apply, one Fixed step
// of 3 minutes at 5 warehouses with the spec's think times, and two network faults the opt-in
// injector applies in it: a NetworkDelay of 20 ms on the standbys' traffic with the primary from
// 40 s for 50 s, then a Partition of one standby from 130 s for 25 s (30 s after the heal to
// compare the latency with, at about one New-Order a second). The New-Order p90 rises by at
// least the added round trip while the delay holds (each commit waits for the standbys' apply) and
// comes back after it heals; every acknowledged New-Order is in the database after the partition;
// the TPC-C consistency conditions hold after the step.
func testNetworkFaults(t *testing.T) {
	longCase(t, 10, "a network delay and a partition between the primary and its synchronous standbys, through the fault injector")
	ctx := context.Background()
	installFaultInjector(t)
	ns := newNamespace(t, "e2e-netfault")
	run := smallSyncRun(ns, "netfault")
	// With the spec's keying and think times the database is far from saturated: a New-Order's
	// response time is its own work and its commit, which waits for the standbys' apply. Without
	// them, 10 terminals per warehouse queue on the districts' rows, and the queue, not the round
	// trip, sets the latency (the delay then shows in throughput instead).
	run.Spec.Workload.Warehouses = 5
	run.Spec.Workload.Duration = &metav1.Duration{Duration: 180 * time.Second}
	const delay = 20 * time.Millisecond
	run.Spec.Faults = []benchv1.Fault{
		{Action: benchv1.FaultNetworkDelay, In: benchv1.FaultInEveryStep, At: metav1.Duration{Duration: 40 * time.Second},
			Duration: &metav1.Duration{Duration: 50 * time.Second}, Target: benchv1.FaultTargetStandbys, Delay: &metav1.Duration{Duration: delay}},
		{Action: benchv1.FaultPartition, In: benchv1.FaultInEveryStep, At: metav1.Duration{Duration: 130 * time.Second},
			Duration: &metav1.Duration{Duration: 25 * time.Second}, Target: benchv1.FaultTargetPod, Ordinal: ptr(int32(2))},
	}
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	done := waitFor(t, client.ObjectKeyFromObject(run), runTimeout, "phase Succeeded or Failed", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded || r.Status.Phase == benchv1.PhaseFailed
	})
	if len(done.Status.Steps) != 1 || done.Status.Steps[0].Fault == nil {
		t.Fatalf("phase %s, steps %+v, conditions %+v", done.Status.Phase, done.Status.Steps, done.Status.Conditions)
	}
	step := done.Status.Steps[0]
	f := step.Fault
	t.Logf("step: tpmC %.1f, compliant %v, reasons %q", step.TpmC, step.Compliant, step.Reasons)
	if len(f.Injections) != 2 {
		t.Fatalf("injections %+v: want the delay and the partition", f.Injections)
	}
	for _, inj := range f.Injections {
		t.Logf("injection %d %s on %v: state %s, mechanism %s, at %v, healed %v, ready %v, message %q",
			inj.Fault, inj.Action, inj.Pods, inj.State, inj.Mechanism, inj.Time, inj.HealedTime, inj.ReadyTime, inj.Message)
		if inj.State != benchv1.FaultInjected || inj.HealedTime == nil || inj.ClientTime == nil || len(inj.Pods) == 0 {
			t.Errorf("injection %d: want it applied, marked in the clients' clock and healed", inj.Fault)
		}
	}
	dl, part := f.Injections[0], f.Injections[1]
	if len(dl.Pods) != 2 || (dl.Mechanism != "toxiproxy" && dl.Mechanism != "netem") {
		t.Errorf("the delay applied to %v by %q: want both standbys, by netem or the proxy", dl.Pods, dl.Mechanism)
	}
	if len(part.Pods) != 1 || part.Pods[0] != done.Status.Database.Name+"-3" || part.Mechanism != "iptables" {
		t.Errorf("the partition applied to %v by %q: want %s-3, by iptables", part.Pods, part.Mechanism, done.Status.Database.Name)
	}
	if l := f.Ledger; l == nil || !l.Pass || l.Acknowledged == 0 {
		t.Errorf("ledger %+v: want every acknowledged New-Order in the database", l)
	} else {
		t.Logf("ledger: %d acknowledged, %d unknown, d_next_o_id grew %d over %d districts", l.Acknowledged, l.Unknown, l.Growth, l.Districts)
	}
	if f.Consistency != "passed" {
		t.Errorf("consistency after the faults: %q", f.Consistency)
	}

	// The New-Order p90 per second, from the step's series, in the clients' clock: before the
	// delay, while it holds (from 10 s in, once the standbys have reconnected through the proxy),
	// and after it healed (from 10 s after, for the same reason).
	report := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: done.Status.Report.ConfigMapName}, report); err != nil {
		t.Fatal(err)
	}
	p90s := newOrderP90s(t, report)
	var perSecond strings.Builder
	for _, x := range p90s {
		fmt.Fprintf(&perSecond, " %+.0fs:%d/%s", x.at.Sub(dl.ClientTime.Time).Seconds(), x.completed, x.p90.Round(time.Millisecond))
	}
	t.Logf("New-Orders completed and their p90 per interval, from the delay's mark:%s", perSecond.String())
	at := dl.ClientTime.Time
	healed := at.Add(dl.HealedTime.Sub(dl.Time.Time))
	before, nb := medianIn(p90s, at.Add(-30*time.Second), at)
	during, nd := medianIn(p90s, at.Add(10*time.Second), healed)
	after, na := medianIn(p90s, healed.Add(10*time.Second), part.ClientTime.Time)
	if nb < 10 || nd < 10 || na < 10 {
		t.Errorf("seconds with New-Orders completed: %d before the delay, %d under it, %d after it healed: want at least 10 in each to compare", nb, nd, na)
	}
	t.Logf("New-Order p90, median of the seconds: %s before the delay, %s under %s of delay, %s after it healed", before, during, delay, after)
	if during-before < delay {
		t.Errorf("under a %s delay the New-Order p90 rose by %s: want at least the added round trip", delay, during-before)
	}
	if after-before > delay/2 {
		t.Errorf("after healing the New-Order p90 is %s, %s above before: the delay is still felt", after, after-before)
	}
	pat := part.ClientTime.Time
	t.Logf("completed New-Orders per second around the partition: before %v, during %v, after %v",
		sumIn(p90s, pat.Add(-10*time.Second), pat), sumIn(p90s, pat.Add(2*time.Second), pat.Add(25*time.Second)), sumIn(p90s, pat.Add(35*time.Second), pat.Add(55*time.Second)))

	var nfs benchv1.NetworkFaultList
	if err := k8s.List(ctx, &nfs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, nf := range nfs.Items {
		if nf.Status.Phase != benchv1.NetworkFaultHealed || len(nf.Finalizers) != 0 {
			t.Errorf("NetworkFault %s: phase %s, finalizers %v: want healed and released", nf.Name, nf.Status.Phase, nf.Finalizers)
		}
		// Applied when asked, on the peers the injector resolved.
		if a := nf.Status.AppliedTime; a == nil || a.Sub(nf.CreationTimestamp.Time) > 5*time.Second {
			t.Errorf("NetworkFault %s created %s, applied %v: want within 5 s", nf.Name, nf.CreationTimestamp.Time, a)
		} else {
			t.Logf("NetworkFault %s on %s: applied %s after it was created, peers %v", nf.Name, nf.Spec.Pod, a.Sub(nf.CreationTimestamp.Time).Round(time.Millisecond), nf.Status.Peers)
		}
	}
	if md := report.Data["report.md"]; !strings.Contains(md, "NetworkDelay") || !strings.Contains(md, "Partition") {
		t.Errorf("report.md does not name the network faults:\n%s", md)
	}
	onlyTheInjectorIsPrivileged(t)
}

// injectorMu makes the cases that need the fault injector install it one at a time: the second
// finds it installed.
var injectorMu sync.Mutex

// installFaultInjector installs the fault injector on the local cluster (hack/fault-injector.sh),
// or finds it installed.
func installFaultInjector(t *testing.T) {
	t.Helper()
	injectorMu.Lock()
	defer injectorMu.Unlock()
	ds := &appsv1.DaemonSet{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: "tpcc-fault-injector", Name: "fault-injector"}, ds); err == nil && ds.Status.NumberReady > 0 {
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("the fault injector is not installed, and installing it on the local cluster needs root (hack/fault-injector.sh install)")
	}
	cmd := exec.Command(filepath.Join(repoRoot, "hack/fault-injector.sh"), "install")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/fault-injector.sh install: %v\n%s", err, out)
	}
}

// uninstallFaultInjector, once every case that needed it has ended (a cleanup of their group):
// its status lists its pods, and uninstalling removes it.
func uninstallFaultInjector(t *testing.T) {
	ctx := context.Background()
	ds := &appsv1.DaemonSet{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "tpcc-fault-injector", Name: "fault-injector"}, ds); err != nil {
		return // not installed: the cases that need it did not run
	}
	script := filepath.Join(repoRoot, "hack/fault-injector.sh")
	status, err := exec.Command(script, "status").CombinedOutput()
	if err != nil || !strings.Contains(string(status), "fault-injector-") {
		t.Errorf("hack/fault-injector.sh status: %v\n%s", err, status)
	}
	if out, err := exec.Command(script, "uninstall").CombinedOutput(); err != nil {
		t.Errorf("hack/fault-injector.sh uninstall: %v\n%s", err, out)
		return
	}
	var left appsv1.DaemonSetList
	if err := k8s.List(ctx, &left, client.InNamespace("tpcc-fault-injector")); err != nil || len(left.Items) > 0 {
		t.Errorf("after uninstall: %d DaemonSets left in tpcc-fault-injector (%v)", len(left.Items), err)
	}
}

// onlyTheInjectorIsPrivileged: no pod outside the injector's namespace runs privileged.
func onlyTheInjectorIsPrivileged(t *testing.T) {
	t.Helper()
	var pods corev1.PodList
	if err := k8s.List(context.Background(), &pods); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		for _, c := range p.Spec.Containers {
			if c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged && p.Namespace != "tpcc-fault-injector" {
				t.Errorf("pod %s/%s runs privileged", p.Namespace, p.Name)
			}
		}
	}
}

type secondP90 struct {
	at        time.Time
	p90       time.Duration
	completed int64
}

// newOrderP90s reads the first step's New-Order p90 and completions per interval from the
// report's series.json.gz.
func newOrderP90s(t *testing.T, report *corev1.ConfigMap) []secondP90 {
	t.Helper()
	var series struct {
		Steps []struct {
			Series struct {
				Start         time.Time `json:"start"`
				LengthSeconds float64   `json:"lengthSeconds"`
				Index         []int     `json:"index"`
				Types         map[string]struct {
					Completed []int64 `json:"completed"`
					P90       []int64 `json:"p90"`
				} `json:"types"`
			} `json:"series"`
		} `json:"steps"`
	}
	zr, err := gzip.NewReader(bytes.NewReader(report.BinaryData["series.json.gz"]))
	if err != nil {
		t.Fatalf("series.json.gz: %v", err)
	}
	if err := json.NewDecoder(zr).Decode(&series); err != nil || len(series.Steps) == 0 {
		t.Fatalf("series.json.gz: %v, %d steps", err, len(series.Steps))
	}
	s := series.Steps[0].Series
	no := s.Types["NewOrder"]
	var out []secondP90
	for j, idx := range s.Index {
		at := s.Start.Add(time.Duration(float64(idx-s.Index[0]) * s.LengthSeconds * float64(time.Second)))
		out = append(out, secondP90{at: at, p90: time.Duration(no.P90[j]) * time.Microsecond, completed: no.Completed[j]})
	}
	return out
}

// medianIn is the median p90 of the intervals with completions in [from, to), and their number.
func medianIn(s []secondP90, from, to time.Time) (time.Duration, int) {
	var v []time.Duration
	for _, x := range s {
		if !x.at.Before(from) && x.at.Before(to) && x.completed > 0 {
			v = append(v, x.p90)
		}
	}
	if len(v) == 0 {
		return 0, 0
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v[(len(v)-1)/2], len(v)
}

// sumIn is the New-Orders completed per interval in [from, to).
func sumIn(s []secondP90, from, to time.Time) []int64 {
	var v []int64
	for _, x := range s {
		if !x.at.Before(from) && x.at.Before(to) {
			v = append(v, x.completed)
		}
	}
	return v
}
