package run

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/stepdetail"
)

// BenchmarkStudyScale is a simulation of the operator at the study's size (issue 36): the real
// run reconciler in a real manager against the envtest API server, driving a run whose steps
// have N simulated client pods (controllertest: fake pods serving the real snapshot contract,
// histograms and intervals at a real pod's size — ct.Scale — in accelerated time). The database
// is simulated too (ct.Boundary: compliant up to 55 % of the warehouses), and the search is the
// real one (Guided, up to 100 steps), so a run has the steps its search takes.
//
// Per variant it reports, over the passes of the run's steps (from the first step Job to the
// result):
//   - p50-ms/pass, p99-ms/pass: wall time of each Reconcile call of the run, timed around the
//     reconciler (the manager's controller is built here with a reconcile.Func that times it);
//   - proc-cpu-ms/pass: the test process's CPU (getrusage) over those passes, divided by their
//     number. It includes the fake pods' serving (JSON encoding of every snapshot) and the test's
//     own Job-controller play; the API server and etcd are other processes and are not in it;
//   - peak-heap-MiB: the largest HeapInuse sampled every 100 ms, fakes included;
//   - status-B, report-B: the run object's JSON bytes and its report ConfigMap's data bytes at
//     the end of the real run (steps steps);
//   - status100-B, report100-B: the same at 100 steps, built by the status and report writers'
//     own code (boundStepDetail one step at a time as recordStep does; fitReport with the
//     report's Markdown, rendered from the steps' per-pod lists put back as reconcileResult does) over 100 steps made of the run's recorded steps and step ConfigMaps taken
//     in turn, each with N pods' per-pod telemetry (envtest serves no pod metrics, so the run
//     records none) and its series at the run's compressed size per step.
//     Both are stored in the API server (a namespace no manager watches), which fails the
//     benchmark if it refuses either;
//   - status-io-ms/pass, status100-io-ms/pass: a pass's own status I/O on the stored run at each
//     size (its read of the run, then updateStatus's read and write), status100-get-ms the read
//     alone; medians of 10.
//
// The two-runs variant runs two runs of the same size in one manager (MaxConcurrentReconciles 4,
// the manager's default) and reports run b's passes beside run a's; the slow-pod variant is the
// same with run a's step pod 7 answering every request after 9 s (within the 10 s per-pod
// timeout). Run b's figures in the two are the slow pod's effect on another run.
//
// The machine's cores are shared with the API server, etcd and the fakes: figures are noisy.
// Not run by go test without -bench:
//
//	KUBEBUILDER_ASSETS=… go test -count=1 -vet=off -run XXX -bench StudyScale -benchtime 1x -timeout 60m ./controllers/run
func BenchmarkStudyScale(b *testing.B) {
	for _, v := range []struct{ pods, warehouses int32 }{{36, 18_000}, {256, 100_000}} {
		b.Run(fmt.Sprintf("pods=%d/warehouses=%d", v.pods, v.warehouses), func(b *testing.B) {
			for b.Loop() {
				studyScale(b, v.pods, v.warehouses, false, false)
			}
		})
	}
	b.Run("two-runs/pods=36/warehouses=18000", func(b *testing.B) {
		for b.Loop() {
			studyScale(b, 36, 18_000, true, false)
		}
	})
	b.Run("slow-pod/pods=36/warehouses=18000", func(b *testing.B) {
		for b.Loop() {
			studyScale(b, 36, 18_000, true, true)
		}
	})
}

// Limits the study's objects must stay within.
const (
	// etcdObjectLimit is etcd's default request limit (--max-request-bytes), the largest object it stores.
	etcdObjectLimit = 1536 << 10
	studyHeapLimit  = 128 << 20
	studySteps      = 100
	slowPodDelay    = 9 * time.Second
)

func studyScale(b *testing.B, pods, warehouses int32, second, slow bool) {
	ns := ct.NewNamespace(b, "study")
	fakes := ct.NewClientPods()
	fakes.Speed = 120
	fakes.Scale = &ct.Scale{Quantum: 10 * time.Second}
	if slow {
		fakes.Delay = func(pod string) time.Duration {
			if strings.HasPrefix(pod, "a-step-") && strings.HasSuffix(pod, "-7") {
				return slowPodDelay
			}
			return 0
		}
	}
	cfg := testConfig(fakes)
	cfg.PollInterval = 250 * time.Millisecond
	cfg.MaxConcurrentReconciles = 4
	timer := &passTimer{passes: map[string][]time.Duration{}, measuring: map[string]bool{}}
	ct.StartManager(b, ns, func(mgr ctrl.Manager) error { return setupTimed(mgr, cfg, timer) })

	newRun := func(name string) *benchv1.BenchmarkRun {
		run := ct.NewRun(ns, name, warehouses, warehouses/2)
		run.Spec.Workload.Clients.Pods = pods
		run.Spec.Workload.Duration = &metav1.Duration{Duration: 10 * time.Minute}
		run.Spec.Search.MaxSteps = studySteps
		return run
	}
	latency := ct.Boundary(int(warehouses) * 55 / 100)
	measured := newRun("b")
	var runA *benchv1.BenchmarkRun
	if second {
		runA = newRun("a")
		ct.CreateLoaded(b, runA)
	}
	ct.CreateLoaded(b, measured)

	runtime.GC()
	heap := sampleHeap()
	cpu0 := processCPU()
	timer.measure(measured.Name)
	var doneA sync.WaitGroup
	var stopA atomic.Bool
	if second {
		timer.measure(runA.Name)
		doneA.Add(1)
		go func() {
			defer doneA.Done()
			ct.DriveStepsReleasing(b, runA, fakes, latency, 30*time.Minute, stopA.Load)
		}()
	}
	got := ct.DriveStepsReleasing(b, measured, fakes, latency, 30*time.Minute, func() bool { return false })
	stopA.Store(true)
	cpu := processCPU() - cpu0
	peak := heap()
	doneA.Wait()
	if got.Status.Phase != benchv1.PhaseSucceeded {
		b.Fatalf("run %s: phase %s, %d steps, conditions %+v", got.Name, got.Status.Phase, len(got.Status.Steps), got.Status.Conditions)
	}

	p50, p99, n := timer.percentiles(measured.Name)
	b.Logf("run %s: slowest passes %v", measured.Name, timer.slowest(measured.Name, 5))
	b.ReportMetric(ms(p50), "p50-ms/pass")
	b.ReportMetric(ms(p99), "p99-ms/pass")
	b.ReportMetric(float64(n), "passes")
	b.ReportMetric(float64(len(got.Status.Steps)), "steps")
	all := n
	if second {
		sp50, sp99, sn := timer.percentiles(runA.Name)
		b.ReportMetric(ms(sp50), "run-a-p50-ms/pass")
		b.ReportMetric(ms(sp99), "run-a-p99-ms/pass")
		b.ReportMetric(float64(len(ct.GetRun(b, runA).Status.Steps)), "run-a-steps")
		all += sn
	}
	b.ReportMetric(ms(cpu)/float64(all), "proc-cpu-ms/pass")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")

	status := objectBytes(b, got)
	reportCM := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(got)}, reportCM); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(status), "status-B")
	b.ReportMetric(float64(configMapBytes(reportCM)), "report-B")
	status100, report100, big, fitted := hundredSteps(b, got, int(pods))
	b.ReportMetric(float64(status100), "status100-B")
	b.ReportMetric(float64(report100), "report100-B")
	io, io100, get100 := storeHundredSteps(b, got, big, fitted)
	b.ReportMetric(ms(io), "status-io-ms/pass")
	b.ReportMetric(ms(io100), "status100-io-ms/pass")
	b.ReportMetric(ms(get100), "status100-get-ms")

	if status > etcdObjectLimit || status100 > etcdObjectLimit {
		b.Errorf("the run object takes %d bytes (%d at %d steps), over etcd's %d", status, status100, studySteps, etcdObjectLimit)
	}
	if report100 > kube.ConfigMapBudget {
		b.Errorf("the report at %d steps takes %d bytes, over the ConfigMap budget %d", studySteps, report100, kube.ConfigMapBudget)
	}
	if peak > studyHeapLimit {
		b.Logf("peak heap %d MiB over the %d MiB target", peak>>20, studyHeapLimit>>20)
	}
}

// setupTimed registers the run reconciler through setupWith, as SetupWithManager does, its
// Reconcile timed by timer.
func setupTimed(mgr ctrl.Manager, cfg Config, timer *passTimer) error {
	r := &Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("tpcc-operator"), Config: cfg}
	return r.setupWith(mgr, reconcile.Func(func(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
		start := time.Now()
		result, err := r.Reconcile(ctx, req)
		timer.add(req.Name, time.Since(start))
		return result, err
	}))
}

// passTimer keeps the wall time of each pass of the runs it measures.
type passTimer struct {
	mu        sync.Mutex
	passes    map[string][]time.Duration
	measuring map[string]bool
}

func (p *passTimer) measure(run string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.measuring[run] = true
}

func (p *passTimer) add(run string, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.measuring[run] {
		p.passes[run] = append(p.passes[run], d)
	}
}

func (p *passTimer) percentiles(run string) (p50, p99 time.Duration, n int) {
	p.mu.Lock()
	passes := slices.Clone(p.passes[run])
	p.mu.Unlock()
	if len(passes) == 0 {
		return 0, 0, 0
	}
	slices.Sort(passes)
	at := func(q float64) time.Duration { return passes[min(len(passes)-1, int(q*float64(len(passes))))] }
	return at(0.50), at(0.99), len(passes)
}

// slowest is the run's k slowest passes, slowest first.
func (p *passTimer) slowest(run string, k int) []time.Duration {
	p.mu.Lock()
	passes := slices.Clone(p.passes[run])
	p.mu.Unlock()
	slices.Sort(passes)
	slices.Reverse(passes)
	for i := range passes {
		passes[i] = passes[i].Round(time.Millisecond)
	}
	return passes[:min(k, len(passes))]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// processCPU is the process's user and system CPU so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sampleHeap samples HeapInuse every 100 ms until the returned function is called, which returns
// the largest sample.
func sampleHeap() func() uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.HeapInuse > peak.Load() {
			peak.Store(m.HeapInuse)
		}
	}
	go func() {
		defer close(stopped)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				sample()
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		sample()
		return peak.Load()
	}
}

func objectBytes(b *testing.B, obj any) int {
	body, err := json.Marshal(obj)
	if err != nil {
		b.Fatal(err)
	}
	return len(body)
}

func configMapBytes(cm *corev1.ConfigMap) int {
	n := 0
	for k, v := range cm.Data {
		n += len(k) + len(v)
	}
	for k, v := range cm.BinaryData {
		n += len(k) + len(v)
	}
	return n
}

// hundredSteps is the run object's JSON bytes and its report's bytes at studySteps steps, built
// by the writers' code from the run's recorded steps (see BenchmarkStudyScale).
func hundredSteps(b *testing.B, run *benchv1.BenchmarkRun, pods int) (status, reportBytes int, big *benchv1.BenchmarkRun, fitted fittedReport) {
	r := &Reconciler{Client: k8s, APIReader: k8s, Scheme: env.Scheme}
	recorded, err := r.readStepData(context.Background(), run)
	if err != nil {
		b.Fatal(err)
	}
	_, seriesBytes, err := r.readSeries(context.Background(), run, 1<<40)
	if err != nil {
		b.Fatal(err)
	}
	big = run.DeepCopy()
	big.Status.Steps = nil
	var data []stepData
	for i := range studySteps {
		d := recorded[i%len(recorded)]
		d.Step.Index = int32(i)
		d.Step.DetailIn = ""
		if d.Step.Telemetry != nil && len(d.Step.Telemetry.Pods) == 0 {
			t := *d.Step.Telemetry
			t.Pods = podUsage(run, i, pods)
			d.Step.Telemetry = &t
		}
		if d.Step.Placement != nil { // envtest runs no scheduler: the pods have no node
			pl := *d.Step.Placement
			pl.Pods = slices.Clone(pl.Pods)
			for p := range pl.Pods {
				if pl.Pods[p].Node == "" {
					pl.Pods[p].Node = fmt.Sprintf("node-%d", p%3)
				}
			}
			d.Step.Placement = &pl
		}
		data = append(data, d)
		big.Status.Steps = append(big.Status.Steps, d.Step)
		boundStepDetail(big, big.Status.Steps) // as recordStep does
	}
	status = objectBytes(b, big)

	seriesBytes = seriesBytes * studySteps / len(recorded)
	result := *run.Status.Result
	rep := reportDoc{SchemaVersion: reportVersion, Run: big.Name, Namespace: big.Namespace, Engine: big.Spec.Database.Engine, Spec: big.Spec,
		Result: result, Environment: big.Status.Environment, Steps: data, Generated: time.Now().UTC()}
	// The series of 100 steps pass the budget: readSeries hands over none (nil), only their size.
	var series []byte
	if seriesBytes <= kube.ConfigMapBudget {
		series = make([]byte, seriesBytes)
	}
	// As reconcileResult lays it out.
	detailed := r.engines().Described(stepdetail.Restore(big, stepRecords(data)))
	fitted, err = layoutReport(detailed, r.engines().Described(big), result, rep, series, seriesBytes, kube.ConfigMapBudget)
	if err != nil {
		b.Fatalf("the report of %d steps: %v", studySteps, err)
	}
	for k, v := range fitted.Data {
		reportBytes += len(k) + len(v)
	}
	for k, v := range fitted.Binary {
		reportBytes += len(k) + len(v)
	}
	b.Logf("%d steps: report fit %d, series %d bytes gzipped", studySteps, fitted.Fit, seriesBytes)
	return status, reportBytes, big, fitted
}

// storeHundredSteps stores the run as it ended and as it would be at studySteps steps (status and
// report ConfigMap) in a namespace no manager watches, failing when the API server refuses either,
// and times what a pass's own status I/O costs at each size: the pass's read of the run and a
// progress write (updateStatus: read, then write), medians of 10; get100 is the read alone at
// studySteps steps.
func storeHundredSteps(b *testing.B, run, big *benchv1.BenchmarkRun, fitted fittedReport) (io, io100, get100 time.Duration) {
	ns := ct.NewNamespace(b, "study-stored")
	r := &Reconciler{Client: k8s, APIReader: k8s, Scheme: env.Scheme}
	ctx := context.Background()
	timeIO := func(name string, status benchv1.BenchmarkRunStatus) (pass, get time.Duration) {
		obj := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: run.Spec}
		if err := k8s.Create(ctx, obj); err != nil {
			b.Fatal(err)
		}
		obj.Status = status
		if err := k8s.Status().Update(ctx, obj); err != nil {
			b.Fatalf("storing the run with %d steps: %v", len(status.Steps), err)
		}
		var times, gets []time.Duration
		for i := range 10 {
			start := time.Now()
			current := &benchv1.BenchmarkRun{}
			if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(obj), current); err != nil {
				b.Fatal(err)
			}
			gets = append(gets, time.Since(start))
			if err := r.updateStatus(ctx, current, func(s *benchv1.BenchmarkRunStatus) {
				s.Current = &benchv1.StepProgress{Index: int32(len(s.Steps)), ActiveWarehouses: int32(1000 + i), Pods: 36}
			}); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		slices.Sort(gets)
		return times[len(times)/2], gets[len(gets)/2]
	}
	io, _ = timeIO(run.Name, run.Status)
	io100, get100 = timeIO(run.Name+"-100", big.Status)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: ReportConfigMapName(big) + "-100"}, Data: fitted.Data, BinaryData: fitted.Binary}
	if err := k8s.Create(ctx, cm); err != nil {
		b.Fatalf("storing the report of %d steps: %v", studySteps, err)
	}
	return io, io100, get100
}

// podUsage is what a step of pods client pods records of their resource use when pod metrics are
// served: a name, a role, peak CPU and memory each.
func podUsage(run *benchv1.BenchmarkRun, step, pods int) []benchv1.PodUsage {
	out := make([]benchv1.PodUsage, pods)
	for p := range out {
		out[p] = benchv1.PodUsage{Name: fmt.Sprintf("%s-step-%d-%d-abcde", run.Name, step, p), Role: "Client",
			PeakCPU: resource.MustParse("3500m"), PeakMemory: resource.MustParse("1536Mi")}
	}
	return out
}

// The API server takes a run whose steps keep their summaries only (boundStepDetail): 30 steps
// of 256 pods, stored and read back with every step's per-pod lists empty and its ConfigMap named.
func TestShedStepsAreStored(t *testing.T) {
	ns := ct.NewNamespace(t, "shed")
	run := ct.NewRun(ns, "shed", 1000, 500)
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		s := reportOf(1, 256, 0).Steps[0].Step
		s.Index, s.Compliant = int32(i), true
		run.Status.Steps = append(run.Status.Steps, s)
		boundStepDetail(run, run.Status.Steps)
	}
	if err := k8s.Status().Update(context.Background(), run); err != nil {
		t.Fatalf("storing %d steps, their per-pod lists shed: %v", len(run.Status.Steps), err)
	}
	got := ct.GetRun(t, run)
	if first := got.Status.Steps[0]; first.DetailIn == "" || first.Placement == nil || len(first.Placement.Pods) != 0 {
		t.Errorf("step 0 not shed as stored: detailIn %q, placement %+v", first.DetailIn, first.Placement)
	}
	if last := got.Status.Steps[29]; last.DetailIn == "" || len(last.Placement.Pods) != 0 || last.Placement.Primary != "big-db-1" {
		t.Errorf("the latest step not kept as its summary: detailIn %q, placement %+v", last.DetailIn, last.Placement)
	}
}
