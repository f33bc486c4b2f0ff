package controllertest

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Scale makes the fake client pods' snapshots as large as a real pod's at the study's size
// (ClientPods.Scale), cheaply enough that a poll's cost is the operator's, not the fakes':
//
//   - the five cumulative histograms hold every transaction the pod's warehouses ran (12.6
//     New-Orders per warehouse-minute and the nominal mix), each type log-normal around a
//     multiple of the step's median (shapes); each interval holds all five with that interval's
//     counts;
//   - a fault step's pod serves its whole per-district ledger (ten districts per warehouse of its
//     range) when asked for it (?ledger=1);
//   - histograms are built from a template by count (hdr RecordValues per bucket, no sampling)
//     and their encodings cached by type, median and count; the counts follow the measured time
//     rounded down to Quantum, so the pods of a step polled together serve the same counts and
//     share the encodings.
//
// The encoding of the whole document (JSON) is still done per request by the real handler
// (snapshot.NewHandler), in the same process as the operator.
type Scale struct {
	// Quantum rounds the measured time the counts follow (0: not rounded).
	Quantum time.Duration

	mu        sync.Mutex
	templates map[templateKey][]hdr.Bar
	encoded   map[histogramKey]string
}

type templateKey struct {
	tx     snapshot.Transaction
	median time.Duration
}

type histogramKey struct {
	templateKey
	count int64
}

// templateSamples is how many latencies shape a template (its buckets, not the counts it serves).
const templateSamples = 60_000

// counted is the measured time the fake's counts follow.
func (f *FakeClient) counted(measured time.Duration) time.Duration {
	if f.scale == nil || f.scale.Quantum <= 0 {
		return measured
	}
	return measured.Truncate(f.scale.Quantum)
}

// histogram is the encoding of count latencies of tx around median.
func (s *Scale) histogram(tx snapshot.Transaction, median time.Duration, count int64) (string, error) {
	key := histogramKey{templateKey{tx, median}, count}
	s.mu.Lock()
	if s.encoded == nil {
		s.encoded, s.templates = map[histogramKey]string{}, map[templateKey][]hdr.Bar{}
	}
	if e, ok := s.encoded[key]; ok {
		s.mu.Unlock()
		return e, nil
	}
	bars, ok := s.templates[key.templateKey]
	if !ok {
		bars = template(tx, median)
		s.templates[key.templateKey] = bars
	}
	s.mu.Unlock()

	h := snapshot.NewHistogram()
	var given int64
	for _, b := range bars {
		n := b.Count * count / templateSamples
		if err := h.RecordValues(b.From, n); err != nil {
			return "", err
		}
		given += n
	}
	if rest := count - given; rest > 0 {
		if err := h.RecordValues(bars[len(bars)/2].From, rest); err != nil {
			return "", err
		}
	}
	e, err := snapshot.EncodeHistogram(h)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	if len(s.encoded) > 4096 {
		clear(s.encoded)
	}
	s.encoded[key] = e
	s.mu.Unlock()
	return e, nil
}

// shapes are the types' log-normal latencies relative to the step's median, as the snapshot
// package's poll benchmark draws them (New-Order's median is the step's).
var shapes = map[snapshot.Transaction]struct{ factor, sigma float64 }{
	snapshot.NewOrder: {1, 0.9}, snapshot.Payment: {0.48, 0.9}, snapshot.OrderStatus: {0.16, 0.7},
	snapshot.Delivery: {3.2, 1.0}, snapshot.StockLevel: {1.2, 1.1},
}

// template is the non-empty buckets of templateSamples log-normal latencies of tx around the
// step's median.
func template(tx snapshot.Transaction, median time.Duration) []hdr.Bar {
	rng := rand.New(rand.NewPCG(uint64(len(tx)), uint64(median)))
	shape := shapes[tx]
	h := snapshot.NewHistogram()
	for range templateSamples {
		snapshot.RecordLatency(h, time.Duration(float64(median)*shape.factor*math.Exp(shape.sigma*rng.NormFloat64())))
	}
	var bars []hdr.Bar
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			bars = append(bars, b)
		}
	}
	return bars
}

// mix is each type's completions per New-Order (the nominal mix).
var mix = map[snapshot.Transaction]float64{snapshot.NewOrder: 1, snapshot.Payment: 43 / 44.7, snapshot.OrderStatus: 4.1 / 44.7,
	snapshot.Delivery: 4.1 / 44.7, snapshot.StockLevel: 4.1 / 44.7}

// fillInterval gives an interval of the pod's warehouses what a real pod's holds: the five types'
// completions of the interval with their histograms, and its client signals.
func (s *Scale) fillInterval(iv *snapshot.Interval, id snapshot.Identity, interval, median time.Duration) {
	newOrders := 12.6 * float64(id.WarehouseTo-id.WarehouseFrom+1) * interval.Minutes()
	var total int64
	for _, t := range snapshot.Transactions {
		n := int64(math.Round(newOrders * mix[t]))
		encoded, err := s.histogram(t, median, n)
		if err != nil {
			continue // no histogram: the operator's merge reports it
		}
		c := snapshot.TransactionCounts{Histogram: encoded, Commits: n}
		if t == snapshot.NewOrder {
			c.Rollbacks = n / 100
			c.Commits -= c.Rollbacks
		}
		iv.Transactions[t] = c
		total += n
	}
	iv.Client = &snapshot.ClientSignals{PoolAcquires: total, PoolWaits: total / 50, PoolWaitSeconds: float64(total) / 5000}
}

// ledger is the pod's per-district New-Order ledger: ten districts per warehouse of its range.
func (s *Scale) ledger(id snapshot.Identity, newOrders int64) []snapshot.LedgerDistrict {
	districts := 10 * (id.WarehouseTo - id.WarehouseFrom + 1)
	out := make([]snapshot.LedgerDistrict, 0, districts)
	for w := id.WarehouseFrom; w <= id.WarehouseTo; w++ {
		for d := 1; d <= 10; d++ {
			out = append(out, snapshot.LedgerDistrict{WarehouseID: w, DistrictID: d, Acknowledged: newOrders / int64(districts), Unknown: int64(d % 2)})
		}
	}
	if len(out) > 0 {
		out[0].Acknowledged += newOrders % int64(districts)
	}
	return out
}

// Release plays the kubelet and the Job controller once a step is over: its pods are deleted and
// their fake servers closed, so a run of many steps of many pods holds only the current step's.
func (c *ClientPods) Release(t testing.TB, pods []*corev1.Pod) {
	t.Helper()
	var closing []*FakeClient
	c.mu.Lock()
	for _, p := range pods {
		if f, ok := c.servers[p.Status.PodIP]; ok {
			closing = append(closing, f)
			delete(c.servers, p.Status.PodIP)
		}
	}
	c.mu.Unlock()
	for _, f := range closing {
		f.server.CloseClientConnections()
		f.server.Close()
	}
	for _, p := range pods {
		if err := K8s.Delete(context.Background(), p); client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
	}
}

// DriveStepsReleasing plays the Job controller and the client pods for every step, as DriveSteps
// does, until the run ends, stop returns true (checked between steps and while waiting) or
// timeout passes; each step's pods are released (Release) once it is recorded. It returns the run
// as last read.
func DriveStepsReleasing(t testing.TB, run *benchv1.BenchmarkRun, pods *ClientPods, latency LatencyOf, timeout time.Duration, stop func() bool) *benchv1.BenchmarkRun {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for step := 0; ; step++ {
		name := jobs.StepJobName(run, int32(step))
		job := &batchv1.Job{}
		for {
			got := GetRun(t, run)
			if got.Status.Phase == benchv1.PhaseSucceeded || got.Status.Phase == benchv1.PhaseFailed || stop() {
				return got
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %s did not finish within %s: phase %s, %d steps", run.Name, timeout, got.Status.Phase, len(got.Status.Steps))
			}
			err := K8s.Get(context.Background(), client.ObjectKey{Namespace: run.Namespace, Name: name}, job)
			if err == nil {
				break
			}
			if !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		stepPods := RunStepPods(t, pods, job, latency)
		for {
			// Recorded, and its Job gone: the pass that recorded it has released the pods.
			got := GetRun(t, run)
			if got.Status.Phase == benchv1.PhaseFailed {
				break
			}
			if len(got.Status.Steps) > step {
				err := K8s.Get(context.Background(), client.ObjectKeyFromObject(job), &batchv1.Job{})
				if apierrors.IsNotFound(err) {
					break
				}
			}
			if stop() {
				return got
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %s: step %d not recorded within %s (phase %s)", run.Name, step, timeout, got.Status.Phase)
			}
			time.Sleep(50 * time.Millisecond)
		}
		pods.Release(t, stepPods)
	}
}
