package jobs

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestStorageJob(t *testing.T) {
	run := testRun(10)
	taint := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}
	run.Spec.Placement = &benchv1.Placement{Database: &benchv1.PodPlacement{Tolerations: []corev1.Toleration{taint}}}
	cfg := Config{ClientImage: "example/tpcc:1", ImagePullPolicy: corev1.PullIfNotPresent}
	for _, tc := range []struct {
		name      string
		target    StorageTarget
		wantClass *string
	}{
		{"named class", StorageTarget{Node: "n2", Hostname: "host-2", StorageClass: "fast", Size: resource.MustParse("50Gi")}, ptr("fast")},
		{"default class", StorageTarget{Node: "n3", Hostname: "host-3", Size: resource.MustParse("2Gi")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := StorageJob(run, 1, tc.target, 10*time.Second, cfg)
			if job.Name != run.Name+"-storage-1" || job.Labels[ComponentLabel] != ComponentStorage || job.Spec.Template.Labels[ComponentLabel] != ComponentStorage {
				t.Errorf("name %s labels %v / %v", job.Name, job.Labels, job.Spec.Template.Labels)
			}
			if *job.Spec.BackoffLimit != 0 || job.Spec.ActiveDeadlineSeconds == nil || *job.Spec.ActiveDeadlineSeconds < 10 {
				t.Errorf("backoff %d deadline %v: want one attempt, bounded", *job.Spec.BackoffLimit, job.Spec.ActiveDeadlineSeconds)
			}
			pod := job.Spec.Template.Spec
			if pod.NodeSelector[corev1.LabelHostname] != tc.target.Hostname || len(pod.NodeSelector) != 1 {
				t.Errorf("node selector %v: want the target's hostname only", pod.NodeSelector)
			}
			if len(pod.Tolerations) != 1 || pod.Tolerations[0] != taint {
				t.Errorf("tolerations %v: want the database's", pod.Tolerations)
			}
			if len(pod.Volumes) != 1 || pod.Volumes[0].Ephemeral == nil {
				t.Fatalf("volumes %+v: want one generic ephemeral volume", pod.Volumes)
			}
			claim := pod.Volumes[0].Ephemeral.VolumeClaimTemplate.Spec
			if (claim.StorageClassName == nil) != (tc.wantClass == nil) || (tc.wantClass != nil && *claim.StorageClassName != *tc.wantClass) {
				t.Errorf("storage class %v, want %v", claim.StorageClassName, tc.wantClass)
			}
			if got := claim.Resources.Requests[corev1.ResourceStorage]; got.Cmp(tc.target.Size) != 0 {
				t.Errorf("size %s, want %s", got.String(), tc.target.Size.String())
			}
			c := pod.Containers[0]
			if c.Image != cfg.ClientImage || strings.Join(c.Args, " ") != "storage-probe --dir /data --runtime 10s --termination-log /dev/termination-log" {
				t.Errorf("image %s args %v", c.Image, c.Args)
			}
			if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/data" || c.TerminationMessagePath != TerminationMessagePath {
				t.Errorf("mounts %+v termination %s", c.VolumeMounts, c.TerminationMessagePath)
			}
			if pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot || *c.SecurityContext.AllowPrivilegeEscalation ||
				!*c.SecurityContext.ReadOnlyRootFilesystem || *pod.AutomountServiceAccountToken {
				t.Errorf("not restricted: pod %+v container %+v", pod.SecurityContext, c.SecurityContext)
			}
		})
	}
}
