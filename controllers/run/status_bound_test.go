package run

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// statusBound is the run object's bound at 100 steps whatever their pods: 100 summaries with
// every field filled take 213 KB (2.1 KB a step).
const statusBound = 240_000

// The study's shape at its worst: 256 client pods a step, 100 steps, each step's summary filled
// as a non-compliant PostgreSQL step with a bottleneck fills it (every field, so an upper bound).
// The run object stays below statusBound whatever the pods, every measured step names its
// ConfigMap and keeps its summary, and a step that ended before it measured keeps its placement.
func TestBoundStepDetail(t *testing.T) {
	for _, c := range []struct {
		name           string
		steps, pods    int
		inconclusiveAt int // a step that ended before it measured (no telemetry), -1 for none
	}{
		{"a short run", 6, 4, -1},
		{"36 pods × 100 steps", 100, 36, -1},
		{"256 pods × 100 steps", 100, 256, -1},
		{"an unmeasured step keeps its placement", 30, 256, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "big"}}
			for i := range c.steps {
				s := studyStep(run, i, c.pods)
				if i == c.inconclusiveAt {
					s.Telemetry = nil
				}
				run.Status.Steps = append(run.Status.Steps, s)
				boundStepDetail(run, run.Status.Steps) // as recordStep does, one step at a time
			}
			body, err := json.Marshal(run)
			if err != nil {
				t.Fatal(err)
			}
			if len(body) > statusBound {
				t.Errorf("the run object is %d bytes at %d steps × %d pods, over %d", len(body), c.steps, c.pods, statusBound)
			}
			for i, s := range run.Status.Steps {
				if i == c.inconclusiveAt {
					if s.DetailIn != "" || len(s.Placement.Pods) != c.pods+3 {
						t.Errorf("the unmeasured step %d was shed (detailIn %q): it has no ConfigMap", i, s.DetailIn)
					}
					continue
				}
				if s.DetailIn != fmt.Sprintf("big-step-%d", i) || len(s.Telemetry.Pods) != 0 || s.Placement.Pods == nil || len(s.Placement.Pods) != 0 {
					t.Errorf("step %d: detailIn %q, %d telemetry pods, placement %v", i, s.DetailIn, len(s.Telemetry.Pods), s.Placement.Pods)
				}
				if s.TpmC != 200000 || len(s.Transactions) != 5 || len(s.Telemetry.Standbys) != 2 || s.Placement.Primary != "big-db-1" {
					t.Errorf("step %d lost its summary: %+v", i, s)
				}
			}
			t.Logf("%d steps × %d pods: the run object %d bytes (status.steps %d)", c.steps, c.pods, len(body), stepsSize(run.Status.Steps))
		})
	}
}

// studyStep is step i of pods client pods as a measured PostgreSQL step records it: every
// transaction's figures, the mix, the standbys' lags, the bottleneck, a reason, the pods' usage
// and placement (three database pods beside the clients).
func studyStep(run *benchv1.BenchmarkRun, i, pods int) benchv1.StepResult {
	d := func(s string) metav1.Duration {
		v, _ := time.ParseDuration(s)
		return metav1.Duration{Duration: v}
	}
	start := metav1.NewTime(time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * 20 * time.Minute))
	end := metav1.NewTime(start.Add(10 * time.Minute))
	cp, waiters, wal, walTx := int64(3), int64(412), int64(123456789), int64(5123)
	s := benchv1.StepResult{Index: int32(i), ActiveWarehouses: 17500 + int32(i), Kind: benchv1.StepKind("Full"), Duration: &metav1.Duration{Duration: 10 * time.Minute},
		Pods: int32(pods), StartTime: &start, EndTime: &end, StartSkew: &metav1.Duration{Duration: 312 * time.Millisecond}, Seed: 1234567890123,
		TpmC: 200000, Efficiency: 97.123, Compliant: false, Verdict: benchv1.StepVerdict("NonCompliant"), Attempt: 1,
		Reasons:      []string{"NewOrder p90 5.312s > 5s", "efficiency 84.2% < 85%"},
		Unjudged:     []string{"mix minimums and audit windows not checked (4120 transactions, 10000 needed)"},
		Transactions: map[benchv1.Transaction]benchv1.TransactionStats{}, Mix: map[benchv1.Transaction]float64{},
		Errors: 12, Retries: 345, Isolation: benchv1.Isolation("ReadCommitted"), LatencyRatio: 1.0624,
		NewOrders: &benchv1.StepLedger{Acknowledged: 2000000, Unknown: 3, Complete: true},
		Telemetry: &benchv1.StepTelemetry{Intervals: 60, Checkpoints: &cp, MaxSyncRepWaiters: &waiters, WALBytesPerSecond: &wal, WALBytesPerTransaction: &walTx,
			ResourceMetrics: "metrics.k8s.io", IOMetrics: "kubelet cAdvisor",
			Standbys: []benchv1.StandbyLag{{Name: "big-db-2", MaxReplayLag: d("1.234s"), MaxWriteLag: &metav1.Duration{Duration: 3 * time.Millisecond}, MaxFlushLag: &metav1.Duration{Duration: 9 * time.Millisecond}},
				{Name: "big-db-3", MaxReplayLag: d("1.5s"), MaxWriteLag: &metav1.Duration{Duration: 4 * time.Millisecond}, MaxFlushLag: &metav1.Duration{Duration: 11 * time.Millisecond}}},
			ClientBound: []string{"client pod big-step-3-7 at 96% of its CPU limit"},
			Bottleneck: &benchv1.Bottleneck{Resource: benchv1.BottleneckResource("DatabaseCPU"), Step: ptr(int32(i)),
				Evidence: []string{"database pod big-db-1 at 31.8 of 32 cores", "2 standbys replaying within 1.5s", "412 sessions waiting for SyncRep"}}},
		Placement: &benchv1.StepPlacement{Primary: "big-db-1", PrimaryNode: "node-1", Findings: []string{"client pods on 3 nodes"}},
	}
	for _, tx := range benchv1.Transactions {
		s.Transactions[tx] = benchv1.TransactionStats{Count: 123456789, P50: d("12.345ms"), P90: d("123.456ms"), P95: d("234.567ms"), P99: d("1.234567s"), Max: d("5.678912s"), Retries: 12}
		s.Mix[tx] = 44.41234
	}
	for p := range 3 {
		name := fmt.Sprintf("big-db-%d", p+1)
		s.Telemetry.Pods = append(s.Telemetry.Pods, benchv1.PodUsage{Name: name, Role: "Database", PeakCPU: resource.MustParse("31800m"), PeakMemory: resource.MustParse("120Gi"),
			IO: &benchv1.PodIO{DiskWriteBytesPerSecond: 123456789, DiskWritesPerSecond: 12345, NetworkReceiveBytesPerSecond: 12345678}})
		s.Placement.Pods = append(s.Placement.Pods, benchv1.PodPlacementRecord{Name: name, Role: "Database", Node: fmt.Sprintf("node-%d", p+1)})
	}
	for p := range pods {
		name := fmt.Sprintf("%s-step-%d-%d-abcde", run.Name, i, p)
		s.Telemetry.Pods = append(s.Telemetry.Pods, benchv1.PodUsage{Name: name, Role: "Client", PeakCPU: resource.MustParse("3500m"), PeakMemory: resource.MustParse("1536Mi")})
		s.Placement.Pods = append(s.Placement.Pods, benchv1.PodPlacementRecord{Name: name, Role: "Client", Node: fmt.Sprintf("node-%d", 4+p%3)})
	}
	return s
}
