// Command manager runs the tpcc-operator: the BenchmarkRun controller.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
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
		pullPolicy, resultsSecret                                   string
	)
	cfg := controllers.DefaultConfig()
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "Address the metrics endpoint binds to; 0 disables it.")
	flag.BoolVar(&metricsSecure, "metrics-secure", false, "Serve metrics over HTTPS, authenticated and authorized through the API server.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Address the /healthz and /readyz probes bind to.")
	flag.BoolVar(&leaderElect, "leader-elect", false, "Elect a leader, so that only one of several replicas reconciles.")
	flag.StringVar(&leaderElectionNamespace, "leader-election-namespace", "", "Namespace of the leader election Lease; default: the pod's namespace.")
	flag.StringVar(&namespaces, "namespaces", "", "Comma-separated namespaces to watch; empty watches all namespaces.")
	flag.StringVar(&cfg.Jobs.ClientImage, "client-image", envOr("TPCC_CLIENT_IMAGE", "tpcc-operator/tpcc:dev"), "Image of the tpcc client run by loader, check and client pods.")
	flag.StringVar(&pullPolicy, "image-pull-policy", envOr("TPCC_IMAGE_PULL_POLICY", string(corev1.PullIfNotPresent)), "Pull policy of the client image: Always, IfNotPresent or Never.")
	flag.StringVar(&cfg.Images.Postgres, "postgres-image", os.Getenv("TPCC_POSTGRES_IMAGE"), "PostgreSQL operand image for CloudNativePG when a run names none; empty keeps CloudNativePG's default.")
	flag.StringVar(&cfg.Images.Cockroach, "cockroach-image", os.Getenv("TPCC_COCKROACH_IMAGE"), "CockroachDB image when a run names none.")
	flag.StringVar(&cfg.Images.YDB, "ydb-image", os.Getenv("TPCC_YDB_IMAGE"), "YDB image when a run names none.")
	flag.DurationVar(&cfg.DatabaseReadyTimeout, "database-ready-timeout", cfg.DatabaseReadyTimeout, "Fail a run whose database is not ready this long after it was deployed.")
	flag.DurationVar(&cfg.PollInterval, "poll-interval", cfg.PollInterval, "How often running steps' snapshots are fetched and waits re-checked.")
	flag.StringVar(&resultsSecret, "results-secret", os.Getenv("TPCC_RESULTS_SECRET"), "Default results database of runs and suites that name none: a Secret NAME[/KEY] (key default uri) in each one's namespace holding a postgres:// URI (docs/results.md); empty: none.")
	logOpts := zap.Options{}
	logOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&logOpts)))
	setupLog := ctrl.Log.WithName("setup")
	switch corev1.PullPolicy(pullPolicy) {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		cfg.Jobs.ImagePullPolicy = corev1.PullPolicy(pullPolicy)
	default:
		setupLog.Error(fmt.Errorf("--image-pull-policy %q: want Always, IfNotPresent or Never", pullPolicy), "bad flag")
		os.Exit(2)
	}

	if ref, err := parseSecretRef(resultsSecret); err != nil {
		setupLog.Error(fmt.Errorf("--results-secret %q: %w", resultsSecret, err), "bad flag")
		os.Exit(2)
	} else {
		cfg.Results.Secret = ref
	}

	opts := managerOptions{
		metricsAddr: metricsAddr, metricsSecure: metricsSecure, probeAddr: probeAddr,
		leaderElect: leaderElect, leaderElectionNamespace: leaderElectionNamespace, namespaces: namespaces,
		reconciler: cfg,
	}
	if err := run(ctrl.SetupSignalHandler(), ctrl.GetConfigOrDie(), opts); err != nil {
		setupLog.Error(err, "manager stopped")
		os.Exit(1)
	}
}

type managerOptions struct {
	metricsAddr, probeAddr, leaderElectionNamespace, namespaces string
	metricsSecure, leaderElect                                  bool
	reconciler                                                  controllers.Config
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
		Config:   o.reconciler,
	}
	if err := reconciler.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the BenchmarkRun controller: %w", err)
	}
	suites := &controllers.BenchmarkSuiteReconciler{
		Client:       mgr.GetClient(),
		Scheme:       mgr.GetScheme(),
		Recorder:     mgr.GetEventRecorder("tpcc-operator"),
		PollInterval: o.reconciler.PollInterval,
		Results:      o.reconciler.Results,
		Jobs:         o.reconciler.Jobs,
	}
	if err := suites.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the BenchmarkSuite controller: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
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

// parseSecretRef reads --results-secret: NAME or NAME/KEY; empty is none.
func parseSecretRef(s string) (*benchv1.SecretKeyRef, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	name, key, _ := strings.Cut(s, "/")
	if key == "" {
		key = "uri"
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("the Secret name %q: %s", name, strings.Join(errs, "; "))
	}
	if errs := validation.IsConfigMapKey(key); len(errs) > 0 {
		return nil, fmt.Errorf("the key %q: %s", key, strings.Join(errs, "; "))
	}
	return &benchv1.SecretKeyRef{Name: name, Key: key}, nil
}
