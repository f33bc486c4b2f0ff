// Command manager runs the tpcc-operator: the BenchmarkRun controller.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/engines"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
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

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/controllers/run"
	"github.com/tpcc-operator/tpcc-operator/controllers/suite"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/podmetrics"
)

func main() {
	var (
		metricsAddr, probeAddr, namespaces, leaderElectionNamespace string
		leaderElect, metricsSecure, kubeletMetrics                  bool
		pullPolicy, resultsSecret                                   string
		networkPolicy                                               bool
		operatorNamespace, operatorPodLabels                        string
	)
	cfg := run.DefaultConfig()
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8080", "Address the metrics endpoint binds to; 0 disables it.")
	flag.BoolVar(&metricsSecure, "metrics-secure", false, "Serve metrics over HTTPS, authenticated and authorized through the API server.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "Address the /healthz and /readyz probes bind to.")
	flag.BoolVar(&leaderElect, "leader-elect", false, "Elect a leader, so that only one of several replicas reconciles.")
	flag.StringVar(&leaderElectionNamespace, "leader-election-namespace", "", "Namespace of the leader election Lease; default: the pod's namespace.")
	flag.StringVar(&namespaces, "namespaces", "", "Comma-separated namespaces to watch; empty watches all namespaces.")
	flag.StringVar(&cfg.Jobs.ClientImage, "client-image", envOr("TPCC_CLIENT_IMAGE", "tpcc-operator/tpcc:dev"), "Image of the tpcc client run by loader, check and client pods.")
	flag.StringVar(&pullPolicy, "image-pull-policy", envOr("TPCC_IMAGE_PULL_POLICY", string(corev1.PullIfNotPresent)), "Pull policy of the client image: Always, IfNotPresent or Never.")
	engineRegistry := registry.Default()
	images := &registry.ImageFlag{Registry: engineRegistry}
	flag.Var(images, "image", "An engine's operand image when a run names none, ENGINE=REF (repeated; ENGINE one of "+engineRegistry.NamesText()+"); an engine without one uses its operator's default.")
	legacy := legacyImageFlags(flag.CommandLine, engineRegistry)
	flag.DurationVar(&cfg.DatabaseReadyTimeout, "database-ready-timeout", cfg.DatabaseReadyTimeout, "Fail a run whose database is not ready this long after it was deployed.")
	flag.DurationVar(&cfg.PollInterval, "poll-interval", cfg.PollInterval, "How often running steps' snapshots are fetched and waits re-checked.")
	flag.IntVar(&cfg.MaxConcurrentReconciles, "max-concurrent-reconciles", 4, "How many BenchmarkRuns, and how many BenchmarkSuites, are reconciled at once: a run whose client pods answer slowly holds back no other run.")
	flag.BoolVar(&networkPolicy, "client-network-policy", false, "Create with each run a NetworkPolicy admitting only the operator's pods (--operator-namespace, --operator-pod-labels) to its client pods' snapshot port. Needs the manager to run in the cluster, and a network plugin that enforces NetworkPolicy to have an effect.")
	flag.StringVar(&operatorNamespace, "operator-namespace", os.Getenv("POD_NAMESPACE"), "Namespace of the operator's pods, for --client-network-policy (default: env POD_NAMESPACE).")
	flag.StringVar(&operatorPodLabels, "operator-pod-labels", "", "Labels of the operator's pods, key=value,…, for --client-network-policy.")
	flag.DurationVar(&cfg.StorageCalibration, "storage-calibration", 10*time.Second, "Before each run's load, measure small fdatasync'd writes (fio, in the client image) on a volume of the database's storage class and size on each database node, for this long; 0 measures nothing.")
	flag.BoolVar(&kubeletMetrics, "kubelet-metrics", true, "Read the disk and network counters of database and client pods from their nodes' kubelet cAdvisor metrics, through the API server's node proxy (RBAC nodes/proxy get).")
	flag.StringVar(&resultsSecret, "results-secret", os.Getenv("TPCC_RESULTS_SECRET"), "Default results database of runs and suites that name none: a Secret NAME[/KEY] (key default uri) in each one's namespace holding the results database's URI (docs/results.md); empty: none.")
	logOpts := zap.Options{}
	logOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&logOpts)))
	setupLog := ctrl.Log.WithName("setup")
	cfg.Engines = engineRegistry
	cfg.Images = images.Merged(legacy.images())
	for _, name := range legacy.used() {
		setupLog.Info("deprecated flag or variable: use --image ENGINE=REF", "used", name)
	}
	switch corev1.PullPolicy(pullPolicy) {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		cfg.Jobs.ImagePullPolicy = corev1.PullPolicy(pullPolicy)
	default:
		setupLog.Error(fmt.Errorf("--image-pull-policy %q: want Always, IfNotPresent or Never", pullPolicy), "bad flag")
		os.Exit(2)
	}

	if cfg.MaxConcurrentReconciles < 1 {
		setupLog.Error(fmt.Errorf("--max-concurrent-reconciles %d: want at least 1", cfg.MaxConcurrentReconciles), "bad flag")
		os.Exit(2)
	}

	operator, err := operatorPods(networkPolicy, operatorNamespace, operatorPodLabels)
	if err != nil {
		setupLog.Error(err, "bad flag")
		os.Exit(2)
	}
	cfg.ClientNetworkPolicy = operator
	if ref, err := parseSecretRef(resultsSecret); err != nil {
		setupLog.Error(fmt.Errorf("--results-secret %q: %w", resultsSecret, err), "bad flag")
		os.Exit(2)
	} else {
		cfg.Results.Secret = ref
	}

	opts := managerOptions{
		metricsAddr: metricsAddr, metricsSecure: metricsSecure, probeAddr: probeAddr,
		leaderElect: leaderElect, leaderElectionNamespace: leaderElectionNamespace, namespaces: namespaces,
		reconciler: cfg, kubeletMetrics: kubeletMetrics,
	}
	if err := serve(ctrl.SetupSignalHandler(), ctrl.GetConfigOrDie(), opts); err != nil {
		setupLog.Error(err, "manager stopped")
		os.Exit(1)
	}
}

type managerOptions struct {
	metricsAddr, probeAddr, leaderElectionNamespace, namespaces string
	metricsSecure, leaderElect, kubeletMetrics                  bool
	reconciler                                                  run.Config
}

func serve(ctx context.Context, cfg *rest.Config, o managerOptions) error {
	if o.reconciler.Engines == nil {
		o.reconciler.Engines = registry.Default()
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, benchv1.AddToScheme, o.reconciler.Engines.AddToScheme} {
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
	checker, err := engines.NewOperatorChecker(cfg)
	if err != nil {
		return fmt.Errorf("creating the database operator check: %w", err)
	}
	logOperators(o.reconciler.Engines, checker)
	if o.kubeletMetrics {
		read, err := podmetrics.KubeletMetricsReader(cfg)
		if err != nil {
			return fmt.Errorf("the kubelet metrics reader: %w", err)
		}
		o.reconciler.NodeMetrics = read
	}
	reconciler := &run.Reconciler{
		Client:    mgr.GetClient(),
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorder("tpcc-operator"),
		Config:    o.reconciler,
		Operators: checker,
	}
	if err := reconciler.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the BenchmarkRun controller: %w", err)
	}
	suites := &suite.Reconciler{
		Client:                  mgr.GetClient(),
		Scheme:                  mgr.GetScheme(),
		Recorder:                mgr.GetEventRecorder("tpcc-operator"),
		Engines:                 o.reconciler.Engines,
		PollInterval:            o.reconciler.PollInterval,
		Results:                 o.reconciler.Results,
		Jobs:                    o.reconciler.Jobs,
		MaxConcurrentReconciles: o.reconciler.MaxConcurrentReconciles,
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

// logOperators says at start which engines' database operators are installed in a supported
// version; runs of an engine whose operator is missing or unsupported fail at once with
// DatabaseOperatorMissing or DatabaseOperatorUnsupported (docs/troubleshooting.md).
func logOperators(known *registry.Registry, checker *engines.OperatorChecker) {
	log := ctrl.Log.WithName("setup")
	reports, err := known.CheckOperators(checker)
	if err != nil {
		log.Error(err, "cannot check the database operators' CRDs; runs are checked one by one")
		return
	}
	for _, r := range reports {
		switch {
		case r.Support.OK():
			log.Info("database operator supported", "engine", r.Engine, "operator", r.Operator.Name, "writtenFor", r.Operator.Version)
		case len(r.Support.Missing) > 0:
			log.Info("database operator not installed: runs of this engine will fail with DatabaseOperatorMissing",
				"engine", r.Engine, "operator", r.Operator.Name, "detail", r.Support.Message(&r.Operator))
		case len(r.Support.Unknown) == 0:
			log.Info("database operator installed; its schema is not published yet and is checked per run",
				"engine", r.Engine, "operator", r.Operator.Name, "writtenFor", r.Operator.Version)
		default:
			log.Info("database operator of an unsupported version: runs of this engine will fail with DatabaseOperatorUnsupported",
				"engine", r.Engine, "operator", r.Operator.Name, "detail", r.Support.Message(&r.Operator))
		}
	}
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// operatorPods validates the NetworkPolicy flags: with --client-network-policy, the operator's
// namespace and pod labels select the only pods admitted to client pods.
func operatorPods(enabled bool, namespace, podLabels string) (*jobs.OperatorPods, error) {
	if !enabled {
		return nil, nil
	}
	if namespace == "" {
		return nil, errors.New("--client-network-policy needs --operator-namespace (or env POD_NAMESPACE): the namespace of the operator's pods")
	}
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return nil, fmt.Errorf("--operator-namespace %q: %s", namespace, strings.Join(errs, "; "))
	}
	if strings.TrimSpace(podLabels) == "" {
		return nil, errors.New("--client-network-policy needs --operator-pod-labels (key=value,…): the labels of the operator's pods")
	}
	set, err := labels.ConvertSelectorToLabelsMap(podLabels)
	if err != nil {
		return nil, fmt.Errorf("--operator-pod-labels %q: %v", podLabels, err)
	}
	return &jobs.OperatorPods{Namespace: namespace, Labels: set}, nil
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
