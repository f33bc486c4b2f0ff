package run

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
)

// Pods start together, or the step does not count: a pod of the first step reports its
// measurement start 15 s after the other's, more than one 10-s series interval, so the step is
// inconclusive naming both durations, with its start skew recorded, and it is run again; the
// retry, whose pods start together, counts. Each step records the seed its pods ran with.
func TestSkewedStepIsInconclusive(t *testing.T) {
	ns := ct.NewNamespace(t, "start-skew")
	pods := ct.NewClientPods()
	pods.StartLate = func(pod string) time.Duration {
		if pod == "pg-step-0-1" {
			return 15 * time.Second
		}
		return 0
	}
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Workload.Clients.Pods = 2
	run.Spec.Workload.Interval = &metav1.Duration{Duration: 10 * time.Second}
	ct.CreateLoaded(t, run)
	seedArgs := map[int]string{}
	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, func(step int, stepPods []*corev1.Pod) {
		for _, p := range stepPods {
			args := p.Spec.Containers[0].Args
			i := slices.Index(args, "--seed")
			if i < 0 || i+1 >= len(args) {
				t.Errorf("pod %s runs without --seed: %v", p.Name, args)
				continue
			}
			if prev, ok := seedArgs[step]; ok && prev != args[i+1] {
				t.Errorf("step %d: pods run with seeds %s and %s, want one", step, prev, args[i+1])
			}
			seedArgs[step] = args[i+1]
		}
	})
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) != 2 {
		t.Fatalf("phase %s, steps %v", got.Status.Phase, ct.StepSummary(got))
	}
	skewed, retry := got.Status.Steps[0], got.Status.Steps[1]
	if skewed.Verdict != benchv1.VerdictInconclusive || len(skewed.Reasons) != 1 ||
		!strings.Contains(skewed.Reasons[0], "client pods began measuring 15") ||
		!strings.Contains(skewed.Reasons[0], "(pg-step-0-0 first, pg-step-0-1 last), more than one series interval (10s)") {
		t.Errorf("step 0 %s %q", skewed.Verdict, skewed.Reasons)
	}
	if skewed.StartSkew == nil || skewed.StartSkew.Duration < 15*time.Second || skewed.StartSkew.Duration > 16*time.Second {
		t.Errorf("step 0 start skew %v, want 15s and the few milliseconds the pods' starts lay apart", skewed.StartSkew)
	}
	// An inconclusive step's New-Orders still count, as a lower bound only; the retry's are whole.
	if l := skewed.NewOrders; l == nil || l.Acknowledged <= 0 || l.Complete {
		t.Errorf("step 0 ledger %+v, want its pods' New-Orders as a lower bound", l)
	}
	if l := retry.NewOrders; l == nil || !l.Complete {
		t.Errorf("retry ledger %+v, want complete", l)
	}
	if c := got.Status.Result.ConsistencyCheck; c == nil || c.Ledger == nil || !c.Ledger.Pass || c.Ledger.Exact {
		t.Errorf("the run's ledger %+v: an inconclusive step leaves the lower bound only", c)
	}
	if retry.Verdict != benchv1.VerdictCompliant || retry.Attempt != 2 || *got.Status.Result.Step != 1 {
		t.Errorf("retry %s attempt %d, result %+v", retry.Verdict, retry.Attempt, got.Status.Result)
	}
	if retry.StartSkew == nil || retry.StartSkew.Duration >= 10*time.Second {
		t.Errorf("retry start skew %v, want under the 10s interval", retry.StartSkew)
	}
	for i, s := range got.Status.Steps {
		if want := jobs.StepSeed(got, s.Index); s.Seed != want || strconv.FormatInt(s.Seed, 10) != seedArgs[i] {
			t.Errorf("step %d: seed %d recorded, pods ran with --seed %s, want %d", i, s.Seed, seedArgs[i], want)
		}
	}
	if skewed.Seed == retry.Seed {
		t.Errorf("the retry ran with the skewed step's seed %d: a step of its own gets its own", retry.Seed)
	}
}
