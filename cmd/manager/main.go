// Command manager runs the tpcc-operator: the BenchmarkRun controller.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/controllers"
)

func main() {
	var (
		metricsAddr, probeAddr, namespaces, leaderElectionNamespace string
		leaderElect, metricsSecure                                  bool
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "Address the metrics endpoint binds to; 0 disables it.")
	flag.BoolVar(&metricsSecure, "metrics-secure", false, "Serve metrics over HTTPS, authenticated and authorized through the API server.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Address the /healthz and /readyz probes bind to.")
	flag.BoolVar(&leaderElect, "leader-elect", false, "Elect a leader, so that only one of several replicas reconciles.")
	flag.StringVar(&leaderElectionNamespace, "leader-election-namespace", "", "Namespace of the leader election Lease; default: the pod's namespace.")
	flag.StringVar(&namespaces, "namespaces", "", "Comma-separated namespaces to watch; empty watches all namespaces.")
	logOpts := zap.Options{}
	logOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&logOpts)))
	setupLog := ctrl.Log.WithName("setup")

	opts := managerOptions{
		metricsAddr: metricsAddr, metricsSecure: metricsSecure, probeAddr: probeAddr,
		leaderElect: leaderElect, leaderElectionNamespace: leaderElectionNamespace, namespaces: namespaces,
	}
	if err := run(ctrl.SetupSignalHandler(), ctrl.GetConfigOrDie(), opts); err != nil {
		setupLog.Error(err, "manager stopped")
		os.Exit(1)
	}
}

type managerOptions struct {
	metricsAddr, probeAddr, leaderElectionNamespace, namespaces string
	metricsSecure, leaderElect                                  bool
}

func run(ctx context.Context, cfg *rest.Config, o managerOptions) error {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, benchv1.AddToScheme, cnpgv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}

	metrics := metricsserver.Options{BindAddress: o.metricsAddr, SecureServing: o.metricsSecure}
	if o.metricsSecure {
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	cacheOptions := cache.Options{}
	if watched := splitNamespaces(o.namespaces); len(watched) > 0 {
		cacheOptions.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range watched {
			cacheOptions.DefaultNamespaces[ns] = cache.Config{}
		}
	}

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metrics,
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "tpcc-operator.bench.oltp.io",
		LeaderElectionNamespace: o.leaderElectionNamespace,
		Cache:                   cacheOptions,
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	reconciler := &controllers.BenchmarkRunReconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("tpcc-operator"),
	}
	if err := reconciler.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the BenchmarkRun controller: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

func splitNamespaces(list string) []string {
	var out []string
	for _, ns := range strings.Split(list, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	return out
}
