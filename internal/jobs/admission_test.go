package jobs

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/cockroach"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

var k8s client.Client

func TestMain(m *testing.M) {
	testenv.Main(m, func(_ *testenv.Env, c client.Client) { k8s = c })
}

func resourceCPU(v string) *resource.Quantity { q := resource.MustParse(v); return &q }

// Every Job is valid, and its pods pass the API server's PodSecurity admission in a namespace that
// enforces the restricted profile.
func TestJobsAndTheirPodsPassRestrictedAdmission(t *testing.T) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "restricted", Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest"}}}
	if err := k8s.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	run := testRun(40)
	run.Namespace = ns.Name
	crdb := cockroach.Backend{}.Connection(run)
	cfg := Config{ClientImage: "tpcc:dev"}
	for _, job := range []*batchv1.Job{
		LoaderJob(run, secretConn, 0, cfg), CheckJob(run, secretConn, cfg), StepJob(run, 0, 40, 0, secretConn, cfg), StepJob(run, 1, 20, 0, crdb, cfg),
		StorageJob(run, 0, StorageTarget{Node: "n1", Hostname: "n1", StorageClass: "local-path", Size: resource.MustParse("2Gi")}, 10*time.Second, cfg),
		ResultsWriterJob(ns.Name, run.Name+"-results-1", map[string]string{"app.kubernetes.io/managed-by": "tpcc-operator"},
			benchv1.SecretKeyRef{Name: "results-app", Key: "uri"}, []outbox.Source{
				{ConfigMap: run.Name + "-results-1", Items: []outbox.Item{{Key: outbox.RecordKey, Path: outbox.RecordFile}}},
				{ConfigMap: run.Name + "-step-0", Items: []outbox.Item{{Key: "step.json", Path: outbox.StepDataFile(0)}}},
			}, cfg),
	} {
		t.Run(job.Name, func(t *testing.T) {
			if err := k8s.Create(ctx, job, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
				t.Fatalf("job rejected: %v", err)
			}
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, GenerateName: job.Name + "-"}, Spec: job.Spec.Template.Spec}
			if err := k8s.Create(ctx, pod); err != nil {
				t.Fatalf("its pod is rejected: %v", err)
			}
		})
	}
	t.Run("control: a root pod is rejected", func(t *testing.T) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "root"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}}
		if err := k8s.Create(ctx, pod); err == nil {
			t.Fatal("the namespace does not enforce the restricted profile")
		}
	})
}

// The control Secret and the client NetworkPolicy are valid objects for a real API server.
func TestControlObjectsAreAccepted(t *testing.T) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "control"}}
	if err := k8s.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	run := testRun(4)
	run.Namespace = ns.Name
	for _, obj := range []client.Object{
		ControlSecret(run, "0123456789abcdef0123456789abcdef"),
		ClientNetworkPolicy(run, OperatorPods{Namespace: "tpcc-operator-system", Labels: map[string]string{"app.kubernetes.io/name": "tpcc-operator"}}),
	} {
		if err := k8s.Create(ctx, obj, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
			t.Fatalf("%T rejected: %v", obj, err)
		}
	}
}
