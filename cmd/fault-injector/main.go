// Command fault-injector is the opt-in fault injector: a privileged DaemonSet in its own namespace
// (hack/fault-injector.sh) that applies the NetworkFaults of the pods on its node inside their
// network namespaces and heals them. "fault-injector proxy" is the delay proxy it starts inside a
// pod's namespace where the kernel has no netem.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/injector"
	"github.com/tpcc-operator/tpcc-operator/internal/netfault"
)

// The injector reads and updates NetworkFaults (their status and its finalizer), reads the pods
// they name and lists Services (the ClusterIPs in front of a fault's peers); nothing else.
// +kubebuilder:rbac:groups=bench.oltp.io,resources=networkfaults,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=bench.oltp.io,resources=networkfaults/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=bench.oltp.io,resources=networkfaults/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=pods,verbs=get
// +kubebuilder:rbac:groups="",resources=services,verbs=list

func main() {
	if len(os.Args) > 1 && os.Args[1] == "proxy" {
		if err := netfault.ProxyMain(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "fault-injector proxy:", err)
			os.Exit(1)
		}
		return
	}
	var node, proc string
	flag.StringVar(&node, "node", os.Getenv("NODE_NAME"), "The node this injector serves (the DaemonSet sets NODE_NAME from spec.nodeName).")
	flag.StringVar(&proc, "proc", "/proc", "The host's /proc (the pod shares the host's process namespace).")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("fault-injector")
	if node == "" {
		fmt.Fprintln(os.Stderr, "fault-injector: --node (or NODE_NAME) is required")
		os.Exit(2)
	}
	self, err := os.Executable()
	if err != nil {
		log.Error(err, "finding its own executable")
		os.Exit(1)
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = benchv1.AddToScheme(scheme)
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		log.Error(err, "creating the manager")
		os.Exit(1)
	}
	r := &injector.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Node: node, Proc: proc,
		Injector: &netfault.Injector{Self: self}, Now: time.Now}
	if err := r.SetupWithManager(mgr); err != nil {
		log.Error(err, "setting up the controller")
		os.Exit(1)
	}
	log.Info("serving", "node", node)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "stopped")
		os.Exit(1)
	}
}
