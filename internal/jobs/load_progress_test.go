package jobs

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The loader pods and the check pod's finish-load container serve their progress on the snapshot
// port behind the run's control token, mounted from its Secret; the loader is probed on the
// health path, the init container (which may have no probe) is not; the check container serves
// nothing and gets no token.
func TestLoadJobsServeProgress(t *testing.T) {
	run := testRun(10)
	loader := LoaderJob(run, secretConn, 0, Config{}).Spec.Template.Spec
	check := CheckJob(run, secretConn, Config{}).Spec.Template.Spec
	for _, tc := range []struct {
		name  string
		spec  corev1.PodSpec
		c     corev1.Container
		probe bool
	}{
		{"loader", loader, loader.Containers[0], true},
		{"finish-load", check, check.InitContainers[0], false},
	} {
		if got := arg(t, tc.c.Args, "--listen"); got != ":8080" {
			t.Errorf("%s: --listen %s", tc.name, got)
		}
		if got := arg(t, tc.c.Args, "--control-token-file"); got != "/var/run/tpcc/control/token" {
			t.Errorf("%s: --control-token-file %s", tc.name, got)
		}
		i := slices.IndexFunc(tc.spec.Volumes, func(v corev1.Volume) bool { return v.Name == "control-token" })
		if i < 0 || tc.spec.Volumes[i].Secret == nil || tc.spec.Volumes[i].Secret.SecretName != "r-control" || *tc.spec.Volumes[i].Secret.DefaultMode != 0o440 {
			t.Errorf("%s: volumes %+v: want Secret r-control, mode 0440", tc.name, tc.spec.Volumes)
		}
		m := slices.IndexFunc(tc.c.VolumeMounts, func(v corev1.VolumeMount) bool { return v.Name == "control-token" })
		if m < 0 || !tc.c.VolumeMounts[m].ReadOnly || tc.c.VolumeMounts[m].MountPath != ControlTokenDir {
			t.Errorf("%s: mounts %+v", tc.name, tc.c.VolumeMounts)
		}
		if len(tc.c.Ports) != 1 || tc.c.Ports[0].ContainerPort != SnapshotPort {
			t.Errorf("%s: ports %+v", tc.name, tc.c.Ports)
		}
		switch p := tc.c.ReadinessProbe; {
		case tc.probe && (p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz"):
			t.Errorf("%s: readiness probe %+v, want GET /healthz", tc.name, p)
		case !tc.probe && p != nil:
			t.Errorf("%s: an init container with a readiness probe is refused by the API server", tc.name)
		}
	}
	if slices.Contains(check.Containers[0].Args, "--control-token-file") || len(check.Containers[0].VolumeMounts) != 0 {
		t.Errorf("the check container serves nothing, yet mounts %+v, args %v", check.Containers[0].VolumeMounts, check.Containers[0].Args)
	}
}
