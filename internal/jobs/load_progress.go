package jobs

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// The loader pods and the check pod's finish-load container serve their progress (`tpcc load
// --listen`, GET /v1/load) on SnapshotPort, to the operator only: like a client pod, they hold the
// run's control token (mounted from the control Secret) and serve nothing but /healthz without it.

// FinishContainerName names the check pod's init container that runs the load's finish.
const FinishContainerName = "finish-load"

// serveLoadProgress makes container c of a pod serve the load's progress on SnapshotPort behind the
// run's control token. With probe, the container gets the readiness probe on the health path (an
// init container may have none).
func serveLoadProgress(run *benchv1.BenchmarkRun, spec *corev1.PodSpec, c *corev1.Container, probe bool) {
	addControlVolume(run, spec)
	c.Args = append(c.Args, "--listen", fmt.Sprintf(":%d", SnapshotPort))
	mountControlTokenIn(c)
	c.Ports = []corev1.ContainerPort{{Name: "progress", ContainerPort: SnapshotPort}}
	if probe {
		c.ReadinessProbe = &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: snapshot.PathHealth, Port: intstr.FromString("progress")}},
			PeriodSeconds: 5,
		}
	}
}
