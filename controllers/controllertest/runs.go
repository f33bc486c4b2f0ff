package controllertest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func NewRun(namespace, name string, warehouses int32, start int32) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: benchv1.BenchmarkRunSpec{
			Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL},
			Workload: benchv1.WorkloadSpec{Warehouses: warehouses, Duration: &metav1.Duration{Duration: time.Minute},
				RampUp: &metav1.Duration{}, Loader: benchv1.LoaderSpec{Pods: 4}},
			Search: benchv1.SearchSpec{StartWarehouses: &start},
		},
	}
}

func GetRun(t testing.TB, run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
	t.Helper()
	got := &benchv1.BenchmarkRun{}
	if err := K8s.Get(context.Background(), client.ObjectKeyFromObject(run), got); err != nil {
		t.Fatal(err)
	}
	return got
}

// Boundary is the simulated database: fast up to maxOK active warehouses, too slow above.
func Boundary(maxOK int) LatencyOf {
	return func(active int) time.Duration {
		if active <= maxOK {
			return 40 * time.Millisecond
		}
		return 6 * time.Second
	}
}

// CreateLoaded creates the run and plays CloudNativePG and the Job controller until its data is
// loaded (DeployAndLoad).
func CreateLoaded(t testing.TB, run *benchv1.BenchmarkRun) {
	t.Helper()
	if err := K8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	DeployAndLoad(t, run, nil)
}

// DeployAndLoad plays CloudNativePG and the Job controller until the run's data is loaded.
func DeployAndLoad(t testing.TB, run *benchv1.BenchmarkRun, beforeLoaderCompletes func()) {
	t.Helper()
	SetClusterReady(t, run.Namespace, run.Name+"-db", 3)
	loader := GetJob(t, run.Namespace, run.Name+"-load")
	SetJobProgress(t, loader, "0-1", 2, false)
	Eventually(t, 20*time.Second, func() error {
		got := GetRun(t, run)
		if got.Status.Load == nil || got.Status.Load.WarehousesLoaded != run.Spec.Workload.Warehouses/2 {
			return fmt.Errorf("load status %+v, want half the warehouses loaded", got.Status.Load)
		}
		return nil
	})
	if beforeLoaderCompletes != nil {
		beforeLoaderCompletes()
	}
	SetJobProgress(t, loader, "0-3", 4, true)
	check := GetJob(t, run.Namespace, run.Name+"-check")
	CheckPod(t, check, LoadedDataset(run.Spec.Workload.Warehouses))
	SetJobProgress(t, check, "", 1, true)
	Eventually(t, 20*time.Second, func() error {
		if got := GetRun(t, run); !meta.IsStatusConditionTrue(got.Status.Conditions, benchv1.ConditionDataLoaded) {
			return fmt.Errorf("DataLoaded not true: %+v", got.Status.Conditions)
		}
		return nil
	})
}

// LoadedDataset is what tpcc check --dataset-json reports of a fresh load of w warehouses.
func LoadedDataset(w int32) snapshot.Dataset {
	per := map[string]int64{"orders": 30000, "history": 30000, "new_order": 9000}
	ds := snapshot.Dataset{Engine: "postgres", SchemaVersion: snapshot.SchemaVersion, Warehouses: int(w), Seed: 424242, Finished: true,
		Rows: map[string]int64{}, Loaded: map[string]int64{}}
	for t, n := range per {
		ds.Rows[t], ds.Loaded[t] = n*int64(w), n*int64(w)
	}
	return ds
}

// CheckPod plays the kubelet for a check Job's pod: it ended, its container writing the dataset
// as its termination message (tpcc check --dataset-json /dev/termination-log).
func CheckPod(t testing.TB, job *batchv1.Job, ds snapshot.Dataset) {
	t.Helper()
	body, err := json.Marshal(ds)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: job.Name + "-x",
		Labels: map[string]string{batchv1.JobNameLabel: job.Name}}, Spec: job.Spec.Template.Spec}
	if err := K8s.Create(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{Name: "tpcc",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", Message: string(body)}}}}}
	if err := K8s.Status().Update(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
}

// JobUIDs records every step Job the operator creates, to prove none is created twice.
type JobUIDs struct {
	mu   sync.Mutex
	Seen map[string][]types.UID
}

func (j *JobUIDs) Note(job *batchv1.Job) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !slices.Contains(j.Seen[job.Name], job.UID) {
		j.Seen[job.Name] = append(j.Seen[job.Name], job.UID)
	}
}

// DriveSteps plays the Job controller and the client pods for every step until the run ends.
// hook, if set, is called once per step after its pods are running.
func DriveSteps(t testing.TB, run *benchv1.BenchmarkRun, pods *ClientPods, latency LatencyOf, uids *JobUIDs, hook func(step int, podsOfStep []*corev1.Pod)) *benchv1.BenchmarkRun {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for step := 0; ; step++ {
		name := jobs.StepJobName(run, int32(step))
		job := &batchv1.Job{}
		for {
			if time.Now().After(deadline) {
				t.Fatalf("run did not finish; status %+v", GetRun(t, run).Status)
			}
			got := GetRun(t, run)
			if got.Status.Phase == benchv1.PhaseSucceeded || got.Status.Phase == benchv1.PhaseFailed {
				return got
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
		uids.Note(job)
		stepPods := RunStepPods(t, pods, job, latency)
		if hook != nil {
			hook(step, stepPods)
		}
		Eventually(t, time.Minute, func() error { // recorded, and its Job gone
			if got := GetRun(t, run); len(got.Status.Steps) <= step {
				return fmt.Errorf("step %d not recorded yet (phase %s)", step, got.Status.Phase)
			}
			err := K8s.Get(context.Background(), client.ObjectKeyFromObject(job), &batchv1.Job{})
			if err == nil {
				return fmt.Errorf("Job %s still exists", job.Name)
			}
			return client.IgnoreNotFound(err)
		})
	}
}

func StepSummary(run *benchv1.BenchmarkRun) []string {
	var out []string
	for _, s := range run.Status.Steps {
		out = append(out, fmt.Sprintf("%d:%v:%s", s.ActiveWarehouses, s.Compliant, s.Kind))
	}
	return out
}

func AssertEvents(t testing.TB, namespace, run string, reasons ...string) {
	t.Helper()
	Eventually(t, 10*time.Second, func() error {
		list := &corev1.EventList{}
		if err := K8s.List(context.Background(), list, client.InNamespace(namespace)); err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, e := range list.Items {
			if e.InvolvedObject.Name == run {
				seen[e.Reason] = true
			}
		}
		for _, r := range reasons {
			if !seen[r] {
				return fmt.Errorf("no event %s (have %v)", r, seen)
			}
		}
		return nil
	})
}

// FailPod sets a step pod's status to Failed as the kubelet would after its container ended
// (exit code and reason), or after an eviction (message; exit code 0 and reason Evicted on the pod).
func FailPod(t testing.TB, pod *corev1.Pod, exitCode int32, reason, message string) {
	t.Helper()
	Eventually(t, 10*time.Second, func() error {
		current := &corev1.Pod{}
		if err := K8s.Get(context.Background(), client.ObjectKeyFromObject(pod), current); err != nil {
			return err
		}
		current.Status.Phase = corev1.PodFailed
		if message != "" {
			current.Status.Reason, current.Status.Message = reason, message
		} else {
			current.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "tpcc", State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: reason}}}}
		}
		return K8s.Status().Update(context.Background(), current)
	})
}
