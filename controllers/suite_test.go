package controllers

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

// k8s is a client of the envtest API server, on which a manager runs the reconciler.
var k8s client.Client

func TestMain(m *testing.M) {
	env, err := testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	code := func() int {
		mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
			Scheme:  env.Scheme,
			Metrics: metricsserver.Options{BindAddress: "0"},
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		reconciler := &BenchmarkRunReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("tpcc-operator")}
		if err := reconciler.SetupWithManager(mgr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		go func() {
			if err := mgr.Start(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "manager:", err)
			}
		}()
		k8s = mgr.GetClient()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			fmt.Fprintln(os.Stderr, "cache did not sync")
			return 1
		}
		return m.Run()
	}()
	cancel()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping envtest:", err)
	}
	os.Exit(code)
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
		time.Sleep(100 * time.Millisecond)
	}
}
