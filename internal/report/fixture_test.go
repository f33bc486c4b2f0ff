package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/measure"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Recorded-like fixtures: a 20-step guided search on PostgreSQL (3 instances, 2 synchronous
// standbys) with telemetry on every step and a fault step at the end, its series.json.gz, and a
// 3-database suite. The figures follow a plausible curve: efficiency ~97 % up to ~130 active
// warehouses, falling beyond as NewOrder's p90 climbs through its 190ms bound.

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// bound is the fixtures' SLA: NewOrder p90 ≤ 190ms, which latencyAt crosses between 131 and 132
// active warehouses.
const bound = 190 * time.Millisecond

func dur(d time.Duration) metav1.Duration   { return metav1.Duration{Duration: d} }
func pdur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }
func i64(v int64) *int64                    { return &v }

// latencyAt is a transaction's p90 at w active warehouses: flat, then a knee near 130.
func latencyAt(t benchv1.Transaction, w int32) time.Duration {
	base := map[benchv1.Transaction]float64{benchv1.NewOrder: 42, benchv1.Payment: 18, benchv1.OrderStatus: 9, benchv1.Delivery: 95, benchv1.StockLevel: 31}[t]
	knee := min(25, math.Exp(float64(w-130)/9)) // overloaded: queues of seconds, not minutes
	return time.Duration((base + base*knee*3) * float64(time.Millisecond)).Round(100 * time.Microsecond)
}

func stepAt(index int32, kind benchv1.StepKind, w int32, start time.Time) benchv1.StepResult {
	length := 5 * time.Minute
	if kind == benchv1.StepProbe {
		length = 2 * time.Minute
	}
	p90 := latencyAt(benchv1.NewOrder, w)
	eff := 97.4 - 0.01*float64(index)
	if w > 130 { // saturated: the throughput of 130 warehouses, spread over more
		eff = eff * 130 / float64(w)
	}
	compliant := p90 <= bound && eff >= 90
	s := benchv1.StepResult{Index: index, ActiveWarehouses: w, Kind: kind, Duration: pdur(length), Pods: (w + 49) / 50,
		StartTime: &metav1.Time{Time: start}, EndTime: &metav1.Time{Time: start.Add(length)},
		TpmC: math.Round(12.86*float64(w)*eff) / 100, Efficiency: eff, Compliant: compliant, Transactions: map[benchv1.Transaction]benchv1.TransactionStats{}}
	for _, t := range benchv1.Transactions {
		d := latencyAt(t, w)
		s.Transactions[t] = benchv1.TransactionStats{Count: int64(w) * map[benchv1.Transaction]int64{benchv1.NewOrder: 45, benchv1.Payment: 43}[t] * int64(length/time.Minute) / 10,
			P50: dur(d / 2), P90: dur(d), P95: dur(d * 13 / 10), P99: dur(d * 2), Max: dur(d * 4)}
	}
	// What a step of this length leaves unjudged (sla.Verdict.Unjudged): a probe completes fewer
	// than the 10 000 transactions the mix and audits need, a full step fewer than the 158 400
	// New-Orders of the rollback window.
	newOrders := int64(math.Round(s.TpmC * length.Minutes()))
	if kind == benchv1.StepProbe {
		s.Unjudged = []string{fmt.Sprintf("mix minimums and audit windows not checked (%d transactions, 10000 needed)", newOrders*100/45)}
	} else {
		s.Unjudged = []string{fmt.Sprintf("audit New-Order rollbacks (9.2.2.5.1) not checked (%d New-Orders, 158400 needed)", newOrders)}
	}
	if !compliant {
		if p90 > bound {
			s.Reasons = append(s.Reasons, fmt.Sprintf("NewOrder p90 %s > %s", Latency(p90), bound))
		}
		if eff < 90 {
			s.Reasons = append(s.Reasons, fmt.Sprintf("efficiency %.2f%% < 90%%", eff))
		}
	}
	s.LatencyRatio = float64(p90) / float64(bound)
	s.Telemetry = &benchv1.StepTelemetry{Intervals: int32(length / (10 * time.Second)), Checkpoints: i64(int64(length/time.Minute) / 2),
		MaxSyncRepWaiters: i64(int64(w / 10)), WALBytesPerSecond: i64(int64(w) * 41000), ResourceMetrics: "metrics.k8s.io",
		Standbys: []benchv1.StandbyLag{{Name: "pg-capacity-db-2", MaxReplayLag: dur(time.Duration(w) * 90 * time.Microsecond)}, {Name: "pg-capacity-db-3", MaxReplayLag: dur(time.Duration(w) * 110 * time.Microsecond)}}}
	for i := 1; i <= 3; i++ {
		s.Telemetry.Pods = append(s.Telemetry.Pods, benchv1.PodUsage{Name: fmt.Sprintf("pg-capacity-db-%d", i), Role: "Database",
			PeakCPU: *resource.NewMilliQuantity(int64(min(3900, int(w)*25/i)), resource.DecimalSI), PeakMemory: resource.MustParse("6Gi"),
			IO: &benchv1.PodIO{DiskReadBytesPerSecond: int64(w) * 1000, DiskWriteBytesPerSecond: int64(w) * 52000 / int64(i), DiskReadsPerSecond: int64(w / 10),
				DiskWritesPerSecond: int64(w) * 3, NetworkReceiveBytesPerSecond: int64(w) * 9000, NetworkTransmitBytesPerSecond: int64(w) * 41000 / int64(i)}})
	}
	// Equal terms (issue 22): the isolation read back, the retries, the standbys' write and flush
	// lags, WAL per transaction and the bottleneck the signals name.
	s.Isolation = benchv1.IsolationReadCommitted
	s.Retries = int64(w / 20)
	s.Telemetry.WALBytesPerTransaction = i64(4800)
	for j := range s.Telemetry.Standbys {
		lag := s.Telemetry.Standbys[j].MaxReplayLag.Duration
		s.Telemetry.Standbys[j].MaxWriteLag, s.Telemetry.Standbys[j].MaxFlushLag = pdur(lag/6), pdur(lag*9/10)
	}
	if compliant {
		s.Telemetry.Bottleneck = &benchv1.Bottleneck{Resource: benchv1.BottleneckNotDetermined, Evidence: []string{"no recorded signal crossed its threshold"}}
	} else {
		s.Telemetry.Bottleneck = &benchv1.Bottleneck{Resource: benchv1.BottleneckReplication,
			Evidence: []string{fmt.Sprintf("on average %d.0 active sessions: 64 %% waiting for the synchronous standbys, 3 %% on locks, 1 %% on I/O", w/5)}}
	}
	return s
}

// run20 is the 20-step run: 19 search steps (full and probe) and the fault step.
func run20() *benchv1.BenchmarkRun {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "pg-capacity", Namespace: "bench"},
		Spec: benchv1.BenchmarkRunSpec{Database: pg(3, 2, "remote_apply"),
			Workload: benchv1.WorkloadSpec{Warehouses: 200, Duration: pdur(5 * time.Minute), RampUp: pdur(time.Minute), Wait: benchv1.WaitSpec},
			SLA:      benchv1.SLASpec{MinEfficiencyPercent: i32(90), Latency: []benchv1.LatencyBound{{Transaction: benchv1.NewOrder, Percentile: "90", Max: dur(bound)}}}}}
	plan := []struct {
		kind benchv1.StepKind
		w    int32
	}{
		{benchv1.StepFull, 200}, {benchv1.StepProbe, 100}, {benchv1.StepProbe, 150}, {benchv1.StepProbe, 125}, {benchv1.StepProbe, 137},
		{benchv1.StepProbe, 131}, {benchv1.StepProbe, 134}, {benchv1.StepProbe, 132}, {benchv1.StepFull, 132}, {benchv1.StepFull, 134},
		{benchv1.StepFull, 133}, {benchv1.StepProbe, 110}, {benchv1.StepFull, 120}, {benchv1.StepFull, 128}, {benchv1.StepFull, 130},
		{benchv1.StepFull, 131}, {benchv1.StepProbe, 136}, {benchv1.StepFull, 135}, {benchv1.StepFull, 129}, {benchv1.StepFault, 131},
	}
	at := t0
	for i, p := range plan {
		s := stepAt(int32(i), p.kind, p.w, at.Add(time.Minute))
		run.Status.Steps = append(run.Status.Steps, s)
		at = s.EndTime.Time
	}
	fault := &run.Status.Steps[19]
	inj := metav1.NewMicroTime(fault.StartTime.Add(90 * time.Second))
	planned := metav1.NewMicroTime(fault.StartTime.Add(90 * time.Second))
	promoted := metav1.NewMicroTime(inj.Add(7400 * time.Millisecond))
	ready := metav1.NewMicroTime(inj.Add(48 * time.Second))
	from := metav1.NewMicroTime(inj.Add(400 * time.Millisecond))
	fault.Fault = &benchv1.FaultRecord{
		Injections: []benchv1.FaultInjection{{Fault: 0, Action: benchv1.FaultKillPrimary, Pod: "pg-capacity-db-1", PlannedTime: &planned, Time: &inj,
			State: benchv1.FaultInjected, PrimaryBefore: "pg-capacity-db-1", PrimaryAfter: "pg-capacity-db-2", PromotedTime: &promoted, ReadyTime: &ready}},
		Measurement: &benchv1.FaultMeasurement{Unavailability: dur(8200 * time.Millisecond), UnavailableFrom: &from, Recovery: pdur(14 * time.Second),
			BaselineNewOrdersPerSecond: 26.9, Errors: map[benchv1.Transaction]int64{benchv1.NewOrder: 37, benchv1.Payment: 35}, CommitsUnknown: 2,
			LatencyAfter: map[benchv1.Transaction]benchv1.TransactionStats{benchv1.NewOrder: {Count: 1390, P50: dur(40 * time.Millisecond), P90: dur(3 * time.Second), P99: dur(9 * time.Second), Max: dur(11 * time.Second)}}},
		Ledger:      &benchv1.LedgerCheck{Pass: true, Districts: 1310, Acknowledged: 8411, Unknown: 2, Growth: 8412},
		Consistency: "passed (conditions 1-4)",
	}
	best := int32(15)
	run.Status.Phase = benchv1.PhaseSucceeded
	run.Status.Result = &benchv1.Result{MaxCompliantWarehouses: 131, TpmC: run.Status.Steps[best].TpmC, Efficiency: run.Status.Steps[best].Efficiency,
		Step: &best, Precision: 1, RestsOn: []int32{15, 8}, SearchTime: pdur(91 * time.Minute),
		Message: fmt.Sprintf("131 active warehouses compliant: %.1f tpmC, %.2f%% efficiency (bracket closed at the precision); it rests on step 15, which left checks unjudged: %s",
			run.Status.Steps[best].TpmC, run.Status.Steps[best].Efficiency, strings.Join(run.Status.Steps[best].Unjudged, "; "))}
	run.Status.Result.ConsistencyCheck = &benchv1.ConsistencyCheck{Passed: true, Conditions: 12, ConditionsPassed: 12, Duration: pdur(162 * time.Second),
		Ledger: &benchv1.RunLedger{Checked: true, Pass: true, Growth: 131270, Acknowledged: 131268, Unknown: 2,
			Detail: "the database gained 131270 orders over the run, at least the 131268 New-Orders its clients acknowledged (a lower bound: some steps' counts were read before their terminals ended)"}}
	run.Status.Result.PerResource = PerResourceOf(describe(run.Spec.Database), run.Status.Result.TpmC, &run.Status.Steps[best])
	run.Status.Result.Bottleneck = run.Status.Steps[8].Telemetry.Bottleneck.DeepCopy()
	run.Status.Result.Bottleneck.Step = i32(8)
	run.Status.Report = &benchv1.ReportRef{ConfigMapName: "pg-capacity-report"}
	cpu, mem := resource.MustParse("8"), resource.MustParse("32Gi")
	run.Status.Environment = &benchv1.RunEnvironment{ReadAt: metav1.NewTime(t0), ServerVersion: "PostgreSQL 18.1", ClientVersion: "v0.9.0", OperatorVersion: "v0.9.0",
		Settings: map[string]string{"synchronous_commit": "remote_apply", "shared_buffers": "2GB"}, StorageClass: "local-path", StorageProvisioner: "rancher.io/local-path",
		Nodes: []benchv1.NodeEnvironment{{Name: "node-1", KernelVersion: "6.8.0", OSImage: "Ubuntu 24.04", ContainerRuntimeVersion: "containerd://2.1", CPU: &cpu, Memory: &mem}},
		Tuning: []benchv1.EngineSetting{{Name: "max_connections", Source: "postgres.parameters", Requested: "400", Effective: "400"},
			{Name: "shared_buffers", Source: "sizing", Requested: "2GB", Effective: "2GB"},
			{Name: "synchronous_commit", Source: "postgres.synchronousCommit", Requested: "remote_apply", Effective: "remote_apply"}},
		StorageCalibration: []benchv1.StorageCalibration{{Node: "node-1", StorageClass: "local-path", Size: "10Gi", Tool: "fio-3.33", BlockSize: 8192,
			SyncP50: pdur(1800 * time.Microsecond), SyncP99: pdur(4200 * time.Microsecond), WritesPerSecond: 512, BytesPerSecond: 4194304}}}
	run.Status.Database = &benchv1.DatabaseStatus{Kind: "Cluster", Name: "pg-capacity-db", Sizing: &benchv1.DatabaseSizing{Memory: resource.MustParse("8Gi"), MemoryFrom: "limit",
		Settings: map[string]string{"shared_buffers": "2GB", "max_connections": "400"}}}
	return run
}

// series20 is run20's series.json.gz content: every step at 10 s intervals, the fault step's
// outage as intervals without commits.
func series20(run *benchv1.BenchmarkRun) *measure.SeriesReport {
	s := &measure.SeriesReport{SchemaVersion: 1}
	for _, step := range run.Status.Steps {
		n := int(step.Duration.Duration / (10 * time.Second))
		st := measure.IndexedSeries{Index: step.Index, StepSeries: measure.StepSeries{Origin: step.StartTime.Time, LengthSeconds: 10,
			Series: snapshot.CompactSeries{Start: step.StartTime.Time, LengthSeconds: 10, Types: map[snapshot.Transaction]*snapshot.CompactColumns{},
				ReplayLagMillis: map[string][]int64{}, Checkpoints: make([]int64, n)},
			Resources: map[string]*snapshot.PodSeries{}}}
		outage := func(i int) bool { return step.Fault != nil && (i == 9 || i == 10) }
		for i := 0; i < n; i++ {
			st.Series.Index = append(st.Series.Index, i)
			if i%6 == 5 {
				st.Series.Checkpoints[i] = 1
			}
		}
		for _, t := range benchv1.Transactions {
			col := &snapshot.CompactColumns{}
			p90 := step.Transactions[t].P90.Duration.Microseconds()
			for i := 0; i < n; i++ {
				wobble := int64(100 + 15*math.Sin(float64(i)/2))
				v := p90 * wobble / 100
				if i%6 == 5 {
					v = v * 3 / 2 // a checkpoint's write burst
				}
				c := int64(step.ActiveWarehouses) * 2
				if outage(i) {
					v, c = 0, 0
				} else if step.Fault != nil && i == 11 {
					v *= 20
				}
				col.Completed, col.Errors = append(col.Completed, c), append(col.Errors, 0)
				col.P50, col.P90, col.P99, col.Max = append(col.P50, v/2), append(col.P90, v), append(col.P99, v*2), append(col.Max, v*4)
			}
			st.Series.Types[snapshot.Transaction(t)] = col
		}
		for k, sb := range []string{"pg-capacity-db-2", "pg-capacity-db-3"} {
			var lag []int64
			for i := 0; i < n; i++ {
				v := int64(step.ActiveWarehouses) * int64(60+20*k) / 1000 * int64(3+i%4)
				if step.Fault != nil && i >= 9 && (k == 0 || i <= 12) {
					v = -1 // db-2 was promoted; db-3 re-attaches
				}
				lag = append(lag, v)
			}
			st.Series.ReplayLagMillis[sb] = lag
		}
		for p := 1; p <= 3; p++ {
			pod := &snapshot.PodSeries{Role: "Database"}
			for i := 0; i < n; i++ {
				if step.Fault != nil && p == 1 && i >= 9 {
					break // the killed primary
				}
				pod.Index = append(pod.Index, i)
				pod.CPUMillis = append(pod.CPUMillis, int64(min(3900, int(step.ActiveWarehouses)*25/p))*int64(90+i%10)/100)
				pod.MemoryMiB = append(pod.MemoryMiB, 6000)
			}
			st.Resources[fmt.Sprintf("pg-capacity-db-%d", p)] = pod
		}
		st.Resources["pg-capacity-client-0"] = &snapshot.PodSeries{Role: "Client", Index: []int{0}, CPUMillis: []int64{400}, MemoryMiB: []int64{200}}
		if step.Kind == benchv1.StepFault { // disk and network per pod (kubelet cAdvisor), in the fault step
			for name, pod := range st.Resources {
				for i := 0; i < n; i += 3 {
					pod.AddIO(i, snapshot.IORates{DiskWriteBytes: int64(2e6 + 1e5*float64(i%7)), DiskReadBytes: 1e5, NetReceiveBytes: int64(5e5 * float64(1+len(name)%3)), NetTransmitBytes: 9e5})
				}
			}
		}
		if step.Index == 18 { // network but no disk, as the kubelet reports on cgroup v1 nodes
			st.IOMetrics = measure.IOMetricsSource
			for name, pod := range st.Resources {
				for i := 0; i < n; i += 3 {
					pod.AddIO(i, snapshot.IORates{NetReceiveBytes: int64(4e5 * float64(1+len(name)%3)), NetTransmitBytes: 8e5})
				}
			}
		}
		s.Steps = append(s.Steps, st)
	}
	return s
}

// suite3 is a 3-database suite with 3 repeats each (confidence intervals), one failed run.
func suite3() (Comparison, []Curve) {
	spec := benchv1.BenchmarkSuiteSpec{Repeats: 3,
		Workload: benchv1.WorkloadSpec{Warehouses: 300, Duration: pdur(10 * time.Minute), RampUp: pdur(2 * time.Minute), Wait: benchv1.WaitSpec},
		SLA:      benchv1.SLASpec{MinEfficiencyPercent: i32(90), Latency: []benchv1.LatencyBound{{Transaction: benchv1.NewOrder, Percentile: "90", Max: dur(5 * time.Second)}}},
		Databases: []benchv1.SuiteDatabase{
			{Name: "pg-sync", Database: withResources(pg(3, 2, "remote_apply"), "4", "16Gi")},
			{Name: "pg-async", Database: withResources(pg(3, 0, "on"), "4", "16Gi")},
			{Name: "crdb", Database: withResources(benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB}, "4", "16Gi")},
		}}
	peak := map[string]int32{"pg-sync": 131, "pg-async": 178, "crdb": 96}
	var runs []benchv1.SuiteRunRecord
	var curves []Curve
	start := t0
	for r := int32(1); r <= 3; r++ {
		for _, d := range spec.Databases {
			name := fmt.Sprintf("study-%s-%d", d.Name, r)
			w := peak[d.Name] + r*2 - 4
			rec := benchv1.SuiteRunRecord{Name: name, Database: d.Name, Repeat: r, Phase: benchv1.PhaseSucceeded,
				StartTime: &metav1.Time{Time: start}, CompletionTime: &metav1.Time{Time: start.Add(95 * time.Minute)}, Report: name + "-report"}
			start = start.Add(100 * time.Minute)
			if d.Name == "crdb" && r == 2 {
				rec.Phase, rec.Reason, rec.Message, rec.Report = benchv1.PhaseFailed, "LoadFailed", "loader pod OOMKilled", ""
				runs = append(runs, rec)
				continue
			}
			eff := 97.1 - float64(r)*0.3
			rec.Result = &benchv1.SuiteRunResult{MaxCompliantWarehouses: w, TpmC: math.Round(12.86*float64(w)*eff) / 100, Efficiency: eff,
				Latency: map[benchv1.Transaction]benchv1.LatencyPercentiles{}}
			for _, t := range benchv1.Transactions {
				l := latencyAt(t, 100+w-peak[d.Name]) * time.Duration(map[string]int{"pg-sync": 3, "pg-async": 2, "crdb": 5}[d.Name]) / 2
				rec.Result.Latency[t] = benchv1.LatencyPercentiles{P50: dur(l / 2), P95: dur(l * 13 / 10), P99: dur(l * 2)}
			}
			// Equal terms: per resource on the requests (4 CPU and 16Gi per pod, 3 pods) and the
			// bottleneck of the step above the result.
			peakStep := stepAt(3, benchv1.StepFull, w, start)
			rec.Result.PerResource = PerResourceOf(describe(d.Database), rec.Result.TpmC, &peakStep)
			rec.Result.Bottleneck = &benchv1.Bottleneck{Resource: map[string]benchv1.BottleneckResource{"pg-sync": benchv1.BottleneckReplication,
				"pg-async": benchv1.BottleneckDatabaseCPU, "crdb": benchv1.BottleneckDatabaseCPU}[d.Name]}
			if d.Name == "pg-sync" && r == 3 {
				rec.Result.Bottleneck.Resource = benchv1.BottleneckLockWaits
			}
			runs = append(runs, rec)
			var steps []benchv1.StepResult
			for i, sw := range []int32{300, w - 60, w - 20, w, w + 8} {
				st := stepAt(int32(i), benchv1.StepFull, sw+130-peak[d.Name], start)
				st.ActiveWarehouses = sw
				st.TpmC = math.Round(12.86*float64(sw)*st.Efficiency) / 100
				steps = append(steps, st)
			}
			curves = append(curves, Curve{Run: name, Database: d.Name, Steps: steps})
		}
	}
	c := mustCompare(Input{Suite: "study", Namespace: "bench", Spec: spec, Runs: runs, Generated: t0.Add(16 * time.Hour)})
	return c, curves
}
