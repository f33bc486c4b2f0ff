package metrics

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/cadvisor"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/metrics/metricstest"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// metricsRun is a run with a recorded step, a result and a step in progress.
func metricsRun(namespace, name string) *benchv1.BenchmarkRun {
	start := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Status: benchv1.BenchmarkRunStatus{
			Phase: benchv1.PhaseRunning,
			Steps: []benchv1.StepResult{{
				Index: 0, ActiveWarehouses: 10, TpmC: 125.5, Efficiency: 97.59, Compliant: true,
				Transactions: map[benchv1.Transaction]benchv1.TransactionStats{
					benchv1.NewOrder: {Count: 100, P90: metav1.Duration{Duration: 40 * time.Millisecond}},
					benchv1.Payment:  {Count: 100, P90: metav1.Duration{Duration: 20 * time.Millisecond}},
				},
			}},
			Result: &benchv1.Result{MaxCompliantWarehouses: 10, Bottleneck: &benchv1.Bottleneck{Resource: benchv1.BottleneckDatabaseCPU},
				PerResource: []benchv1.PerResource{{Basis: benchv1.BasisRequests, TpmCPerVCPU: ptr(62.75), TpmCPerGiB: ptr(15.69)}, {Basis: benchv1.BasisPeak, TpmCPerVCPU: ptr(147.6)}}},
			Current: &benchv1.StepProgress{
				Index: 1, ActiveWarehouses: 12, Pods: 2, TpmC: 150.2, StartTime: &start,
				Elapsed: &metav1.Duration{Duration: 90 * time.Second},
				P90: map[benchv1.Transaction]metav1.Duration{
					benchv1.NewOrder:   {Duration: 55 * time.Millisecond},
					benchv1.StockLevel: {Duration: 250 * time.Millisecond},
				},
			},
		},
	}
}

// metricsSeries is a step series of three intervals with PostgreSQL telemetry and pod resources.
func metricsSeries() *measure.StepSeries {
	st := &measure.StepSeries{Version: measure.SeriesVersion, Origin: time.Unix(1000, 0), LengthSeconds: 10}
	st.Series = snapshot.CompactSeries{
		Index: []int{0, 1, 2},
		ReplayLagMillis: map[string][]int64{
			"pg-2": {5, 12, 30},
			"pg-3": {4, 8, -1}, // not reported in the latest interval
		},
		WALBytesPerSecond: []int64{1000, 2000, 2113024},
		Checkpoints:       []int64{0, 1, 1},
		SyncRepWaiters:    []int64{0, 3, 9},
		CommitsPerSecond:  []int64{10, 20, 512},
		WriteLagMillis:    map[string][]int64{"pg-2": {1, 2, 3}, "pg-3": {1, 1, -1}},
		FlushLagMillis:    map[string][]int64{"pg-2": {2, 4, 25}, "pg-3": {1, 2, -1}},
	}
	st.AddResources("pg-1", measure.RoleDatabase, 1000, time.Unix(1001, 0), 400, 64<<20)
	st.AddResources("pg-1", measure.RoleDatabase, 1000, time.Unix(1025, 0), 850, 64<<20)
	st.AddResources("client-0", measure.RoleClient, 500, time.Unix(1025, 0), 300, 32<<20)
	roles := map[string]string{"pg-1": measure.RoleDatabase, "client-0": measure.RoleClient}
	st.AddIO(map[string]cadvisor.Counters{"pg-1": {Disk: true, Net: true}, "client-0": {Net: true}}, roles, time.Unix(1020, 0))
	st.AddIO(map[string]cadvisor.Counters{"pg-1": {DiskReadBytes: 5e5, DiskWriteBytes: 4e7, Disk: true, NetReceiveBytes: 1e7, NetTransmitBytes: 2e7, Net: true},
		"client-0": {NetReceiveBytes: 2e7, NetTransmitBytes: 1e7, Net: true}}, roles, time.Unix(1025, 0))
	return st
}

// recordSampleRun records every metric the manager exports for one run, as a running step would.
func recordSampleRun(namespace, name string) *benchv1.BenchmarkRun {
	run := metricsRun(namespace, name)
	RecordRun(run)
	RecordLiveTelemetry(run, metricsSeries())
	RecordStepRecorded(run, &benchv1.StepResult{Compliant: true, Verdict: benchv1.VerdictCompliant})
	return run
}

func TestMetricsFollowStatusAndSeries(t *testing.T) {
	const ns, name = "metrics-a", "pg"
	t.Cleanup(func() { Forget(ns, name) })
	run := recordSampleRun(ns, name)

	phases := map[string]float64{}
	for _, p := range allPhases {
		phases[fmt.Sprintf("tpcc_run_phase{phase=%s}", p)] = 0
	}
	phases["tpcc_run_phase{phase=Running}"] = 1
	want := map[string]float64{
		"tpcc_run_steps{}":                                                      1,
		"tpcc_run_last_step_tpmc{}":                                             125.5,
		"tpcc_run_last_step_efficiency_percent{}":                               97.59,
		"tpcc_run_last_step_p90_seconds{transaction=NewOrder}":                  0.04,
		"tpcc_run_last_step_p90_seconds{transaction=Payment}":                   0.02,
		"tpcc_run_max_compliant_warehouses{}":                                   10,
		"tpcc_run_steps_recorded_total{compliant=true,verdict=Compliant}":       1,
		"tpcc_run_current_step_tpmc{}":                                          150.2,
		"tpcc_run_current_step_active_warehouses{}":                             12,
		"tpcc_run_current_step_elapsed_seconds{}":                               90,
		"tpcc_run_current_step_p90_seconds{transaction=NewOrder}":               0.055,
		"tpcc_run_current_step_p90_seconds{transaction=StockLevel}":             0.25,
		"tpcc_run_current_step_replay_lag_seconds{standby=pg-2}":                0.03,
		"tpcc_run_current_step_wal_bytes_per_second{}":                          2113024,
		"tpcc_run_current_step_checkpoints_total{}":                             2,
		"tpcc_run_current_step_sync_rep_waiters{}":                              9,
		"tpcc_run_current_step_database_cpu_cores{pod=pg-1}":                    0.85,
		"tpcc_run_current_step_write_lag_seconds{standby=pg-2}":                 0.003,
		"tpcc_run_current_step_flush_lag_seconds{standby=pg-2}":                 0.025,
		"tpcc_run_current_step_wal_bytes_per_transaction{}":                     4127,
		"tpcc_run_current_step_disk_read_bytes_per_second{pod=pg-1}":            100000,
		"tpcc_run_current_step_disk_write_bytes_per_second{pod=pg-1}":           8000000,
		"tpcc_run_current_step_network_receive_bytes_per_second{pod=pg-1}":      2000000,
		"tpcc_run_current_step_network_transmit_bytes_per_second{pod=pg-1}":     4000000,
		"tpcc_run_current_step_network_receive_bytes_per_second{pod=client-0}":  4000000,
		"tpcc_run_current_step_network_transmit_bytes_per_second{pod=client-0}": 2000000,
		"tpcc_run_current_step_disk_read_bytes_per_second{pod=client-0}":        0,
		"tpcc_run_current_step_disk_write_bytes_per_second{pod=client-0}":       0,
		"tpcc_run_result_tpmc_per_vcpu{basis=Requests}":                         62.75,
		"tpcc_run_result_tpmc_per_vcpu{basis=Peak}":                             147.6,
		"tpcc_run_result_tpmc_per_gibibyte{basis=Requests}":                     15.69,
		"tpcc_run_result_bottleneck{resource=DatabaseCPU}":                      1,
	}
	for k, v := range phases {
		want[k] = v
	}
	if got := metricstest.RunSeries(t, ns, name); !reflect.DeepEqual(got, want) {
		t.Errorf("series:\n got %v\nwant %v", got, want)
	}

	// The checkpoint counter follows the step's total: a later poll with one more adds one.
	st := metricsSeries()
	st.Series.Index = append(st.Series.Index, 3)
	st.Series.Checkpoints = append(st.Series.Checkpoints, 1)
	st.Series.ReplayLagMillis["pg-2"] = append(st.Series.ReplayLagMillis["pg-2"], 7)
	st.Series.ReplayLagMillis["pg-3"] = append(st.Series.ReplayLagMillis["pg-3"], 6)
	st.Series.WALBytesPerSecond = append(st.Series.WALBytesPerSecond, 1500)
	st.Series.SyncRepWaiters = append(st.Series.SyncRepWaiters, 2)
	RecordLiveTelemetry(run, st)
	if got := testutil.ToFloat64(currentStepCheckpoints.WithLabelValues(ns, name)); got != 3 {
		t.Errorf("checkpoints_total = %g, want 3", got)
	}
	if got := testutil.ToFloat64(currentStepReplayLag.WithLabelValues(ns, name, "pg-3")); got != 0.006 {
		t.Errorf("replay lag of pg-3 = %g, want 0.006 once reported again", got)
	}

	// A standby not reported in the latest interval stops showing; the other stays.
	st.Series.Index = append(st.Series.Index, 4)
	for standby, lag := range map[string]int64{"pg-2": -1, "pg-3": 9} {
		st.Series.ReplayLagMillis[standby] = append(st.Series.ReplayLagMillis[standby], lag)
	}
	RecordLiveTelemetry(run, st)
	got := metricstest.RunSeries(t, ns, name)
	if _, ok := got["tpcc_run_current_step_replay_lag_seconds{standby=pg-2}"]; ok || got["tpcc_run_current_step_replay_lag_seconds{standby=pg-3}"] != 0.009 {
		t.Errorf("replay lag series after pg-2 went unreported: %v", got)
	}

	// The step is recorded: the live series go, the run's stay.
	run.Status.Current = nil
	run.Status.Steps = append(run.Status.Steps, benchv1.StepResult{Index: 1, ActiveWarehouses: 12, TpmC: 151})
	RecordRun(run)
	got = metricstest.RunSeries(t, ns, name)
	for k := range got {
		if strings.HasPrefix(k, "tpcc_run_current_step_") {
			t.Errorf("%s remains after the step ended", k)
		}
	}
	if got["tpcc_run_steps{}"] != 2 || got["tpcc_run_last_step_tpmc{}"] != 151 {
		t.Errorf("after the step: %v", got)
	}
	// Telemetry of a poll racing the step's end is not exported.
	RecordLiveTelemetry(run, metricsSeries())
	for k := range metricstest.RunSeries(t, ns, name) {
		if strings.HasPrefix(k, "tpcc_run_current_step_") {
			t.Errorf("%s set although no step runs", k)
		}
	}

	Forget(ns, name)
	if got := metricstest.RunSeries(t, ns, name); len(got) != 0 {
		t.Errorf("after the run was deleted: %v", got)
	}
}

// TestMetricsPassPromlint: the names follow Prometheus conventions (units, _total for counters, help).
func TestMetricsPassPromlint(t *testing.T) {
	const ns, name = "metrics-lint", "pg"
	t.Cleanup(func() { Forget(ns, name) })
	recordSampleRun(ns, name)
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var ours = families[:0]
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "tpcc_") {
			ours = append(ours, f)
		}
	}
	if len(ours) < len(runCollectors)+len(liveCollectors) {
		t.Fatalf("%d tpcc_ families gathered, want every one of the %d collectors", len(ours), len(runCollectors)+len(liveCollectors))
	}
	problems, err := promlint.NewWithMetricFamilies(ours).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

// emptyLive is the live telemetry of a series without any column.
func emptyLive() liveTelemetry {
	return liveTelemetry{ReplayLagSeconds: map[string]float64{}, DatabaseCPUCores: map[string]float64{},
		WriteLagSeconds: map[string]float64{}, FlushLagSeconds: map[string]float64{},
		DiskRead: map[string]float64{}, DiskWrite: map[string]float64{}, NetReceive: map[string]float64{}, NetTransmit: map[string]float64{}}
}

func TestLatestTelemetry(t *testing.T) {
	tests := []struct {
		name string
		st   *measure.StepSeries
		want liveTelemetry
	}{
		{
			name: "no series yet",
			st:   &measure.StepSeries{},
			want: emptyLive(),
		},
		{
			name: "a database without telemetry (no columns)",
			st: &measure.StepSeries{Series: snapshot.CompactSeries{Index: []int{0}}, Resources: map[string]*snapshot.PodSeries{
				"db-0": {Role: measure.RoleDatabase, Index: []int{0}, CPUMillis: []int64{1200}, MemoryMiB: []int64{100}},
			}},
			want: func() liveTelemetry { l := emptyLive(); l.DatabaseCPUCores["db-0"] = 1.2; return l }(),
		},
		{
			name: "the latest interval of each column; a standby not reported in it is left out; clients are not database pods",
			st:   metricsSeries(),
			want: liveTelemetry{
				ReplayLagSeconds: map[string]float64{"pg-2": 0.03}, WALBytesPerSecond: ptr(2113024.0), SyncRepWaiters: ptr(9.0),
				Checkpoints: ptr(2.0), DatabaseCPUCores: map[string]float64{"pg-1": 0.85},
				WriteLagSeconds: map[string]float64{"pg-2": 0.003}, FlushLagSeconds: map[string]float64{"pg-2": 0.025},
				WALBytesPerTransaction: ptr(4127.0),
				DiskRead:               map[string]float64{"pg-1": 100000, "client-0": 0}, DiskWrite: map[string]float64{"pg-1": 8e6, "client-0": 0},
				NetReceive: map[string]float64{"pg-1": 2e6, "client-0": 4e6}, NetTransmit: map[string]float64{"pg-1": 4e6, "client-0": 2e6},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := latestTelemetry(tt.st); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("latestTelemetry = %+v, want %+v", got, tt.want)
			}
		})
	}
}
