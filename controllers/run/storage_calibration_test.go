package run

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/storageprobe"
)

// Before the load, one calibration Job per shape of volume the database's pods use — each on its
// node, with its class, size and the database's tolerations — and nothing loads until all have
// ended; a failed one is recorded with its error; the records survive the environment read at the
// first step and reach the report.
func TestStorageCalibrationBeforeTheLoad(t *testing.T) {
	ctx := context.Background()
	ns := ct.NewNamespace(t, "calibration")
	pods := ct.NewClientPods()
	cfg := testConfig(pods)
	cfg.StorageCalibration = 7 * time.Second
	startManager(t, ns, cfg)
	// Three nodes for the three instances (the placement check), of which two run one.
	for i := 1; i <= 3; i++ {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("sc-n%d", i), Labels: map[string]string{corev1.LabelHostname: fmt.Sprintf("host-%d", i)}}}
		if err := k8s.Create(ctx, node); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, node) })
		makeSchedulable(t, node)
	}
	run := ct.NewRun(ns, "sc", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	taint := corev1.Toleration{Key: "db", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	run.Spec.Placement = &benchv1.Placement{Database: &benchv1.PodPlacement{Tolerations: []corev1.Toleration{taint}}}
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}

	// CloudNativePG's instances as it leaves them: a data volume each, a WAL volume of another
	// class on the first; both on their nodes.
	cluster := &unstructured.Unstructured{}
	cluster.SetAPIVersion("postgresql.cnpg.io/v1")
	cluster.SetKind("Cluster")
	ct.Eventually(t, 20*time.Second, func() error { return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sc-db"}, cluster) })
	claim := func(name, class, size string) {
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"cnpg.io/cluster": "sc-db"}},
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}}}
		if err := k8s.Create(ctx, pvc); err != nil {
			t.Fatal(err)
		}
	}
	claim("sc-db-1", "local-path", "2Gi")
	claim("sc-db-1-wal", "fast", "1Gi")
	claim("sc-db-2", "local-path", "2Gi")
	for i, volumes := range map[int][]string{1: {"sc-db-1", "sc-db-1-wal"}, 2: {"sc-db-2"}} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("sc-db-%d", i), Labels: map[string]string{"cnpg.io/cluster": "sc-db"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres", Image: "postgres:test"}}}}
		for _, v := range volumes {
			pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: v, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: v}}})
		}
		if err := k8s.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
		bindPod(t, pod, fmt.Sprintf("sc-n%d", i))
	}
	ct.SetClusterReady(t, ns, "sc-db", 3)

	want := []jobs.StorageTarget{
		{Node: "sc-n1", Hostname: "host-1", StorageClass: "local-path", Size: resource.MustParse("2Gi")},
		{Node: "sc-n1", Hostname: "host-1", StorageClass: "fast", Size: resource.MustParse("1Gi")},
		{Node: "sc-n2", Hostname: "host-2", StorageClass: "local-path", Size: resource.MustParse("2Gi")},
	}
	var created []*batchv1.Job
	for i, target := range want {
		job := ct.GetJob(t, ns, jobs.StorageJobName(run, i))
		spec := job.Spec.Template.Spec
		claim := spec.Volumes[0].Ephemeral.VolumeClaimTemplate.Spec
		size := claim.Resources.Requests[corev1.ResourceStorage]
		if spec.NodeSelector[corev1.LabelHostname] != target.Hostname || *claim.StorageClassName != target.StorageClass || size.Cmp(target.Size) != 0 ||
			len(spec.Tolerations) != 1 || spec.Tolerations[0] != taint || !strings.Contains(strings.Join(spec.Containers[0].Args, " "), "--runtime 7s") {
			t.Errorf("Job %s: node selector %v, class %s, size %s, tolerations %v, args %v; want %+v", job.Name, spec.NodeSelector,
				*claim.StorageClassName, size.String(), spec.Tolerations, spec.Containers[0].Args, target)
		}
		created = append(created, job)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: jobs.StorageJobName(run, 3)}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("a fourth calibration Job: %v", err)
	}

	// Two measure; one fails (fio found no space). Until the last ends, nothing loads.
	ended := func(job *batchv1.Job, res storageprobe.Result) {
		body, _ := json.Marshal(res)
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: job.Name + "-x", Labels: map[string]string{batchv1.JobNameLabel: job.Name}},
			Spec: job.Spec.Template.Spec}
		if err := k8s.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
		code := int32(0)
		if res.Error != "" {
			code = 1
		}
		pod.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{Name: "tpcc",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Message: string(body)}}}}}
		if err := k8s.Status().Update(ctx, pod); err != nil {
			t.Fatal(err)
		}
	}
	ok := storageprobe.Result{Tool: "fio-3.33", BlockSize: 8192, SyncP50: 180 * time.Microsecond, SyncP99: 2 * time.Millisecond,
		Syncs: 30000, WritesPerSecond: 3000, BytesPerSecond: 3000 * 8192}
	ended(created[0], ok)
	ct.SetJobProgress(t, created[0], "", 1, true)
	ended(created[2], ok)
	ct.SetJobProgress(t, created[2], "", 1, true)
	ct.Eventually(t, 20*time.Second, func() error {
		c := meta.FindStatusCondition(ct.GetRun(t, run).Status.Conditions, benchv1.ConditionDataLoaded)
		if c == nil || c.Reason != "CalibratingStorage" || !strings.Contains(c.Message, "(1 running)") {
			return fmt.Errorf("DataLoaded %+v, want CalibratingStorage with 1 running", c)
		}
		return nil
	})
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: jobs.LoaderJobName(run)}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the loader Job exists before the calibration ended: %v", err)
	}
	ended(created[1], storageprobe.Result{Error: "fio exited with 1: No space left on device"})
	ct.FailJob(t, created[1], "Job has reached the specified backoff limit")

	var records []benchv1.StorageCalibration
	ct.Eventually(t, 20*time.Second, func() error {
		got := ct.GetRun(t, run)
		if got.Status.Environment == nil || len(got.Status.Environment.StorageCalibration) != 3 {
			return fmt.Errorf("environment %+v, want 3 calibration records", got.Status.Environment)
		}
		records = got.Status.Environment.StorageCalibration
		return nil
	})
	if r := records[0]; r.Node != "sc-n1" || r.StorageClass != "local-path" || r.Size != "2Gi" || r.Tool != "fio-3.33" || r.BlockSize != 8192 ||
		r.SyncP50.Duration != 180*time.Microsecond || r.SyncP99.Duration != 2*time.Millisecond || r.WritesPerSecond != 3000 || r.BytesPerSecond != 3000*8192 || r.Error != "" {
		t.Errorf("record 0: %+v", r)
	}
	if r := records[1]; r.Node != "sc-n1" || r.StorageClass != "fast" || r.SyncP50 != nil || !strings.Contains(r.Error, "No space left on device") {
		t.Errorf("record 1 (failed): %+v", r)
	}
	for _, job := range created {
		ct.Eventually(t, 10*time.Second, func() error {
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(job), &batchv1.Job{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("calibration Job %s not removed: %v", job.Name, err)
			}
			return nil
		})
	}

	// The load and a step follow; the environment read at the step keeps the calibration.
	ct.DeployAndLoad(t, run, nil)
	got := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	if got.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("phase %s", got.Status.Phase)
	}
	if env := got.Status.Environment; env == nil || env.OperatorVersion == "" || len(env.StorageCalibration) != 3 {
		t.Fatalf("environment after the steps %+v: want it read, with the calibration kept", env)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: ReportConfigMapName(run)}, cm); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Storage calibration (before the load)", "| sc-n1 | local-path | 2Gi | fio-3.33 | 8192 | 180µs | 2.0ms | 3000 | 24.58 |",
		"node sc-n1, fast 1Gi: calibration failed: Job sc-storage-1 failed"} {
		if !strings.Contains(cm.Data["report.md"], want) {
			t.Errorf("report.md lacks %q:\n%s", want, cm.Data["report.md"])
		}
	}
}
