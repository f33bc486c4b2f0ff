// Package run is the BenchmarkRun reconciler: a run moves through its phases (reconciler.go), one
// file per phase — the database operator's CRDs (operator.go), ownership, the database
// (database.go), storage calibration, the load (load.go), snapshots and reuse, the switch of
// resources, the steps of the search (steps_*.go: plan, apply, observe) and their faults
// (faults_*.go), the result and its report (result.go). Objects are written through
// internal/kube, status in status.go; what a step measures is internal/measure's.
package run

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/engines"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/metrics"
	"github.com/tpcc-operator/tpcc-operator/internal/podmetrics"
	"github.com/tpcc-operator/tpcc-operator/internal/resultsdb"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot/fanout"
)

// Config is how the manager configures the reconciler.
type Config struct {
	// Engines lists the engines runs may name (nil: the builtin ones, registry.Default).
	Engines *registry.Registry
	// Images of the database operands by engine, when runs do not name them.
	Images registry.Images
	// Jobs configures loader, check and client pods (the client image).
	Jobs jobs.Config
	// DatabaseReadyTimeout fails a run whose database is not ready this long after it was applied.
	DatabaseReadyTimeout time.Duration
	// PollInterval is how often a running step's snapshots are fetched, and waits re-checked.
	PollInterval time.Duration
	// SnapshotURL is the base URL of a client pod's snapshot endpoint (default: its pod IP and port).
	SnapshotURL func(podIP string) string
	// HTTPClient fetches snapshots.
	HTTPClient *http.Client
	// PodRequestTimeout bounds each request to one client pod (snapshot, start, mark, release)
	// by its context, on top of HTTPClient's own timeout (0: snapshot.DefaultRequestTimeout).
	PodRequestTimeout time.Duration
	// PodFanOut is how many of a step's client pods are asked at once (0: fanout.DefaultLimit).
	PodFanOut int
	// MaxConcurrentReconciles is how many runs are reconciled at once (0: one).
	MaxConcurrentReconciles int
	// ClientNetworkPolicy, when set, makes each run a NetworkPolicy that admits only these pods —
	// the operator's — to its client pods' snapshot port (control.go).
	ClientNetworkPolicy *jobs.OperatorPods
	// NodeMetrics reads a node's kubelet cAdvisor metrics (the pods' disk and network); nil
	// records none (--kubelet-metrics=false).
	NodeMetrics podmetrics.NodeMetricsReader
	// Results configures the results database (results.go).
	Results resultsdb.Config
	// StorageCalibration is how long fio measures each database node's storage before the load
	// (storage_calibration.go); 0 measures nothing.
	StorageCalibration time.Duration
}

// DefaultConfig is the configuration without flags.
func DefaultConfig() Config {
	return Config{
		DatabaseReadyTimeout: 30 * time.Minute,
		PollInterval:         5 * time.Second,
		HTTPClient:           &http.Client{Timeout: 10 * time.Second},
		PodRequestTimeout:    10 * time.Second,
		PodFanOut:            fanout.DefaultLimit,
		Results:              resultsdb.DefaultConfig(),
	}
}

// Reconciler drives a BenchmarkRun through its phases.
type Reconciler struct {
	client.Client
	// APIReader reads without the cache: vendor objects whose kinds the manager does not watch, and
	// Secrets, which it must not cache cluster-wide.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  events.EventRecorder
	Config    Config
	// Operators checks a run's database objects against the served CRDs before they are first
	// applied (operator.go); SetupWithManager makes one when nil.
	Operators *engines.OperatorChecker

	// series holds the time series of the steps under way (*stepSeries by run UID and step), a
	// copy of what their series ConfigMaps store.
	series sync.Map
	// controlTokens holds each run's control token (controlToken by run name), read once from its
	// Secret.
	controlTokens sync.Map
}

// +kubebuilder:rbac:groups=bench.oltp.io,resources=benchmarkruns,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=bench.oltp.io,resources=benchmarkruns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// phase is one stage of a run. It returns done=false with a result to stop the pass there (waiting
// or requeueing), or done=true to go on to the next stage.
type phase func(ctx context.Context, run *benchv1.BenchmarkRun) (done bool, result ctrl.Result, err error)

// errRunFailed marks an error that ends the run (recorded in status), not one to retry.
var errRunFailed = errors.New("run failed")

// Reconcile moves one run forward. Every decision is taken from the run's status and the objects it
// owns, so a restarted operator resumes where the last one stopped.
//
// The run is read from the API server, not the cache: its status says which steps are recorded
// and which faults applied, and a cache that has not yet seen the last status write (a pass
// requeued right after it, on a busy machine) would take a step recorded and its Job deleted a
// moment ago for one still to run, and create the Job again, or apply a fault twice
// (TestLaggingCacheRepeatsNothing). The suite's reconciler reads its suite so for the same reason.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	run := &benchv1.BenchmarkRun{}
	if err := r.APIReader.Get(ctx, req.NamespacedName, run); err != nil {
		if apierrors.IsNotFound(err) {
			metrics.Forget(req.Namespace, req.Name)
			r.forgetControlToken(req.NamespacedName)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if !run.DeletionTimestamp.IsZero() {
		// Owned objects go with it, once what it recorded is in its results database (or the
		// deletion has waited long enough for it: results_finalizer.go).
		return ctrl.Result{RequeueAfter: r.recordResults(ctx, run)}, nil
	}
	log.FromContext(ctx).V(1).Info("reconciling", "phase", run.Status.Phase)
	metrics.RecordRun(run) // a restarted manager exports every run at once

	result, err := r.reconcilePhases(ctx, run)
	// What the run recorded goes to its results database, whatever the pass did; a database that
	// is down never holds the run back (results.go).
	return kube.MergeRequeue(result, r.recordResults(ctx, run)), err
}

// reconcilePhases moves the run through its phases; a finished run is torn down as its policy says.
func (r *Reconciler) reconcilePhases(ctx context.Context, run *benchv1.BenchmarkRun) (ctrl.Result, error) {
	if run.Status.Phase == benchv1.PhaseSucceeded || run.Status.Phase == benchv1.PhaseFailed {
		// A run that ended under an operator without the Ready and Ended conditions gets them
		// (writeStatus writes nothing when they are there already).
		if err := r.updateStatus(ctx, run, func(*benchv1.BenchmarkRunStatus) {}); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.retainReport(ctx, run); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, r.teardown(ctx, run)
	}
	if run.Status.Phase == "" {
		if err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) { s.Phase = benchv1.PhasePending }); err != nil {
			return ctrl.Result{}, err
		}
	}
	for _, p := range []phase{r.reconcileOperator, r.reconcileOwnership, r.reconcilePlacementCheck, r.reconcileDatabase, r.reconcileStorageCalibration, r.reconcileLoad, r.reconcileSnapshot, r.reconcileResourceSwitch, r.reconcileFaultCheck, r.reconcileSteps, r.reconcileFinalCheck, r.reconcileResult} {
		done, result, err := p(ctx, run)
		if conflict := kube.AsConflict(err); conflict != nil {
			// Someone else's object has a name the run needs: stop, having touched nothing of it.
			err = r.fail(ctx, run, conflict.Reason, conflict.Error())
		}
		if errors.Is(err, errRunFailed) {
			return ctrl.Result{}, nil // recorded; the next pass tears down
		}
		if err != nil || !done {
			return result, err
		}
	}
	return ctrl.Result{}, nil
}

// reconcileOwnership checks, before the run writes anything, that no object of a name it will
// write exists that is not its own: the database's vendor objects, the loader and check Jobs, the
// report ConfigMap, the control Secret. A conflict fails the run (DatabaseConflict, ObjectConflict) with nothing
// written. Objects named per step are checked when each is written.
func (r *Reconciler) reconcileOwnership(ctx context.Context, run *benchv1.BenchmarkRun) (bool, ctrl.Result, error) {
	if run.Status.Database != nil {
		return true, ctrl.Result{}, nil // checked before the first write
	}
	if run.Spec.Database.Reuse != nil {
		// The database is an earlier run's, to be taken over: reuse.go checks it can be.
		if done, result, err := r.checkReuse(ctx, run); err != nil || !done {
			return done, result, err
		}
	} else {
		if run.Spec.Database.Restore != nil {
			// Deployed from an earlier run's snapshot: snapshot.go checks it can be restored.
			if done, result, err := r.checkRestore(ctx, run); err != nil || !done {
				return done, result, err
			}
		}
		desired, err := r.backend(run).Desired(run)
		if err != nil {
			return true, ctrl.Result{}, nil // reconcileDatabase fails the run with the reason
		}
		for _, obj := range desired {
			if err := kube.CheckOwned(ctx, r.APIReader, r.Scheme, run, obj, benchv1.ReasonDatabaseConflict); err != nil && !meta.IsNoMatchError(err) {
				return false, ctrl.Result{}, err
			}
		}
	}
	conn := r.connection(run)
	for _, obj := range []client.Object{
		jobs.LoaderJob(run, conn, r.loadCPU(run), r.Config.Jobs), jobs.CheckJob(run, conn, r.Config.Jobs), jobs.FinalCheckJob(run, conn, r.Config.Jobs),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ReportConfigMapName(run), Namespace: run.Namespace}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: jobs.ControlSecretName(run), Namespace: run.Namespace}},
	} {
		if err := kube.CheckOwned(ctx, r.APIReader, r.Scheme, run, obj, benchv1.ReasonObjectConflict); err != nil {
			return false, ctrl.Result{}, err
		}
	}
	return true, ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler. Vendor objects and pods are polled rather than watched:
// the manager then needs neither the vendors' CRDs installed nor a cluster-wide pod watch.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return r.setupWith(mgr, r)
}

// setupWith fills r's defaults and registers rec, r itself or a reconciler that calls it, as the
// run controller.
func (r *Reconciler) setupWith(mgr ctrl.Manager, rec reconcile.Reconciler) error {
	if r.Config.HTTPClient == nil {
		r.Config.HTTPClient = DefaultConfig().HTTPClient
	}
	if r.Config.PollInterval == 0 {
		r.Config.PollInterval = DefaultConfig().PollInterval
	}
	if r.Config.DatabaseReadyTimeout == 0 {
		r.Config.DatabaseReadyTimeout = DefaultConfig().DatabaseReadyTimeout
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.Operators == nil {
		checker, err := engines.NewOperatorChecker(mgr.GetConfig())
		if err != nil {
			return err
		}
		r.Operators = checker
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.BenchmarkRun{}).
		Owns(&batchv1.Job{}).
		Named("benchmarkrun").
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Config.MaxConcurrentReconciles}).
		Complete(rec)
}
