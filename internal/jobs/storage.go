package jobs

import (
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// ComponentStorage labels the storage calibration's Jobs and pods.
const ComponentStorage = "storage-calibration"

// StorageTarget is one shape of volume the database uses on one node: what a calibration Job
// measures, with a volume of the same class and size on that node.
type StorageTarget struct {
	// Node is the node's name; Hostname its kubernetes.io/hostname label, which places the pod.
	Node, Hostname string
	// StorageClass of the database's volume ("" for the cluster's default class).
	StorageClass string
	// Size requested by the database's volume.
	Size resource.Quantity
}

// StorageJobName names the calibration Job of a run's target index.
func StorageJobName(run *benchv1.BenchmarkRun, index int) string {
	return fmt.Sprintf("%s-storage-%d", run.Name, index)
}

// StorageJob measures small fdatasync'd writes (tpcc storage-probe, fio) on a volume of the
// target's class and size on the target's node: a generic ephemeral volume, which Kubernetes
// creates with the pod (bound where the pod is scheduled, as a WaitForFirstConsumer class does for
// the database) and deletes with it. The pod tolerates what the database's pods tolerate, runs once
// (a failure is recorded, not retried), and leaves its result as its termination message. It is
// pure.
func StorageJob(run *benchv1.BenchmarkRun, index int, target StorageTarget, runtime time.Duration, cfg Config) *batchv1.Job {
	labels := engines.Labels(run)
	labels[ComponentLabel] = ComponentStorage
	var class *string
	if target.StorageClass != "" {
		class = ptr(target.StorageClass)
	}
	var tolerations []corev1.Toleration
	if p := run.Spec.Placement.DatabasePlacement(); p != nil {
		tolerations = append(tolerations, p.Tolerations...)
	}
	// The deadline bounds a volume that never binds or a node that never runs the pod; fio runs
	// for runtime after the pod starts.
	deadline := int64(runtime/time.Second) + 600
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: StorageJobName(run, index), Namespace: run.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:          ptr(int32(0)),
			ActiveDeadlineSeconds: &deadline,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: copyLabels(labels)},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: ptr(false),
					EnableServiceLinks:           ptr(false),
					SecurityContext:              podSecurityContext(),
					NodeSelector:                 map[string]string{corev1.LabelHostname: target.Hostname},
					Tolerations:                  tolerations,
					Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
						VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
							ObjectMeta: metav1.ObjectMeta{Labels: copyLabels(labels)},
							Spec: corev1.PersistentVolumeClaimSpec{
								AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
								StorageClassName: class,
								Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: target.Size}},
							},
						},
					}}}},
					Containers: []corev1.Container{{
						Name:            "tpcc",
						Image:           cfg.ClientImage,
						ImagePullPolicy: cfg.ImagePullPolicy,
						Args: []string{"storage-probe", "--dir", "/data", "--runtime", strconv.Itoa(int(runtime/time.Second)) + "s",
							"--termination-log", TerminationMessagePath},
						VolumeMounts:             []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
						TerminationMessagePath:   TerminationMessagePath,
						TerminationMessagePolicy: corev1.TerminationMessageReadFile,
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
						},
						SecurityContext: containerSecurityContext(),
					}},
				},
			},
		},
	}
}
