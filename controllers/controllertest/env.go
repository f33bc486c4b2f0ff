// Package controllertest is what the reconcilers' envtest tests share: a real API server
// (internal/testenv) with one namespace and one manager per test, and the parts of a cluster
// envtest does not run, played by the tests — the database operators' status, the Job controller,
// the kubelet, and client pods that serve the real snapshot contract in accelerated time. The run
// reconciler's tests (controllers/run), the suite's (controllers/suite) and a test engine's
// (test/engine) use it; no production code does.
package controllertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

var (
	// Env is the test binary's envtest API server, once Main has started it.
	Env *testenv.Env
	// K8s is a direct (uncached) client of it.
	K8s client.Client
)

// Main starts the API server for a test binary (testenv.Main), sets Env and K8s, hands them to set
// (the package's own variables), runs the tests and stops it.
func Main(m *testing.M, set func(*testenv.Env, client.Client), opts ...testenv.Option) {
	testenv.Main(m, func(e *testenv.Env, c client.Client) {
		Env, K8s = e, c
		if set != nil {
			set(e, c)
		}
	}, opts...)
}

// NewNamespace creates a namespace for one test; its manager watches only it.
func NewNamespace(t testing.TB, name string) string {
	t.Helper()
	// A test run again in the same API server (go test -count) gets name-2, name-3, …: namespaces
	// of the envtest API server are never finalized away.
	for i := 1; ; i++ {
		ns := name
		if i > 1 {
			ns = fmt.Sprintf("%s-%d", name, i)
		}
		err := K8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err == nil {
			return ns
		}
		if !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// Manager runs reconcilers for one namespace until stopped; Stop may be called more than once.
type Manager struct {
	Stop func()
}

// StartManager starts a manager watching namespace only, with the reconcilers setup registers on
// it; it stops when the test ends.
func StartManager(t testing.TB, namespace string, setup func(mgr ctrl.Manager) error) *Manager {
	t.Helper()
	mgr, err := ctrl.NewManager(Env.Config, ctrl.Options{
		Scheme:     Env.Scheme,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		Controller: SkipNameValidation(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := setup(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	played := make(chan struct{})
	go func() {
		defer close(played)
		playFinalChecks(ctx, namespace)
	}()
	m := &Manager{Stop: func() { cancel(); <-done; <-played }}
	t.Cleanup(m.Stop)
	return m
}

// SkipNameValidation lets one test binary start several managers whose controllers share names.
func SkipNameValidation() config.Controller {
	skip := true
	return config.Controller{SkipNameValidation: &skip}
}

// Eventually polls check until it returns nil or the timeout passes, then fails with its last error.
func Eventually(t testing.TB, timeout time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %v", timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
