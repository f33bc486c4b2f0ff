package workload

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/k6ext"
	"github.com/tpcc-operator/tpcc-operator/internal/shard"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestPeakConnections(t *testing.T) {
	cases := []struct {
		warehouses  int32
		wait        benchv1.Wait
		connections int32 // spec.workload.clients.connections
		loadCPU     int64 // the database's CPU the load writes through, millicores
		want        int
	}{
		{1, benchv1.WaitSpec, 0, 0, 5},       // the load: one pod, 4 threads + the schema connection
		{100, benchv1.WaitSpec, 0, 0, 70},    // one pod's pool by Little's law (69) + telemetry
		{100, benchv1.WaitNone, 0, 0, 1001},  // one per terminal + telemetry
		{5000, benchv1.WaitSpec, 0, 0, 2861}, // 10 pods of 500 warehouses, 286 each, + telemetry
		{20, benchv1.WaitSpec, 0, 0, 20},
		{5000, benchv1.WaitSpec, 50, 0, 501}, // the spec's pool on each of the 10 pods
		{100, benchv1.WaitNone, 4, 0, 10},    // the load's 2 pods of 5 outnumber one pod of 4
		// A 128-core primary: 32 loader pods of 5 outnumber the steps' pools of 10 pods of 4.
		{5000, benchv1.WaitSpec, 4, 128000, 160},
		// 16 cores: 4 loader pods of 5 outnumber one client pod of 4.
		{100, benchv1.WaitNone, 4, 16000, 20},
	}
	for _, tc := range cases {
		run := testRun(tc.warehouses)
		run.Spec.Workload.Wait = tc.wait
		run.Spec.Workload.Clients.Connections = tc.connections
		if got := PeakConnections(run, tc.loadCPU); got != tc.want {
			t.Errorf("PeakConnections(%d warehouses, wait %s, connections %d, load CPU %dm) = %d, want %d", tc.warehouses, tc.wait, tc.connections, tc.loadCPU, got, tc.want)
		}
	}
}

// The Jobs' count agrees with what the client pods open: each pod's pool for its shard by
// k6ext.DefaultConnections, plus the telemetry sampler on pod 0.
func TestStepConnectionsMatchTheClient(t *testing.T) {
	for _, wait := range []benchv1.Wait{benchv1.WaitSpec, benchv1.WaitNone} {
		mode := snapshot.WaitSpec
		if wait == benchv1.WaitNone {
			mode = snapshot.WaitNone
		}
		for _, active := range []int32{1, 7, 100, 1234, 40000} {
			run := testRun(40000)
			run.Spec.Workload.Wait = wait
			pods := ClientPods(run, active)
			want := TelemetryConnections
			for i := range int(pods) {
				r, err := shard.Of(int(active), i, int(pods))
				if err != nil {
					t.Fatal(err)
				}
				want += k6ext.DefaultConnections(mode, r.To-r.From+1)
			}
			if got := StepConnections(run, active); got != want {
				t.Errorf("wait %s, %d active on %d pods: StepConnections = %d, the pods open %d", wait, active, pods, got, want)
			}
		}
	}
}

func TestPodCounts(t *testing.T) {
	for _, tc := range []struct {
		warehouses, loaderPods, wantLoader int32
		active, clientPods, wantClient     int32
	}{
		{1, 0, 1, 1, 0, 1},
		{100, 0, 2, 100, 0, 1},
		{5000, 0, MaxLoaderPods, 5000, 0, 10},
		{100000, 0, MaxLoaderPods, 100000, 0, MaxClientPods},
		{10, 4, 4, 3, 8, 3}, // never more pods than warehouses
	} {
		run := testRun(tc.warehouses)
		run.Spec.Workload.Loader.Pods = tc.loaderPods
		run.Spec.Workload.Clients.Pods = tc.clientPods
		if got := LoaderPods(run, 0); got != tc.wantLoader {
			t.Errorf("LoaderPods(%d warehouses, %d asked) = %d, want %d", tc.warehouses, tc.loaderPods, got, tc.wantLoader)
		}
		if got := ClientPods(run, tc.active); got != tc.wantClient {
			t.Errorf("ClientPods(%d active, %d asked) = %d, want %d", tc.active, tc.clientPods, got, tc.wantClient)
		}
	}
}

func TestDefaultLoaderPods(t *testing.T) {
	for _, tc := range []struct {
		name       string
		warehouses int32
		loadCPU    int64 // millicores
		want       int32
	}{
		{"no CPU declared: by warehouses", 100, 0, 2},
		{"no CPU declared: at most 16", 18000, 0, MaxLoaderPods},
		{"a 128-core primary: 128 streams", 18000, 128000, 32},
		{"a fraction of a core: one pod", 30, 35, 1},
		{"2.5 cores: 3 streams, one pod", 1000, 2500, 1},
		{"17 cores: 17 streams, 5 pods", 1000, 17000, 5},
		{"never more pods than warehouses", 3, 64000, 3},
		{"at most 256 pods", 100000, 3 * 512000, MaxLoaderPodsByCPU},
		{"a small database gets fewer pods than the warehouses' default", 5000, 8000, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DefaultLoaderPods(tc.warehouses, tc.loadCPU); got != tc.want {
				t.Errorf("DefaultLoaderPods(%d, %dm) = %d, want %d", tc.warehouses, tc.loadCPU, got, tc.want)
			}
		})
	}
	// spec.workload.loader.pods wins over the CPU.
	run := testRun(1000)
	run.Spec.Workload.Loader.Pods = 7
	if got := LoaderPods(run, 128000); got != 7 {
		t.Errorf("LoaderPods with loader.pods 7 = %d", got)
	}
}

func testRun(warehouses int32) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "r"},
		Spec: benchv1.BenchmarkRunSpec{
			Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL},
			Workload: benchv1.WorkloadSpec{Warehouses: warehouses,
				Duration: &metav1.Duration{Duration: 5 * time.Minute}, RampUp: &metav1.Duration{Duration: time.Minute}},
		},
	}
}
