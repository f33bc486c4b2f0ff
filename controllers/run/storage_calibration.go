package run

import (
	"context"
	"fmt"
	"sort"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/storageprobe"
)

// The storage calibration (docs/equal-terms.md): before the load, what each database node's
// volumes deliver to the operation a commit waits for, measured by fio on a volume of the same
// class and size on the same node, all nodes at once (as a commit's copies flush at once).

// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list

// reconcileStorageCalibration runs once a deployed database is ready and before the load: one Job
// per shape of volume (node, class, size) the database's pods use. A calibration that fails is
// recorded with its error; the run goes on without it. Off with --storage-calibration=0, for an
// external database (no pods), and for a run that loaded before it.
func (r *Reconciler) reconcileStorageCalibration(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	if r.Config.StorageCalibration <= 0 || meta.IsStatusConditionTrue(run.Status.Conditions, benchv1.ConditionDataLoaded) {
		return true, ctrl.Result{}, nil
	}
	if env := run.Status.Environment; env != nil && len(env.StorageCalibration) > 0 {
		return true, ctrl.Result{}, nil
	}
	sel := r.backend(run).DatabasePods(run)
	if sel == nil {
		return true, ctrl.Result{}, nil
	}
	targets, err := r.storageTargets(ctx, run, sel)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if len(targets) == 0 {
		return true, ctrl.Result{}, r.recordCalibration(ctx, run, nil, []benchv1.StorageCalibration{{
			Error: "the database's pods mount no persistent volume claim: nothing to calibrate"}})
	}
	records := make([]benchv1.StorageCalibration, len(targets))
	var created []*batchv1.Job
	pending := 0
	for i, t := range targets {
		job := jobs.StorageJob(run, i, t, r.Config.StorageCalibration, r.Config.Jobs)
		if err := r.createOnce(ctx, run, job); err != nil {
			return false, ctrl.Result{}, err
		}
		if err := r.Get(ctx, client.ObjectKeyFromObject(job), job); err != nil {
			return false, ctrl.Result{}, client.IgnoreNotFound(err) // the cache catches up; the Job event requeues
		}
		created = append(created, job)
		rec := benchv1.StorageCalibration{Node: t.Node, StorageClass: orDefaultClass(t.StorageClass), Size: t.Size.String()}
		complete, failed := kube.JobCondition(job, batchv1.JobComplete), kube.JobCondition(job, batchv1.JobFailed)
		if complete == nil && failed == nil {
			pending++
			continue
		}
		res, err := r.probeResult(ctx, run, job)
		switch {
		case err != nil && failed != nil:
			rec.Error = fmt.Sprintf("Job %s failed: %s (%v)", job.Name, failed.Message, err)
		case err != nil:
			rec.Error = err.Error()
		default:
			storageprobe.Fill(&rec, res)
		}
		records[i] = rec
	}
	if pending > 0 {
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
			setCondition(s, run.Generation, benchv1.ConditionDataLoaded, metav1.ConditionFalse, "CalibratingStorage",
				fmt.Sprintf("measuring the database's storage on %d node volumes before the load (%d running)", len(targets), pending))
		}); err != nil {
			return false, ctrl.Result{}, err
		}
		return false, ctrl.Result{RequeueAfter: r.Config.PollInterval}, nil
	}
	if err := r.recordCalibration(ctx, run, created, records); err != nil {
		return false, ctrl.Result{}, err
	}
	return true, ctrl.Result{}, nil
}

// recordCalibration writes the calibration into the run's environment, says so in an event, and
// removes the finished Jobs (their pods, and with them the volumes).
func (r *Reconciler) recordCalibration(ctx context.Context, run *benchv1.BenchmarkRun, created []*batchv1.Job, records []benchv1.StorageCalibration) error {
	if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if s.Environment == nil {
			s.Environment = &benchv1.RunEnvironment{ReadAt: metav1.Now()}
		}
		s.Environment.StorageCalibration = records
	}); err != nil {
		return err
	}
	if r.Recorder != nil {
		r.Recorder.Eventf(run, nil, corev1.EventTypeNormal, "StorageCalibrated", "CalibrateStorage", "%s", storageprobe.Words(records))
	}
	for _, job := range created {
		r.deleteJob(ctx, run, job)
	}
	return nil
}

// storageTargets are the distinct (node, class, size) of the volumes the database's pods mount,
// in the order of the pods' names.
func (r *Reconciler) storageTargets(ctx context.Context, run *benchv1.BenchmarkRun, sel map[string]string) ([]jobs.StorageTarget, error) {
	pods := &corev1.PodList{}
	if err := r.APIReader.List(ctx, pods, client.InNamespace(run.Namespace), client.MatchingLabels(sel)); err != nil {
		return nil, fmt.Errorf("listing the database's pods: %w", err)
	}
	sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
	var out []jobs.StorageTarget
	seen := map[string]bool{}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
			continue
		}
		hostname := p.Spec.NodeName
		node := &corev1.Node{}
		if err := r.APIReader.Get(ctx, client.ObjectKey{Name: p.Spec.NodeName}, node); err == nil && node.Labels[corev1.LabelHostname] != "" {
			hostname = node.Labels[corev1.LabelHostname]
		}
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim == nil {
				continue
			}
			claim := &corev1.PersistentVolumeClaim{}
			if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: v.PersistentVolumeClaim.ClaimName}, claim); err != nil {
				return nil, fmt.Errorf("reading the database's volume claim %s: %w", v.PersistentVolumeClaim.ClaimName, err)
			}
			size, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]
			if !ok {
				continue
			}
			t := jobs.StorageTarget{Node: p.Spec.NodeName, Hostname: hostname, Size: size}
			if claim.Spec.StorageClassName != nil {
				t.StorageClass = *claim.Spec.StorageClassName
			}
			key := strings.Join([]string{t.Node, t.StorageClass, t.Size.String()}, "|")
			if !seen[key] {
				seen[key] = true
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// probeResult reads a calibration Job's result from its pod's termination message.
func (r *Reconciler) probeResult(ctx context.Context, run *benchv1.BenchmarkRun, job *batchv1.Job) (storageprobe.Result, error) {
	pods := &corev1.PodList{}
	if err := r.APIReader.List(ctx, pods, client.InNamespace(run.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}); err != nil {
		return storageprobe.Result{}, fmt.Errorf("listing the pods of Job %s: %w", job.Name, err)
	}
	for _, p := range pods.Items {
		for _, c := range p.Status.ContainerStatuses {
			if t := c.State.Terminated; c.Name == "tpcc" && t != nil && t.Message != "" {
				return storageprobe.ParseMessage(p.Name, t.Message)
			}
		}
	}
	return storageprobe.Result{}, fmt.Errorf("no pod of Job %s left a result (was its volume provisioned on the node?)", job.Name)
}

// orDefaultClass names a claim without a class as the default class.
func orDefaultClass(class string) string {
	if class == "" {
		return "(default)"
	}
	return class
}
