package controllertest

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// finalChecks holds, per namespace, the summary the check after a run's last step ends with
// (SetFinalCheck); PassingCheck when none is set.
var finalChecks sync.Map

// SetFinalCheck makes the checks after the last step of namespace's runs end with the summary
// verdict returns for the run: their pod exits 0 when it passes, 1 when it does not.
func SetFinalCheck(namespace string, verdict func(run *benchv1.BenchmarkRun) snapshot.CheckSummary) {
	finalChecks.Store(namespace, verdict)
}

// PassingCheck is the summary of a check after run's last step that found every condition
// holding, and the orders the run's steps acknowledged in the dataset: its growth is the run's
// starting growth plus every acknowledged New-Order.
func PassingCheck(run *benchv1.BenchmarkRun) snapshot.CheckSummary {
	ds := LoadedDataset(run.Spec.Workload.Warehouses)
	if l := run.Status.Load; l != nil && l.Dataset != nil {
		ds.Rows["orders"] += l.Dataset.Growth["orders"]
	}
	for _, s := range run.Status.Steps {
		if s.NewOrders != nil {
			ds.Rows["orders"] += s.NewOrders.Acknowledged
		}
	}
	return snapshot.CheckSummary{Conditions: 12, Passed: 12, Elapsed: 1500 * time.Millisecond, Dataset: &ds}
}

// playFinalChecks plays the Job controller's pods and the kubelet for the checks after the last
// step of namespace's runs until ctx ends: each such Job gets one pod that ended with its
// summary as the termination message.
func playFinalChecks(ctx context.Context, namespace string) {
	played := map[string]bool{}
	for ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		list := &batchv1.JobList{}
		if err := K8s.List(ctx, list, client.InNamespace(namespace)); err != nil {
			continue
		}
		for i := range list.Items {
			job := &list.Items[i]
			key := job.Name + "/" + string(job.UID)
			if !strings.HasSuffix(job.Name, "-check-final") || played[key] || len(job.OwnerReferences) == 0 {
				continue
			}
			run := &benchv1.BenchmarkRun{}
			if err := K8s.Get(ctx, client.ObjectKey{Namespace: namespace, Name: job.OwnerReferences[0].Name}, run); err != nil {
				continue
			}
			verdict := PassingCheck
			if v, ok := finalChecks.Load(namespace); ok {
				verdict = v.(func(*benchv1.BenchmarkRun) snapshot.CheckSummary)
			}
			if err := endCheckPod(ctx, job, verdict(run)); err == nil {
				played[key] = true
			}
		}
	}
}

// endCheckPod creates the Job's pod, ended with summary as its termination message.
func endCheckPod(ctx context.Context, job *batchv1.Job, summary snapshot.CheckSummary) error {
	body, err := json.Marshal(summary)
	if err != nil {
		return err
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: job.Name + "-" + string(job.UID)[:5],
		Labels: map[string]string{batchv1.JobNameLabel: job.Name}}, Spec: job.Spec.Template.Spec}
	if err := K8s.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	phase, code := corev1.PodSucceeded, int32(0)
	if !summary.Pass() {
		phase, code = corev1.PodFailed, 1
	}
	pod.Status = corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{Name: "tpcc",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Completed", Message: string(body)}}}}}
	return K8s.Status().Update(ctx, pod)
}
