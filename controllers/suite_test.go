package controllers

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

var (
	env *testenv.Env
	// k8s is a direct (uncached) client of the envtest API server.
	k8s client.Client
)

func TestMain(m *testing.M) {
	testenv.Main(m, func(e *testenv.Env, c client.Client) { env, k8s = e, c })
}

// newNamespace creates a namespace for one test; its manager watches only it.
func newNamespace(t *testing.T, name string) string {
	t.Helper()
	if err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// manager runs the reconciler for one namespace until stopped; stop may be called more than once.
type manager struct {
	stop func()
}

func startManager(t *testing.T, namespace string, cfg Config) *manager {
	t.Helper()
	return startManagerWith(t, namespace, cfg, nil)
}

// startManagerWith is startManager with the reconciler's client wrapped (nil: as it is).
func startManagerWith(t *testing.T, namespace string, cfg Config, wrap func(client.Client) client.Client) *manager {
	t.Helper()
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:     env.Scheme,
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Cache:      cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		Controller: ctrlConfigSkipNameValidation(),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := mgr.GetClient()
	if wrap != nil {
		c = wrap(c)
	}
	reconciler := &BenchmarkRunReconciler{Client: c, Scheme: mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("tpcc-operator"), Config: cfg}
	if err := reconciler.SetupWithManager(mgr); err != nil {
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
	m := &manager{stop: func() { cancel(); <-done }}
	t.Cleanup(m.stop)
	return m
}

// eventually polls check until it returns nil or the timeout passes, then fails with its last error.
func eventually(t *testing.T, timeout time.Duration, check func() error) {
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
