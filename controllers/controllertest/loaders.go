package controllertest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// LoaderPods maps the fake pod IPs of loader pods, and of a check pod running the load's finish,
// to their servers: each serves the real load-progress contract (`tpcc load --listen`:
// snapshot.NewLoadHandler behind the run's control token), reporting what the test sets.
type LoaderPods struct {
	mu      sync.Mutex
	servers map[string]*FakeLoader
	nextIP  int
}

func NewLoaderPods() *LoaderPods { return &LoaderPods{servers: map[string]*FakeLoader{}} }

// URL is the base URL of the fake behind a pod IP (Config.SnapshotURL).
func (l *LoaderPods) URL(podIP string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.servers[podIP]; ok {
		return s.server.URL
	}
	return "http://127.0.0.1:1" // nothing listens: an unreachable pod
}

// FakeLoader is one loading process: it serves the progress last Set.
type FakeLoader struct {
	server *httptest.Server
	mu     sync.Mutex
	p      snapshot.LoadProgress
}

// Set is what the process serves from now on.
func (f *FakeLoader) Set(p snapshot.LoadProgress) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.p = p
}

func (l *LoaderPods) add(t *testing.T, token string) (*FakeLoader, string) {
	f := &FakeLoader{}
	f.server = httptest.NewServer(snapshot.RequireToken(snapshot.NewLoadHandler(func() snapshot.LoadProgress {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.p
	}), token))
	t.Cleanup(f.server.Close)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nextIP++
	ip := fmt.Sprintf("10.2.%d.%d", l.nextIP/250, l.nextIP%250+1)
	l.servers[ip] = f
	return f, ip
}

// RunLoaderPods plays the Job controller and kubelet for the loader Job: one running, ready pod
// per index, serving its progress behind the control token the Job mounts (none loaded yet). It
// returns the fakes by index.
func RunLoaderPods(t *testing.T, l *LoaderPods, job *batchv1.Job) []*FakeLoader {
	t.Helper()
	token := MountedControlToken(t, job)
	var out []*FakeLoader
	for i := range int(*job.Spec.Completions) {
		f, ip := l.add(t, token)
		f.Set(snapshot.LoadProgress{Phase: "schema"})
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: fmt.Sprintf("%s-%d", job.Name, i), Labels: job.Spec.Template.Labels,
				Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(i)}},
			Spec: job.Spec.Template.Spec,
		}
		createWithStatus(t, pod, corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}})
		out = append(out, f)
	}
	return out
}

// RunFinishPod plays the kubelet for the check Job's pod while its finish-load init container runs:
// pending, with an IP, the init container serving the finish's progress behind the token it
// mounts. EndFinish ends the init container.
func RunFinishPod(t *testing.T, l *LoaderPods, job *batchv1.Job) (*FakeLoader, *corev1.Pod) {
	t.Helper()
	init := job.Spec.Template.Spec.InitContainers
	if len(init) != 1 || init[0].Name != jobs.FinishContainerName {
		t.Fatalf("check Job %s: init containers %v, want %s", job.Name, init, jobs.FinishContainerName)
	}
	// MountedControlToken reads the first container's flags: here the init container's.
	asMain := job.DeepCopy()
	asMain.Spec.Template.Spec.Containers = []corev1.Container{init[0]}
	f, ip := l.add(t, MountedControlToken(t, asMain))
	f.Set(snapshot.LoadProgress{Phase: "finish"})
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: job.Name + "-finish", Labels: job.Spec.Template.Labels},
		Spec:       job.Spec.Template.Spec,
	}
	createWithStatus(t, pod, corev1.PodStatus{Phase: corev1.PodPending, PodIP: ip,
		InitContainerStatuses: []corev1.ContainerStatus{{Name: jobs.FinishContainerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}})
	return f, pod
}

// EndFinish plays the kubelet once the finish-load container exited 0: the check container runs,
// and the finish serves nothing more.
func EndFinish(t *testing.T, f *FakeLoader, pod *corev1.Pod) {
	t.Helper()
	f.server.Close()
	pod.Status.Phase = corev1.PodRunning
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: jobs.FinishContainerName,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}}}
	if err := K8s.Status().Update(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
}

func createWithStatus(t *testing.T, pod *corev1.Pod, status corev1.PodStatus) {
	t.Helper()
	if err := K8s.Create(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = status
	if err := K8s.Status().Update(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
}

// Close makes a fake stop answering, as a pod that hangs or went away.
func (l *LoaderPods) Close(f *FakeLoader) { f.server.Close() }
