package results

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"testing/fstest"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// A recorded-like run: three steps of a guided search (a probe, two full steps) and a fault step,
// with each step's ConfigMap data (summary, verdict, real HDR histograms) and time series, as the
// operator keeps them — what a writer Job finds mounted.

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func dur(d time.Duration) metav1.Duration   { return metav1.Duration{Duration: d} }
func pdur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

// fixtureRun is a finished run; scale multiplies its throughput (a regression built on purpose).
func fixtureRun(namespace, name string, labels map[string]string, created time.Time, scale float64) *benchv1.BenchmarkRun {
	step := func(i int32, kind benchv1.StepKind, w int32, length time.Duration, compliant bool) benchv1.StepResult {
		start := created.Add(time.Duration(i+1) * 10 * time.Minute)
		eff := 97.5 * scale
		if !compliant {
			eff = 80 * scale
		}
		s := benchv1.StepResult{Index: i, ActiveWarehouses: w, Kind: kind, Duration: pdur(length), Pods: 1, Attempt: 1,
			StartTime: &metav1.Time{Time: start}, EndTime: &metav1.Time{Time: start.Add(length)},
			TpmC: math.Round(12.86*float64(w)*eff) / 100, Efficiency: eff, Compliant: compliant, Verdict: benchv1.VerdictCompliant,
			Transactions: map[benchv1.Transaction]benchv1.TransactionStats{}, Mix: map[benchv1.Transaction]float64{benchv1.NewOrder: 44.6},
			LatencyRatio: 0.2}
		if !compliant {
			s.Verdict, s.Reasons, s.LatencyRatio = benchv1.VerdictNonCompliant, []string{"NewOrder p90 6.10s > 5s"}, 1.22
		}
		for k, t := range benchv1.Transactions {
			d := time.Duration(10+5*k) * time.Millisecond
			s.Transactions[t] = benchv1.TransactionStats{Count: int64(100 * w), P50: dur(d), P90: dur(2 * d), P95: dur(3 * d), P99: dur(4 * d), Max: dur(9 * d)}
		}
		s.Telemetry = &benchv1.StepTelemetry{Intervals: 6, Standbys: []benchv1.StandbyLag{{Name: name + "-db-2", MaxReplayLag: dur(3 * time.Millisecond)}}}
		client := fmt.Sprintf("%s-step-%d-0-x", name, i)
		s.Telemetry.Pods = []benchv1.PodUsage{{Name: name + "-db-1", Role: "Database", PeakCPU: resource.MustParse("1500m"), PeakMemory: resource.MustParse("1Gi")},
			{Name: client, Role: "Client", PeakCPU: resource.MustParse("300m"), PeakMemory: resource.MustParse("200Mi")}}
		s.Placement = &benchv1.StepPlacement{Primary: name + "-db-1", PrimaryNode: "n1", Pods: []benchv1.PodPlacementRecord{
			{Name: name + "-db-1", Role: benchv1.RoleDatabase, Node: "n1"}, {Name: client, Role: benchv1.RoleClient, Node: "n2"}}}
		return s
	}
	steps := []benchv1.StepResult{
		step(0, benchv1.StepProbe, 100, time.Minute, true),
		step(1, benchv1.StepFull, 200, 5*time.Minute, false),
		step(2, benchv1.StepFull, 150, 5*time.Minute, true),
	}
	fault := step(3, benchv1.StepFault, 150, 5*time.Minute, true)
	fault.Fault = &benchv1.FaultRecord{
		Injections: []benchv1.FaultInjection{{Fault: 0, Action: benchv1.FaultKillPrimary, Pod: name + "-db-1", State: "Recovered",
			Time: &metav1.MicroTime{Time: fault.StartTime.Add(time.Minute)}, PrimaryBefore: name + "-db-1", PrimaryAfter: name + "-db-2"}},
		Measurement: &benchv1.FaultMeasurement{Unavailability: dur(7050 * time.Millisecond), Recovery: pdur(12 * time.Second), UnavailabilityMethod: "commits"},
		Ledger:      &benchv1.LedgerCheck{Pass: true, Districts: 1500},
		Consistency: "passed",
	}
	steps = append(steps, fault)
	ended := steps[3].EndTime.Add(time.Minute)
	two := int32(2)
	run := &benchv1.BenchmarkRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: benchv1.GroupVersion.String(), Kind: "BenchmarkRun"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: uuid.NewUUID(), Labels: labels, CreationTimestamp: metav1.NewTime(created), Generation: 1},
		Spec: benchv1.BenchmarkRunSpec{
			Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Instances: 3, SynchronousReplicas: &two, SynchronousCommit: "remote_apply"}},
			Workload: benchv1.WorkloadSpec{Warehouses: 200, Duration: pdur(5 * time.Minute), RampUp: pdur(time.Minute), Wait: benchv1.WaitSpec},
			Faults:   []benchv1.Fault{{Action: benchv1.FaultKillPrimary, At: dur(time.Minute)}},
		},
		Status: benchv1.BenchmarkRunStatus{
			Phase: benchv1.PhaseSucceeded, ObservedGeneration: 1, Steps: steps,
			Conditions: []metav1.Condition{
				{Type: benchv1.ConditionComplete, Status: metav1.ConditionTrue, Reason: "SearchFinished", ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(ended)},
				{Type: benchv1.ConditionSLACompliant, Status: metav1.ConditionTrue, Reason: "CompliantStepFound", ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(ended)},
			},
			Environment: &benchv1.RunEnvironment{ReadAt: metav1.NewTime(created.Add(9 * time.Minute)), ServerVersion: "PostgreSQL 16.4",
				Settings: map[string]string{"shared_buffers": "262144 8kB"}, StorageClass: "local-path",
				Nodes: []benchv1.NodeEnvironment{{Name: "node-1", KernelVersion: "6.1.0"}}, Images: map[string]string{"client": "tpcc:dev"}},
			Result: &benchv1.Result{MaxCompliantWarehouses: 150, TpmC: steps[2].TpmC, Efficiency: steps[2].Efficiency, Step: ptr(int32(2)),
				Precision: 1, RestsOn: []int32{2, 1}, SearchTime: pdur(18 * time.Minute), Message: "150 active warehouses compliant"},
			Report: &benchv1.ReportRef{ConfigMapName: name + "-report"},
		},
	}
	return run
}

func ptr[T any](v T) *T { return &v }

// stepFiles are the mounted files of a run's steps: step.json with real histograms, and each
// step's gzipped series, the series of step 2 split in two parts as internal/chunked splits a
// long one.
func stepFiles(t *testing.T, run *benchv1.BenchmarkRun) fstest.MapFS {
	t.Helper()
	files := fstest.MapFS{}
	for _, s := range run.Status.Steps {
		rng := rand.New(rand.NewPCG(uint64(s.Index), 7))
		histograms := map[string]string{}
		for _, tx := range benchv1.Transactions {
			h := snapshot.NewHistogram()
			median := s.Transactions[tx].P50.Duration
			for range 20 * s.ActiveWarehouses {
				snapshot.RecordLatency(h, time.Duration(float64(median)*math.Exp(0.5*rng.NormFloat64())))
			}
			encoded, err := snapshot.EncodeHistogram(h)
			if err != nil {
				t.Fatal(err)
			}
			histograms[string(tx)] = encoded
		}
		body, err := json.Marshal(map[string]any{"step": s, "summary": map[string]any{"tpmC": s.TpmC, "measuredSeconds": s.Duration.Seconds()},
			"verdict": map[string]any{"compliant": s.Compliant, "reasons": s.Reasons}, "histograms": histograms})
		if err != nil {
			t.Fatal(err)
		}
		files[outbox.StepDataFile(s.Index)] = &fstest.MapFile{Data: body}
		series := gzipSeries(t, s)
		if s.Index == 2 {
			half := len(series) / 2
			files[outbox.StepSeriesFile(s.Index, 0)] = &fstest.MapFile{Data: series[:half]}
			files[outbox.StepSeriesFile(s.Index, 1)] = &fstest.MapFile{Data: series[half:]}
		} else {
			files[outbox.StepSeriesFile(s.Index, 0)] = &fstest.MapFile{Data: series}
		}
	}
	return files
}

// gzipSeries is a step series document as the operator keeps it in <run>-step-N-series.
func gzipSeries(t *testing.T, s benchv1.StepResult) []byte {
	t.Helper()
	n := 30
	cols := &snapshot.CompactColumns{}
	lag := map[string][]int64{"db-2": {}}
	idx := make([]int, n)
	for i := range n {
		idx[i] = i
		cols.Completed = append(cols.Completed, int64(40+i%3))
		cols.Errors = append(cols.Errors, 0)
		cols.P50 = append(cols.P50, 9000+int64(i)*10)
		cols.P90 = append(cols.P90, 20000+int64(i%5)*500)
		cols.P99 = append(cols.P99, 41000)
		cols.Max = append(cols.Max, 90000)
		lag["db-2"] = append(lag["db-2"], int64(2+i%4))
	}
	doc := map[string]any{"version": 1, "origin": s.StartTime.Time, "lengthSeconds": 10.0, "collected": n, "missing": 0,
		"series": snapshot.CompactSeries{Start: s.StartTime.Time, LengthSeconds: 10, Index: idx,
			Types:      map[snapshot.Transaction]*snapshot.CompactColumns{snapshot.NewOrder: cols},
			LateStarts: make([]int64, n), PoolWaits: make([]int64, n), ReplayLagMillis: lag}}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(doc); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// runRecord is the record of a write of the run's steps [from, to), and its end when end is set.
func runRecord(run *benchv1.BenchmarkRun, from, to int32, end bool) outbox.Record {
	r := &outbox.Run{Object: outbox.Object{UID: string(run.UID), Namespace: run.Namespace, Name: run.Name, Labels: run.Labels, Created: run.CreationTimestamp.Time},
		Spec: run.Spec, Status: *run.Status.DeepCopy()}
	r.Status.Steps = r.Status.Steps[:to]
	if !end {
		r.Status.Phase, r.Status.Result, r.Status.Conditions = benchv1.PhaseRunning, nil, nil
	}
	for i := from; i < to; i++ {
		f := outbox.StepFiles{Index: i, Data: outbox.StepDataFile(i), Series: []string{outbox.StepSeriesFile(i, 0)}}
		if i == 2 {
			f.Series = append(f.Series, outbox.StepSeriesFile(i, 1))
		}
		r.Steps = append(r.Steps, f)
	}
	if end {
		c := run.Status.Conditions[0]
		r.End = &outbox.End{Phase: run.Status.Phase, Reason: c.Reason, Message: c.Message, Generation: c.ObservedGeneration, Time: c.LastTransitionTime.Time}
	}
	return outbox.Record{Version: outbox.Version, Kind: outbox.KindRun, Written: t0, Run: r}
}

func sprint(v any) string { return fmt.Sprint(v) }
