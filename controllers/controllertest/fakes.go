package controllertest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tpcc-operator/tpcc-operator/internal/shard"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// Envtest runs no kubelet and no controllers: the tests play the vendor operators, the Job
// controller and the client pods. Client pods are HTTP servers speaking the real snapshot contract
// (internal/snapshot.NewHandler), measuring in accelerated time.

// ClientPods maps fake pod IPs to their servers.
type ClientPods struct {
	// replayLag is standby s1's replay lag at the end of interval i in the steps' sampling pods.
	ReplayLag func(i int) time.Duration
	// commits, when set, is each pod's New-Order (and Payment) completions in interval i of a step
	// measuring faults (default 10).
	Commits func(i int) int64
	// standbys, when set, is what the sampling pods' sample of interval i reports of the standbys
	// (default s1 and s2 streaming in quorum, s1 at replayLag(i)); sampleError, when it returns
	// non-empty, fails interval i's sample with that error.
	Standbys    func(i int) []snapshot.Standby
	SampleError func(i int) string
	// speed, when set, is how many measured seconds pass per wall second (default 60).
	Speed float64
	// nodeName, when set, places the step's pods on that node (their disk and network are read
	// from it: Config.NodeMetrics).
	NodeName string
	// Delay, when set, is how long the pod of that name waits before it answers any request.
	Delay func(pod string) time.Duration
	// StartLate, when set, is how much later than it was started the pod of that name reports
	// its measurement start (Times.MeasurementStart): a pod whose ramp-up began late, or whose
	// clock runs behind.
	StartLate func(pod string) time.Duration
	// Scale, when set, makes the pods' snapshots as large as a real pod's (scale.go).
	Scale *Scale

	mu      sync.Mutex
	servers map[string]*FakeClient
	nextIP  int
}

// FakeSettingValues are what the fake server reports for settings a run names.
var FakeSettingValues = map[string]string{"synchronous_commit": "remote_apply"}

func NewClientPods() *ClientPods { return &ClientPods{servers: map[string]*FakeClient{}} }

func (c *ClientPods) URL(podIP string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.servers[podIP]; ok {
		return s.server.URL
	}
	return "http://127.0.0.1:1" // nothing listens: an unreachable pod
}

// server is the fake behind a pod IP.
func (c *ClientPods) Server(podIP string) *FakeClient {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.servers[podIP]
}

func (c *ClientPods) add(f *FakeClient) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextIP++
	ip := fmt.Sprintf("10.1.%d.%d", c.nextIP/250, c.nextIP%250+1)
	c.servers[ip] = f
	return ip
}

// LatencyOf is the simulated database: response-time medians for a step of active warehouses.
type LatencyOf func(active int) time.Duration

// FakeClient is one client pod: paused until started, then measuring; `speed` measured seconds pass
// per wall second, until duration, then done.
type FakeClient struct {
	server   *httptest.Server
	identity snapshot.Identity
	duration time.Duration
	Speed    float64
	median   time.Duration
	seed     uint64
	// interval is the --interval of the Job; sampler says this pod samples the database
	// (--telemetry-shard names its index): it serves standbys s1 and s2, whose replay lag at the
	// end of interval i is replayLag(i), and a checkpoint in interval 2.
	interval  time.Duration
	sampler   bool
	ReplayLag func(i int) time.Duration
	// ledger: the pod runs with --ledger-check and serves a passing check once done; commits
	// scripts its intervals' completions.
	ledger  bool
	Commits func(i int) int64
	// standbys and sampleError script the sampling pod's samples (ClientPods).
	Standbys    func(i int) []snapshot.Standby
	SampleError func(i int) string
	// showSettings are the --show-setting names: the sampling pod reports them as the server does
	// (FakeSettingValues), beside its own.
	showSettings []string
	// delay is how long the pod waits before it answers (ClientPods.Delay); scale, when set, sizes
	// its snapshots as a real pod's (scale.go).
	delay time.Duration
	scale *Scale
	// startLate shifts the measurement start the pod reports (ClientPods.StartLate).
	startLate time.Duration

	// token is the run's control token, read from the Secret the pod mounts; the fake serves, like
	// the real client, nothing but /healthz to a request without it (snapshot.RequireToken).
	// refused counts the requests it turned away.
	token   string
	refused atomic.Int32

	mu      sync.Mutex
	started time.Time
	stopped bool
	// stoppedAt ends the measured interval early, as POST /v1/stop does in the real client.
	stoppedAt time.Time
	marks     []snapshot.Mark
}

func newFakeClient(t testing.TB, pod, token string, warehouses, active, index, count int, duration time.Duration, median time.Duration) *FakeClient {
	r, err := shard.Of(active, index, count)
	if err != nil {
		t.Fatal(err)
	}
	f := &FakeClient{
		identity: snapshot.Identity{Pod: pod, Engine: "postgres", Warehouses: warehouses, WarehouseFrom: r.From, WarehouseTo: r.To,
			ActiveWarehouses: active, Terminals: 10 * r.Len(), Wait: snapshot.WaitSpec},
		duration: duration, Speed: 60, median: median, seed: uint64(index + 1), token: token,
	}
	handler := snapshot.RequireToken(snapshot.NewHandler(snapshot.Control{
		Snapshot: f.snapshot,
		Start: func(context.Context) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.started.IsZero() {
				f.started = time.Now()
			}
			return nil
		},
		Stop: func(context.Context) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.stopped = true
			if !f.started.IsZero() && f.stoppedAt.IsZero() {
				f.stoppedAt = time.Now()
			}
			return nil
		},
		Mark: func(_ context.Context, label string) (time.Time, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			for _, m := range f.marks {
				if m.Label == label {
					return m.Time, nil
				}
			}
			now := time.Now()
			f.marks = append(f.marks, snapshot.Mark{Label: label, Time: now})
			return now, nil
		},
	}), token)
	f.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.delay > 0 {
			select {
			case <-time.After(f.delay):
			case <-r.Context().Done():
				return
			}
		}
		if r.URL.Path != snapshot.PathHealth && r.Header.Get("Authorization") != "Bearer "+token {
			f.refused.Add(1)
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(f.server.Close)
	return f
}

func (f *FakeClient) snapshot() (*snapshot.Snapshot, error) {
	f.mu.Lock()
	started, stoppedAt := f.started, f.stoppedAt
	f.mu.Unlock()
	s := &snapshot.Snapshot{Version: snapshot.Version, Identity: f.identity, Phase: snapshot.PhasePaused,
		Times:        snapshot.Times{Updated: time.Now()},
		Transactions: map[snapshot.Transaction]snapshot.TransactionCounts{},
		Constants:    snapshot.Constants{CLastLoad: 157, CLastRun: 223, CCustomerID: 259, CItemID: 7911},
		Versions:     snapshot.Versions{Client: "fake"}}
	if started.IsZero() {
		for _, t := range snapshot.Transactions {
			s.Transactions[t] = snapshot.TransactionCounts{}
		}
		return s, nil
	}
	elapsed := time.Since(started)
	if !stoppedAt.IsZero() {
		elapsed = stoppedAt.Sub(started)
	}
	measured := time.Duration(float64(elapsed) * f.Speed)
	s.Phase = snapshot.PhaseMeasuring
	if measured >= f.duration {
		measured, s.Phase = f.duration, snapshot.PhaseDone
	}
	if !stoppedAt.IsZero() {
		s.Phase = snapshot.PhaseDone
	}
	s.Times.MeasurementStart = started.Add(f.startLate)
	s.Times.MeasuredSeconds = measured.Seconds()

	// 12.6 New-Orders per warehouse-minute (98 % of the ceiling), the nominal mix and audit rates.
	newOrders := int64(12.6 * float64(f.identity.WarehouseTo-f.identity.WarehouseFrom+1) * f.counted(measured).Minutes())
	counts := map[snapshot.Transaction]int64{snapshot.NewOrder: newOrders}
	for t, share := range map[snapshot.Transaction]float64{snapshot.Payment: 43, snapshot.OrderStatus: 4.1, snapshot.Delivery: 4.1, snapshot.StockLevel: 4.1} {
		counts[t] = int64(math.Round(float64(newOrders) * share / 44.7))
	}
	rng := rand.New(rand.NewPCG(f.seed, uint64(newOrders)))
	for _, t := range snapshot.Transactions {
		var encoded string
		var err error
		if f.scale != nil {
			encoded, err = f.scale.histogram(t, f.median, counts[t])
		} else {
			h := snapshot.NewHistogram()
			for range counts[t] {
				snapshot.RecordLatency(h, time.Duration(float64(f.median)*math.Exp(0.4*rng.NormFloat64())))
			}
			encoded, err = snapshot.EncodeHistogram(h)
		}
		if err != nil {
			return nil, err
		}
		c := snapshot.TransactionCounts{Histogram: encoded, Commits: counts[t]}
		if t == snapshot.NewOrder {
			c.Rollbacks = counts[t] / 100
			c.Commits -= c.Rollbacks
		}
		s.Transactions[t] = c
	}
	for i := range s.Audit.OrderLineCounts {
		s.Audit.OrderLineCounts[i] = newOrders / snapshot.OrderLineCountsLen
	}
	s.Audit.RemoteOrderLines = newOrders * 10 / 100
	s.Audit.RemotePayments = counts[snapshot.Payment] * 15 / 100
	s.Audit.PaymentsByLastName = counts[snapshot.Payment] * 60 / 100
	s.Audit.OrderStatusByLastName = counts[snapshot.OrderStatus] * 60 / 100
	s.Audit.DeliveredDistricts = counts[snapshot.Delivery] * 10
	if f.sampler {
		s.Server = &snapshot.ServerInfo{Settings: map[string]string{"synchronous_standby_names": "ANY 2 (s1, s2)", "shared_buffers": "16384 8kB"}}
		for _, name := range f.showSettings {
			if v, ok := FakeSettingValues[name]; ok {
				s.Server.Settings[name] = v
			}
		}
		s.Versions.EngineServer = "PostgreSQL 16.4 (fake)"
	}
	s.Intervals = f.intervals(started, measured, s.Phase == snapshot.PhaseDone)
	s.Commits = f.commitRecord(started, measured, s.Phase == snapshot.PhaseDone)
	// Every client keeps its New-Order ledger; one started with --ledger-check also judges it.
	s.Ledger = []snapshot.LedgerDistrict{{WarehouseID: f.identity.WarehouseFrom, DistrictID: 1, Acknowledged: newOrders, Unknown: 2}}
	if f.scale != nil {
		s.Ledger = f.scale.ledger(f.identity, newOrders)
	}
	if f.ledger && s.Phase == snapshot.PhaseDone {
		districts := 10 * (f.identity.WarehouseTo - f.identity.WarehouseFrom + 1)
		s.LedgerCheck = &snapshot.LedgerCheck{Pass: true, Districts: districts, Acknowledged: newOrders, Unknown: 2, Growth: newOrders + 1}
	}
	return s, nil
}

// commitRecord is what the real client's commit record (tpcc.CommitGaps) holds of the fake's
// scripted commits once marked: interval i's New-Orders and Payments (the writes it scripts) spread
// evenly over the interval in wall time, every stretch of at least 100 ms between two of them that
// ends after the first mark, the last commit, and the end of the run.
func (f *FakeClient) commitRecord(started time.Time, measured time.Duration, done bool) *snapshot.CommitRecord {
	f.mu.Lock()
	marks := append([]snapshot.Mark(nil), f.marks...)
	f.mu.Unlock()
	if len(marks) == 0 || f.interval <= 0 {
		return nil
	}
	const minGap = 100 * time.Millisecond
	rec := &snapshot.CommitRecord{Marks: marks, Gaps: []snapshot.CommitGap{}, MinGapSeconds: minGap.Seconds(), TerminalsStart: started}
	wall := time.Duration(float64(f.interval) / f.Speed)
	last := started
	for i := range int(measured / f.interval) {
		n := int64(10)
		if f.Commits != nil {
			n = f.Commits(i)
		}
		writes := 2 * n // the interval's New-Orders and Payments
		for k := range writes {
			at := started.Add(time.Duration(i)*wall + time.Duration((float64(k)+0.5)/float64(writes)*float64(wall)))
			if at.Sub(last) >= minGap && at.After(marks[0].Time) {
				rec.Gaps = append(rec.Gaps, snapshot.CommitGap{From: last, To: at})
			}
			last, rec.LastCommit = at, at
		}
	}
	if done {
		rec.Ended = started.Add(time.Duration(float64(f.duration) / f.Speed))
	}
	return rec
}

// intervals is the fake's time series in measured time: interval i covers [i·interval,
// (i+1)·interval) after the start; the last, partial one is sealed when the run is done. Each
// holds a few New-Order and Payment samples at the pod's median, and in the sampling pod the
// database's signals.
func (f *FakeClient) intervals(started time.Time, measured time.Duration, done bool) *snapshot.Intervals {
	if f.interval <= 0 {
		return nil
	}
	sealed := int(measured / f.interval)
	if done && measured%f.interval != 0 {
		sealed++
	}
	s := &snapshot.Intervals{Origin: started, LengthSeconds: f.interval.Seconds(), Sealed: sealed, Retention: 1080}
	for i := range sealed {
		rng := rand.New(rand.NewPCG(f.seed, uint64(i)))
		iv := snapshot.Interval{Index: i, Start: started.Add(time.Duration(float64(i) * float64(f.interval) / f.Speed)), Seconds: f.interval.Seconds(),
			Transactions: map[snapshot.Transaction]snapshot.TransactionCounts{}, Client: &snapshot.ClientSignals{PoolAcquires: 20}}
		n := int64(10)
		if f.Commits != nil {
			n = f.Commits(i)
		}
		if f.scale != nil && f.Commits == nil {
			f.scale.fillInterval(&iv, f.identity, f.interval, f.median)
		}
		for _, t := range []snapshot.Transaction{snapshot.NewOrder, snapshot.Payment} {
			if f.scale != nil && f.Commits == nil {
				break
			}
			h := snapshot.NewHistogram()
			for range n {
				snapshot.RecordLatency(h, time.Duration(float64(f.median)*math.Exp(0.4*rng.NormFloat64())))
			}
			encoded, _ := snapshot.EncodeHistogram(h)
			iv.Transactions[t] = snapshot.TransactionCounts{Histogram: encoded, Commits: n}
		}
		if f.sampler {
			wal, commits := 4e6, 300.0
			lag := f.ReplayLag(i).Seconds()
			iv.Telemetry = &snapshot.Telemetry{SampledAt: iv.Start, Engine: "postgres", WALBytesPerSecond: &wal, CommitsPerSecond: &commits,
				Standbys: []snapshot.Standby{{Name: "s1", ReplayLagSeconds: lag, State: "streaming", SyncState: "quorum"},
					{Name: "s2", ReplayLagSeconds: 0.004, State: "streaming", SyncState: "quorum"}},
				Checkpoints: &snapshot.Checkpoints{}, Sessions: &snapshot.Sessions{SyncRep: 3}}
			if i == 2 {
				iv.Telemetry.Checkpoints.Started = 1
			}
			if f.Standbys != nil {
				iv.Telemetry.Standbys = f.Standbys(i)
			}
			if f.SampleError != nil {
				if msg := f.SampleError(i); msg != "" {
					iv.Telemetry = &snapshot.Telemetry{SampledAt: iv.Start, Engine: "postgres", Error: msg}
				}
			}
		}
		s.Items = append(s.Items, iv)
	}
	return s
}

// --- the vendor operator and the Job controller, played by the test

// GetCluster reads the run's CloudNativePG Cluster as the API server has it.
func GetCluster(t testing.TB, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("postgresql.cnpg.io/v1")
	u.SetKind("Cluster")
	if err := K8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, u); err != nil {
		t.Fatalf("Cluster %s: %v", name, err)
	}
	return u
}

func SetClusterReady(t testing.TB, namespace, name string, instances int64) {
	t.Helper()
	SetClusterStatus(t, namespace, name, "Cluster in healthy state", "True", instances, instances)
}

// SetClusterStatus writes what CloudNativePG reports of a Cluster: its phase, its Ready
// condition and how many of its instances are ready.
func SetClusterStatus(t testing.TB, namespace, name, phase, ready string, readyInstances, instances int64) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("postgresql.cnpg.io/v1")
	u.SetKind("Cluster")
	Eventually(t, 20*time.Second, func() error {
		if err := K8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, u); err != nil {
			return err
		}
		u.Object["status"] = map[string]any{
			"phase": phase, "readyInstances": readyInstances, "instances": instances,
			"conditions": []any{map[string]any{"type": "Ready", "status": ready, "reason": "Cluster" + map[string]string{"True": "IsReady", "False": "IsNotReady"}[ready],
				"message": phase, "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}},
		}
		return K8s.Status().Update(context.Background(), u)
	})
}

func GetJob(t testing.TB, namespace, name string) *batchv1.Job {
	t.Helper()
	job := &batchv1.Job{}
	Eventually(t, 30*time.Second, func() error {
		return K8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, job)
	})
	return job
}

// SetJobProgress writes what the Job controller would: some indexes completed, and when all are,
// the Complete condition.
func SetJobProgress(t testing.TB, job *batchv1.Job, completedIndexes string, succeeded int32, complete bool) {
	t.Helper()
	Eventually(t, 10*time.Second, func() error {
		current := &batchv1.Job{}
		if err := K8s.Get(context.Background(), client.ObjectKeyFromObject(job), current); err != nil {
			return err
		}
		now := metav1.Now()
		if current.Status.StartTime == nil {
			current.Status.StartTime = &now
		}
		current.Status.CompletedIndexes = completedIndexes
		current.Status.Succeeded = succeeded
		current.Status.Active = *current.Spec.Completions - succeeded
		if complete {
			current.Status.Active = 0
			current.Status.CompletionTime = &now
			current.Status.Conditions = []batchv1.JobCondition{
				{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now},
				{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now},
			}
		}
		return K8s.Status().Update(context.Background(), current)
	})
}

func FailJob(t testing.TB, job *batchv1.Job, message string) {
	t.Helper()
	Eventually(t, 10*time.Second, func() error {
		current := &batchv1.Job{}
		if err := K8s.Get(context.Background(), client.ObjectKeyFromObject(job), current); err != nil {
			return err
		}
		now := metav1.Now()
		current.Status.StartTime = &now
		current.Status.Failed = 1
		current.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: message, LastTransitionTime: now, LastProbeTime: now},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: message, LastTransitionTime: now, LastProbeTime: now},
		}
		return K8s.Status().Update(context.Background(), current)
	})
}

// RunStepPods plays the Job controller and kubelet for a step Job: one ready pod per index, each a
// fake client serving snapshots. It returns the pods.
func RunStepPods(t testing.TB, pods *ClientPods, job *batchv1.Job, latency LatencyOf) []*corev1.Pod {
	t.Helper()
	args := job.Spec.Template.Spec.Containers[0].Args
	duration := time.Duration(0)
	for i, a := range args {
		if a == "--duration" {
			d, err := time.ParseDuration(args[i+1])
			if err != nil {
				t.Fatalf("--duration %q: %v", args[i+1], err)
			}
			duration = d
		}
	}
	if duration <= 0 {
		t.Fatalf("--duration missing from %v", args)
	}
	flag := func(name string) int {
		for i, a := range args {
			if a == name {
				v, err := strconv.Atoi(args[i+1])
				if err != nil {
					t.Fatalf("%s %q: %v", name, args[i+1], err)
				}
				return v
			}
		}
		t.Fatalf("%s missing from %v", name, args)
		return 0
	}
	warehouses, active, count := flag("--warehouses"), flag("--active-warehouses"), int(*job.Spec.Completions)
	sampler := flag("--telemetry-shard")
	var interval time.Duration
	for i, a := range args {
		if a == "--interval" {
			interval, _ = time.ParseDuration(args[i+1])
		}
	}
	if interval <= 0 {
		t.Fatalf("--interval missing from %v", args)
	}
	token := MountedControlToken(t, job)
	var out []*corev1.Pod
	for i := range count {
		name := fmt.Sprintf("%s-%d", job.Name, i)
		fake := newFakeClient(t, name, token, warehouses, active, i, count, duration, latency(active))
		fake.interval, fake.sampler, fake.ReplayLag = interval, i == sampler, pods.ReplayLag
		fake.Standbys, fake.SampleError = pods.Standbys, pods.SampleError
		if pods.Speed > 0 {
			fake.Speed = pods.Speed
		}
		if pods.Delay != nil {
			fake.delay = pods.Delay(name)
		}
		if pods.StartLate != nil {
			fake.startLate = pods.StartLate(name)
		}
		fake.scale = pods.Scale
		// As the real client: it reads the level back and reports it, and the named settings.
		for i, a := range args {
			switch a {
			case "--engine":
				fake.identity.Engine = args[i+1]
			case "--isolation":
				level, err := isolation.Parse(args[i+1])
				if err != nil {
					t.Fatalf("--isolation %q: %v", args[i+1], err)
				}
				fake.identity.Isolation = string(level)
			case "--show-setting":
				fake.showSettings = append(fake.showSettings, args[i+1])
			}
		}
		if slices.Contains(args, "--ledger-check") { // a step measuring faults runs in real time
			fake.ledger, fake.Commits, fake.Speed = true, pods.Commits, 1
		}
		if fake.ReplayLag == nil {
			fake.ReplayLag = func(int) time.Duration { return 3 * time.Millisecond }
		}
		ip := pods.add(fake)
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: name, Labels: job.Spec.Template.Labels,
				Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(i)}},
			Spec: job.Spec.Template.Spec,
		}
		pod.Spec.NodeName = pods.NodeName
		if err := K8s.Create(context.Background(), pod); err != nil {
			t.Fatal(err)
		}
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
		if err := K8s.Status().Update(context.Background(), pod); err != nil {
			t.Fatal(err)
		}
		out = append(out, pod)
	}
	return out
}

// MountedControlToken plays the kubelet: it reads the control token the step's pods mount, from
// the Secret their volume names, at the path --control-token-file gives.
func MountedControlToken(t testing.TB, job *batchv1.Job) string {
	t.Helper()
	spec := job.Spec.Template.Spec
	args := spec.Containers[0].Args
	i := slices.Index(args, "--control-token-file")
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("step Job %s passes no --control-token-file: its pods would serve start and stop to anyone (args %v)", job.Name, args)
	}
	file := args[i+1]
	for _, m := range spec.Containers[0].VolumeMounts {
		if !strings.HasPrefix(file, m.MountPath+"/") {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name != m.Name || v.Secret == nil {
				continue
			}
			secret := &corev1.Secret{}
			if err := K8s.Get(context.Background(), client.ObjectKey{Namespace: job.Namespace, Name: v.Secret.SecretName}, secret); err != nil {
				t.Fatalf("the control token Secret of %s: %v", job.Name, err)
			}
			key := strings.TrimPrefix(file, m.MountPath+"/")
			for _, item := range v.Secret.Items {
				if item.Path == key {
					key = item.Key
				}
			}
			token := string(secret.Data[key])
			if err := snapshot.CheckToken(token); err != nil {
				t.Fatalf("Secret %s key %s: %v", secret.Name, key, err)
			}
			return token
		}
	}
	t.Fatalf("step Job %s: --control-token-file %s is on no Secret volume", job.Name, file)
	return ""
}

func ContainsAll(s string, parts ...string) error {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return fmt.Errorf("%q does not contain %q", s, p)
		}
	}
	return nil
}

// Refused counts the requests the fake turned away for lacking the run's control token.
func (f *FakeClient) Refused() int32 { return f.refused.Load() }
