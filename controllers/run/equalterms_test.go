package run

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/podmetrics"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
)

// fakeKubelet serves cAdvisor metrics whose counters grow by fixed amounts per second of wall
// time: disk writes of the client pods and their network, as a kubelet's would.
type fakeKubelet struct {
	mu      sync.Mutex
	start   time.Time
	scrapes map[string]int
}

func (k *fakeKubelet) read(namespace string) podmetrics.NodeMetricsReader {
	return func(_ context.Context, node string) ([]byte, error) {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.start.IsZero() {
			k.start = time.Now()
		}
		k.scrapes[node]++
		elapsed := time.Since(k.start).Seconds()
		var b strings.Builder
		for i := range 2 {
			pod := fmt.Sprintf("eq-step-0-%d", i)
			fmt.Fprintf(&b, "container_fs_writes_bytes_total{container=\"tpcc\",device=\"/dev/sda\",id=\"x\",image=\"tpcc\",name=\"c\",namespace=%q,pod=%q} %.0f\n", namespace, pod, 1e6+elapsed*200000)
			fmt.Fprintf(&b, "container_fs_writes_total{container=\"tpcc\",device=\"/dev/sda\",id=\"x\",image=\"tpcc\",name=\"c\",namespace=%q,pod=%q} %.0f\n", namespace, pod, 100+elapsed*50)
			fmt.Fprintf(&b, "container_network_receive_bytes_total{container=\"\",id=\"p\",image=\"\",interface=\"eth0\",name=\"\",namespace=%q,pod=%q} %.0f\n", namespace, pod, 5e5+elapsed*80000)
			fmt.Fprintf(&b, "container_network_transmit_bytes_total{container=\"\",id=\"p\",image=\"\",interface=\"eth0\",name=\"\",namespace=%q,pod=%q} %.0f\n", namespace, pod, 7e5+elapsed*30000)
		}
		return []byte(b.String()), nil
	}
}

// A step run at workload.isolation RepeatableRead records the level its clients read back, the
// disk and network of its pods (kubelet cAdvisor through the node proxy, here a fake), the
// settings the run asked for beside what the server reports, the bottleneck (not determined:
// envtest serves no CPU metrics, and the fakes' sessions are idle) and the report's equal terms.
func TestStepRecordsEqualTerms(t *testing.T) {
	ns := ct.NewNamespace(t, "equalterms")
	pods := ct.NewClientPods()
	pods.NodeName = "node-a"
	cfg := testConfig(pods)
	kubelet := &fakeKubelet{scrapes: map[string]int{}}
	cfg.NodeMetrics = kubelet.read(ns)
	startManager(t, ns, cfg)
	run := ct.NewRun(ns, "eq", 40, 40)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Workload.Duration = &metav1.Duration{Duration: 5 * time.Minute} // 5 s of wall time for the fakes
	run.Spec.Workload.Interval = &metav1.Duration{Duration: 10 * time.Second}
	run.Spec.Workload.Clients.Pods = 2
	run.Spec.Workload.Isolation = benchv1.IsolationRepeatableRead
	ct.CreateLoaded(t, run)
	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) != 1 {
		t.Fatalf("phase %s, steps %v", got.Status.Phase, ct.StepSummary(got))
	}
	step := withStepDetail(t, got).Status.Steps[0]
	if step.Isolation != benchv1.IsolationRepeatableRead {
		t.Errorf("step isolation %q, want the level its clients were told and reported", step.Isolation)
	}
	tel := step.Telemetry
	if tel == nil || tel.IOMetrics != measure.IOMetricsSource {
		t.Fatalf("telemetry %+v: want disk and network from the kubelet", tel)
	}
	if kubelet.scrapes["node-a"] < 2 {
		t.Errorf("node-a scraped %d times", kubelet.scrapes["node-a"])
	}
	for _, p := range tel.Pods {
		if p.IO == nil || p.IO.DiskWriteBytesPerSecond < 100000 || p.IO.NetworkReceiveBytesPerSecond < 40000 || p.IO.DiskWritesPerSecond < 20 {
			t.Errorf("pod %s I/O %+v: want the fake kubelet's ~200 kB/s written, ~80 kB/s received, ~50 writes/s", p.Name, p.IO)
		}
	}
	if len(tel.Pods) != 2 {
		t.Errorf("pods %+v: want both client pods with I/O", tel.Pods)
	}
	b := tel.Bottleneck
	if b == nil || b.Resource != benchv1.BottleneckNotDetermined || !strings.Contains(strings.Join(b.Evidence, "\n"), "the pods' CPU was not read") {
		t.Errorf("bottleneck %+v: want not determined, saying the CPU was not read", b)
	}
	r := got.Status.Result
	if r == nil || r.Bottleneck == nil || r.Bottleneck.Step == nil || *r.Bottleneck.Step != 0 {
		t.Errorf("result bottleneck %+v: want the single step's", r)
	}
	env := got.Status.Environment
	var syncCommit *benchv1.EngineSetting
	for i, s := range env.Tuning {
		if s.Name == "synchronous_commit" {
			syncCommit = &env.Tuning[i]
		}
	}
	if syncCommit == nil || syncCommit.Source != "postgres.synchronousCommit" || syncCommit.Requested != "remote_apply" || syncCommit.Effective != "remote_apply" || syncCommit.Note != "" {
		t.Errorf("tuning %+v: want synchronous_commit asked for and read back", env.Tuning)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(run)}, cm); err != nil {
		t.Fatal(err)
	}
	md := cm.Data["report.md"]
	for _, want := range []string{"TPC-C-derived results, not audited TPC-C results", "## Equal terms", "| 0 | RepeatableRead |",
		"| step-0-0 (client) |", "synchronous_commit | postgres.synchronousCommit | remote_apply | remote_apply"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if page := cm.Data["report.html"]; !strings.Contains(page, "Equal terms") || !strings.Contains(page, "Step 0: disk and network of the pods") {
		t.Errorf("report.html lacks the equal terms or the disk and network chart")
	}
}
