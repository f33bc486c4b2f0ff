//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// TestProvokedBottlenecks saturates one resource on purpose in each of two runs and checks that
// the run names it from what it recorded, with the evidence, in its status and its report:
//
//   - client-bound: a client pod limited to 30m CPU drives 2 warehouses without keying or think
//     times against an unconstrained database: the step's bottleneck is ClientCPU;
//   - database-bound: the three PostgreSQL instances (two synchronous standbys, remote_apply)
//     limited to 150m CPU each, driven without waits by a client limited to 2 CPUs: DatabaseCPU.
//
// Both also show what issue "equal terms" asks a report to carry: disk and network per pod from
// the kubelets, the standbys' write, flush and replay lags, tpmC per vCPU of the database.
func TestProvokedBottlenecks(t *testing.T) {
	longCase(t, 12, "two runs with a resource saturated on purpose: client CPU, then database CPU")
	t.Parallel()
	ns := newNamespace(t, "e2e-bottleneck")
	ctx := context.Background()

	noWait := func(run *benchv1.BenchmarkRun) {
		run.Spec.Workload.Wait = benchv1.WaitNone
		run.Spec.Workload.Clients.Pods = 1
		// Without waits the efficiency bound means nothing; the latency bounds stay.
		run.Spec.SLA.MinEfficiencyPercent = ptr(int32(0))
	}
	clientBound := smallSyncRun(ns, "client-bound")
	noWait(clientBound)
	// 20 no-wait terminals on 2 warehouses are lock-bound near 1 000 tpmC, where the client takes
	// ~60m of CPU (measured on the local cluster): a limit of 30m starves it.
	clientBound.Spec.Workload.Clients.Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("30m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("30m"), corev1.ResourceMemory: resource.MustParse("512Mi")},
	}

	dbBound := smallSyncRun(ns, "db-bound")
	noWait(dbBound)
	dbBound.Spec.Workload.Warehouses = 1
	// A client that can take far more than it will need: only the database is short of CPU.
	dbBound.Spec.Workload.Clients.Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("512Mi")},
	}
	dbBound.Spec.Database.Postgres.Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("150m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("150m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
	}

	var wg sync.WaitGroup
	for _, tc := range []struct {
		run   *benchv1.BenchmarkRun
		want  benchv1.BottleneckResource
		words string // as the report says it
	}{{clientBound, benchv1.BottleneckClientCPU, "bottleneck: client CPU"}, {dbBound, benchv1.BottleneckDatabaseCPU, "bottleneck: database CPU"}} {
		if err := k8s.Create(ctx, tc.run); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { checkBottleneck(t, client.ObjectKeyFromObject(tc.run), tc.want, tc.words) })
	}
	wg.Wait()
}

// checkBottleneck waits for the run to succeed and checks what it named and recorded.
func checkBottleneck(t *testing.T, key client.ObjectKey, want benchv1.BottleneckResource, words string) {
	done := waitFor(t, key, 25*time.Minute, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool {
		return r.Status.Phase == benchv1.PhaseSucceeded || r.Status.Phase == benchv1.PhaseFailed
	})
	if done.Status.Phase != benchv1.PhaseSucceeded {
		t.Errorf("%s: %s: %s", key.Name, done.Status.Phase, conditionMessages(done))
		return
	}
	if len(done.Status.Steps) == 0 || done.Status.Result == nil {
		t.Errorf("%s: no step or no result", key.Name)
		return
	}
	done = withStepDetail(t, done)
	step := done.Status.Steps[len(done.Status.Steps)-1]
	tel := step.Telemetry
	if tel == nil {
		t.Errorf("%s: the step has no telemetry", key.Name)
		return
	}
	b := done.Status.Result.Bottleneck
	if b == nil {
		t.Errorf("%s: no status.result.bottleneck", key.Name)
		return
	}
	t.Logf("%s: tpmC %.1f; bottleneck %s (also %v): %s", key.Name, step.TpmC, b.Resource, b.Also, strings.Join(b.Evidence, "; "))
	for _, p := range tel.Pods {
		limit := "none"
		if p.CPULimit != nil {
			limit = p.CPULimit.String()
		}
		io := "no I/O figures"
		if p.IO != nil {
			io = fmt.Sprintf("disk r/w %d/%d B/s, network in/out %d/%d B/s", p.IO.DiskReadBytesPerSecond, p.IO.DiskWriteBytesPerSecond,
				p.IO.NetworkReceiveBytesPerSecond, p.IO.NetworkTransmitBytesPerSecond)
		}
		t.Logf("%s: %s %s peak CPU %s (limit %s), %s", key.Name, p.Role, p.Name, p.PeakCPU.String(), limit, io)
	}
	if b.Resource != want {
		t.Errorf("%s: bottleneck %s, want %s", key.Name, b.Resource, want)
	}
	if len(b.Evidence) == 0 {
		t.Errorf("%s: the bottleneck has no evidence", key.Name)
	}

	// Disk and network per pod, from the kubelets: every pod sent and received over the network;
	// every database pod wrote to its disk where the kernel accounts a cgroup's writes — cgroup v2
	// (io.stat). Under cgroup v1 the page cache's writeback is charged to no pod, so the kubelet has
	// no per-pod disk figures: this machine's local cluster (docs/equal-terms.md).
	withNet, withDisk, database := 0, 0, 0
	for _, p := range tel.Pods {
		if p.IO != nil && p.IO.NetworkReceiveBytesPerSecond > 0 && p.IO.NetworkTransmitBytesPerSecond > 0 {
			withNet++
		}
		if p.Role == "Database" {
			database++
			if p.IO != nil && p.IO.DiskWriteBytesPerSecond > 0 {
				withDisk++
			}
		}
	}
	if withNet != len(tel.Pods) || len(tel.Pods) < 4 {
		t.Errorf("%s: %d of %d pods with network figures (%s), want all of at least 4", key.Name, withNet, len(tel.Pods), tel.IOMetrics)
	}
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); (err == nil || withDisk > 0) && withDisk != database {
		t.Errorf("%s: %d of %d database pods with disk write figures, want all", key.Name, withDisk, database)
	}
	// The standbys' three lags.
	if len(tel.Standbys) != 2 {
		t.Errorf("%s: %d standbys summarised, want 2", key.Name, len(tel.Standbys))
	}
	for _, s := range tel.Standbys {
		t.Logf("%s: standby %s: write %v, flush %v, replay %v", key.Name, s.Name, s.MaxWriteLag, s.MaxFlushLag, s.MaxReplayLag)
		if s.MaxWriteLag == nil || s.MaxFlushLag == nil {
			t.Errorf("%s: standby %s has no write or flush lag", key.Name, s.Name)
		}
	}
	// tpmC per vCPU of the database: on the measured peak, and on its requests and limits when
	// the run gives them.
	bases := map[benchv1.ResourceBasis]bool{}
	for _, pr := range done.Status.Result.PerResource {
		if pr.TpmCPerVCPU != nil && *pr.TpmCPerVCPU > 0 {
			bases[pr.Basis] = true
			t.Logf("%s: tpmC per vCPU on %s: %.1f (%s)", key.Name, pr.Basis, *pr.TpmCPerVCPU, pr.CPU)
		}
	}
	wantBases := []benchv1.ResourceBasis{benchv1.BasisPeak}
	if res := done.Spec.Database.Postgres.Resources; res.Requests.Cpu().MilliValue() > 0 {
		wantBases = append(wantBases, benchv1.BasisRequests)
	}
	if res := done.Spec.Database.Postgres.Resources; res.Limits.Cpu().MilliValue() > 0 {
		wantBases = append(wantBases, benchv1.BasisLimits)
	}
	for _, b := range wantBases {
		if !bases[b] {
			t.Errorf("%s: tpmC per vCPU on %v, want %v", key.Name, bases, wantBases)
			break
		}
	}

	// The report names it too, with its evidence.
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: key.Namespace, Name: done.Status.Report.ConfigMapName}, cm); err != nil {
		t.Errorf("%s: report: %v", key.Name, err)
		return
	}
	md := cm.Data["report.md"]
	if !strings.Contains(md, words) {
		t.Errorf("%s: the report does not say %q", key.Name, words)
	}
	for _, section := range []string{"Disk, network and replication per step", "tpmC per vCPU"} {
		if !strings.Contains(md, section) {
			t.Errorf("%s: the report has no %q", key.Name, section)
		}
	}
}
