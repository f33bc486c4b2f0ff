package metrics

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
)

// Metrics the manager exports for every run, registered on controller-runtime's registry (served on
// the metrics endpoint). docs/metrics.md lists them with their units and lifetimes; the Grafana
// dashboard (charts/tpcc-operator/files/dashboard.json) queries only these.
//
// Per run, derived from its status each time status is written:
var (
	runPhase = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_phase", Help: "1 for the phase a BenchmarkRun is in, 0 for the others.",
	}, []string{"namespace", "run", "phase"})
	runSteps = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_steps", Help: "Measured steps recorded in a BenchmarkRun's status.",
	}, []string{"namespace", "run"})
	lastStepTpmC = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_last_step_tpmc", Help: "tpmC of the last recorded step.",
	}, []string{"namespace", "run"})
	lastStepEfficiency = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_last_step_efficiency_percent", Help: "Efficiency of the last recorded step, percent of 12.86 tpmC per active warehouse.",
	}, []string{"namespace", "run"})
	lastStepP90 = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_last_step_p90_seconds", Help: "90th-percentile response time of the last recorded step, per transaction type.",
	}, []string{"namespace", "run", "transaction"})
	maxCompliantWarehouses = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_max_compliant_warehouses", Help: "The result: the largest SLA-compliant active warehouse count (0 if none).",
	}, []string{"namespace", "run"})
	stepsRecorded = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tpcc_run_steps_recorded_total", Help: "Steps this manager process recorded, by compliance (true or false) and verdict (Compliant, NonCompliant, Inconclusive).",
	}, []string{"namespace", "run", "compliant", "verdict"})
)

// Per run while a step runs (status.current), gone when the step is recorded or the run ends:
var (
	currentStepTpmC = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_tpmc", Help: "tpmC of the running step so far (merged across its client pods).",
	}, []string{"namespace", "run"})
	currentStepP90 = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_p90_seconds", Help: "90th-percentile response time of the running step so far, per transaction type.",
	}, []string{"namespace", "run", "transaction"})
	currentStepActiveWarehouses = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_active_warehouses", Help: "Active warehouses of the running step.",
	}, []string{"namespace", "run"})
	currentStepElapsed = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_elapsed_seconds", Help: "Measured time of the running step so far (0 during ramp-up).",
	}, []string{"namespace", "run"})
)

// Per run while a step runs, from the latest interval of the step's time series (docs/telemetry.md),
// gone with the step:
var (
	currentStepReplayLag = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_replay_lag_seconds", Help: "Replay lag of each standby at the end of the step's latest interval.",
	}, []string{"namespace", "run", "standby"})
	currentStepWALRate = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_wal_bytes_per_second", Help: "WAL the database wrote per second in the step's latest interval.",
	}, []string{"namespace", "run"})
	currentStepCheckpoints = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tpcc_run_current_step_checkpoints_total", Help: "Checkpoints the database started during the running step.",
	}, []string{"namespace", "run"})
	currentStepSyncRepWaiters = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_sync_rep_waiters", Help: "Sessions waiting for synchronous replication (wait event SyncRep) in the step's latest interval.",
	}, []string{"namespace", "run"})
	currentStepDatabaseCPU = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_database_cpu_cores", Help: "CPU of each database pod in its latest sampled interval of the step (metrics.k8s.io), in cores.",
	}, []string{"namespace", "run", "pod"})
	currentStepWriteLag = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_write_lag_seconds", Help: "Write lag of each standby (WAL in its operating system) at the end of the step's latest interval.",
	}, []string{"namespace", "run", "standby"})
	currentStepFlushLag = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_flush_lag_seconds", Help: "Flush lag of each standby (WAL on its disk) at the end of the step's latest interval.",
	}, []string{"namespace", "run", "standby"})
	currentStepWALPerTransaction = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_wal_bytes_per_transaction", Help: "WAL the database wrote per committed transaction in the step's latest interval.",
	}, []string{"namespace", "run"})
	currentStepDiskRead = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_disk_read_bytes_per_second", Help: "Disk bytes read per second by each database and client pod in its latest interval of the step (kubelet cAdvisor).",
	}, []string{"namespace", "run", "pod"})
	currentStepDiskWrite = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_disk_write_bytes_per_second", Help: "Disk bytes written per second by each database and client pod in its latest interval of the step (kubelet cAdvisor).",
	}, []string{"namespace", "run", "pod"})
	currentStepNetReceive = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_network_receive_bytes_per_second", Help: "Network bytes received per second by each database and client pod in its latest interval of the step (kubelet cAdvisor).",
	}, []string{"namespace", "run", "pod"})
	currentStepNetTransmit = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_current_step_network_transmit_bytes_per_second", Help: "Network bytes sent per second by each database and client pod in its latest interval of the step (kubelet cAdvisor).",
	}, []string{"namespace", "run", "pod"})
)

// Per run, from its result (issue 22): tpmC per database vCPU and per GiB, by basis, and the
// resource that bounded it.
var (
	resultTpmCPerVCPU = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_result_tpmc_per_vcpu", Help: "The result's tpmC per core of the database pods' CPU: basis Requests, Limits or Peak (the sum of their peaks at the result step).",
	}, []string{"namespace", "run", "basis"})
	resultTpmCPerGiB = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_result_tpmc_per_gibibyte", Help: "The result's tpmC per GiB of the database pods' memory, by basis as tpcc_run_result_tpmc_per_vcpu.",
	}, []string{"namespace", "run", "basis"})
	resultBottleneck = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "tpcc_run_result_bottleneck", Help: "1 for the resource named saturated at the result's bound (DatabaseCPU, ClientCPU, DiskLatency, LockWaits, measure.Replication, NotDetermined).",
	}, []string{"namespace", "run", "resource"})
)

var allPhases = []benchv1.Phase{benchv1.PhasePending, benchv1.PhaseDeploying, benchv1.PhaseLoading, benchv1.PhaseRunning, benchv1.PhaseSucceeded, benchv1.PhaseFailed}

// Collectors by lifetime, for clearing.
var (
	runCollectors = []prometheus.Collector{runPhase, runSteps, lastStepTpmC, lastStepEfficiency, lastStepP90, maxCompliantWarehouses, stepsRecorded,
		resultTpmCPerVCPU, resultTpmCPerGiB, resultBottleneck}
	liveCollectors = []prometheus.Collector{currentStepTpmC, currentStepP90, currentStepActiveWarehouses, currentStepElapsed,
		currentStepReplayLag, currentStepWALRate, currentStepCheckpoints, currentStepSyncRepWaiters, currentStepDatabaseCPU,
		currentStepWriteLag, currentStepFlushLag, currentStepWALPerTransaction, currentStepDiskRead, currentStepDiskWrite,
		currentStepNetReceive, currentStepNetTransmit}
)

func init() {
	crmetrics.Registry.MustRegister(slices.Concat(runCollectors, liveCollectors)...)
}

// RecordRun sets a run's metrics from its status; the live ones follow status.current and go
// when it does.
func RecordRun(run *benchv1.BenchmarkRun) {
	ns, name := run.Namespace, run.Name
	for _, p := range allPhases {
		value := 0.0
		if run.Status.Phase == p {
			value = 1
		}
		runPhase.WithLabelValues(ns, name, string(p)).Set(value)
	}
	runSteps.WithLabelValues(ns, name).Set(float64(len(run.Status.Steps)))
	if n := len(run.Status.Steps); n > 0 {
		last := run.Status.Steps[n-1]
		lastStepTpmC.WithLabelValues(ns, name).Set(last.TpmC)
		lastStepEfficiency.WithLabelValues(ns, name).Set(last.Efficiency)
		for t, stats := range last.Transactions {
			lastStepP90.WithLabelValues(ns, name, string(t)).Set(stats.P90.Seconds())
		}
	}
	if r := run.Status.Result; r != nil {
		maxCompliantWarehouses.WithLabelValues(ns, name).Set(float64(r.MaxCompliantWarehouses))
		perVCPU, perGiB := map[string]float64{}, map[string]float64{}
		for _, p := range r.PerResource {
			if p.TpmCPerVCPU != nil {
				perVCPU[string(p.Basis)] = *p.TpmCPerVCPU
			}
			if p.TpmCPerGiB != nil {
				perGiB[string(p.Basis)] = *p.TpmCPerGiB
			}
		}
		setLabelled(resultTpmCPerVCPU, "basis", ns, name, perVCPU)
		setLabelled(resultTpmCPerGiB, "basis", ns, name, perGiB)
		if b := r.Bottleneck; b != nil {
			setLabelled(resultBottleneck, "resource", ns, name, map[string]float64{string(b.Resource): 1})
		}
	}

	c := run.Status.Current
	if c == nil {
		forgetLive(ns, name)
		return
	}
	currentStepTpmC.WithLabelValues(ns, name).Set(c.TpmC)
	currentStepActiveWarehouses.WithLabelValues(ns, name).Set(float64(c.ActiveWarehouses))
	elapsed := 0.0
	if c.Elapsed != nil {
		elapsed = c.Elapsed.Seconds()
	}
	currentStepElapsed.WithLabelValues(ns, name).Set(elapsed)
	for t, p90 := range c.P90 {
		currentStepP90.WithLabelValues(ns, name, string(t)).Set(p90.Seconds())
	}
}

// liveTelemetry is what the live telemetry metrics show of a step's series: its latest interval.
type liveTelemetry struct {
	// ReplayLagSeconds by standby: those reported in the latest interval.
	ReplayLagSeconds map[string]float64
	// WALBytesPerSecond and SyncRepWaiters are nil when the database reports none.
	WALBytesPerSecond, SyncRepWaiters *float64
	// Checkpoints started during the step so far (nil: none reported).
	Checkpoints *float64
	// DatabaseCPUCores by database pod, each pod's latest sampled interval.
	DatabaseCPUCores map[string]float64
	// WriteLagSeconds and FlushLagSeconds by standby, as ReplayLagSeconds.
	WriteLagSeconds, FlushLagSeconds map[string]float64
	// WALBytesPerTransaction is nil without WAL or commits in the latest interval.
	WALBytesPerTransaction *float64
	// Disk and network bytes per second by pod (database and client), each pod's latest interval.
	DiskRead, DiskWrite, NetReceive, NetTransmit map[string]float64
}

// latestTelemetry reads the latest interval of a step's series; it is pure.
func latestTelemetry(st *measure.StepSeries) liveTelemetry {
	out := liveTelemetry{ReplayLagSeconds: map[string]float64{}, DatabaseCPUCores: map[string]float64{},
		WriteLagSeconds: map[string]float64{}, FlushLagSeconds: map[string]float64{},
		DiskRead: map[string]float64{}, DiskWrite: map[string]float64{}, NetReceive: map[string]float64{}, NetTransmit: map[string]float64{}}
	s := &st.Series
	last := func(col []int64) (int64, bool) {
		if len(col) == 0 {
			return 0, false
		}
		return col[len(col)-1], true
	}
	for standby, col := range s.ReplayLagMillis {
		if v, ok := last(col); ok && v >= 0 {
			out.ReplayLagSeconds[standby] = float64(v) / 1000
		}
	}
	if v, ok := last(s.WALBytesPerSecond); ok {
		out.WALBytesPerSecond = ptr(float64(v))
	}
	if v, ok := last(s.SyncRepWaiters); ok {
		out.SyncRepWaiters = ptr(float64(v))
	}
	if s.Checkpoints != nil {
		out.Checkpoints = ptr(float64(sum(s.Checkpoints)))
	}
	for pod, p := range st.Resources {
		if v, ok := last(p.CPUMillis); ok && p.Role == measure.RoleDatabase {
			out.DatabaseCPUCores[pod] = float64(v) / 1000
		}
		for _, c := range []struct {
			col []int64
			to  map[string]float64
		}{{p.DiskReadBytes, out.DiskRead}, {p.DiskWriteBytes, out.DiskWrite}, {p.NetReceiveBytes, out.NetReceive}, {p.NetTransmitBytes, out.NetTransmit}} {
			if v, ok := last(c.col); ok {
				c.to[pod] = float64(v)
			}
		}
	}
	for _, c := range []struct {
		cols map[string][]int64
		to   map[string]float64
	}{{s.WriteLagMillis, out.WriteLagSeconds}, {s.FlushLagMillis, out.FlushLagSeconds}} {
		for standby, col := range c.cols {
			if v, ok := last(col); ok && v >= 0 {
				c.to[standby] = float64(v) / 1000
			}
		}
	}
	if wal, ok := last(s.WALBytesPerSecond); ok {
		if commits, ok := last(s.CommitsPerSecond); ok && commits > 0 {
			out.WALBytesPerTransaction = ptr(float64(wal) / float64(commits))
		}
	}
	return out
}

// RecordLiveTelemetry sets a running step's telemetry metrics from its series. Labels (standbys,
// pods) absent from the latest interval are dropped, so a standby that went away stops showing.
func RecordLiveTelemetry(run *benchv1.BenchmarkRun, st *measure.StepSeries) {
	if st == nil || run.Status.Current == nil {
		return
	}
	ns, name := run.Namespace, run.Name
	base := prometheus.Labels{"namespace": ns, "run": name}
	tel := latestTelemetry(st)

	setLabelled(currentStepReplayLag, "standby", ns, name, tel.ReplayLagSeconds)
	setLabelled(currentStepDatabaseCPU, "pod", ns, name, tel.DatabaseCPUCores)
	setLabelled(currentStepWriteLag, "standby", ns, name, tel.WriteLagSeconds)
	setLabelled(currentStepFlushLag, "standby", ns, name, tel.FlushLagSeconds)
	setLabelled(currentStepDiskRead, "pod", ns, name, tel.DiskRead)
	setLabelled(currentStepDiskWrite, "pod", ns, name, tel.DiskWrite)
	setLabelled(currentStepNetReceive, "pod", ns, name, tel.NetReceive)
	setLabelled(currentStepNetTransmit, "pod", ns, name, tel.NetTransmit)
	setOrDelete(currentStepWALPerTransaction, base, tel.WALBytesPerTransaction)
	setOrDelete(currentStepWALRate, base, tel.WALBytesPerSecond)
	setOrDelete(currentStepSyncRepWaiters, base, tel.SyncRepWaiters)
	if tel.Checkpoints != nil {
		counter := currentStepCheckpoints.WithLabelValues(ns, name)
		if delta := *tel.Checkpoints - counterValue(counter); delta > 0 {
			counter.Add(delta) // the step's total only grows; the counter follows it
		}
	}
}

// setLabelled sets a run's series of g, one per value of label, and deletes the run's others. It
// deletes only what goes, so a scrape never misses a series that stays.
func setLabelled(g *prometheus.GaugeVec, label, namespace, name string, values map[string]float64) {
	ch := make(chan prometheus.Metric)
	go func() { g.Collect(ch); close(ch) }()
	var gone []string
	for m := range ch { // Collect holds the vector's lock: delete after it is done
		var d dto.Metric
		if m.Write(&d) != nil {
			continue
		}
		labels := map[string]string{}
		for _, p := range d.GetLabel() {
			labels[p.GetName()] = p.GetValue()
		}
		if _, keep := values[labels[label]]; labels["namespace"] == namespace && labels["run"] == name && !keep {
			gone = append(gone, labels[label])
		}
	}
	for _, v := range gone {
		g.DeleteLabelValues(namespace, name, v)
	}
	for k, v := range values {
		g.WithLabelValues(namespace, name, k).Set(v)
	}
}

func setOrDelete(g *prometheus.GaugeVec, labels prometheus.Labels, v *float64) {
	if v == nil {
		g.Delete(labels)
		return
	}
	g.With(labels).Set(*v)
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil || m.Counter == nil {
		return 0
	}
	return m.Counter.GetValue()
}

// RecordStepRecorded counts a step this process appended to status.
func RecordStepRecorded(run *benchv1.BenchmarkRun, step *benchv1.StepResult) {
	compliant := "false"
	if step.Compliant {
		compliant = "true"
	}
	stepsRecorded.WithLabelValues(run.Namespace, run.Name, compliant, string(step.EffectiveVerdict())).Inc()
}

// forgetLive drops a run's live step series (the step ended, or the run did).
func forgetLive(namespace, name string) {
	deleteRun(liveCollectors, namespace, name)
}

// Forget drops a deleted run's series.
func Forget(namespace, name string) {
	deleteRun(slices.Concat(runCollectors, liveCollectors), namespace, name)
}

func deleteRun(collectors []prometheus.Collector, namespace, name string) {
	labels := prometheus.Labels{"namespace": namespace, "run": name}
	for _, c := range collectors {
		switch v := c.(type) {
		case *prometheus.GaugeVec:
			v.DeletePartialMatch(labels)
		case *prometheus.CounterVec:
			v.DeletePartialMatch(labels)
		}
	}
}

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

func ptr[T any](v T) *T { return &v }
