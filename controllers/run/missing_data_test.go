package run

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// telemetryRun is one fixed step of 30 ten-second intervals (5 s of wall time for the fakes),
// whose pod 0 samples the database.
func telemetryRun(ns string) *benchv1.BenchmarkRun {
	run := ct.NewRun(ns, "pg", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Workload.Duration = &metav1.Duration{Duration: 5 * time.Minute}
	run.Spec.Workload.Interval = &metav1.Duration{Duration: 10 * time.Second}
	return run
}

func streaming(names ...string) []snapshot.Standby {
	var out []snapshot.Standby
	for _, n := range names {
		out = append(out, snapshot.Standby{Name: n, ReplayLagSeconds: 0.003, State: "streaming", SyncState: "quorum"})
	}
	return out
}

// Missing data never passes, through the manager: a replication bound with no sample read is
// inconclusive (and, with no retry left, the run fails as an infrastructure failure, publishing
// nothing); a standby that leaves pg_stat_replication is an unbounded lag, named; a moment with
// no synchronous standby streaming fails the step even without a lag bound.
func TestMissingDataNeverPasses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lagBound bool
		script   func(p *ct.ClientPods)
		failed   string // the run fails with this reason, its message containing want
		want     string // a reason of the step (or the run's Failed message)
	}{
		{name: "no sample read", lagBound: true,
			script: func(p *ct.ClientPods) { p.SampleError = func(int) string { return "connection refused" } },
			failed: benchv1.ReasonInfrastructureFailed, want: "replication lag: cannot be judged: no database telemetry sample was read (last error: connection refused)"},
		{name: "a sample failed", lagBound: true,
			script: func(p *ct.ClientPods) {
				p.SampleError = func(i int) string { return map[bool]string{true: "timeout"}[i == 7] }
			},
			failed: benchv1.ReasonInfrastructureFailed, want: "1 of 30 database samples failed, their intervals' lag is unknown"},
		{name: "a standby left", lagBound: true,
			script: func(p *ct.ClientPods) {
				p.Standbys = func(i int) []snapshot.Standby {
					if i >= 10 && i <= 12 {
						return streaming("s1")
					}
					return streaming("s1", "s2")
				}
			},
			want: "replication lag: standby s2 left pg_stat_replication in 3 of 30 samples (lag unbounded) > 1s"},
		{name: "no synchronous standby streaming", lagBound: false,
			script: func(p *ct.ClientPods) {
				p.Standbys = func(i int) []snapshot.Standby {
					if i == 5 || i == 6 {
						return []snapshot.Standby{{Name: "s1", State: "catchup", SyncState: "potential"}, {Name: "s2", State: "startup", SyncState: "potential"}}
					}
					return streaming("s1", "s2")
				}
			},
			want: "synchronous standbys: none streaming in 2 of 30 samples: commits were not synchronously replicated then"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := ct.NewNamespace(t, "missing-"+strings.ReplaceAll(tc.name, " ", "-"))
			pods := ct.NewClientPods()
			tc.script(pods)
			startManager(t, ns, testConfig(pods))
			run := telemetryRun(ns)
			run.Spec.Search.Retries = ptr(int32(0))
			if tc.lagBound {
				run.Spec.SLA.MaxReplicationLag = &metav1.Duration{Duration: time.Second}
			}
			ct.CreateLoaded(t, run)
			got := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, func(int, []*corev1.Pod) {})
			if len(got.Status.Steps) != 1 {
				t.Fatalf("steps %v", ct.StepSummary(got))
			}
			step := got.Status.Steps[0]
			if tc.failed != "" {
				failed := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionFailed)
				if got.Status.Phase != benchv1.PhaseFailed || failed == nil || failed.Reason != tc.failed || !strings.Contains(failed.Message, tc.want) {
					t.Fatalf("phase %s, Failed %+v, want %s naming %q", got.Status.Phase, failed, tc.failed, tc.want)
				}
				if step.Verdict != benchv1.VerdictInconclusive || got.Status.Result != nil {
					t.Errorf("step %s, result %+v: want inconclusive and no result", step.Verdict, got.Status.Result)
				}
				return
			}
			if got.Status.Phase != benchv1.PhaseSucceeded || step.Verdict != benchv1.VerdictNonCompliant ||
				!slices.Contains(step.Reasons, tc.want) || got.Status.Result.MaxCompliantWarehouses != 0 {
				t.Errorf("phase %s, step %s %q, result %+v: want non-compliant naming %q", got.Status.Phase, step.Verdict, step.Reasons, got.Status.Result, tc.want)
			}
		})
	}
}

// A client pod stopped from outside the operator before the end of its measured interval measured another interval than the step's: whatever its figures show,
// the step is inconclusive naming the pod, and the step is run again.
func TestStepCutShortIsInconclusive(t *testing.T) {
	ns := ct.NewNamespace(t, "cut-short")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	run := ct.NewRun(ns, "pg", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Workload.Clients.Pods = 2
	ct.CreateLoaded(t, run)
	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, func(step int, stepPods []*corev1.Pod) {
		if step != 0 {
			return
		}
		// Half-way through the minute (half a second at the fakes' speed), a stop from outside the
		// operator (one that holds the run's token: without it the pod refuses it,
		// TestClientPodsObeyOnlyTheRunsToken).
		secret := &corev1.Secret{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: jobs.ControlSecretName(run)}, secret); err != nil {
			t.Fatal(err)
		}
		ctx := snapshot.WithToken(context.Background(), string(secret.Data[jobs.ControlTokenKey]))
		ct.Eventually(t, 10*time.Second, func() error {
			s, err := snapshot.Fetch(ctx, nil, pods.URL(stepPods[1].Status.PodIP))
			if err == nil && s.Phase != snapshot.PhaseMeasuring {
				err = fmt.Errorf("phase %s", s.Phase)
			}
			return err
		})
		time.Sleep(400 * time.Millisecond)
		if err := snapshot.Stop(ctx, nil, pods.URL(stepPods[1].Status.PodIP)); err != nil {
			t.Fatal(err)
		}
	})
	if got.Status.Phase != benchv1.PhaseSucceeded || len(got.Status.Steps) != 2 {
		t.Fatalf("phase %s, steps %v", got.Status.Phase, ct.StepSummary(got))
	}
	cut, retry := got.Status.Steps[0], got.Status.Steps[1]
	if cut.Verdict != benchv1.VerdictInconclusive || len(cut.Reasons) != 1 ||
		!strings.Contains(cut.Reasons[0], "client pod pg-step-0-1 measured") || !strings.Contains(cut.Reasons[0], "of the planned 1m0s: it was stopped from outside or ended early") {
		t.Errorf("step 0 %s %q", cut.Verdict, cut.Reasons)
	}
	if retry.Verdict != benchv1.VerdictCompliant || retry.Attempt != 2 || *got.Status.Result.Step != 1 {
		t.Errorf("retry %s attempt %d, result %+v", retry.Verdict, retry.Attempt, got.Status.Result)
	}
}
