// Package suite is the BenchmarkSuite reconciler: a suite plans its runs (plan.go), starts them
// one at a time, interleaved across its databases, waits for each run's database to be torn
// down before the next starts, compares the databases as runs end (internal/report) and records
// the suite into its results database (results.go). It creates BenchmarkRuns; the run
// reconciler (controllers/run) runs them.
package suite

import (
	"context"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	comparison "github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/resultsdb"
)

// Reconciler runs a suite's BenchmarkRuns one at a time, in the plan's order
// (benchmarksuite_runs.go), and compares their results (internal/report). The BenchmarkRun
// reconciler does the measuring; this one only creates runs, watches them end, waits for each
// run's database to be torn down before the next starts, and writes the comparison.
type Reconciler struct {
	client.Client
	// APIReader reads without the cache: the suite's runs (a run created a moment ago must be seen,
	// never created again) and the objects of a run's database.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  events.EventRecorder
	// PollInterval is how often a torn-down database is checked for being gone.
	PollInterval time.Duration
	// Results configures the results database; Jobs the image of its writer (results.go).
	Results resultsdb.Config
	Jobs    jobs.Config
	// Engines lists the engines the suite's databases may name (nil: the builtin ones).
	Engines *registry.Registry
	// MaxConcurrentReconciles is how many suites are reconciled at once (0: one).
	MaxConcurrentReconciles int
}

// DefaultPollInterval is how often a torn-down database is checked for being gone when
// PollInterval is not set.
const DefaultPollInterval = 5 * time.Second

// engines is the registry the suite's databases find their engine in.
func (r *Reconciler) engines() *registry.Registry {
	if r.Engines != nil {
		return r.Engines
	}
	return registry.Default()
}

// +kubebuilder:rbac:groups=bench.oltp.io,resources=benchmarksuites,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=bench.oltp.io,resources=benchmarksuites/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=bench.oltp.io,resources=benchmarkruns,verbs=create
// The suite turns a run's teardown to Delete when the next repeat will not reuse its data:
// patch, granted to the run reconciler already.

// Reconcile moves a suite forward. Which runs exist comes from the API server and the plan, never
// from memory, so a restarted manager resumes without creating a run twice.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// The suite is read from the API server, not the cache: which runs it started is in its status,
	// and a status a step behind (the cache has not seen the last write yet) would take a run
	// deleted since for one never created, and create it again.
	suite := &benchv1.BenchmarkSuite{}
	if err := r.APIReader.Get(ctx, req.NamespacedName, suite); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !suite.DeletionTimestamp.IsZero() {
		// Its runs and comparison go with it, through owner references, once its row is in its
		// results database (or the deletion has waited long enough: resultsdb.Recorder.Record).
		runs, err := r.suiteRuns(ctx, suite)
		if err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: r.recordResults(ctx, suite, runs)}, nil
	}
	if c := meta.FindStatusCondition(suite.Status.Conditions, benchv1.ConditionFailed); c != nil && c.Reason == benchv1.ReasonObjectConflict {
		return ctrl.Result{}, nil // stopped: someone else's object has a name the suite needs
	}
	if suite.Status.Report == nil { // before the suite writes anything
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ComparisonConfigMapName(suite), Namespace: suite.Namespace}}
		if err := kube.CheckOwned(ctx, r.APIReader, r.Scheme, suite, cm, benchv1.ReasonObjectConflict); err != nil {
			return ctrl.Result{}, r.failOnConflict(ctx, suite, err)
		}
	}
	runs, err := r.suiteRuns(ctx, suite)
	if err != nil {
		return ctrl.Result{}, err
	}
	plan := suitePlan(suite)
	records := r.records(suite, plan, runs)
	waiting, err := r.startNext(ctx, suite, plan, records, runs)
	if err != nil {
		return ctrl.Result{}, err
	}
	compared, err := r.compare(ctx, suite, records, runs)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.announceEnds(suite, records)
	var result ctrl.Result
	if waiting != "" {
		result.RequeueAfter = r.PollInterval
	}
	if err := r.updateStatus(ctx, suite, func(s *benchv1.BenchmarkSuiteStatus) {
		s.Runs = records
		s.Results, s.Notes, s.Leader = compared.Results, compared.Notes, compared.Leader
		s.Progress = fmt.Sprintf("%d/%d", compared.RunsDone, compared.RunsPlanned)
		s.Report = &benchv1.ReportRef{ConfigMapName: ComparisonConfigMapName(suite)}
		suiteConditions(s, suite.Generation, compared, waiting)
	}); err != nil {
		return result, err
	}
	// The suite's row goes to its results database once it ends (results.go).
	return kube.MergeRequeue(result, r.recordResults(ctx, suite, runs)), nil
}

// startNext starts the next run of the plan when none is under way: the first that has not ended,
// once the database of the run before it is torn down (unless it takes that database over). It
// updates records and returns what the suite waits for ("" when nothing).
func (r *Reconciler) startNext(ctx context.Context, suite *benchv1.BenchmarkSuite, plan []plannedRun, records []benchv1.SuiteRunRecord, runs map[string]*benchv1.BenchmarkRun) (string, error) {
	previous := -1 // the last run before i that the suite started
	for i, rec := range records {
		if comparison.Final(rec.Phase) {
			if rec.StartTime != nil {
				previous = i
			}
			continue
		}
		if _, exists := runs[rec.Name]; exists {
			return "", nil // under way: its status changes bring the suite back here
		}
		reuseFrom := reuseSource(suite, plan, records, i)
		restoreFrom := restoreSource(suite, plan, i, func(name string) bool { return runs[name] != nil && runs[name].Status.SnapshotReady() })
		if previous >= 0 && reuseFrom == "" {
			if waiting, err := r.tearDownPrevious(ctx, suite, plan[previous], runs, rec.Name); err != nil || waiting != "" {
				return waiting, err
			}
		}
		run := suiteRun(r.engines(), suite, plan[i], reuseFrom, restoreFrom)
		// A BenchmarkRun of that name that is not the suite's was there first: that run is
		// recorded as failed, and the suite goes on, leaving it as it is.
		if err := kube.CreateOwned(ctx, r.Client, r.APIReader, r.Scheme, suite, run); kube.AsConflict(err) != nil {
			now := metav1.Now()
			records[i].Phase, records[i].Reason, records[i].CompletionTime = benchv1.PhaseFailed, "RunNameTaken", &now
			records[i].Message = fmt.Sprintf("a BenchmarkRun named %s exists and is not this suite's (%s)", run.Name, kube.AsConflict(err).Why)
			continue
		} else if err != nil {
			return "", err
		}
		log.FromContext(ctx).Info("created run", "run", run.Name)
		r.event(suite, corev1.EventTypeNormal, "RunCreated", "Create", "created BenchmarkRun %s (%s, repeat %d of %d)", run.Name, plan[i].Database.Name, plan[i].Repeat, max(1, suite.Spec.Repeats))
		now := metav1.Now()
		records[i].Phase, records[i].StartTime = benchv1.PhasePending, &now
		return "", nil
	}
	return "", nil
}

// tearDownPrevious makes sure the database of the run before next is gone before next starts: a
// database kept for a repeat that will not take it over goes now. It says what it waits for.
func (r *Reconciler) tearDownPrevious(ctx context.Context, suite *benchv1.BenchmarkSuite, previous plannedRun, runs map[string]*benchv1.BenchmarkRun, next string) (string, error) {
	prev := runs[previous.Name]
	if prev == nil {
		prev = suiteRun(r.engines(), suite, previous, "", "")
	} else if prev.Spec.Database.Teardown == benchv1.TeardownRetain {
		// Kept for a repeat that will not take it over (it failed, or the next run is another
		// database's): it goes now.
		patch := client.MergeFrom(prev.DeepCopy())
		prev.Spec.Database.Teardown = benchv1.TeardownDelete
		if err := r.Patch(ctx, prev, patch); err != nil {
			return "", fmt.Errorf("tearing down the database %s kept: %w", prev.Name, err)
		}
	}
	gone, what, err := r.databaseGone(ctx, prev)
	if err != nil || gone {
		return "", err
	}
	return fmt.Sprintf("waiting for the database of %s to be torn down before %s starts (%s still exists)", previous.Name, next, what), nil
}

// compare compares the suite's databases over its runs so far and writes the comparison
// ConfigMap when the runs changed.
func (r *Reconciler) compare(ctx context.Context, suite *benchv1.BenchmarkSuite, records []benchv1.SuiteRunRecord, runs map[string]*benchv1.BenchmarkRun) (comparison.Comparison, error) {
	compared, err := comparison.Compare(comparison.Input{Suite: suite.Name, Namespace: suite.Namespace, Spec: suite.Spec, Runs: records, Generated: time.Now(),
		Descriptions: r.engines().Descriptions(suite.Spec.Databases)})
	if err != nil {
		return compared, err
	}
	if suite.Status.Report == nil || !equality.Semantic.DeepEqual(records, suite.Status.Runs) {
		if err := r.writeComparison(ctx, suite, compared, curves(records, runs)); err != nil {
			return compared, r.failOnConflict(ctx, suite, err)
		}
	}
	return compared, nil
}

// announceEnds announces each run's end once, as it is first recorded.
func (r *Reconciler) announceEnds(suite *benchv1.BenchmarkSuite, records []benchv1.SuiteRunRecord) {
	for i, rec := range records {
		if comparison.Final(rec.Phase) && (i >= len(suite.Status.Runs) || !comparison.Final(suite.Status.Runs[i].Phase)) {
			if rec.Phase == benchv1.PhaseFailed {
				r.event(suite, corev1.EventTypeWarning, "RunFailed", "Record", "BenchmarkRun %s failed (%s): %s; the suite goes on", rec.Name, rec.Reason, rec.Message)
			} else {
				r.event(suite, corev1.EventTypeNormal, "RunSucceeded", "Record", "BenchmarkRun %s ended", rec.Name)
			}
		}
	}
}

// failOnConflict stops a suite whose object name is taken by someone else's object (err is a
// kube.ConflictError): phase Failed, condition Failed with the object named, nothing of it changed.
// Other errors are returned as they are.
func (r *Reconciler) failOnConflict(ctx context.Context, suite *benchv1.BenchmarkSuite, err error) error {
	conflict := kube.AsConflict(err)
	if conflict == nil {
		return err
	}
	r.event(suite, corev1.EventTypeWarning, conflict.Reason, "Fail", "%s", conflict.Error())
	return r.updateStatus(ctx, suite, func(s *benchv1.BenchmarkSuiteStatus) {
		s.Phase = benchv1.PhaseFailed
		kube.SetCondition(&s.Conditions, suite.Generation, benchv1.ConditionFailed, metav1.ConditionTrue, conflict.Reason, conflict.Error())
		kube.SetCondition(&s.Conditions, suite.Generation, benchv1.ConditionComplete, metav1.ConditionFalse, conflict.Reason, conflict.Error())
	})
}

// suiteConditions sets the phase and the Complete and Failed conditions.
func suiteConditions(s *benchv1.BenchmarkSuiteStatus, generation int64, c comparison.Comparison, waiting string) {
	succeeded := 0
	for _, r := range c.Results {
		succeeded += int(r.RunsSucceeded)
	}
	progress := fmt.Sprintf("%d of %d runs ended", c.RunsDone, c.RunsPlanned)
	switch {
	case c.Complete && succeeded > 0:
		s.Phase = benchv1.PhaseSucceeded
		message := progress + ", " + fmt.Sprintf("%d with a result", succeeded)
		if c.Leader != "" {
			message += "; leader " + c.Leader
		}
		kube.SetCondition(&s.Conditions, generation, benchv1.ConditionComplete, metav1.ConditionTrue, "AllRunsEnded", message)
		kube.SetCondition(&s.Conditions, generation, benchv1.ConditionFailed, metav1.ConditionFalse, "AllRunsEnded", message)
	case c.Complete:
		s.Phase = benchv1.PhaseFailed
		message := progress + ", none with a result: " + failedRuns(c)
		kube.SetCondition(&s.Conditions, generation, benchv1.ConditionComplete, metav1.ConditionFalse, "NoResult", message)
		kube.SetCondition(&s.Conditions, generation, benchv1.ConditionFailed, metav1.ConditionTrue, "NoResult", message)
	default:
		s.Phase = benchv1.PhaseRunning
		if c.RunsDone == 0 && len(c.Runs) > 0 && c.Runs[0].Phase == "" {
			s.Phase = benchv1.PhasePending
		}
		message := progress
		if waiting != "" {
			message += "; " + waiting
		}
		kube.SetCondition(&s.Conditions, generation, benchv1.ConditionComplete, metav1.ConditionFalse, "RunsUnderWay", message)
		kube.SetCondition(&s.Conditions, generation, benchv1.ConditionFailed, metav1.ConditionFalse, "RunsUnderWay", message)
	}
}

func failedRuns(c comparison.Comparison) string {
	var parts []string
	for _, r := range c.Runs {
		if r.Phase == benchv1.PhaseFailed {
			parts = append(parts, fmt.Sprintf("%s (%s)", r.Name, r.Reason))
		}
	}
	return strings.Join(parts, ", ")
}

// suiteRuns are the suite's runs as the API server has them, by name: labelled with the suite and
// controlled by it.
func (r *Reconciler) suiteRuns(ctx context.Context, suite *benchv1.BenchmarkSuite) (map[string]*benchv1.BenchmarkRun, error) {
	list := &benchv1.BenchmarkRunList{}
	if err := r.APIReader.List(ctx, list, client.InNamespace(suite.Namespace), client.MatchingLabels{benchv1.SuiteLabel: suite.Name}); err != nil {
		return nil, fmt.Errorf("listing the runs of suite %s: %w", suite.Name, err)
	}
	runs := map[string]*benchv1.BenchmarkRun{}
	for i := range list.Items {
		run := &list.Items[i]
		if owner := metav1.GetControllerOf(run); owner != nil && owner.UID == suite.UID {
			runs[run.Name] = run
		}
	}
	return runs, nil
}

// records are the suite's run records in plan order, brought up to date with the runs. A run whose
// record says it started but which is gone was deleted before it ended: it is recorded as failed,
// never created again.
func (r *Reconciler) records(suite *benchv1.BenchmarkSuite, plan []plannedRun, runs map[string]*benchv1.BenchmarkRun) []benchv1.SuiteRunRecord {
	previous := map[string]benchv1.SuiteRunRecord{}
	for _, rec := range suite.Status.Runs {
		previous[rec.Name] = rec
	}
	records := make([]benchv1.SuiteRunRecord, len(plan))
	for i, p := range plan {
		rec, ok := previous[p.Name]
		if !ok {
			rec = benchv1.SuiteRunRecord{Name: p.Name, Database: p.Database.Name, Repeat: p.Repeat}
		}
		rec = *rec.DeepCopy()
		run, exists := runs[p.Name]
		switch {
		case exists:
			observeRun(&rec, run)
		case rec.StartTime != nil && !comparison.Final(rec.Phase):
			now := metav1.Now()
			rec.Phase, rec.Reason, rec.CompletionTime = benchv1.PhaseFailed, "RunDeleted", &now
			rec.Message = "the BenchmarkRun was deleted before it ended"
		}
		records[i] = rec
	}
	return records
}

// databaseGone says whether a run's database has been torn down: none of its objects and none of
// its pods is left (a run tears its database down when it ends). It names what is left.
func (r *Reconciler) databaseGone(ctx context.Context, run *benchv1.BenchmarkRun) (bool, string, error) {
	if run.Spec.Database.External != nil {
		return true, "", nil
	}
	backend := r.engines().Backend(run, nil)
	for _, ref := range backend.Observed(run) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(ref.GVK)
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: ref.Name}, u)
		switch {
		case err == nil:
			return false, ref.GVK.Kind + " " + ref.Name, nil
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		default:
			return false, "", fmt.Errorf("reading %s %s: %w", ref.GVK.Kind, ref.Name, err)
		}
	}
	if selector := backend.DatabasePods(run); selector != nil {
		pods := &corev1.PodList{}
		if err := r.APIReader.List(ctx, pods, client.InNamespace(run.Namespace), client.MatchingLabels(selector)); err != nil {
			return false, "", fmt.Errorf("listing the database pods of %s: %w", run.Name, err)
		}
		if len(pods.Items) > 0 {
			return false, fmt.Sprintf("%d database pods, e.g. %s", len(pods.Items), pods.Items[0].Name), nil
		}
	}
	return true, "", nil
}

// writeComparison writes the comparison ConfigMap: comparison.json, comparison.md and
// report.html (the capacity curves of the runs that still exist).
func (r *Reconciler) writeComparison(ctx context.Context, suite *benchv1.BenchmarkSuite, c comparison.Comparison, curves []comparison.Curve) error {
	body, err := comparison.JSON(c)
	if err != nil {
		return err
	}
	labels := map[string]string{"app.kubernetes.io/managed-by": "tpcc-operator", benchv1.SuiteLabel: suite.Name}
	data := map[string]string{"comparison.json": string(body), "comparison.md": comparison.Markdown(c)}
	if page := comparison.ComparisonHTML(c, curves); len(body)+len(data["comparison.md"])+len(page) <= kube.ConfigMapBudget {
		data["report.html"] = page
	}
	return kube.ApplyConfigMap(ctx, r.Client, r.APIReader, r.Scheme, suite, ComparisonConfigMapName(suite), labels, data, nil, suite.Spec.RetainReports)
}

// curves are the steps of the suite's runs that exist, in the plan's order.
func curves(records []benchv1.SuiteRunRecord, runs map[string]*benchv1.BenchmarkRun) []comparison.Curve {
	var out []comparison.Curve
	for _, rec := range records {
		if run := runs[rec.Name]; run != nil && len(run.Status.Steps) > 0 {
			out = append(out, comparison.Curve{Run: rec.Name, Database: rec.Database, Steps: run.Status.Steps})
		}
	}
	return out
}

// updateStatus writes the suite's status (writeStatus) and announces a phase change.
func (r *Reconciler) updateStatus(ctx context.Context, suite *benchv1.BenchmarkSuite, mutate func(*benchv1.BenchmarkSuiteStatus)) error {
	before, after, err := kube.WriteStatus(ctx, r.APIReader, r.Client, suite, func() *benchv1.BenchmarkSuite { return &benchv1.BenchmarkSuite{} },
		func(o *benchv1.BenchmarkSuite) *benchv1.BenchmarkSuiteStatus { return &o.Status },
		func(current *benchv1.BenchmarkSuite, s *benchv1.BenchmarkSuiteStatus) {
			mutate(s)
			s.ObservedGeneration = current.Generation
			message := ""
			if c := meta.FindStatusCondition(s.Conditions, benchv1.ConditionComplete); c != nil {
				message = c.Message
			}
			kube.EndConditions(&s.Conditions, current.Generation, s.Phase, message)
		})
	if err != nil {
		return err
	}
	kube.AnnouncePhase(r.Recorder, suite, before.Phase, after.Phase)
	return nil
}

func (r *Reconciler) event(suite *benchv1.BenchmarkSuite, eventType, reason, action, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(suite, nil, eventType, reason, action, format, args...)
	}
}

// SetupWithManager registers the reconciler: it watches suites and the runs they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.PollInterval == 0 {
		r.PollInterval = DefaultPollInterval
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&benchv1.BenchmarkSuite{}).
		Owns(&benchv1.BenchmarkRun{}, builder.WithPredicates(runPhaseChanged)).
		Owns(&batchv1.Job{}). // its results writers
		Named("benchmarksuite").
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles}).
		Complete(r)
}

// runPhaseChanged lets through a run's creation, deletion and phase changes, and its end reaching
// the results database: the suite records nothing else of a run until it ends, and a run's live
// progress changes its status every poll.
var runPhaseChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		before, ok1 := e.ObjectOld.(*benchv1.BenchmarkRun)
		after, ok2 := e.ObjectNew.(*benchv1.BenchmarkRun)
		return !ok1 || !ok2 || before.Status.Phase != after.Status.Phase || endWritten(before) != endWritten(after)
	},
}

func endWritten(run *benchv1.BenchmarkRun) bool {
	return run.Status.ResultsDatabase != nil && run.Status.ResultsDatabase.EndWritten
}
